import { randomUUID } from 'node:crypto';
import { ErrorCode, Job, type JobsOptions } from 'bullmq';
import type { EnqueueOptions, JobProducer, QueueCounts } from './job-producer.js';
import { silentLogger, type QueueLogger } from './logger.js';
import { QueueError } from './queue-error.js';
import { syncQueueName } from './queue-name.js';
import { SYNC_BACKOFF_TYPE } from './sync-backoff.js';
import { isClusterConnection, type RedisConnection } from './redis-connection.js';
import { parseSyncJob, type SyncJob } from './sync-job.js';
import { syncRequestId } from './sync-request.js';
import { openSyncQueue, readQueueCounts, type SyncQueue } from './sync-queue.js';

/** Retry policy of sync jobs: exponential backoff with jitter, capped by the worker host. */
export interface RetryPolicy {
  /**
   * Attempts in total, the first included. Default unlimited: a recoverable failure is retried
   * until it succeeds (at most once per the worker host's `maxBackoffMs`).
   */
  attempts?: number;
  /** Backoff before the 2nd attempt in ms, doubling each time up to the worker host's cap. Default 200. */
  backoffDelayMs?: number;
  /** Fraction (0..1) of each backoff that is randomised. Default 0.5. */
  jitter?: number;
}

/** How many finished jobs Redis keeps. */
export interface RetentionPolicy {
  /** Completed jobs: default `{ count: 1000, ageSeconds: 3600 }`. */
  completed?: { count?: number; ageSeconds?: number };
  /** Failed jobs: default `{ count: 5000, ageSeconds: 86400 }`. */
  failed?: { count?: number; ageSeconds?: number };
}

/** Options of {@link BullMqJobProducer}. */
export interface BullMqJobProducerOptions {
  /** A connection from `createRedisConnection(url, { role: 'producer' })`; owned by the caller. */
  connection: RedisConnection;
  /** BullMQ key prefix. Default `bull` (BullMQ's). Tests use a unique one. */
  prefix?: string;
  /** Default: unlimited attempts, 200 ms doubling, jitter 0.5. */
  retry?: RetryPolicy;
  /** Default: see {@link RetentionPolicy}. */
  retention?: RetentionPolicy;
  /** Default silent. */
  logger?: QueueLogger;
  /** Told of every add: the cluster, the priority and how many jobs (a job BullMQ collapses into a pending one of its key counts too). Default none. */
  onAdded?: ((cluster: string, priority: 'normal' | 'low', count: number) => void) | undefined;
}

/**
 * The BullMQ job options for sync jobs under the given policies (defaults documented there).
 * Internal to this package (BullMQ's types never leave it).
 */
export function syncJobOptions(job: SyncJob, retry: RetryPolicy = {}, retention: RetentionPolicy = {}): JobsOptions {
  return {
    attempts: retry.attempts ?? Number.MAX_SAFE_INTEGER,
    backoff: { type: SYNC_BACKOFF_TYPE, delay: retry.backoffDelayMs ?? 200, jitter: retry.jitter ?? 0.5 },
    // The request id deduplicates; it is not the BullMQ job id, since BullMQ keeps finished jobs
    // (bounded retention) and would silently ignore a new job whose id matches a retained one.
    deduplication: { id: syncRequestId(job), keepLastIfActive: true },
    removeOnComplete: { count: retention.completed?.count ?? 1000, age: retention.completed?.ageSeconds ?? 3600 },
    removeOnFail: { count: retention.failed?.count ?? 5000, age: retention.failed?.ageSeconds ?? 86_400 },
  };
}

/**
 * BullMQ priority of jobs enqueued at low priority: BullMQ runs the jobs without a priority before
 * every prioritized one, and prioritized ones by number, then in order.
 */
const LOW_JOB_PRIORITY = 1;

/**
 * The BullMQ {@link JobProducer}: one queue per member cluster (`kubefed-sync.<cluster>`),
 * created on first use, all on the one connection; the jobs of one call go to Redis in one
 * pipeline, whatever the number of queues. Jobs are deduplicated with `keepLastIfActive` (at most
 * one running and one pending job per key), retried per {@link RetryPolicy} and kept per
 * {@link RetentionPolicy}. Jobs enqueued at low priority get a BullMQ priority and so run after
 * every job of normal priority on their queue.
 *
 * A job that BullMQ collapses into the pending job of its key brings that job forward, as
 * KubeFed's deliverer keeps the earliest delivery of a key: a pending job waiting for a retry
 * backoff runs now (so a user's change, or the fan-out of a member that is Ready again, never
 * waits out the backoff of an earlier failure), and a job of normal priority raises a pending
 * low-priority one to normal priority. Every job gets a fresh random id and BullMQ answers an
 * add it collapsed with the id of the job it kept, so only a collapsed add reads the queue.
 * Not covered: while a key's job runs, BullMQ keeps the options of the last job added for it,
 * so a low-priority job added after a normal one makes the follow-up run low.
 */
export class BullMqJobProducer implements JobProducer {
  readonly #options: BullMqJobProducerOptions;
  readonly #logger: QueueLogger;
  readonly #queues = new Map<string, SyncQueue>();
  #closed = false;

  constructor(options: BullMqJobProducerOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  async enqueue(job: SyncJob): Promise<void> {
    const valid = parseSyncJob(job);
    await this.#send([this.#batch(valid.cluster, [valid], 'normal')]);
    this.#logger.debug({ queue: syncQueueName(valid.cluster), jobId: syncRequestId(valid) }, 'sync job enqueued');
  }

  async enqueueBulk(jobs: readonly SyncJob[], options: EnqueueOptions = {}): Promise<void> {
    const byCluster = new Map<string, SyncJob[]>();
    for (const job of jobs.map(parseSyncJob)) {
      const list = byCluster.get(job.cluster) ?? [];
      list.push(job);
      byCluster.set(job.cluster, list);
    }
    const priority = options.priority ?? 'normal';
    await this.#send([...byCluster].map(([cluster, list]) => this.#batch(cluster, list, priority)));
  }

  /** The BullMQ entries of `jobs` (all of `cluster`) at `priority`, each with a fresh job id. */
  #batch(cluster: string, jobs: readonly SyncJob[], priority: 'normal' | 'low'): Batch {
    const low = priority === 'low';
    const entries = jobs.map((job) => ({
      name: job.kind,
      data: job,
      opts: {
        ...syncJobOptions(job, this.#options.retry, this.#options.retention),
        jobId: randomUUID(),
        ...(low ? { priority: LOW_JOB_PRIORITY } : {}),
      },
    }));
    return { cluster, queue: this.#queue(cluster), priority, entries };
  }

  /**
   * Adds every batch in one pipeline (one write to Redis, whatever the number of member
   * queues: the queues share this producer's connection and BullMQ's add scripts are atomic
   * one by one); on a Redis Cluster, where each member queue has a hash slot of its own and a
   * pipeline must stay on one node, in a pipeline per queue, sent together. Then brings forward
   * the pending jobs that adds collapsed into. BullMQ answers an add it deduplicated with the id
   * of the job it collapsed into, so only an answer that differs from the fresh id costs a look
   * at the queue.
   */
  async #send(batches: readonly Batch[]): Promise<void> {
    if (batches.length === 0) return;
    // Every queue's scripts are loaded on the one connection once the first queue is ready.
    await Promise.all(batches.map((b) => b.queue.waitUntilReady()));
    // Each add validates its options and puts its command on a pipeline; nothing is sent unless all are valid.
    const groups = isClusterConnection(this.#options.connection) ? batches.map((b) => [b]) : [batches];
    const pipelines = await Promise.all(
      groups.map(async (group) => {
        const pipeline = (await (group[0] as Batch).queue.backend.client).pipeline();
        await Promise.all(
          group.flatMap((b) => b.entries.map((e) => new Job(b.queue, e.name, e.data, e.opts, e.opts.jobId).addJob(pipeline))),
        );
        return pipeline;
      }),
    );
    const answers = await Promise.all(pipelines.map(async (p) => (await p.exec()) ?? []));
    for (const [g, group] of groups.entries()) {
      const results = answers[g] ?? [];
      let index = 0;
      for (const batch of group) {
        const ids = batch.entries.map(() => addedId(results[index++]));
        this.#options.onAdded?.(batch.cluster, batch.priority, batch.entries.length);
        const collapsed = ids.filter((id, i) => id !== batch.entries[i]?.opts.jobId);
        if (collapsed.length > 0)
          await bringForward({ queue: batch.queue, connection: this.#options.connection, priority: batch.priority }, collapsed);
      }
    }
  }

  /** Job counts of `cluster`'s queue. */
  async counts(cluster: string): Promise<QueueCounts> {
    return readQueueCounts(this.#queue(cluster));
  }

  async close(): Promise<void> {
    this.#closed = true;
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    await Promise.allSettled(queues.map((q) => q.close()));
  }

  #queue(cluster: string): SyncQueue {
    const name = syncQueueName(cluster);
    if (this.#closed) throw new QueueError(`job producer is closed: cannot use queue ${name}`);
    let queue = this.#queues.get(name);
    if (queue === undefined) {
      queue = openSyncQueue(name, { connection: this.#options.connection, prefix: this.#options.prefix, logger: this.#logger });
      this.#queues.set(name, queue);
    }
    return queue;
  }
}

/** The adds of one member queue within a pipeline. */
interface Batch {
  readonly cluster: string;
  readonly queue: SyncQueue;
  readonly priority: 'normal' | 'low';
  readonly entries: readonly { name: SyncJob['kind']; data: SyncJob; opts: JobsOptions & { jobId: string } }[];
}

/** The job id a pipelined add answered; its error as is. */
function addedId(answer: [Error | null, unknown] | undefined): string {
  const [err, id] = answer ?? [new QueueError('Redis answered fewer adds than were sent'), undefined];
  if (err !== null) throw err;
  return String(id);
}

/** Where adds collapsed: their queue, the producer's connection, the adds' priority. */
interface CollapsedAdds {
  readonly queue: SyncQueue;
  readonly connection: RedisConnection;
  readonly priority: 'normal' | 'low';
}

/**
 * Brings forward the pending jobs among `ids` (the jobs that adds at `priority` collapsed into),
 * with one pipelined look at the queue's delayed and prioritized sets: a job waiting for a retry
 * backoff runs now, and after an add of normal priority a job waiting at low priority runs at
 * normal priority. A job that has moved on meanwhile (its backoff elapsed, it started or
 * finished) is left as it is.
 */
async function bringForward(to: CollapsedAdds, ids: readonly string[]): Promise<void> {
  const { queue, priority } = to;
  const pipeline = to.connection.pipeline();
  for (const id of ids) pipeline.zscore(queue.toKey('delayed'), id).zscore(queue.toKey('prioritized'), id);
  const scores = (await pipeline.exec()) ?? [];
  const inSet = (i: number): boolean => {
    const [err, score] = scores[i] ?? [null, null];
    return err === null && score !== null;
  };
  for (const [i, id] of ids.entries()) {
    const delayed = inSet(2 * i);
    const raise = priority === 'normal' && (delayed || inSet(2 * i + 1));
    if (delayed) await promoteDelayed(queue, id);
    if (!raise) continue;
    // changePriority moves only a job still waiting in the prioritized set; one at priority 0 it leaves alone.
    const job = await queue.getJob(id);
    if (job !== undefined && job.priority > 0) await job.changePriority({ priority: 0 });
  }
}

/** Moves delayed job `id` to the ones ready to run; a job no longer delayed (BullMQ's -3) is left alone. */
async function promoteDelayed(queue: SyncQueue, id: string): Promise<void> {
  try {
    await queue.backend.promote(id);
  } catch (err) {
    if (!isNotDelayed(err)) throw err;
  }
}

/** BullMQ's answer to promoting a job that is not in the delayed set. */
function isNotDelayed(err: unknown): boolean {
  return err instanceof Error && (err as Error & { code?: unknown }).code === ErrorCode.JobNotInState;
}
