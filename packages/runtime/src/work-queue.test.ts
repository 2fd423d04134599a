import { describe, expect, it } from 'vitest';
import { FakeClock } from './testing/fake-clock.js';
import { defaultControllerRateLimiter, ExponentialFailureRateLimiter, BucketRateLimiter } from './rate-limiter.js';
import { WorkQueue, type WorkQueueMetrics } from './work-queue.js';

function recordingMetrics(): WorkQueueMetrics & {
  adds: number;
  retries: number;
  depths: number[];
  latencies: number[];
  durations: number[];
} {
  const m = {
    adds: 0,
    retries: 0,
    depths: [] as number[],
    latencies: [] as number[],
    durations: [] as number[],
    add: () => void m.adds++,
    depth: (n: number) => void m.depths.push(n),
    queueLatency: (s: number) => void m.latencies.push(s),
    workDuration: (s: number) => void m.durations.push(s),
    retry: () => void m.retries++,
  };
  return m;
}

describe('WorkQueue', () => {
  it('collapses duplicate adds while a key is pending', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.length).toBe(0);
  });

  it('never hands out a key that is being processed, and re-queues it after done', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a');
    expect(await q.get()).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.length).toBe(0);
    let second: string | undefined;
    const pending = q.get().then((k) => (second = k));
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done('a');
    await pending;
    expect(second).toBe('a');
    q.done('a');
    expect(q.length).toBe(0);
  });

  it('keeps keys in FIFO order and serves a waiting get as soon as a key arrives', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    const got = q.get();
    q.add('x');
    expect(await got).toBe('x');
  });

  it('hands out a key added for an event of its own before every key of a low-priority fan-out', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    for (const k of ['r1', 'r2', 'r3']) q.add(k, { priority: 'low' });
    q.add('user');
    expect(q.length).toBe(4);
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) order.push(await q.get());
    expect(order).toEqual(['user', 'r1', 'r2', 'r3']);
  });

  it('promotes a waiting low-priority key added again at normal priority, and never demotes one', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    for (const k of ['r1', 'r2', 'r3']) q.add(k, { priority: 'low' });
    q.add('n1');
    q.add('r3');
    q.add('n1', { priority: 'low' });
    expect(q.length).toBe(4);
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) order.push(await q.get());
    expect(order).toEqual(['n1', 'r3', 'r1', 'r2']);
  });

  it('re-queues a key added at normal priority while it was processed ahead of low-priority keys', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a', { priority: 'low' });
    expect(await q.get()).toBe('a');
    q.add('a', { priority: 'low' });
    q.add('b', { priority: 'low' });
    q.add('a');
    q.done('a');
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('delays addAfter on the clock and keeps the earliest of several delays', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('a', 500);
    await clock.advance(49);
    expect(q.length).toBe(0);
    await clock.advance(1);
    expect(q.length).toBe(1);
    await clock.advance(1000);
    expect(q.length).toBe(1);
  });

  it('backs off a failing key from 5 ms, doubling, and forgets on success', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock, rateLimiter: new ExponentialFailureRateLimiter() });
    for (const delay of [5, 10, 20, 40]) {
      q.addRateLimited('a');
      await clock.advance(delay - 1);
      expect(q.length).toBe(0);
      await clock.advance(1);
      expect(await q.get()).toBe('a');
      q.done('a');
    }
    expect(q.numRequeues('a')).toBe(4);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });

  it.each([
    [0, 5],
    [1, 10],
    [10, 5120],
    [17, 655_360],
    [18, 1_000_000],
    [60, 1_000_000],
    [2000, 1_000_000],
  ])('per-key backoff after %i failures is %i ms (capped at 1000 s)', (failures, expected) => {
    const limiter = new ExponentialFailureRateLimiter();
    for (let i = 0; i < failures; i++) limiter.when('k');
    expect(limiter.when('k')).toBe(expected);
  });

  it('spreads retries beyond the burst through the overall token bucket', async () => {
    const clock = new FakeClock();
    const bucket = new BucketRateLimiter({ clock, qps: 10, burst: 100 });
    const delays = Array.from({ length: 102 }, () => bucket.when());
    expect(delays.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(delays[100]).toBeCloseTo(100);
    expect(delays[101]).toBeCloseTo(200);
    await clock.advance(10_000);
    expect(bucket.when()).toBe(0);
  });

  it('combines per-key backoff and the bucket as the larger delay', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter({ clock, qps: 1, burst: 1 });
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('b')).toBeCloseTo(1000);
    expect(limiter.numRequeues('a')).toBe(1);
  });

  it('stops handing out keys at shutdown and drains the work in flight', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.add('a');
    q.add('b');
    q.addAfter('c', 10);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    const idle = q.get();
    let drained = false;
    const shutdown = q.shutdown({ drain: true }).then(() => (drained = true));
    expect(await idle).toBeUndefined();
    expect(await q.get()).toBeUndefined();
    q.add('d');
    await clock.advance(100);
    expect(drained).toBe(false);
    q.done('a');
    await clock.advance(1);
    expect(drained).toBe(false);
    q.done('b');
    await shutdown;
    expect(drained).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('resolves a get waiting on an aborted signal with undefined', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    const ac = new AbortController();
    const got = q.get(ac.signal);
    ac.abort();
    expect(await got).toBeUndefined();
    q.add('a');
    expect(await q.get()).toBe('a');
  });

  it('reports adds, depth, latency, work duration and retries', async () => {
    const clock = new FakeClock();
    const metrics = recordingMetrics();
    const q = new WorkQueue({ clock, metrics });
    q.add('a');
    q.add('a');
    await clock.advance(250);
    expect(await q.get()).toBe('a');
    await clock.advance(1500);
    q.done('a');
    q.addRateLimited('a');
    expect(metrics.adds).toBe(2);
    expect(metrics.depths).toEqual([1, 0]);
    expect(metrics.latencies).toEqual([0.25]);
    expect(metrics.durations).toEqual([1.5]);
    expect(metrics.retries).toBe(1);
  });
});
