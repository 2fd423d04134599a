// A worker process killed with SIGKILL while it holds a job: another worker takes the job over
// once the dead worker's lock lapsed (it is not renewed any more), and no key runs twice at once.
import { consistently, ManagedProcess, sourceEntry, startRedis, type RedisHandle } from '@kubefed/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BullMqJobProducer } from '../src/bullmq-job-producer.js';
import { createRedisConnection } from '../src/redis-connection.js';
import type { SyncJob } from '../src/sync-job.js';
import { SyncWorkerHost } from '../src/sync-worker-host.js';

let redis: RedisHandle;
beforeAll(async () => {
  redis = await startRedis({ url: process.env.REDIS_URL });
});
afterAll(async () => {
  await redis.stop();
});

const job = (name: string): SyncJob => ({ kind: 'sync', federatedType: 'configmaps', namespace: 'app', name, cluster: 'member1' });

describe('SyncWorkerHost after a worker process is killed', () => {
  it('takes over the jobs the killed worker held, running each once', async () => {
    const prefix = redis.prefix('crash');
    const producerConnection = createRedisConnection(redis.url, { role: 'producer' });
    const workerConnection = createRedisConnection(redis.url, { role: 'worker' });
    const producer = new BullMqJobProducer({ connection: producerConnection, prefix });
    const stuck = new ManagedProcess('stuck-worker', sourceEntry('packages/queue/test/stuck-worker.ts').concat([redis.url, prefix]));
    let host: SyncWorkerHost | undefined;
    try {
      await stuck.waitForLine(/"ready":true/, { timeoutMs: 60_000 });
      const names = ['a', 'b', 'c'];
      await producer.enqueueBulk(names.map(job));
      for (const n of names)
        await stuck.waitForLine(new RegExp(`"started":"configmaps/app/${n}@member1"`), { fromStart: true, timeoutMs: 60_000 });
      await stuck.kill();

      const runs: string[] = [];
      host = await SyncWorkerHost.start({
        connection: workerConnection,
        prefix,
        clusters: ['member1'],
        // Short, so that the test does not wait for the defaults; the mechanism is the same.
        lockDurationMs: 2000,
        stalledCheckIntervalMs: 500,
        processor: (j) => Promise.resolve(void runs.push(j.name)),
      });
      // The dead worker's locks lapse (15 s, the default it ran with) and a stalled check hands the jobs back.
      await vi.waitFor(() => expect([...runs].sort()).toEqual(names), { timeout: 90_000, interval: 200 });
      // The processor records the name before BullMQ moves the job out of the active list.
      await vi.waitFor(async () => expect(await producer.counts('member1')).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 }), {
        timeout: 5000,
      });
    } finally {
      await stuck.kill();
      await host?.close({ timeoutMs: 2000 });
      await producer.close();
      producerConnection.disconnect();
      workerConnection.disconnect();
    }
  }, 180_000);

  it('never hands a job to another worker while its live worker runs it longer than the lock lasts', async () => {
    const prefix = redis.prefix('renew');
    const connections = [
      createRedisConnection(redis.url, { role: 'producer' }),
      createRedisConnection(redis.url, { role: 'worker' }),
      createRedisConnection(redis.url, { role: 'worker' }),
    ] as const;
    const producer = new BullMqJobProducer({ connection: connections[0], prefix });
    const hosts: SyncWorkerHost[] = [];
    try {
      const runs: string[] = [];
      let release = (): void => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const settings = { prefix, clusters: ['member1'], lockDurationMs: 1000, stalledCheckIntervalMs: 200 } as const;
      const processor = async (j: SyncJob): Promise<void> => {
        runs.push(j.name);
        await released;
      };
      for (const connection of connections.slice(1)) hosts.push(await SyncWorkerHost.start({ ...settings, connection, processor }));
      await producer.enqueue(job('long'));
      await vi.waitFor(() => expect(runs).toEqual(['long']), { timeout: 30_000 });
      // Five lock durations: the lock is renewed every half of it, so no stalled check takes the job.
      await consistently(() => expect(runs).toEqual(['long']), {
        durationMs: 5000,
        intervalMs: 100,
        message: 'runs of a job whose worker is alive',
      });
      release();
      await vi.waitFor(async () => expect(await producer.counts('member1')).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 }), {
        timeout: 30_000,
      });
      expect(runs).toEqual(['long']);
    } finally {
      for (const h of hosts) await h.close({ timeoutMs: 2000 });
      await producer.close();
      for (const c of connections) c.disconnect();
    }
  }, 120_000);
});
