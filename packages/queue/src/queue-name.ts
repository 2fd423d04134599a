import { isDns1123Subdomain } from '@kubefed/api';
import { QueueError } from './queue-error.js';

/** Prefix of every per-cluster sync queue name. */
export const syncQueuePrefix = 'kubefed-sync.';

/**
 * Throws unless `cluster` is a usable member cluster name: a KubeFedCluster name, i.e. a
 * DNS-1123 subdomain (which also guarantees no `:`, forbidden in BullMQ queue names).
 *
 * @throws QueueError naming the cluster.
 */
export function assertClusterName(cluster: string): void {
  if (!isDns1123Subdomain(cluster)) {
    throw new QueueError(
      `cluster name ${JSON.stringify(cluster)} is invalid: must be a DNS-1123 subdomain (lowercase alphanumerics, '-' and '.')`,
    );
  }
}

/**
 * The BullMQ queue of one member cluster: `kubefed-sync.<cluster>`.
 *
 * @throws QueueError when `cluster` is not a valid cluster name.
 */
export function syncQueueName(cluster: string): string {
  assertClusterName(cluster);
  return `${syncQueuePrefix}${cluster}`;
}

/** The cluster of a sync queue name, or `undefined` when `queueName` is not one. */
export function clusterOfSyncQueue(queueName: string): string | undefined {
  if (!queueName.startsWith(syncQueuePrefix)) return undefined;
  const cluster = queueName.slice(syncQueuePrefix.length);
  return isDns1123Subdomain(cluster) ? cluster : undefined;
}
