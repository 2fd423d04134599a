import { RuntimeMetrics } from '@kubefed/runtime';
import { describe, expect, it } from 'vitest';
import { queueCountsFromMetrics, SYNC_QUEUE_JOBS } from './metrics-queue-counts.js';

/** A metrics exposition as the controller manager writes it (runtime metrics plus the queue gauge). */
async function exposition(samples: { cluster: string; state: string; value: number }[]): Promise<string> {
  const metrics = new RuntimeMetrics();
  metrics.controller('sync-configmaps').reconciled('success', 0.01);
  metrics.collectedGauge({
    name: SYNC_QUEUE_JOBS,
    help: 'Jobs in the sync queue of a member cluster by state.',
    labelNames: ['cluster', 'state'],
    read: () => Promise.resolve(samples.map(({ cluster, state, value }) => ({ labels: { cluster, state }, value }))),
  });
  return metrics.text();
}

describe('queueCountsFromMetrics', () => {
  it('reads waiting, active, delayed and failed jobs per cluster', async () => {
    const text = await exposition([
      { cluster: 'member1', state: 'waiting', value: 7 },
      { cluster: 'member1', state: 'active', value: 2 },
      { cluster: 'member1', state: 'delayed', value: 1 },
      { cluster: 'member1', state: 'failed', value: 3 },
      { cluster: 'member2', state: 'waiting', value: 0 },
      { cluster: 'member2', state: 'active', value: 0 },
      { cluster: 'member2', state: 'delayed', value: 0 },
      { cluster: 'member2', state: 'failed', value: 0 },
    ]);
    expect(Object.fromEntries(queueCountsFromMetrics(text))).toEqual({
      member1: { waiting: 7, active: 2, delayed: 1, failed: 3 },
      member2: { waiting: 0, active: 0, delayed: 0, failed: 0 },
    });
  });

  it('counts a state the gauge does not report as zero and ignores unknown states', async () => {
    const text = await exposition([
      { cluster: 'member1', state: 'waiting', value: 4 },
      { cluster: 'member1', state: 'paused', value: 9 },
    ]);
    expect(Object.fromEntries(queueCountsFromMetrics(text))).toEqual({ member1: { waiting: 4, active: 0, delayed: 0, failed: 0 } });
  });

  it('gives no clusters when the gauge has no series (no KubeFedCluster yet)', async () => {
    expect(queueCountsFromMetrics(await exposition([])).size).toBe(0);
  });

  it('names the missing gauge when the endpoint is not a controller manager running the controllers', async () => {
    const text = await new RuntimeMetrics().text();
    expect(() => queueCountsFromMetrics(text)).toThrow(/no kubefed_sync_queue_jobs gauge in the metrics/);
  });
});
