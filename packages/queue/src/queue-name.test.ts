import { describe, expect, it } from 'vitest';
import { clusterOfSyncQueue, syncQueueName } from './queue-name.js';
import { QueueError } from './queue-error.js';

describe('syncQueueName', () => {
  it.each([
    ['member1', 'kubefed-sync.member1'],
    ['eu-west.prod', 'kubefed-sync.eu-west.prod'],
  ])('names the queue of cluster %j %j', (cluster, queue) => {
    expect(syncQueueName(cluster)).toBe(queue);
    expect(clusterOfSyncQueue(queue)).toBe(cluster);
  });

  it.each(['', 'Member1', 'a:b', 'under_score', '-lead', 'x'.repeat(254)])('rejects the cluster name %j', (cluster) => {
    expect(() => syncQueueName(cluster)).toThrow(QueueError);
    expect(() => syncQueueName(cluster)).toThrow(/cluster name .* is invalid/);
  });
});

describe('clusterOfSyncQueue', () => {
  it.each(['other-queue', 'kubefed-sync.', 'kubefed-sync.Bad'])('returns undefined for %j', (name) => {
    expect(clusterOfSyncQueue(name)).toBeUndefined();
  });
});
