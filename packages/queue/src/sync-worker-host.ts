import { KubeFedError, ValidationError } from '@kubefed/api';
import { type BackendFactory, type MinimalJob, type RedisQueueBackend, UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import type { QueueCounts } from './job-producer.js';
import { silentLogger, type QueueLogger } from './logger.js';
import { PermanentSyncError, QueueError } from './queue-error.js';
import { assertClusterName, syncQueueName } from './queue-name.js';
import { isWorkerConnection, syncQueueBullPrefix, type RedisConnection } from './redis-connection.js';
import { parseSyncJob, type SyncJob } from './sync-job.js';
import { syncRequestId } from './sync-request.js';
import { DEFAULT_MAX_BACKOFF_MS, syncBackoffDelayMs } from './sync-backoff.js';
import { openSyncQueue, readQueueCounts, type SyncQueue } from './sync-queue.js';
import { syncWorkerBackend } from './worker-backend.js';

/** What a processor gets besides the job. */
export interface SyncJobContext {
  /** 1 for the first attempt, 2 for the first retry, ... */
  readonly attempt: number;
  /** Aborted when `close` times out: stop and throw; the job goes back to the queue without spending an attempt. */
  readonly signal: AbortSignal;
  /** Bound to `queue`, `cluster`, `jobId`, `attempt`. */
  readonly logger: QueueLogger;
}

/**
 * Converges one job. Resolve = done. Throw = retried with capped backoff (without an attempt
 * limit unless the producer set one; a job failed for good that retrying could help is enqueued
 * again after the maximum backoff). Throw {@link PermanentSyncError} = failed at once, no retry.
 */
export type SyncProcessor = (job: SyncJob, ctx: SyncJobContext) => Promise<void>;

/** Per-cluster worker settings. */
export interface ClusterWorkerSettings {
  /** Jobs of this cluster run in parallel in this process. Default 10. */
  concurrency?: number;
  /** At most `max` jobs per `durationMs` for this cluster's queue, across all processes. Default none. */
  limiter?: { max: number; durationMs: number };
}

/** Facts about a failed attempt, passed to `onFailed`. */
export interface FailedJobInfo {
  /** True when the job will not be retried (permanent error, attempts used up, invalid payload, stalled too often). */
  readonly final: boolean;
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  readonly cluster: string;
  readonly jobId: string | undefined;
}

/** How long one attempt of a job waited and ran, passed to `onTimed`. */
export interface SyncJobTiming {
  readonly cluster: string;
  /** From the job's enqueue (after its delay, if any) to the start of this attempt; first attempts only. */
  readonly queuedMs: number | undefined;
  /** The processor's run, to its resolve or throw. */
  readonly runMs: number;
  /** Whether the processor resolved. */
  readonly succeeded: boolean;
}

/** Options of {@link SyncWorkerHost.start}. */
export interface SyncWorkerHostOptions {
  /** A connection from `createRedisConnection(url, { role: 'worker' })`; owned by the caller, close it after `close()`. */
  connection: RedisConnection;
  /** BullMQ key prefix. Default `bull`. Must match the producer's. */
  prefix?: string;
  processor: SyncProcessor;
  /** Clusters to serve from the start. Default none (use `addCluster`). */
  clusters?: readonly string[];
  /** Settings for every cluster without its own entry. Default `{ concurrency: 10 }`. */
  defaults?: ClusterWorkerSettings;
  /** Settings per cluster name. */
  perCluster?: Readonly<Record<string, ClusterWorkerSettings>>;
  /** Called after a job completed. Errors thrown here are logged, not propagated. */
  onCompleted?: (job: SyncJob, info: { cluster: string; jobId: string | undefined }) => void;
  /**
   * Called after every failed attempt with the processor's own error (a {@link PermanentSyncError},
   * or a `ValidationError` naming the field for an invalid payload). `job` is undefined when the
   * payload was invalid or BullMQ no longer has the job. Errors thrown here are logged.
   */
  onFailed?: (job: SyncJob | undefined, err: Error, info: FailedJobInfo) => void;
  /** Called after every attempt the processor ran to an end, with how long the job waited and ran (for metrics). Errors thrown here are logged. */
  onTimed?: (timing: SyncJobTiming) => void;
  /**
   * How long a job's lock lasts unless its worker renews it (every half of it, while the job
   * runs): a job whose worker died is taken over once the lock has lapsed and a stalled check
   * ran. Default 15 s (BullMQ's 30 s made a killed worker's jobs wait up to a minute).
   */
  lockDurationMs?: number;
  /**
   * How often each worker looks for jobs whose lock lapsed (their worker died) and hands them
   * back to the queue. Default 5 s (BullMQ's 30 s). With the lock, a dead worker's job is taken
   * over within `lockDurationMs + stalledCheckIntervalMs`; a live worker never loses its lock
   * while its event loop answers within half the lock duration.
   */
  stalledCheckIntervalMs?: number;
  /** Upper bound of the retry delay of a failing job. Default 60 s. */
  maxBackoffMs?: number;
  /**
   * The delay before the first retry after the processor threw `err`, when it is not the
   * producer's; later retries double from it, up to `maxBackoffMs`. `undefined` keeps the
   * producer's delay. For example a member that cannot be reached: its jobs back off from a few
   * seconds instead of 200 ms, so that each key costs a few attempts, not dozens, until the
   * member is found NotReady. Errors thrown here are logged and the producer's delay is used.
   */
  firstRetryDelayMs?: (err: Error) => number | undefined;
  /** Default silent. */
  logger?: QueueLogger;
}

/** Options of {@link SyncWorkerHost.removeCluster}. */
export interface RemoveClusterOptions {
  /**
   * Also delete the cluster's queue with every job in it (the cluster was unjoined). Default
   * false: only stop processing here, keep the jobs for other processes.
   */
  drain?: boolean;
}

/** See {@link SyncWorkerHostOptions.lockDurationMs}. */
const DEFAULT_LOCK_DURATION_MS = 15_000;
/** See {@link SyncWorkerHostOptions.stalledCheckIntervalMs}. */
const DEFAULT_STALLED_CHECK_INTERVAL_MS = 5_000;

/** A member cluster this host serves, with its logger (bound to `queue` and `cluster`). */
interface ServedCluster {
  readonly cluster: string;
  readonly logger: QueueLogger;
}

/** How long `close` waits for aborted processors to give their jobs back. */
const abortGraceMs = 1000;

/** Payloads are validated before use, so the worker sees them as unknown. */
type SyncWorker = Worker<unknown, void>;
type SyncBullJob = Job<unknown, void>;

interface ClusterWorker {
  readonly worker: SyncWorker;
}

interface AttemptRecord {
  readonly original: Error;
  readonly final: boolean;
  readonly attempt: number;
}

/**
 * Runs sync jobs: one BullMQ Worker per member cluster queue, so a slow or unreachable member
 * only holds up its own queue. Each cluster has its own concurrency and rate limit. Any number
 * of hosts (processes) may serve the same clusters; deduplication guarantees a key never runs
 * twice at once. Payloads are validated again here: an invalid one fails for good.
 */
export class SyncWorkerHost {
  readonly #options: SyncWorkerHostOptions;
  readonly #logger: QueueLogger;
  /** The BullMQ backend of every worker of this host (all on its one connection). */
  readonly #backend: BackendFactory<RedisQueueBackend>;
  readonly #workers = new Map<string, Promise<ClusterWorker>>();
  readonly #queues = new Map<string, SyncQueue>();
  readonly #running = new Set<AbortController>();
  /** Errors thrown by attempts, so `failed` events can be mapped back to what the processor threw. */
  readonly #attempts = new WeakMap<Error, AttemptRecord>();
  #closing: Promise<void> | undefined;

  private constructor(options: SyncWorkerHostOptions) {
    this.#options = options;
    this.#backend = syncWorkerBackend(options.connection);
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * Starts a host serving `options.clusters`.
   *
   * @throws QueueError for an invalid cluster name, a connection not made for workers (its
   *   commands must wait across reconnects), or when a worker cannot connect to Redis.
   */
  static async start(options: SyncWorkerHostOptions): Promise<SyncWorkerHost> {
    for (const c of options.clusters ?? []) assertClusterName(c);
    // BullMQ workers refuse connections whose commands give up while Redis is unreachable.
    if (!isWorkerConnection(options.connection)) {
      throw new QueueError(
        "sync worker host needs a worker connection: use createRedisConnection(url, { role: 'worker' }) (maxRetriesPerRequest null)",
      );
    }
    const host = new SyncWorkerHost(options);
    try {
      await Promise.all((options.clusters ?? []).map((c) => host.addCluster(c)));
    } catch (err) {
      await host.close({ timeoutMs: 0 });
      throw err;
    }
    return host;
  }

  /** Clusters served now. */
  clusters(): string[] {
    return [...this.#workers.keys()];
  }

  /**
   * Starts serving `cluster`'s queue (no-op when already served); resolves once the worker is
   * connected.
   *
   * @throws QueueError for an invalid cluster name or after `close()`.
   */
  async addCluster(cluster: string): Promise<void> {
    const queueName = syncQueueName(cluster);
    if (this.#closing !== undefined) throw new QueueError(`worker host is closed: cannot add cluster "${cluster}"`);
    let entry = this.#workers.get(cluster);
    if (entry === undefined) {
      const started = this.#startWorker(cluster, queueName);
      entry = started;
      this.#workers.set(cluster, started);
      started.catch(() => {
        if (this.#workers.get(cluster) === started) this.#workers.delete(cluster);
      });
    }
    await entry;
  }

  /**
   * Stops serving `cluster` after its running jobs finish; with `drain: true` also deletes the
   * queue and all its jobs (for an unjoined cluster). No-op for a cluster not served here
   * (except that `drain` still deletes the queue).
   */
  async removeCluster(cluster: string, options: RemoveClusterOptions = {}): Promise<void> {
    const queueName = syncQueueName(cluster);
    const entry = this.#workers.get(cluster);
    this.#workers.delete(cluster);
    if (entry !== undefined) await (await entry).worker.close();
    if (options.drain === true) {
      const queue = this.#queue(cluster);
      await queue.waitUntilReady();
      await queue.obliterate({ force: true });
      this.#logger.info({ queue: queueName, cluster }, 'sync queue removed');
    }
    const queue = this.#queues.get(cluster);
    this.#queues.delete(cluster);
    await queue?.close();
  }

  /** Job counts of `cluster`'s queue (served here or not). */
  async counts(cluster: string): Promise<QueueCounts> {
    return readQueueCounts(this.#queue(cluster));
  }

  /** Job counts of every cluster served here, by cluster name. */
  async allCounts(): Promise<Record<string, QueueCounts>> {
    const entries = await Promise.all(this.clusters().map(async (c) => [c, await this.counts(c)] as const));
    return Object.fromEntries(entries);
  }

  /**
   * Stops taking jobs and waits for running ones to finish. After `timeoutMs` (default 30 s)
   * running processors are aborted through their signal: a processor that then throws hands its
   * job back to the queue without spending an attempt. Processors still running 1 s after the
   * abort are left behind (close resolves anyway); their jobs run again elsewhere once their
   * locks expire (after the caller closes the connection). Idempotent.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    this.#closing ??= this.#close(options.timeoutMs ?? 30_000);
    return this.#closing;
  }

  async #close(timeoutMs: number): Promise<void> {
    const workers = await Promise.allSettled([...this.#workers.values()]);
    this.#workers.clear();
    const started = workers.flatMap((w) => (w.status === 'fulfilled' ? [w.value.worker] : []));
    // BullMQ's close(true) after close() only returns the pending graceful close, so the
    // timeout is enforced here rather than by forcing the workers.
    const graceful = Promise.allSettled(started.map((w) => w.close()));
    if (!(await settlesWithin(graceful, timeoutMs))) {
      this.#logger.warn({ timeoutMs }, 'sync workers did not finish in time: aborting running jobs');
      for (const c of this.#running) c.abort(new QueueError('worker host closed'));
      if (!(await settlesWithin(graceful, abortGraceMs))) {
        this.#logger.warn({ timeoutMs: abortGraceMs }, 'sync processors ignored the abort: leaving their jobs');
      }
    }
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    await Promise.allSettled(queues.map((q) => q.close()));
  }

  #queue(cluster: string): SyncQueue {
    let queue = this.#queues.get(cluster);
    if (queue === undefined) {
      queue = openSyncQueue(syncQueueName(cluster), {
        connection: this.#options.connection,
        prefix: this.#options.prefix,
        logger: this.#logger.child({ cluster }),
      });
      this.#queues.set(cluster, queue);
    }
    return queue;
  }

  #settings(cluster: string): Required<Pick<ClusterWorkerSettings, 'concurrency'>> & ClusterWorkerSettings {
    const own = this.#options.perCluster?.[cluster];
    const defaults = this.#options.defaults;
    const limiter = own?.limiter ?? defaults?.limiter;
    return {
      concurrency: own?.concurrency ?? defaults?.concurrency ?? 10,
      ...(limiter === undefined ? {} : { limiter }),
    };
  }

  async #startWorker(cluster: string, queueName: string): Promise<ClusterWorker> {
    const settings = this.#settings(cluster);
    const logger = this.#logger.child({ queue: queueName, cluster });
    const served: ServedCluster = { cluster, logger };
    const prefix = syncQueueBullPrefix(this.#options.connection, this.#options.prefix, cluster);
    const worker: SyncWorker = new Worker(
      queueName,
      (job: SyncBullJob, token?: string) => this.#process(served, job, token),
      {
        connection: this.#options.connection,
        ...(prefix === undefined ? {} : { prefix }),
        concurrency: settings.concurrency,
        ...(settings.limiter === undefined ? {} : { limiter: { max: settings.limiter.max, duration: settings.limiter.durationMs } }),
        lockDuration: this.#options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
        stalledInterval: this.#options.stalledCheckIntervalMs ?? DEFAULT_STALLED_CHECK_INTERVAL_MS,
        settings: {
          backoffStrategy: (attemptsMade: number, _type?: string, err?: Error, job?: MinimalJob) =>
            this.#backoffMs(served, { attemptsMade, err, job }),
        },
      },
      this.#backend,
    );
    worker.on('error', (err) => logger.warn({ err }, 'sync worker error'));
    worker.on('completed', (job) => this.#completed(served, job));
    worker.on('failed', (job, err) => this.#failed(served, job, err));
    try {
      await worker.waitUntilReady();
    } catch (err) {
      await worker.close(true).catch(() => undefined);
      throw new QueueError(`sync worker for cluster "${cluster}" could not connect to Redis`, { cause: err });
    }
    logger.info({ concurrency: settings.concurrency }, 'sync worker started');
    return { worker };
  }

  async #process(served: ServedCluster, bullJob: SyncBullJob, token: string | undefined): Promise<void> {
    const { cluster } = served;
    const attempt = bullJob.attemptsMade + 1;
    const final = attempt >= (bullJob.opts.attempts ?? 1);
    let job: SyncJob;
    try {
      job = parseSyncJob(bullJob.data);
      if (job.cluster !== cluster) {
        throw new ValidationError('sync job', [
          { path: 'cluster', message: `must be "${cluster}", the cluster of queue ${syncQueueName(cluster)}` },
        ]);
      }
    } catch (err) {
      throw this.#unrecoverable(toError(err), attempt);
    }
    const controller = new AbortController();
    this.#running.add(controller);
    const logger = served.logger.child({ jobId: syncRequestId(job), attempt });
    const started = Date.now();
    const queuedMs = attempt === 1 ? Math.max(0, started - bullJob.timestamp - (bullJob.delay ?? 0)) : undefined;
    let succeeded = false;
    try {
      await this.#options.processor(job, { attempt, signal: controller.signal, logger });
      succeeded = true;
    } catch (err) {
      if (controller.signal.aborted && token !== undefined) {
        // Aborted by close(): hand the job back to the queue without spending an attempt.
        await bullJob.moveToWait(token);
        throw new WaitingError();
      }
      const error = toError(err);
      if (error instanceof PermanentSyncError) throw this.#unrecoverable(error, attempt);
      this.#attempts.set(error, { original: error, final, attempt });
      throw error;
    } finally {
      this.#running.delete(controller);
      // A job handed back by close() did not run to an end: it is timed when it runs again.
      if (!controller.signal.aborted) this.#timed(served, { cluster, queuedMs, runMs: Date.now() - started, succeeded });
    }
  }

  #timed(served: ServedCluster, timing: SyncJobTiming): void {
    try {
      this.#options.onTimed?.(timing);
    } catch (err) {
      served.logger.error({ err }, 'onTimed callback failed');
    }
  }

  /**
   * The retry delay of `job` after `attemptsMade` failed attempts, the last with `err`: from the
   * first delay {@link SyncWorkerHostOptions.firstRetryDelayMs} gives for `err`, else the
   * producer's; with the producer's jitter and this host's cap.
   */
  #backoffMs(served: ServedCluster, failed: { attemptsMade: number; err: Error | undefined; job: MinimalJob | undefined }): number {
    const backoff = failed.job?.opts.backoff;
    const own = typeof backoff === 'object' ? backoff : undefined;
    const delayMs = this.#firstRetryDelayMs(served, failed.err) ?? own?.delay ?? 200;
    return syncBackoffDelayMs(failed.attemptsMade, { delayMs, jitter: own?.jitter ?? 0, maxDelayMs: this.#maxBackoffMs });
  }

  #firstRetryDelayMs(served: ServedCluster, err: Error | undefined): number | undefined {
    if (err === undefined || this.#options.firstRetryDelayMs === undefined) return undefined;
    try {
      // A retried attempt's error is the processor's own (only failures for good are wrapped).
      return this.#options.firstRetryDelayMs(err);
    } catch (callbackErr) {
      served.logger.error({ err: callbackErr }, 'firstRetryDelayMs callback failed');
      return undefined;
    }
  }

  get #maxBackoffMs(): number {
    return this.#options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
  }

  /**
   * A job BullMQ failed for good although retrying could help (it stalled too often, or used up
   * a configured attempt limit) comes back after the maximum backoff: a failure is never the end
   * of a key. Jobs failed on purpose (a permanent error, an invalid payload) stay failed.
   */
  async #comeBack(served: ServedCluster, bullJob: SyncBullJob): Promise<void> {
    const job = safeParse(bullJob.data);
    if (job === undefined || this.#closing !== undefined) return;
    // A new job: without the failed job's id, which BullMQ still keeps and would answer as a duplicate.
    const { jobId: _failedJobId, ...opts } = bullJob.opts;
    await this.#queue(served.cluster).add(job.kind, job, { ...opts, delay: this.#maxBackoffMs });
    served.logger.info(
      { jobId: syncRequestId(job), durationMs: this.#maxBackoffMs },
      'sync job failed for good: enqueued again after the maximum backoff',
    );
  }

  #unrecoverable(original: Error, attempt: number): Error {
    const wrapped = new UnrecoverableError(original.message);
    this.#attempts.set(wrapped, { original, final: true, attempt });
    return wrapped;
  }

  #completed(served: ServedCluster, bullJob: SyncBullJob): void {
    const callback = this.#options.onCompleted;
    if (callback === undefined) return;
    try {
      callback(parseSyncJob(bullJob.data), { cluster: served.cluster, jobId: bullJob.id });
    } catch (err) {
      served.logger.error({ err, jobId: bullJob.id }, 'onCompleted callback failed');
    }
  }

  #failed(served: ServedCluster, bullJob: SyncBullJob | undefined, err: Error): void {
    const { cluster, logger } = served;
    const record = this.#attempts.get(err);
    // No record: BullMQ failed the job itself (stalled too often, lock lost): it is not retried.
    const info: FailedJobInfo = {
      final: record?.final ?? true,
      attempt: record?.attempt ?? (bullJob === undefined ? 0 : bullJob.attemptsMade),
      cluster,
      jobId: bullJob?.id,
    };
    const original = record?.original ?? err;
    const job = bullJob === undefined ? undefined : safeParse(bullJob.data);
    const fields = { err: original, jobId: job === undefined ? bullJob?.id : syncRequestId(job), attempt: info.attempt };
    if (info.final) logger.warn(fields, 'sync job failed for good');
    else logger.debug(fields, 'sync job attempt failed: will retry');
    const permanent = original instanceof PermanentSyncError || original instanceof ValidationError;
    if (info.final && !permanent && bullJob !== undefined) {
      this.#comeBack(served, bullJob).catch((e: unknown) =>
        logger.error({ err: e, jobId: bullJob.id }, 'enqueueing a failed sync job again failed'),
      );
    }
    try {
      this.#options.onFailed?.(job, original, info);
    } catch (callbackErr) {
      logger.error({ err: callbackErr, jobId: bullJob?.id }, 'onFailed callback failed');
    }
  }
}

/** True when `promise` settles within `ms`; the timer never outlives the call. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function safeParse(data: unknown): SyncJob | undefined {
  try {
    return parseSyncJob(data);
  } catch {
    return undefined;
  }
}

function toError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new KubeFedError(`sync processor threw a non-Error value: ${String(err)}`, { cause: err });
}
