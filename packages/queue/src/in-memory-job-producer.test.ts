import { ValidationError } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { InMemoryJobProducer } from './in-memory-job-producer.js';
import type { SyncJob } from './sync-job.js';

const job: SyncJob = { kind: 'sync', federatedType: 'configmaps', namespace: 'ns', name: 'cm', cluster: 'c1' };

describe('InMemoryJobProducer', () => {
  it('keeps one pending job per key and records every enqueue', async () => {
    const producer = new InMemoryJobProducer();
    await producer.enqueue(job);
    await producer.enqueue(job);
    await producer.enqueueBulk([job, { ...job, cluster: 'c2' }]);
    expect(producer.history).toHaveLength(4);
    expect(producer.take()).toEqual([job, { ...job, cluster: 'c2' }]);
    expect(producer.pending()).toEqual([]);
  });

  it('rejects an invalid job like the real producer and enqueues nothing of a bad bulk', async () => {
    const producer = new InMemoryJobProducer();
    await expect(producer.enqueue({ ...job, cluster: 'C1' })).rejects.toThrow(ValidationError);
    await expect(producer.enqueueBulk([job, { ...job, name: '' }])).rejects.toThrow(/name:/);
    expect(producer.pending()).toEqual([]);
  });
});
