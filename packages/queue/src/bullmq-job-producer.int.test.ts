import { startRedis, type RedisHandle } from '@kubefed/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BullMqJobProducer } from './bullmq-job-producer.js';
import { syncQueueName } from './queue-name.js';
import { createRedisConnection } from './redis-connection.js';
import type { SyncJob } from './sync-job.js';

let redis: RedisHandle;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  redis = await startRedis({ url: process.env.REDIS_URL });
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A producer on its own connection, and the names of the Redis commands that connection sends
 * (every command, pipelined or not, goes through the connection's `sendCommand`).
 */
function setup(): {
  producer: BullMqJobProducer;
  queue: Queue;
  connection: Redis;
  prefix: string;
  commands: () => string[];
  clear: () => void;
} {
  const connection = createRedisConnection(redis.url, { role: 'producer' }) as Redis;
  const reader = createRedisConnection(redis.url, { role: 'producer' });
  const prefix = redis.prefix('producer');
  const producer = new BullMqJobProducer({ connection, prefix });
  const queue = new Queue(syncQueueName('member1'), { connection: reader, prefix });
  cleanups.push(async () => {
    await producer.close();
    await queue.close();
    connection.disconnect();
    reader.disconnect();
  });
  const sent = vi.spyOn(connection, 'sendCommand');
  return {
    producer,
    queue,
    connection,
    prefix,
    commands: () => sent.mock.calls.map(([command]) => command.name.toLowerCase()),
    clear: () => sent.mockClear(),
  };
}

const job = (name: string, cluster = 'member1'): SyncJob => ({
  kind: 'sync',
  federatedType: 'deployments.apps',
  namespace: 'web-ns',
  name,
  cluster,
});

/** The queue of member1 holds 20 low-priority jobs, and its add scripts are loaded on the connection. */
async function queueWithLowJobs(producer: BullMqJobProducer): Promise<void> {
  await producer.enqueueBulk(
    Array.from({ length: 20 }, (_, i) => job(`resync-${i}`)),
    { priority: 'low' },
  );
  await producer.enqueue(job('warm-up'));
}

describe('BullMqJobProducer round trips', () => {
  it('adds a normal job to a queue that has low-priority jobs with one command when nothing collapses', async () => {
    const { producer, queue, commands, clear } = setup();
    await queueWithLowJobs(producer);
    clear();
    await producer.enqueue(job('user-change'));
    await producer.enqueueBulk([job('user-change-2'), job('user-change-3')]);
    expect(commands()).toEqual(['evalsha', 'evalsha', 'evalsha']);
    expect(await queue.getWaitingCount()).toBe(4);
    expect(await queue.getPrioritizedCount()).toBe(20);
  });

  it('sends the jobs of many member queues in one pipeline, each job to its own queue', async () => {
    const { producer, connection, prefix } = setup();
    const members = ['member1', 'member2', 'member3'];
    await producer.enqueue(job('warm-up'));
    const pipelines = vi.spyOn(connection, 'pipeline');
    await producer.enqueueBulk(members.flatMap((m) => [job('web', m), job('api', m)]));
    expect(pipelines).toHaveBeenCalledTimes(1);
    const reader = createRedisConnection(redis.url, { role: 'producer' });
    cleanups.push(() => Promise.resolve(reader.disconnect()));
    for (const m of members) {
      const queue = new Queue(syncQueueName(m), { connection: reader, prefix });
      cleanups.push(() => queue.close());
      const waiting = await queue.getWaiting();
      expect(waiting.map((j) => (j.data as SyncJob).name).sort()).toEqual(m === 'member1' ? ['api', 'warm-up', 'web'] : ['api', 'web']);
      expect(waiting.every((j) => (j.data as SyncJob).cluster === m)).toBe(true);
    }
  });

  it('sends nothing when one job of a bulk is invalid', async () => {
    const { producer, connection } = setup();
    const sent = vi.spyOn(connection, 'pipeline');
    await expect(producer.enqueueBulk([job('web', 'member1'), job('web', 'Not_A_Cluster')])).rejects.toThrow(/cluster/);
    expect(sent).not.toHaveBeenCalled();
  });

  it('reads the queue only for a normal job that collapsed, and raises it when it waited at low priority', async () => {
    const { producer, queue, commands, clear } = setup();
    await queueWithLowJobs(producer);
    clear();
    await producer.enqueue(job('warm-up'));
    expect(commands()).toEqual(['evalsha', 'zscore']);
    clear();
    await producer.enqueue(job('resync-7'));
    expect(commands().slice(0, 2)).toEqual(['evalsha', 'zscore']);
    expect(await queue.getWaitingCount()).toBe(2);
    expect(await queue.getPrioritizedCount()).toBe(19);
  });
});
