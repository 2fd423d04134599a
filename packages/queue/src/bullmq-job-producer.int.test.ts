import { startRedis, type RedisHandle } from '@kubefed/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BullMqJobProducer } from './bullmq-job-producer.js';
import { syncQueueName } from './queue-name.js';
import { createRedisConnection } from './redis-connection.js';
import { SyncWorkerHost } from './sync-worker-host.js';
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

  it('reads the queue only for a job that collapsed, and raises it when it waited at low priority', async () => {
    const { producer, queue, commands, clear } = setup();
    await queueWithLowJobs(producer);
    clear();
    await producer.enqueue(job('warm-up'));
    expect(commands()).toEqual(['evalsha', 'zscore', 'zscore']);
    clear();
    await producer.enqueue(job('resync-7'));
    expect(commands().slice(0, 3)).toEqual(['evalsha', 'zscore', 'zscore']);
    expect(await queue.getWaitingCount()).toBe(2);
    expect(await queue.getPrioritizedCount()).toBe(19);
  });

  it('leaves a pending low-priority job low when a low-priority job collapses into it', async () => {
    const { producer, queue } = setup();
    await queueWithLowJobs(producer);
    await producer.enqueueBulk([job('resync-3')], { priority: 'low' });
    expect(await queue.getPrioritizedCount()).toBe(20);
    expect(await queue.getWaitingCount()).toBe(1);
  });
});

describe('BullMqJobProducer and retries', () => {
  /**
   * A producer (and its key prefix) whose first retry waits a minute (far beyond every wait here),
   * and a worker host on member1 whose first attempt fails; the names of the jobs that completed.
   */
  async function failingOnce(): Promise<{ producer: BullMqJobProducer; prefix: string; completed: string[] }> {
    const producerConnection = createRedisConnection(redis.url, { role: 'producer' });
    const workerConnection = createRedisConnection(redis.url, { role: 'worker' });
    const prefix = redis.prefix('producer-retry');
    const producer = new BullMqJobProducer({ connection: producerConnection, prefix, retry: { backoffDelayMs: 60_000, jitter: 0 } });
    const completed: string[] = [];
    let attempts = 0;
    const host = await SyncWorkerHost.start({
      connection: workerConnection,
      prefix,
      clusters: ['member1'],
      processor: (j) =>
        ++attempts === 1 ? Promise.reject(new Error('member write failed')) : Promise.resolve(void completed.push(j.name)),
    });
    cleanups.push(async () => {
      await host.close({ timeoutMs: 2000 });
      await producer.close();
      producerConnection.disconnect();
      workerConnection.disconnect();
    });
    return { producer, prefix, completed };
  }

  it.each(['normal', 'low'] as const)(
    'runs a job waiting for a retry backoff at once when a job of its key is added at %s priority',
    async (priority) => {
      const { producer, completed } = await failingOnce();
      await producer.enqueue(job('web'));
      await expect.poll(async () => (await producer.counts('member1')).delayed).toBe(1);

      await producer.enqueueBulk([job('web')], { priority });
      await expect.poll(() => completed).toEqual(['web']);
      // The job stays active until BullMQ moves it to the completed set, just after the processor.
      await expect.poll(() => producer.counts('member1')).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
    },
  );

  it('runs a low-priority job waiting for a retry backoff at normal priority once a normal job of its key collapses into it', async () => {
    const { producer, prefix, completed } = await failingOnce();
    const reader = createRedisConnection(redis.url, { role: 'producer' });
    const queue = new Queue(syncQueueName('member1'), { connection: reader, prefix });
    cleanups.push(async () => {
      await queue.close();
      reader.disconnect();
    });
    await producer.enqueueBulk([job('web')], { priority: 'low' });
    await expect.poll(async () => (await producer.counts('member1')).delayed).toBe(1);

    await producer.enqueue(job('web'));
    await expect.poll(() => completed).toEqual(['web']);
    // The processor records the name before BullMQ moves the job to the completed set.
    await expect.poll(async () => (await queue.getCompleted()).map((done) => done.priority)).toEqual([0]);
  });

  it('leaves the retry backoff of a key no new job was added for', async () => {
    const { producer, completed } = await failingOnce();
    await producer.enqueue(job('web'));
    await expect.poll(async () => (await producer.counts('member1')).delayed).toBe(1);

    await producer.enqueue(job('api'));
    await expect.poll(() => completed).toEqual(['api']);
    expect((await producer.counts('member1')).delayed).toBe(1);
  });
});
