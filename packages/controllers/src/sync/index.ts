/**
 * The sync path's decisions, as pure functions without IO (docs/architecture.md), and
 * `sync-type.ts` (one federated type as the sync path sees it). The IO is cut by role: the
 * reconciler (`reconcile/sync-reconciler.ts`) takes `namespaceTargetOf` (FederatedNamespaces)
 * and the placement (`shared/placement-reader.ts`) and enqueues one job per cluster; the worker
 * (`worker/sync-worker.ts`) decides with `planClusterSync`, renders with `renderDesiredObject`
 * and skips unchanged copies with `needsUpdate`; the status writer (`status/status-writer.ts`)
 * aggregates with `computeFederatedStatus`. The roles share only `shared/`, and
 * `register-sync-path.ts` builds them all. Start reading at `reconcile/sync-reconciler.ts`.
 */
export {
  ApplyOverridesError,
  ClusterSyncError,
  ComputeResourceError,
  DeleteOptionsError,
  FieldRetentionError,
  MemberNotReadyError,
  SyncError,
} from './errors.js';
export { applyJsonPatch, JsonPatchError, type JsonPatchOperation } from './json-patch.js';
export { applyClusterOverrides, clusterOverridesFor, type OverridesSource } from './cluster-overrides.js';
export { retainClusterFields, type RetainOptions } from './retain-fields.js';
export {
  renderDesiredObject,
  type RenderedObject,
  type RenderInput,
  type RenderSource,
  type RenderWarning,
} from './render-desired-object.js';
export {
  memberVersion,
  needsUpdate,
  objectVersions,
  overridesVersion,
  recordedVersion,
  templateVersion,
  type NeedsUpdateInput,
  type ObjectVersions,
  type VersionSource,
} from './versions.js';
export { buildPropagatedVersion, type BuildPropagatedVersionInput, type BuiltPropagatedVersion } from './build-propagated-version.js';
export { parseDeleteOptions } from './delete-options.js';
export {
  isManaged,
  planClusterSync,
  type ClusterOperation,
  type ClusterOperationType,
  type ClusterSyncInput,
  type DispatchOptions,
  type MemberObservation,
} from './dispatch-plan.js';
export {
  computeFederatedStatus,
  formatConditionTime,
  statusEqual,
  type ClusterPropagationResult,
  type FederatedStatusInput,
  type FederatedStatusResult,
} from './federated-status.js';
export {
  ADOPTING_EXISTING_RESOURCE,
  clusterNotReadyEvent,
  clustersNotJoinedEvent,
  computePlacementFailedEvent,
  invalidFederatedNamespaceEvent,
  operationEvent,
  RESOURCE_PRE_EXISTS,
  waitForRemovalEvent,
  type EventOperation,
  type SyncEvent,
} from './sync-events.js';
export { namespaceTargetOf, type NamespaceTarget } from './namespace-target.js';
export { FEDERATED_NAMESPACE_GVR, placementOf, syncTypeLookup, syncTypeOf, type PlacementEnvironment, type SyncType } from './sync-type.js';
export {
  registerSyncPath,
  type SyncControllersOptions,
  type SyncFleet,
  type SyncPath,
  type SyncPathOptions,
  type SyncVersions,
  type SyncWorkersOptions,
} from './register-sync-path.js';
