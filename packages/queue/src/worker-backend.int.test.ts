import { startRedis, type RedisHandle } from '@kubefed/testing';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConnection } from './redis-connection.js';
import { syncWorkerBackend } from './worker-backend.js';

let redis: RedisHandle;

beforeAll(async () => {
  redis = await startRedis({ url: process.env.REDIS_URL });
});
afterAll(async () => {
  await redis.stop();
});

/** The Lua scripts an ioredis client has defined (ioredis keeps them in `scriptsSet`). */
const scriptsOf = (client: unknown): number => Object.keys((client as { scriptsSet: Record<string, unknown> }).scriptsSet).length;

describe('syncWorkerBackend', () => {
  it('gives a worker a blocking connection without scripts that still fetches jobs, and keeps its connection name', async () => {
    const connection = createRedisConnection(redis.url, { role: 'worker' });
    const prefix = redis.prefix('worker-backend');
    const queue = new Queue('kubefed-sync.member1', { connection, prefix });
    const done: string[] = [];
    const worker = new Worker(
      'kubefed-sync.member1',
      (job) => {
        done.push(String(job.data.name));
        return Promise.resolve();
      },
      { connection, prefix, name: 'w1' },
      syncWorkerBackend(connection),
    );
    const plain = new Worker('kubefed-sync.member2', () => Promise.resolve(), { connection, prefix, autorun: false });
    try {
      await worker.waitUntilReady();
      await plain.waitUntilReady();
      // BullMQ's own backend defines every script on the blocking duplicate; ours none, while the
      // shared connection the worker runs its scripts on has them all.
      const ownBlocking = await worker.getBackend().blockingClient;
      const plainBlocking = await plain.getBackend().blockingClient;
      expect(scriptsOf(plainBlocking)).toBeGreaterThan(40);
      expect(scriptsOf(ownBlocking)).toBe(0);
      expect(scriptsOf(connection)).toBeGreaterThan(40);

      await queue.add('sync', { name: 'a' });
      await queue.add('sync', { name: 'b' }, { delay: 200 });
      await expect.poll(() => [...done].sort()).toEqual(['a', 'b']);
      // Queue.getWorkers finds workers by their blocking connection's name.
      const workers = await queue.getWorkers();
      expect(workers.map((w) => [w['name'], w['rawname']])).toEqual([
        ['kubefed-sync.member1', `${prefix}:${Buffer.from('kubefed-sync.member1').toString('base64')}:w:w1`],
      ]);
    } finally {
      await worker.close();
      await plain.close();
      await queue.close();
      connection.disconnect();
    }
  });
});
