import { Queue } from 'bullmq';
import type { QueueCounts } from './job-producer.js';
import type { QueueLogger } from './logger.js';
import { clusterOfSyncQueue } from './queue-name.js';
import { QueueError } from './queue-error.js';
import { syncQueueBullPrefix, type RedisConnection } from './redis-connection.js';
import type { SyncJob } from './sync-job.js';

/**
 * A BullMQ queue of sync jobs, shared by the producer and the worker host. Internal to this
 * package: callers only see `JobProducer` and `SyncWorkerHost`, never BullMQ's types.
 */
export type SyncQueue = Queue<SyncJob, void, SyncJob['kind']>;

/** Options of {@link openSyncQueue}. */
export interface OpenSyncQueueOptions {
  /** Owned by the caller: closing the queue leaves it open. */
  connection: RedisConnection;
  /** BullMQ key prefix; undefined means BullMQ's `bull`. Hash-tagged per queue on a Redis Cluster ({@link syncQueueBullPrefix}). */
  prefix?: string | undefined;
  /** Where queue errors (a lost Redis connection) are logged as warnings. */
  logger: QueueLogger;
}

/**
 * Opens the BullMQ sync queue `name` (`kubefed-sync.<cluster>`). Errors of its commands still
 * reach the caller.
 *
 * @throws QueueError when `name` is not the name of a sync queue.
 */
export function openSyncQueue(name: string, options: OpenSyncQueueOptions): SyncQueue {
  const cluster = clusterOfSyncQueue(name);
  if (cluster === undefined) throw new QueueError(`${JSON.stringify(name)} is not the name of a sync queue (kubefed-sync.<cluster>)`);
  const prefix = syncQueueBullPrefix(options.connection, options.prefix, cluster);
  const queue: SyncQueue = new Queue(name, {
    connection: options.connection,
    ...(prefix === undefined ? {} : { prefix }),
  });
  queue.on('error', (err) => options.logger.warn({ err, queue: name }, 'sync queue error'));
  return queue;
}

/** Reads BullMQ job counts into {@link QueueCounts}. */
export async function readQueueCounts(queue: SyncQueue): Promise<QueueCounts> {
  // A paused queue keeps its jobs in the wait list (BullMQ >= 5), so `waiting` covers it.
  const c = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
  return {
    waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
    active: c.active ?? 0,
    delayed: c.delayed ?? 0,
    failed: c.failed ?? 0,
  };
}
