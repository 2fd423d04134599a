// RetriesOnReady against real Redis and BullMQ: a job that failed while its member could not be
// reached waits for a long retry backoff; once the member is Ready again the job runs at once.
import { BullMqJobProducer, createRedisConnection, SyncWorkerHost, type SyncJob } from '@kubefed/queue';
import { startRedis, type RedisHandle } from '@kubefed/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RetriesOnReady } from '../src/index.js';

let redis: RedisHandle;
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The Ready set of a fleet, changed by the test. */
class ReadySet {
  #ready: string[] = [];
  readonly #listeners = new Set<(ready: readonly string[]) => void>();

  readyClusters(): ReadonlyMap<string, never> {
    return new Map(this.#ready.map((c) => [c, undefined as never]));
  }

  onChange(listener: (ready: readonly string[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  set(ready: string[]): void {
    this.#ready = ready;
    for (const l of this.#listeners) l(ready);
  }
}

const job: SyncJob = { kind: 'sync', federatedType: 'configmaps', namespace: 'demo', name: 'web', cluster: 'member1' };

async function setup(): Promise<{ fleet: ReadySet; producer: BullMqJobProducer; retried: string[]; completed: string[] }> {
  const prefix = redis.prefix('retries-on-ready');
  const producerConnection = createRedisConnection(redis.url, { role: 'producer' });
  const workerConnection = createRedisConnection(redis.url, { role: 'worker' });
  // A first retry a minute after the failure: far beyond every wait of this test.
  const producer = new BullMqJobProducer({ connection: producerConnection, prefix, retry: { backoffDelayMs: 60_000, jitter: 0 } });
  const completed: string[] = [];
  let attempts = 0;
  const host = await SyncWorkerHost.start({
    connection: workerConnection,
    prefix,
    clusters: ['member1'],
    processor: (j) => (++attempts === 1 ? Promise.reject(new Error('connect ECONNREFUSED')) : Promise.resolve(void completed.push(j.name))),
  });
  const fleet = new ReadySet();
  fleet.set(['member1']);
  const retried: string[] = [];
  const runnable = new RetriesOnReady({
    fleet,
    producer: { retryNow: (cluster) => (retried.push(cluster), producer.retryNow(cluster)) },
  });
  const stop = new AbortController();
  const running = runnable.start(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    await running;
    await host.close({ timeoutMs: 2000 });
    await producer.close();
    producerConnection.disconnect();
    workerConnection.disconnect();
  });
  return { fleet, producer, retried, completed };
}

describe('RetriesOnReady', () => {
  it('runs the jobs of a member waiting for a retry backoff as soon as the member is Ready again', async () => {
    const { fleet, producer, retried, completed } = await setup();
    await producer.enqueue(job);
    await expect.poll(async () => (await producer.counts('member1')).delayed).toBe(1);

    fleet.set([]);
    expect(retried).toEqual([]);
    fleet.set(['member1']);
    expect(retried).toEqual(['member1']);
    await expect.poll(() => completed).toEqual(['web']);
    expect(await producer.counts('member1')).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  it('leaves the backoffs of a member that stayed Ready alone', async () => {
    const { fleet, producer, retried } = await setup();
    await producer.enqueue(job);
    await expect.poll(async () => (await producer.counts('member1')).delayed).toBe(1);

    fleet.set(['member1', 'member2']);
    expect(retried).toEqual(['member2']);
    // member2's queue has nothing waiting; member1's job still waits for its backoff.
    expect((await producer.counts('member1')).delayed).toBe(1);
  });
});
