import type { EnqueueOptions, JobProducer } from './job-producer.js';
import { parseSyncJob, type SyncJob } from './sync-job.js';
import { syncRequestId } from './sync-request.js';

/**
 * A {@link JobProducer} that keeps pending jobs in memory, for tests of code that enqueues
 * (controllers). Validates like the real one and collapses jobs per deduplication id, so at
 * most one pending job per key exists; `take()` hands them out in enqueue order.
 */
export class InMemoryJobProducer implements JobProducer {
  readonly #pending = new Map<string, SyncJob>();
  /** Every job accepted, in order, duplicates included. */
  readonly history: SyncJob[] = [];

  enqueue(job: SyncJob): Promise<void> {
    return Promise.resolve().then(() => this.#add(parseSyncJob(job)));
  }

  /** Accepts `options` and ignores them: `take()` keeps enqueue order whatever the priority. */
  enqueueBulk(jobs: readonly SyncJob[], _options?: EnqueueOptions): Promise<void> {
    return Promise.resolve().then(() => {
      const valid = jobs.map(parseSyncJob);
      for (const job of valid) this.#add(job);
    });
  }

  #add(job: SyncJob): void {
    this.history.push(job);
    const id = syncRequestId(job);
    if (!this.#pending.has(id)) this.#pending.set(id, job);
  }

  /** The pending jobs (one per key), without removing them. */
  pending(): SyncJob[] {
    return [...this.#pending.values()];
  }

  /** Removes and returns the pending jobs. */
  take(): SyncJob[] {
    const jobs = this.pending();
    this.#pending.clear();
    return jobs;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
