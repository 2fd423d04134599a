/**
 * The per-cluster decision of the sync worker (KubeFed `pkg/controller/sync/dispatch/`):
 * given placement, cluster readiness and what the member holds, which operation the member
 * cluster needs and which status is known without IO.
 */
import { MANAGED_LABEL, MANAGED_LABEL_FALSE, MANAGED_LABEL_TRUE, type PropagationStatus, type Switch } from '@kubefed/api';
import { type DeleteOptions, isDeleting, type KubeObject } from '@kubefed/client';

/** What a member cluster's cache holds for the federated object's name. */
export type MemberObservation =
  | { readonly state: 'absent' }
  | { readonly state: 'present'; readonly object: KubeObject }
  | { readonly state: 'unreadable'; readonly error: unknown };

/** Operations on a member object. `unlabel` removes the managed label (merge patch). */
export type ClusterOperationType = 'create' | 'update' | 'delete' | 'unlabel' | 'none';

/** The decision for one member cluster. */
export interface ClusterOperation {
  readonly cluster: string;
  readonly op: ClusterOperationType;
  /**
   * For `none`: the status to record for the cluster (absent = nothing to report). For the
   * other operations: KubeFed's placeholder while the operation runs (`*TimedOut`).
   */
  readonly status?: PropagationStatus;
  /**
   * The member object an `update`, `delete` or `unlabel` acts on; for `WaitingForRemoval` the
   * terminating object, whose `.status` is reported as remoteStatus when collection is on.
   */
  readonly member?: KubeObject;
  /**
   * `update` of an object that lacks the managed label: adoption (KubeFed emits the Warning
   * event `CreateInClusterFailed` "An update will be attempted instead of a creation due to an
   * existing resource").
   */
  readonly adopt?: boolean;
  /** Options of a `delete` issued while the federated object is being deleted. */
  readonly deleteOptions?: DeleteOptions;
}

/** Options of {@link planClusterSync}. */
export interface DispatchOptions {
  /** KubeFedConfig `spec.syncController.adoptResources`. Default `Enabled`. */
  readonly adoptResources?: Switch | undefined;
  /**
   * UID of the host cluster's own Namespace of this name (Namespace target only): a member
   * object with this UID is the host namespace, which is unlabelled but never deleted, and
   * always adopted. Default: none.
   */
  readonly hostNamespaceUid?: string | undefined;
}

/** Input of {@link planClusterSync}: one member cluster. */
export interface ClusterSyncInput extends DispatchOptions {
  readonly cluster: string;
  /** The cluster's `Ready` condition is True. */
  readonly ready: boolean;
  /** The cluster is in the effective placement. */
  readonly selected: boolean;
  /** What its cache holds. */
  readonly member: MemberObservation;
}

const labelOf = (obj: KubeObject): string | undefined => obj.metadata.labels?.[MANAGED_LABEL];
/** The object carries `kubefed.io/managed: "true"`. */
export const isManaged = (obj: KubeObject): boolean => labelOf(obj) === MANAGED_LABEL_TRUE;
const isHostNamespace = (obj: KubeObject, o: DispatchOptions): boolean =>
  o.hostNamespaceUid !== undefined && o.hostNamespaceUid !== '' && obj.metadata.uid === o.hostNamespaceUid;

/**
 * The sync-flow decision for one member cluster (docs/kubefed-compatibility.md §4.4.9 table), in KubeFed's order:
 * - not Ready: `ClusterNotReady` when selected, else nothing;
 * - unreadable cache: `CachedRetrievalFailed`;
 * - not selected: nothing without a managed object (objects without the managed label are
 *   never touched); `WaitingForRemoval` when it is terminating; `unlabel` for the host
 *   namespace; else `delete` (placeholder `DeletionTimedOut`);
 * - selected, absent: `create` (placeholder `CreationTimedOut`);
 * - selected, present without the managed label (KubeFed finds these through create →
 *   AlreadyExists → GET): `AlreadyExists` when adoption is disabled (the host namespace is
 *   always adopted), else `ManagedLabelFalse` when labelled `"false"`, else an adopting `update`;
 * - selected, managed: `update` (placeholder `UpdateTimedOut`; the worker may still find it is
 *   a no-op, see `needsUpdate`).
 */
export function planClusterSync(input: ClusterSyncInput): ClusterOperation {
  const { cluster, member } = input;
  const none = (status?: PropagationStatus): ClusterOperation =>
    status === undefined ? { cluster, op: 'none' } : { cluster, op: 'none', status };
  if (!input.ready) return input.selected ? none('ClusterNotReady') : none();
  if (member.state === 'unreadable') return none('CachedRetrievalFailed');
  if (!input.selected) {
    if (member.state === 'absent' || !isManaged(member.object)) return none();
    const obj = member.object;
    if (isDeleting(obj)) return { cluster, op: 'none', status: 'WaitingForRemoval', member: obj };
    if (isHostNamespace(obj, input)) return { cluster, op: 'unlabel', status: 'LabelRemovalTimedOut', member: obj };
    return { cluster, op: 'delete', status: 'DeletionTimedOut', member: obj };
  }
  if (member.state === 'absent') return { cluster, op: 'create', status: 'CreationTimedOut' };
  const obj = member.object;
  if (!isManaged(obj)) {
    const host = isHostNamespace(obj, input);
    if (!host && input.adoptResources === 'Disabled') return none('AlreadyExists');
    if (labelOf(obj) === MANAGED_LABEL_FALSE) return none('ManagedLabelFalse');
    return { cluster, op: 'update', status: 'UpdateTimedOut', member: obj, adopt: true };
  }
  return { cluster, op: 'update', status: 'UpdateTimedOut', member: obj };
}
