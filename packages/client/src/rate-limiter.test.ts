import { describe, expect, it } from 'vitest';
import { TokenBucketRateLimiter } from './rate-limiter.js';
import type { Clock } from './rate-limiter.js';

/** A manual clock: sleepers wake when `advance` moves time past their deadline. */
class FakeClock implements Clock {
  private t = 0;
  private sleepers: { until: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  readonly sleeps: number[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((resolve, reject) => {
      const entry = { until: this.t + ms, resolve, reject };
      this.sleepers.push(entry);
      signal?.addEventListener('abort', () => {
        this.sleepers = this.sleepers.filter((s) => s !== entry);
        reject(signal.reason as Error);
      });
    });
  }

  advance(ms: number): void {
    this.t += ms;
    const due = this.sleepers.filter((s) => s.until <= this.t);
    this.sleepers = this.sleepers.filter((s) => s.until > this.t);
    for (const s of due) s.resolve();
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
