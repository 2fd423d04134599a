/**
 * KubeFed's fixed strings: API groups and versions, names, labels, annotations, finalizers,
 * condition types and reasons, propagation status values and feature gates
 * (docs/kubefed-compatibility.md §1, §2, §4.2, §4.4.10). These are part of the compatibility contract.
 */

/** Default namespace of the control plane. */
export const KUBEFED_NAMESPACE_DEFAULT = 'kube-federation-system';
/** Name of the one KubeFedConfig object in the kubefed namespace. */
export const KUBEFED_CONFIG_NAME = 'kubefed';
/** Leader-election lock name (in the kubefed namespace). */
export const LEADER_ELECTION_LOCK_NAME = 'kubefed-controller-manager';
/** Namespaces the namespace sync controller never propagates (besides the kubefed namespace itself). */
export const UNPROPAGATED_NAMESPACES = ['kube-system', 'kube-public', 'default'] as const;

/** API group of KubeFedCluster, KubeFedConfig, FederatedTypeConfig and the version bookkeeping kinds. */
export const CORE_GROUP = 'core.kubefed.io';
/** Version of KubeFedCluster, KubeFedConfig and FederatedTypeConfig. */
export const CORE_VERSION = 'v1beta1';
/** Version of PropagatedVersion and ClusterPropagatedVersion. */
export const CORE_V1ALPHA1_VERSION = 'v1alpha1';
/** Group of ReplicaSchedulingPreference. */
export const SCHEDULING_GROUP = 'scheduling.kubefed.io';
/** Version of ReplicaSchedulingPreference. */
export const SCHEDULING_VERSION = 'v1alpha1';
/** Default group of generated federated types. */
export const DEFAULT_FEDERATED_GROUP = 'types.kubefed.io';
/** Default version of generated federated types. */
export const DEFAULT_FEDERATED_VERSION = 'v1beta1';
/** CRD category that every KubeFed CRD carries (`kubectl get kubefed`). */
export const KUBEFED_CATEGORY = 'kubefed';

/** `apiVersion` strings of the KubeFed kinds. */
export const API_VERSIONS = {
  core: `${CORE_GROUP}/${CORE_VERSION}`,
  coreV1alpha1: `${CORE_GROUP}/${CORE_V1ALPHA1_VERSION}`,
  scheduling: `${SCHEDULING_GROUP}/${SCHEDULING_VERSION}`,
  types: `${DEFAULT_FEDERATED_GROUP}/${DEFAULT_FEDERATED_VERSION}`,
} as const;

/** Kind names of the KubeFed APIs. */
export const KINDS = {
  kubeFedCluster: 'KubeFedCluster',
  kubeFedConfig: 'KubeFedConfig',
  federatedTypeConfig: 'FederatedTypeConfig',
  propagatedVersion: 'PropagatedVersion',
  clusterPropagatedVersion: 'ClusterPropagatedVersion',
  federatedServiceStatus: 'FederatedServiceStatus',
  replicaSchedulingPreference: 'ReplicaSchedulingPreference',
} as const;

/** Label on every member object the sync controller manages (`"true"`), or opt-out (`"false"`). */
export const MANAGED_LABEL = 'kubefed.io/managed';
/** Value of {@link MANAGED_LABEL} on managed objects. */
export const MANAGED_LABEL_TRUE = 'true';
/** Value of {@link MANAGED_LABEL} set by users to refuse adoption. */
export const MANAGED_LABEL_FALSE = 'false';
/** Annotation on a federated object: `"true"` leaves member objects in place on deletion. */
export const ORPHAN_ANNOTATION = 'kubefed.io/orphan';
/** Value of {@link ORPHAN_ANNOTATION} that enables orphaning. */
export const ORPHAN_ANNOTATION_TRUE = 'true';
/** Annotation on a federated object holding JSON DeleteOptions used for member deletes. */
export const DELETE_OPTION_ANNOTATION = 'kubefed.io/deleteoption';
/** Finalizer on every federated object reconciled by a sync controller. */
export const SYNC_CONTROLLER_FINALIZER = 'kubefed.io/sync-controller';
/** Finalizer on every FederatedTypeConfig. */
export const FEDERATED_TYPE_CONFIG_FINALIZER = 'core.kubefed.io/federated-type-config';
/**
 * Annotation `kubefedctl join` writes on the KubeFedCluster: the control-plane scope (`Cluster` or
 * `Namespaced`) whose RBAC it granted in the member. The cluster health controller reports a
 * cluster whose join scope differs from the running scope (`Ready=False`, reason
 * `JoinScopeMismatch`); a cluster without it (joined by KubeFed's kubefedctl or an older join) is
 * taken as it is.
 */
export const JOIN_SCOPE_ANNOTATION = 'kubefed.io/join-scope';
/**
 * Annotation on a (Cluster)PropagatedVersion, written by our sync workers only: JSON object of
 * cluster name → `metadata.uid` of the member copy last written there, e.g.
 * `{"member1":"3f2a…"}`. KubeFed neither reads nor writes it (its status writes leave metadata
 * alone). With it a copy deleted and recreated by someone else with the same generation is told
 * from the copy written, while `status.clusterVersions[].version` stays KubeFed's `gen:<generation>`.
 */
export const MEMBER_UIDS_ANNOTATION = 'kubefed.io/member-uids';
/** Secret data key holding the member cluster's bearer token. */
export const SECRET_TOKEN_KEY = 'token';
/** Secret data key holding a CA bundle (member SA token secrets). */
export const SECRET_CA_KEY = 'ca.crt';
/** ServiceAccount annotation set by `join`. */
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets';
/** Token secret annotation naming its service account. */
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
/** Node label read for zones (unused by KubeFed v0.10.0's probe). */
export const ZONE_NODE_LABEL = 'failure-domain.beta.kubernetes.io/zone';
/** Node label read for the region (unused by KubeFed v0.10.0's probe). */
export const REGION_NODE_LABEL = 'failure-domain.beta.kubernetes.io/region';
/** Annotation kubectl writes on client-side apply. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Condition types of KubeFedCluster status. */
export const ClusterConditionType = {
  Ready: 'Ready',
  Offline: 'Offline',
  ConfigMalformed: 'ConfigMalformed',
} as const;
export type ClusterConditionType = (typeof ClusterConditionType)[keyof typeof ClusterConditionType];

/** Condition statuses (Kubernetes ConditionStatus). */
export const ConditionStatus = { True: 'True', False: 'False', Unknown: 'Unknown' } as const;
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

/** Reasons and messages of KubeFedCluster conditions written by the health controller (§4.2). */
export const ClusterConditionReason = {
  ClusterReady: 'ClusterReady',
  ClusterNotReady: 'ClusterNotReady',
  ClusterNotReachable: 'ClusterNotReachable',
  ClusterReachable: 'ClusterReachable',
  ClusterConfigMalformed: 'ClusterConfigMalformed',
} as const;
export type ClusterConditionReason = (typeof ClusterConditionReason)[keyof typeof ClusterConditionReason];

/** Messages of KubeFedCluster conditions (`ClusterNotReachable` appends `: <error>`). */
export const ClusterConditionMessage = {
  ClusterReady: '/healthz responded with ok',
  ClusterNotReady: '/healthz responded without ok',
  ClusterNotReachable: 'cluster is not reachable',
  ClusterReachable: 'cluster is reachable',
  ClusterConfigMalformed: "cluster's configuration may be malformed",
} as const;

/** Event reasons of the cluster health controller. */
export const ClusterEventReason = {
  MalformedClusterConfig: 'MalformedClusterConfig',
  RetrievingClusterHealthFailed: 'RetrievingClusterHealthFailed',
} as const;

/** The condition type the sync controller maintains on federated objects. */
export const PROPAGATION_CONDITION_TYPE = 'Propagation';

/** Reasons of the `Propagation` condition (`""` = everything propagated, status True). */
export const AggregateReason = {
  None: '',
  CheckClusters: 'CheckClusters',
  ClusterRetrievalFailed: 'ClusterRetrievalFailed',
  ComputePlacementFailed: 'ComputePlacementFailed',
  NamespaceNotFederated: 'NamespaceNotFederated',
  /** A namespaced object in the kubefed namespace of a Cluster-scoped control plane: never propagated. */
  KubeFedNamespaceNotPropagated: 'KubeFedNamespaceNotPropagated',
} as const;
export type AggregateReason = (typeof AggregateReason)[keyof typeof AggregateReason];

/** Per-cluster propagation status values in `status.clusters[].status` (`""` = desired state, omitted). */
export const PropagationStatus = {
  OK: '',
  WaitingForRemoval: 'WaitingForRemoval',
  ClusterNotReady: 'ClusterNotReady',
  CachedRetrievalFailed: 'CachedRetrievalFailed',
  ComputeResourceFailed: 'ComputeResourceFailed',
  ApplyOverridesFailed: 'ApplyOverridesFailed',
  CreationFailed: 'CreationFailed',
  UpdateFailed: 'UpdateFailed',
  DeletionFailed: 'DeletionFailed',
  LabelRemovalFailed: 'LabelRemovalFailed',
  RetrievalFailed: 'RetrievalFailed',
  AlreadyExists: 'AlreadyExists',
  FieldRetentionFailed: 'FieldRetentionFailed',
  VersionRetrievalFailed: 'VersionRetrievalFailed',
  ClientRetrievalFailed: 'ClientRetrievalFailed',
  ManagedLabelFalse: 'ManagedLabelFalse',
  CreationTimedOut: 'CreationTimedOut',
  UpdateTimedOut: 'UpdateTimedOut',
  DeletionTimedOut: 'DeletionTimedOut',
  LabelRemovalTimedOut: 'LabelRemovalTimedOut',
  /**
   * Beyond KubeFed: a Namespace copy was written without the `pod-security.kubernetes.io/*`
   * labels the FederatedNamespace asks for (they stay as the member has them), because the
   * KubeFedConfig does not allow setting them (see {@link ALLOW_POD_SECURITY_LABELS_ANNOTATION}).
   */
  PodSecurityLabelsNotAllowed: 'PodSecurityLabelsNotAllowed',
} as const;
export type PropagationStatus = (typeof PropagationStatus)[keyof typeof PropagationStatus];

/** Propagation statuses that cause a retry with back-off after an otherwise successful reconcile. */
export const RECOVERABLE_PROPAGATION_STATUSES: ReadonlySet<PropagationStatus> = new Set<PropagationStatus>([
  'CreationFailed',
  'UpdateFailed',
  'DeletionFailed',
  'LabelRemovalFailed',
  'RetrievalFailed',
  'ClientRetrievalFailed',
  'CreationTimedOut',
  'UpdateTimedOut',
  'DeletionTimedOut',
  'LabelRemovalTimedOut',
]);

/** Feature gates known to KubeFed. */
export const FeatureGate = {
  PushReconciler: 'PushReconciler',
  RawResourceStatusCollection: 'RawResourceStatusCollection',
  SchedulerPreferences: 'SchedulerPreferences',
} as const;
export type FeatureGate = (typeof FeatureGate)[keyof typeof FeatureGate];

/** `Enabled` / `Disabled` switches used by feature gates, FTC propagation/statusCollection and adoptResources. */
export const Switch = { Enabled: 'Enabled', Disabled: 'Disabled' } as const;
export type Switch = (typeof Switch)[keyof typeof Switch];

/**
 * Default configuration of every known feature gate. Beyond KubeFed (where it is `Disabled`):
 * `RawResourceStatusCollection` is `Enabled`, so an FTC with `statusCollection: Enabled` shows
 * its members' status without also editing the KubeFedConfig; set it `Disabled` to turn it off.
 */
export const FEATURE_GATE_DEFAULTS: Readonly<Record<FeatureGate, Switch>> = {
  PushReconciler: 'Enabled',
  RawResourceStatusCollection: 'Enabled',
  SchedulerPreferences: 'Enabled',
};

/** FTC controller status values. */
export const ControllerStatus = { Running: 'Running', NotRunning: 'NotRunning' } as const;
export type ControllerStatus = (typeof ControllerStatus)[keyof typeof ControllerStatus];

/** The prefix of the Pod Security admission labels of a Namespace (`enforce`, `audit`, `warn` and their `-version`s). */
export const POD_SECURITY_LABEL_PREFIX = 'pod-security.kubernetes.io/';

/**
 * Annotation on the KubeFedConfig: `"true"` lets FederatedNamespaces set
 * {@link POD_SECURITY_LABEL_PREFIX} labels on member Namespaces (beyond KubeFed, which sets every
 * template label). Off by default: whoever may write a FederatedNamespace could otherwise make
 * a member Namespace `privileged`, which a namespace user of that member cannot do. An
 * annotation, not a spec field, so that KubeFed's own schema keeps the object valid.
 */
export const ALLOW_POD_SECURITY_LABELS_ANNOTATION = 'kubefed.io/allow-pod-security-labels';

/** Resource scopes. */
export const ResourceScope = { Cluster: 'Cluster', Namespaced: 'Namespaced' } as const;
export type ResourceScope = (typeof ResourceScope)[keyof typeof ResourceScope];

/** Name of the FTC (and target plural) identifying namespaces. */
export const NAMESPACE_TYPE_NAME = 'namespaces';

/** Target kinds a ReplicaSchedulingPreference may drive. */
export const RSP_TARGET_KINDS = ['FederatedDeployment', 'FederatedReplicaSet'] as const;

/** Event reasons of the sync controller (§4.4). */
export const SyncEventReason = {
  InvalidName: 'InvalidName',
  EnsureFinalizerError: 'EnsureFinalizerError',
  AnnotationsNotSupported: 'AnnotationsNotSupported',
  FinalizersNotSupported: 'FinalizersNotSupported',
  /** Beyond KubeFed: `pod-security.kubernetes.io/*` labels of a FederatedNamespace not set on a member (see `PodSecurityLabelsNotAllowed`). */
  PodSecurityLabelsNotAllowed: 'PodSecurityLabelsNotAllowed',
  /** Beyond KubeFed: template ownerReferences are dropped (a member's garbage collector would delete the copy). */
  OwnerReferencesNotSupported: 'OwnerReferencesNotSupported',
  ClusterNotReady: 'ClusterNotReady',
  CachedRetrievalFailed: 'CachedRetrievalFailed',
  CreateInCluster: 'CreateInCluster',
  UpdateInCluster: 'UpdateInCluster',
  DeleteInCluster: 'DeleteInCluster',
  RemoveManagedLabelFromInCluster: 'RemoveManagedLabelFromInCluster',
  CreateInClusterFailed: 'CreateInClusterFailed',
  UpdateInClusterFailed: 'UpdateInClusterFailed',
  DeleteInClusterFailed: 'DeleteInClusterFailed',
  RemoveManagedLabelFromInClusterFailed: 'RemoveManagedLabelFromInClusterFailed',
  OperationTimeoutError: 'OperationTimeoutError',
  WaitForRemovalInCluster: 'WaitForRemovalInCluster',
  /** Beyond KubeFed: the placement cannot be computed (the message says why). */
  ComputePlacementFailed: 'ComputePlacementFailed',
  /** Beyond KubeFed: the placement names clusters without a KubeFedCluster (ignored, as KubeFed does). */
  ClusterNotJoined: 'ClusterNotJoined',
} as const;
export type SyncEventReason = (typeof SyncEventReason)[keyof typeof SyncEventReason];

/** Event source components (and user agents) of KubeFed's controllers. */
export const EventComponent = {
  kubeFedCluster: 'kubefedcluster-controller',
  replicaSchedulingPreference: 'replicaschedulingpreference-controller',
  /** The sync controller of a federated kind: `<lowercase federated kind>-controller`. */
  sync: (federatedKind: string): string => `${federatedKind.toLowerCase()}-controller`,
} as const;
