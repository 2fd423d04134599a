/**
 * Kubernetes events the sync controller records on federated objects (docs/kubefed-compatibility.md
 * §4.4.2, §4.4.9, §4.4.11): reason, type and KubeFed's message texts.
 */
import type { SyncEventReason } from '@kubefed/api';

/** One event to record on the federated object. */
export interface SyncEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: SyncEventReason;
  readonly message: string;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** Member operations that have events. */
export type EventOperation = 'create' | 'update' | 'delete' | 'unlabel';

const NORMAL: Record<EventOperation, { reason: SyncEventReason; verb: string }> = {
  create: { reason: 'CreateInCluster', verb: 'Creating' },
  update: { reason: 'UpdateInCluster', verb: 'Updating' },
  delete: { reason: 'DeleteInCluster', verb: 'Deleting' },
  unlabel: { reason: 'RemoveManagedLabelFromInCluster', verb: 'Removing managed label from' },
};
const FAILED: Record<EventOperation, { reason: SyncEventReason; verb: string }> = {
  create: { reason: 'CreateInClusterFailed', verb: 'create' },
  update: { reason: 'UpdateInClusterFailed', verb: 'update' },
  delete: { reason: 'DeleteInClusterFailed', verb: 'delete' },
  unlabel: { reason: 'RemoveManagedLabelFromInClusterFailed', verb: 'remove managed label from' },
};

/** Error text of the `create` failure event when adoption is disabled (status `AlreadyExists`). */
export const RESOURCE_PRE_EXISTS = 'Resource pre-exist in cluster';
/** Error text of the `create` failure event when an existing object is adopted instead. */
export const ADOPTING_EXISTING_RESOURCE = 'An update will be attempted instead of a creation due to an existing resource';

/**
 * The event of a member operation on `<kind> "<name>"` (name qualified as `ns/name`):
 * without `error` the Normal event (`Creating Deployment "ns/web" in cluster "c1"`), with it
 * the Warning (`Failed to create Deployment "ns/web" in cluster "c1": <error>`).
 */
export function operationEvent(
  op: EventOperation,
  target: { readonly kind: string; readonly name: string },
  cluster: string,
  error?: unknown,
): SyncEvent {
  const subject = `${target.kind} "${target.name}" in cluster "${cluster}"`;
  if (error === undefined) return { type: 'Normal', reason: NORMAL[op].reason, message: `${NORMAL[op].verb} ${subject}` };
  const detail = errorText(error);
  return { type: 'Warning', reason: FAILED[op].reason, message: `Failed to ${FAILED[op].verb} ${subject}: ${detail}` };
}

/**
 * Warning `CachedRetrievalFailed`: the member object could not be read before deciding what the
 * cluster needs (KubeFed's `Failed to retrieve cached cluster object`).
 */
export function cachedRetrievalFailedEvent(error: unknown): SyncEvent {
  return { type: 'Warning', reason: 'CachedRetrievalFailed', message: `Failed to retrieve cached cluster object: ${errorText(error)}` };
}

/** KubeFed's wording of a failed member client lookup, as the error of an operation's failure event. */
export const clientRetrievalError = (error: unknown): string => `Error retrieving client for cluster: ${errorText(error)}`;

/** KubeFed's wording of a failed re-read of a member object found to exist, as the error of a `create` failure event. */
export const adoptionRetrievalError = (error: unknown): string =>
  `failed to retrieve object potentially requiring adoption: ${errorText(error)}`;

/** Warning `ClusterNotReady` for a selected cluster that is not Ready. */
export function clusterNotReadyEvent(): SyncEvent {
  return { type: 'Warning', reason: 'ClusterNotReady', message: 'Cluster not ready' };
}

/** Normal `WaitForRemovalInCluster` while member objects are being removed during deletion. */
export function waitForRemovalEvent(clusters: readonly string[]): SyncEvent {
  return {
    type: 'Normal',
    reason: 'WaitForRemovalInCluster',
    message: `Waiting for managed resources to be removed from the following clusters: ${clusters.join(', ')}`,
  };
}

/** Warning `InvalidName` for a FederatedNamespace whose name differs from its namespace. */
export function invalidFederatedNamespaceEvent(): SyncEvent {
  return {
    type: 'Warning',
    reason: 'InvalidName',
    message: 'The name of a federated namespace must match the name of its containing namespace.',
  };
}

/** Warning `ComputePlacementFailed` with the reason the placement cannot be computed (an invalid selector). */
export function computePlacementFailedEvent(message: string): SyncEvent {
  return { type: 'Warning', reason: 'ComputePlacementFailed', message };
}

/**
 * Warning `ClusterNotJoined` for placement names without a KubeFedCluster. KubeFed ignores them
 * silently (and so does the placement here); the event says so.
 */
export function clustersNotJoinedEvent(names: readonly string[]): SyncEvent {
  return {
    type: 'Warning',
    reason: 'ClusterNotJoined',
    message: `spec.placement.clusters names clusters that are not joined (no KubeFedCluster), ignored: ${names.join(', ')}`,
  };
}
