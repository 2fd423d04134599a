import { ValidationError } from '@kubefed/api';
import { consistently, startRedis, type RedisHandle } from '@kubefed/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Queue } from 'bullmq';
import { BullMqJobProducer, type RetryPolicy } from './bullmq-job-producer.js';
import { PermanentSyncError, QueueError } from './queue-error.js';
import { createRedisConnection, type RedisConnection } from './redis-connection.js';
import type { SyncJob } from './sync-job.js';
import { syncRequestId } from './sync-request.js';
import { type SyncJobTiming, SyncWorkerHost, type SyncWorkerHostOptions } from './sync-worker-host.js';

let redis: RedisHandle;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  redis = await startRedis({ url: process.env.REDIS_URL });
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  const failures: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, 'cleanup failed');
});

function connection(role: 'worker' | 'producer'): RedisConnection {
  const c = createRedisConnection(redis.url, { role });
  cleanups.push(() => Promise.resolve(c.disconnect()));
  return c;
}

/** A fresh BullMQ prefix with a producer on it. */
function setup(retry: RetryPolicy = { attempts: 3, backoffDelayMs: 10, jitter: 0 }) {
  const prefix = redis.prefix('queue');
  const producer = new BullMqJobProducer({ connection: connection('producer'), prefix, retry });
  cleanups.push(() => producer.close());
  const startHost = async (options: Omit<SyncWorkerHostOptions, 'connection' | 'prefix'>): Promise<SyncWorkerHost> => {
    const host = await SyncWorkerHost.start({ ...options, connection: connection('worker'), prefix });
    cleanups.push(() => host.close({ timeoutMs: 2000 }));
    return host;
  };
  return { prefix, producer, startHost };
}

/** A promise the test resolves by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const job = (name: string, cluster = 'member1', kind: SyncJob['kind'] = 'sync'): SyncJob => ({
  kind,
  federatedType: 'deployments.apps',
  namespace: 'web-ns',
  name,
  cluster,
});

const idle = { waiting: 0, active: 0, delayed: 0, failed: 0 };
/** Generous bound for eventual assertions: the machine running the tests may be loaded. */
const waitMs = 10_000;

describe('SyncWorkerHost', () => {
  it('processes an enqueued job on its cluster queue and reports completion', async () => {
    const { producer, startHost } = setup();
    const seen: SyncJob[] = [];
    const completed: string[] = [];
    await startHost({
      clusters: ['member1'],
      processor: (j) => Promise.resolve(void seen.push(j)),
      onCompleted: (j, info) => completed.push(`${j.name}@${info.cluster}`),
    });
    await producer.enqueue(job('web'));
    await vi.waitFor(() => expect(completed).toEqual(['web@member1']), { timeout: waitMs });
    expect(seen).toEqual([job('web')]);
  });

  it('runs a job enqueued at normal priority before the low-priority jobs already waiting on its queue', async () => {
    const { producer, startHost } = setup();
    const fanOut = Array.from({ length: 20 }, (_, i) => job(`resync-${i}`));
    await producer.enqueueBulk(fanOut, { priority: 'low' });
    await producer.enqueueBulk([job('user-change')]);
    expect(await producer.counts('member1')).toEqual({ ...idle, waiting: 21 });
    const order: string[] = [];
    await startHost({ clusters: ['member1'], defaults: { concurrency: 1 }, processor: (j) => Promise.resolve(void order.push(j.name)) });
    await vi.waitFor(() => expect(order).toHaveLength(21), { timeout: waitMs });
    expect(order).toEqual(['user-change', ...fanOut.map((j) => j.name)]);
  });

  it('raises a waiting low-priority job to normal priority when a change of its key collapses into it', async () => {
    const { producer, startHost } = setup();
    const fanOut = Array.from({ length: 20 }, (_, i) => job(`resync-${i}`));
    await producer.enqueueBulk(fanOut, { priority: 'low' });
    await producer.enqueue(job('resync-19'));
    await producer.enqueueBulk([job('resync-10')]);
    expect(await producer.counts('member1')).toEqual({ ...idle, waiting: 20 });
    const order: string[] = [];
    await startHost({ clusters: ['member1'], defaults: { concurrency: 1 }, processor: (j) => Promise.resolve(void order.push(j.name)) });
    await vi.waitFor(() => expect(order).toHaveLength(20), { timeout: waitMs });
    expect(order.slice(0, 2)).toEqual(['resync-19', 'resync-10']);
    expect(order.slice(2)).toEqual(fanOut.map((j) => j.name).filter((n) => n !== 'resync-19' && n !== 'resync-10'));
  });

  it('collapses 100 enqueues of a busy key into one more run', async () => {
    const { producer, startHost } = setup();
    const release = gate();
    let runs = 0;
    const host = await startHost({
      clusters: ['member1'],
      processor: async () => {
        runs++;
        if (runs === 1) await release.promise;
      },
    });
    await producer.enqueue(job('web'));
    await vi.waitFor(() => expect(runs).toBe(1), { timeout: waitMs });
    for (let i = 0; i < 100; i++) await producer.enqueue(job('web'));
    release.open();
    await vi.waitFor(() => expect(runs).toBe(2), { timeout: waitMs });
    await vi.waitFor(async () => expect(await host.counts('member1')).toEqual(idle), { timeout: waitMs });
    await consistently(() => expect(runs).toBe(2), { durationMs: 300 });
  });

  it('runs a key once for 100 enqueues made while no worker serves the queue', async () => {
    const { producer, startHost } = setup();
    for (let i = 0; i < 100; i++) await producer.enqueue(job('web'));
    await producer.enqueueBulk(Array.from({ length: 50 }, () => job('web')));
    expect(await producer.counts('member1')).toMatchObject({ waiting: 1 });
    let runs = 0;
    await startHost({ clusters: ['member1'], processor: () => Promise.resolve(void runs++) });
    await vi.waitFor(() => expect(runs).toBe(1), { timeout: waitMs });
    await consistently(() => expect(runs).toBe(1), { durationMs: 300 });
  });

  it('keeps completing jobs of one cluster while another cluster is stuck', async () => {
    const { producer, startHost } = setup();
    const stuck = gate();
    const done: string[] = [];
    const host = await startHost({
      clusters: ['slow', 'fast'],
      perCluster: { slow: { concurrency: 1 } },
      processor: async (j) => {
        if (j.cluster === 'slow') await stuck.promise;
        done.push(`${j.name}@${j.cluster}`);
      },
    });
    // Runs before the host's close (cleanups run in reverse), so close does not wait for it.
    cleanups.push(() => Promise.resolve(stuck.open()));
    const names = ['a', 'b', 'c', 'd', 'e'];
    await producer.enqueueBulk(names.flatMap((n) => [job(n, 'slow'), job(n, 'fast')]));
    await vi.waitFor(() => expect(done.sort()).toEqual(names.map((n) => `${n}@fast`)), { timeout: waitMs });
    // The slow worker takes its first job on its own schedule: poll rather than read once.
    await vi.waitFor(async () => expect(await host.counts('slow')).toEqual({ waiting: 4, active: 1, delayed: 0, failed: 0 }), {
      timeout: waitMs,
    });
  });

  it('retries a failing job with growing backoff until it succeeds', async () => {
    const { producer, startHost } = setup({ attempts: 5, backoffDelayMs: 50, jitter: 0 });
    const starts: { attempt: number; at: number }[] = [];
    const failures: { final: boolean; attempt: number }[] = [];
    const completed: string[] = [];
    await startHost({
      clusters: ['member1'],
      processor: (_j, ctx) => {
        starts.push({ attempt: ctx.attempt, at: Date.now() });
        return ctx.attempt < 3 ? Promise.reject(new Error('member1 answered 500')) : Promise.resolve();
      },
      onFailed: (_j, _err, info) => failures.push({ final: info.final, attempt: info.attempt }),
      onCompleted: (j) => completed.push(j.name),
    });
    await producer.enqueue(job('web'));
    await vi.waitFor(() => expect(completed).toEqual(['web']), { timeout: waitMs });
    expect(starts.map((s) => s.attempt)).toEqual([1, 2, 3]);
    expect(failures).toEqual([
      { final: false, attempt: 1 },
      { final: false, attempt: 2 },
    ]);
    const [first, second, third] = starts;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(45);
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(95);
  });

  it('starts the retries of a job from the first delay the host gives for its error, doubling from there', async () => {
    const { producer, startHost } = setup({ attempts: 5, backoffDelayMs: 10, jitter: 0 });
    class Unreachable extends Error {}
    const starts: { name: string; at: number }[] = [];
    const completed: string[] = [];
    await startHost({
      clusters: ['member1'],
      processor: (j, ctx) => {
        starts.push({ name: j.name, at: Date.now() });
        if (ctx.attempt >= 3) return Promise.resolve();
        return Promise.reject(j.name === 'unreachable' ? new Unreachable('connect ECONNREFUSED') : new Error('member1 answered 409'));
      },
      firstRetryDelayMs: (err) => (err instanceof Unreachable ? 300 : undefined),
      onCompleted: (j) => completed.push(j.name),
    });
    await producer.enqueueBulk([job('unreachable'), job('conflict')]);
    await vi.waitFor(() => expect(completed.sort()).toEqual(['conflict', 'unreachable']), { timeout: waitMs });
    const gaps = (name: string): number[] => {
      const at = starts.filter((s) => s.name === name).map((s) => s.at);
      return at.slice(1).map((t, i) => t - at[i]!);
    };
    const [first, second] = gaps('unreachable');
    expect(first).toBeGreaterThanOrEqual(290);
    expect(second).toBeGreaterThanOrEqual(590);
    // The other error keeps the producer's delays (10 ms, 20 ms): retried twice before the first retry of the other job.
    const firstRetry = (name: string): number => starts.filter((s) => s.name === name)[1]!.at;
    expect(starts.filter((s) => s.name === 'conflict')).toHaveLength(3);
    expect(firstRetry('conflict')).toBeLessThan(firstRetry('unreachable'));
  });

  it('times each attempt: how long the first one waited in the queue since the enqueue, how long each ran, and its result', async () => {
    const { producer, startHost } = setup({ attempts: 5, backoffDelayMs: 10, jitter: 0 });
    const timings: SyncJobTiming[] = [];
    const enqueuedAt = Date.now();
    await producer.enqueue(job('web'));
    // No worker serves the queue yet: the job waits at least this long.
    await vi.waitFor(() => expect(Date.now() - enqueuedAt).toBeGreaterThanOrEqual(150), { timeout: waitMs });
    const waitedAtLeast = Date.now() - enqueuedAt - 20;
    await startHost({
      clusters: ['member1'],
      processor: async (_j, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        if (ctx.attempt === 1) throw new Error('member1 answered 500');
      },
      onTimed: (t) => timings.push(t),
    });
    await vi.waitFor(() => expect(timings).toHaveLength(2), { timeout: waitMs });
    const [first, second] = timings as [SyncJobTiming, SyncJobTiming];
    expect(first).toMatchObject({ cluster: 'member1', succeeded: false });
    expect(first.queuedMs).toBeGreaterThanOrEqual(waitedAtLeast);
    expect(first.runMs).toBeGreaterThanOrEqual(25);
    // A retry's wait is its backoff, not queueing: only first attempts report one.
    expect(second).toMatchObject({ cluster: 'member1', succeeded: true, queuedMs: undefined });
    expect(second.runMs).toBeGreaterThanOrEqual(25);
  });

  it('retries a failing job beyond any fixed attempt count by default, with the delay capped', async () => {
    const { producer, startHost } = setup({ backoffDelayMs: 5, jitter: 0 });
    const attempts: number[] = [];
    const completed: string[] = [];
    await startHost({
      clusters: ['member1'],
      maxBackoffMs: 20,
      processor: (_j, ctx) => {
        attempts.push(ctx.attempt);
        return ctx.attempt < 12 ? Promise.reject(new Error('member1 answered 500')) : Promise.resolve();
      },
      onCompleted: (j) => completed.push(j.name),
    });
    await producer.enqueue(job('web'));
    await vi.waitFor(() => expect(completed).toEqual(['web']), { timeout: waitMs });
    expect(attempts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('enqueues a job again after the maximum backoff when it used up a configured attempt limit', async () => {
    const { producer, startHost } = setup({ attempts: 2, backoffDelayMs: 5, jitter: 0 });
    let runs = 0;
    const finals: number[] = [];
    const completed: string[] = [];
    await startHost({
      clusters: ['member1'],
      maxBackoffMs: 50,
      processor: () => (++runs <= 3 ? Promise.reject(new Error('member1 answered 500')) : Promise.resolve()),
      onFailed: (_j, _err, info) => {
        if (info.final) finals.push(info.attempt);
      },
      onCompleted: (j) => completed.push(j.name),
    });
    await producer.enqueue(job('web'));
    await vi.waitFor(() => expect(completed).toEqual(['web']), { timeout: waitMs });
    expect(runs).toBe(4);
    expect(finals).toEqual([2]);
  });

  it('fails a job for good without retry when the processor throws PermanentSyncError', async () => {
    const { producer, startHost } = setup({ attempts: 5, backoffDelayMs: 10, jitter: 0 });
    let runs = 0;
    const failures: { job: SyncJob | undefined; err: Error; final: boolean }[] = [];
    const host = await startHost({
      clusters: ['member1'],
      processor: () => {
        runs++;
        return Promise.reject(new PermanentSyncError('type deployments.apps is not enabled'));
      },
      onFailed: (j, err, info) => failures.push({ job: j, err, final: info.final }),
    });
    await producer.enqueue(job('web'));
    await vi.waitFor(() => expect(failures).toHaveLength(1), { timeout: waitMs });
    expect(failures[0]!.job).toEqual(job('web'));
    expect(failures[0]!.err).toBeInstanceOf(PermanentSyncError);
    expect(failures[0]!.final).toBe(true);
    await consistently(() => expect(runs).toBe(1), { durationMs: 300 });
    expect(await host.counts('member1')).toEqual({ ...idle, failed: 1 });
  });

  it('never runs the same key twice at once across two hosts on separate connections', async () => {
    const { producer, startHost } = setup();
    const inFlight = new Map<string, number>();
    let overlaps = 0;
    let runs = 0;
    const processor = async (j: SyncJob): Promise<void> => {
      const key = syncRequestId(j);
      const now = (inFlight.get(key) ?? 0) + 1;
      inFlight.set(key, now);
      if (now > 1) overlaps++;
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
    };
    const hostA = await startHost({ clusters: ['member1'], processor });
    await startHost({ clusters: ['member1'], processor });
    const keys = Array.from({ length: 10 }, (_, i) => `web-${i}`);
    for (let round = 0; round < 20; round++) {
      await producer.enqueueBulk(keys.map((k) => job(k)));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await vi.waitFor(async () => expect(await hostA.counts('member1')).toEqual(idle), { timeout: waitMs });
    await consistently(async () => expect(await hostA.counts('member1')).toEqual(idle), { durationMs: 200 });
    expect(runs).toBeGreaterThanOrEqual(keys.length);
    expect(overlaps).toBe(0);
  });

  it('removes a cluster: stops its worker after the running job and deletes the queue keys', async () => {
    const { prefix, producer, startHost } = setup();
    const running = gate();
    let runs = 0;
    const host = await startHost({
      clusters: ['member1', 'member2'],
      perCluster: { member1: { concurrency: 1 } },
      processor: async (j) => {
        if (j.cluster !== 'member1') return;
        runs++;
        await running.promise;
      },
    });
    await producer.enqueueBulk([job('a'), job('b'), job('c'), job('a', 'member2')]);
    await vi.waitFor(() => expect(runs).toBe(1), { timeout: waitMs });
    const removed = host.removeCluster('member1', { drain: true });
    running.open();
    await removed;
    expect(host.clusters()).toEqual(['member2']);
    expect(runs).toBe(1);
    const keys = connection('producer');
    expect(await keys.keys(`${prefix}:kubefed-sync.member1:*`)).toEqual([]);
    expect(await keys.keys(`${prefix}:kubefed-sync.member2:*`)).not.toEqual([]);
  });

  it('hands a running job back to the queue without spending an attempt when close times out', async () => {
    const { producer, startHost } = setup();
    let started = 0;
    const failures: Error[] = [];
    const first = await startHost({
      clusters: ['member1'],
      processor: (_j, ctx) => {
        started++;
        return new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => reject(new Error('member1 call aborted')));
        });
      },
      onFailed: (_j, err) => failures.push(err),
    });
    await producer.enqueue(job('web'));
    await vi.waitFor(() => expect(started).toBe(1), { timeout: waitMs });
    await first.close({ timeoutMs: 100 });
    expect(failures).toEqual([]);
    expect(await producer.counts('member1')).toEqual({ ...idle, waiting: 1 });

    const attempts: number[] = [];
    await startHost({ clusters: ['member1'], processor: (_j, ctx) => Promise.resolve(void attempts.push(ctx.attempt)) });
    await vi.waitFor(() => expect(attempts).toEqual([1]), { timeout: waitMs });
  });

  it('finishes closing when a processor ignores the abort, leaving its job running', async () => {
    const { producer, startHost } = setup();
    const stuck = gate();
    let runs = 0;
    let completed = 0;
    const host = await startHost({
      clusters: ['member1'],
      processor: async () => {
        runs++;
        await stuck.promise;
      },
      onCompleted: () => completed++,
    });
    cleanups.push(() => Promise.resolve(stuck.open()));
    await producer.enqueue(job('web'));
    await vi.waitFor(() => expect(runs).toBe(1), { timeout: waitMs });
    let closed = false;
    void host.close({ timeoutMs: 100 }).then(() => {
      closed = true;
    });
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: waitMs });
    expect(await producer.counts('member1')).toEqual({ ...idle, active: 1 });
    // The left-behind processor still owns its job: let it finish before the connections close.
    stuck.open();
    await vi.waitFor(() => expect(completed).toBe(1), { timeout: waitMs });
    expect(await producer.counts('member1')).toEqual(idle);
  });

  it('refuses to start on a producer connection, naming the role it needs', async () => {
    const { prefix } = setup();
    const started = SyncWorkerHost.start({
      connection: connection('producer'),
      prefix,
      clusters: ['member1'],
      processor: () => Promise.resolve(),
    });
    await expect(started).rejects.toBeInstanceOf(QueueError);
    await expect(started).rejects.toThrow(/needs a worker connection: use createRedisConnection\(url, \{ role: 'worker' \}\)/);
  });

  it('rejects an invalid payload at both ends, naming the field', async () => {
    const { prefix, producer, startHost } = setup();
    await expect(producer.enqueue({ ...job('web'), cluster: 'Member1' })).rejects.toThrow(ValidationError);
    await expect(producer.enqueue({ ...job('web'), cluster: 'Member1' })).rejects.toThrow(/cluster: must be a DNS-1123 subdomain/);

    let runs = 0;
    const failures: { job: SyncJob | undefined; err: Error; final: boolean }[] = [];
    await startHost({
      clusters: ['member1'],
      processor: () => Promise.resolve(void runs++),
      onFailed: (j, err, info) => failures.push({ job: j, err, final: info.final }),
    });
    const raw = new Queue('kubefed-sync.member1', { connection: connection('producer'), prefix });
    cleanups.push(() => raw.close());
    await raw.add('sync', { kind: 'sync', name: 'web', cluster: 'member1' }, { attempts: 5 });
    await vi.waitFor(() => expect(failures).toHaveLength(1), { timeout: waitMs });
    expect(failures[0]!.job).toBeUndefined();
    expect(failures[0]!.err).toBeInstanceOf(ValidationError);
    expect(failures[0]!.err.message).toMatch(/federatedType: Required value/);
    expect(failures[0]!.final).toBe(true);
    expect(runs).toBe(0);
  });
});
