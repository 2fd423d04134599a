/**
 * What a member's `.status` may add to the host object (docs/operations.md "Member cache
 * budget"): a member admin writes their copies' status, and with raw status collection every
 * cluster's is copied into the federated object's `status.clusters[].remoteStatus`. Unbounded,
 * one member could push the host object past etcd's 1.5 MiB request limit and stop its status
 * from being written at all.
 */
import type { FederatedClusterStatus } from '@kubefed/api';
import { approximateJsonBytes } from '@kubefed/runtime';

/** The `remoteStatus` of one cluster, written as JSON, at most: 64 KiB. */
export const MAX_REMOTE_STATUS_BYTES = 64 * 1024;

/** The `remoteStatus` of every cluster together, at most: 1 MiB, leaving room for the template and the rest below etcd's limit. */
const MAX_REMOTE_STATUSES_BYTES = 1024 * 1024;

/** The key of the object that stands for a status too big to be copied. */
export const REMOTE_STATUS_OMITTED_KEY = 'kubefed.io/status-omitted';

/**
 * `clusters` with every `remoteStatus` past {@link MAX_REMOTE_STATUS_BYTES} replaced by
 * `{ "kubefed.io/status-omitted": <why> }`, then the largest ones replaced the same way until
 * all of them together fit {@link MAX_REMOTE_STATUSES_BYTES}. Entries are not modified.
 */
export function boundRemoteStatuses(clusters: readonly FederatedClusterStatus[]): FederatedClusterStatus[] {
  const sizes = clusters.map((c) => (c.remoteStatus === undefined ? 0 : JSON.stringify(c.remoteStatus).length));
  const omitted = new Set<number>();
  sizes.forEach((size, i) => {
    if (size > MAX_REMOTE_STATUS_BYTES) omitted.add(i);
  });
  let total = sizes.reduce((sum, size, i) => sum + (omitted.has(i) ? 0 : size), 0);
  const bySize = sizes.map((size, i) => [size, i] as const).sort((a, b) => b[0] - a[0]);
  for (const [size, i] of bySize) {
    if (total <= MAX_REMOTE_STATUSES_BYTES) break;
    if (omitted.has(i)) continue;
    omitted.add(i);
    total -= size;
  }
  if (omitted.size === 0) return [...clusters];
  return clusters.map((c, i) => {
    if (!omitted.has(i)) return c;
    const size = sizes[i] ?? 0;
    const why =
      size > MAX_REMOTE_STATUS_BYTES
        ? `the status of the copy in cluster ${c.name} is ${kib(size)} as JSON, more than the ${kib(MAX_REMOTE_STATUS_BYTES)} one cluster may report here`
        : `the status of the copy in cluster ${c.name} (${kib(size)} as JSON) does not fit in the ${kib(MAX_REMOTE_STATUSES_BYTES)} all clusters may report here`;
    return { ...c, remoteStatus: { [REMOTE_STATUS_OMITTED_KEY]: why } };
  });
}

/**
 * The `.status` a member watch keeps of a copy: `status` itself, or, past
 * {@link MAX_REMOTE_STATUS_BYTES} (approximately, as JSON), the `{ "kubefed.io/status-omitted": <why> }`
 * that stands for it, so that neither the cache nor the sync outcome carries it.
 */
export function boundedCopyStatus(status: unknown): unknown {
  const size = approximateJsonBytes(status);
  if (size <= MAX_REMOTE_STATUS_BYTES) return status;
  return {
    [REMOTE_STATUS_OMITTED_KEY]: `the status of the copy is ${kib(size)} as JSON, more than the ${kib(MAX_REMOTE_STATUS_BYTES)} one cluster may report here`,
  };
}

const kib = (bytes: number): string => `${Math.ceil(bytes / 1024)} KiB`;
