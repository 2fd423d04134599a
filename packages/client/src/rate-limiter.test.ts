import { describe, expect, it } from 'vitest';
import { TokenBucketRateLimiter } from './rate-limiter.js';
import type { Clock, TimerHandle } from './clock.js';

/** A manual clock: timers fire when `advance` moves time past their deadline. */
class FakeClock implements Clock {
  private t = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private nextId = 1;
  readonly sleeps: number[] = [];

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    this.sleeps.push(ms);
    const id = this.nextId++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  advance(ms: number): void {
    this.t += ms;
    for (const [id, timer] of [...this.timers]) {
      if (timer.at > this.t) continue;
      this.timers.delete(id);
      timer.fn();
    }
  }
}

describe('TokenBucketRateLimiter', () => {
  it('lets a full burst through without waiting', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 10, burst: 5, clock });
    for (let i = 0; i < 5; i++) await limiter.acquire();
    expect(clock.sleeps).toEqual([]);
    expect(limiter.tryAcquire()).toBe(false);
  });

  it('makes requests beyond the burst wait 1/qps each, in order', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 10, burst: 1, clock });
    await limiter.acquire();
    const done: number[] = [];
    const second = limiter.acquire().then(() => done.push(2));
    const third = limiter.acquire().then(() => done.push(3));
    expect(clock.sleeps).toEqual([100, 200]);
    clock.advance(100);
    await second;
    expect(done).toEqual([2]);
    clock.advance(100);
    await third;
    expect(done).toEqual([2, 3]);
  });

  it('refills at qps up to the burst while idle', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 2, burst: 3, clock });
    for (let i = 0; i < 3; i++) expect(limiter.tryAcquire()).toBe(true);
    expect(limiter.tryAcquire()).toBe(false);
    clock.advance(500);
    expect(limiter.tryAcquire()).toBe(true);
    expect(limiter.tryAcquire()).toBe(false);
    clock.advance(60_000);
    for (let i = 0; i < 3; i++) expect(limiter.tryAcquire()).toBe(true);
    expect(limiter.tryAcquire()).toBe(false);
  });

  it('uses qps 50 and burst 100 by default', () => {
    const limiter = new TokenBucketRateLimiter({ clock: new FakeClock() });
    expect([limiter.qps, limiter.burst]).toEqual([50, 100]);
  });

  it('never waits when qps is not positive', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 0, burst: 1, clock });
    for (let i = 0; i < 10; i++) await limiter.acquire();
    expect(clock.sleeps).toEqual([]);
  });

  it('gives the token back when the waiter aborts', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 1, burst: 1, clock });
    await limiter.acquire();
    const ac = new AbortController();
    const waiting = limiter.acquire(ac.signal);
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    clock.advance(1000);
    expect(limiter.tryAcquire()).toBe(true);
  });
});
