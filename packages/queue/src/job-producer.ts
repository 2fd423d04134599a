import type { SyncJob } from './sync-job.js';

/** Jobs per state in one cluster's queue (for metrics and `kubefedctl`). */
export interface QueueCounts {
  /**
   * Ready to run (including retries whose backoff has elapsed). The one follow-up run kept for
   * a key whose job is running is not counted until that job finishes.
   */
  readonly waiting: number;
  /** Running now. */
  readonly active: number;
  /** Waiting for a retry backoff. */
  readonly delayed: number;
  /** Failed for good and still retained. */
  readonly failed: number;
}

/** Options of {@link JobProducer.enqueueBulk}. */
export interface EnqueueOptions {
  /**
   * `low`: the jobs run after every job of normal priority waiting on the same queue (for the
   * jobs of fan-outs and periodic resyncs, mostly no-ops), so a user's change never waits behind
   * them. A job of normal priority that collapses into a pending low-priority job of its key
   * raises that job to normal priority. Default `normal`.
   */
  readonly priority?: 'normal' | 'low' | undefined;
}

/**
 * Where controllers send sync jobs. Implementations validate every job, deduplicate pending
 * jobs per (type, object, cluster) and retry failed ones with backoff.
 */
export interface JobProducer {
  /**
   * Enqueues one job on its cluster's queue. A job for a key that already has a pending job
   * collapses into it and brings it forward (a pending retry runs now, without waiting out its
   * backoff); if the key's job is running, one more run follows it.
   *
   * @throws ValidationError (from `@kubefed/api`) naming the bad field; Redis errors as is.
   */
  enqueue(job: SyncJob): Promise<void>;
  /** Enqueues many jobs (grouped per cluster queue); validates all before sending any. */
  enqueueBulk(jobs: readonly SyncJob[], options?: EnqueueOptions): Promise<void>;
  /** Stops using the queues (does not close a connection the caller passed in). */
  close(): Promise<void>;
}
