import { describe, expect, it } from 'vitest';
import { syncJobOptions } from './bullmq-job-producer.js';
import type { SyncJob } from './sync-job.js';

const job: SyncJob = { kind: 'sync', federatedType: 'configmaps', namespace: 'ns', name: 'cm', cluster: 'c1' };

describe('syncJobOptions', () => {
  it('deduplicates per key keeping the last job while one is active, retries without an attempt limit and bounds retention', () => {
    expect(syncJobOptions(job)).toEqual({
      attempts: Number.MAX_SAFE_INTEGER,
      backoff: { type: 'kubefed-capped-exponential', delay: 200, jitter: 0.5 },
      deduplication: { id: 'configmaps/ns/cm@c1', keepLastIfActive: true },
      removeOnComplete: { count: 1000, age: 3600 },
      removeOnFail: { count: 5000, age: 86_400 },
    });
  });

  it('applies configured retry and retention policies', () => {
    const opts = syncJobOptions(
      job,
      { attempts: 3, backoffDelayMs: 10, jitter: 0 },
      { completed: { count: 5 }, failed: { ageSeconds: 60 } },
    );
    expect(opts).toMatchObject({
      attempts: 3,
      backoff: { type: 'kubefed-capped-exponential', delay: 10, jitter: 0 },
      removeOnComplete: { count: 5, age: 3600 },
      removeOnFail: { count: 5000, age: 60 },
    });
  });
});
