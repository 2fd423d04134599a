/**
 * The sync controller's decisions, as pure functions without IO (KUBEFED-REFERENCE §4.4).
 * A reconcile of one federated object reads state, then:
 * `namespaceTargetOf` (FederatedNamespaces) → `effectivePlacement` (from `../placement`) → `planDispatch` (per-cluster operations and the
 * statuses known without IO) → per cluster `renderDesiredObject` + `needsUpdate` → IO →
 * `operationOutcomeStatus` → `buildPropagatedVersion` → `computeFederatedStatus` /
 * `shouldRetry`. Start reading at `render-desired-object.ts` and
 * `dispatch-plan.ts`.
 */
export {
  ApplyOverridesError,
  ClusterSyncError,
  ComputeResourceError,
  DeleteOptionsError,
  FieldRetentionError,
  SyncError,
} from './errors.js';
export { applyJsonPatch, JsonPatchError, type JsonPatchOperation } from './json-patch.js';
export { applyClusterOverrides, clusterOverridesFor, type OverridesSource } from './cluster-overrides.js';
export { retainClusterFields, type RetainOptions } from './retain-fields.js';
export { renderDesiredObject, type RenderedObject, type RenderInput, type RenderSource, type RenderWarning } from './render-desired-object.js';
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
  isReleased,
  operationOutcomeStatus,
  planClusterSync,
  planDispatch,
  planRelease,
  type ClusterOperation,
  type ClusterOperationType,
  type ClusterSyncInput,
  type DeletionNext,
  type DeletionPlan,
  type DispatchCluster,
  type DispatchInput,
  type DispatchOptions,
  type DispatchPlan,
  type FinalizedPlan,
  type MemberObservation,
  type OperationOutcome,
  type SyncPlan,
} from './dispatch-plan.js';
export {
  computeFederatedStatus,
  formatConditionTime,
  isRecoverable,
  shouldRetry,
  statusEqual,
  type ClusterPropagationResult,
  type FederatedStatusInput,
  type FederatedStatusResult,
} from './federated-status.js';
export {
  ADOPTING_EXISTING_RESOURCE,
  cachedRetrievalFailedEvent,
  clusterNotReadyEvent,
  clustersNotReadyMessage,
  invalidFederatedNamespaceEvent,
  operationEvent,
  operationTimeoutEvent,
  RESOURCE_PRE_EXISTS,
  waitForRemovalEvent,
  type EventOperation,
  type SyncEvent,
} from './sync-events.js';
export { namespaceTargetOf, type NamespaceTarget } from './namespace-target.js';
