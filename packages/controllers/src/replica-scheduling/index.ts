/**
 * The ReplicaSchedulingPreference controller (docs/kubefed-compatibility.md §4.6): divides an RSP's
 * totalReplicas over the ready member clusters with `@kubefed/scheduler` and writes placement and
 * `/spec/replicas` overrides into the FederatedDeployment/FederatedReplicaSet of the same name.
 * Start at `scheduling-update.ts` (what is written), then the reconciler.
 */
export { InvalidSchedulingPreferenceError, MissingSelectorError, ReplicaSchedulingError } from './errors.js';
export {
  applyReplicaOverrides,
  overridesUpToDate,
  placementNeedsUpdate,
  REPLICAS_OVERRIDE_PATH,
  schedulingUpdate,
  type ClusterOverride,
  type OverrideEntry,
  type SchedulableSpec,
  type SchedulingUpdate,
} from './scheduling-update.js';
export {
  describeResult,
  readSchedulingStatus,
  SCHEDULED_CONDITION,
  schedulingStatus,
  schedulingStatusChanged,
  type ScheduledReason,
  type SchedulingCondition,
  type SchedulingOutcome,
  type SchedulingStatus,
} from './scheduling-status.js';
export { federatedNamespaceResourceOf, schedulingTargetsOf, type FtcLike } from './scheduling-targets.js';
export {
  DEFAULT_FEDERATED_NAMESPACES,
  DEFAULT_SCHEDULING_TARGETS,
  ReplicaSchedulingPreferenceReconciler,
  RSP_GVR,
  type ReadyClusterSource,
  type ReplicaSchedulingPreferenceReconcilerOptions,
  type SchedulingTarget,
} from './replica-scheduling-preference-reconciler.js';
export {
  clusterChangeDelay,
  registerReplicaSchedulingController,
  type ClusterChangeDelays,
  type ReplicaSchedulingControllerHandle,
  type ReplicaSchedulingControllerOptions,
} from './register-replica-scheduling-controller.js';
