/**
 * Per-cluster dispatch decisions of the sync controller (KUBEFED-REFERENCE §4.4.2, §4.4.9,
 * §4.4.11, §4.4.12): given placement, cluster readiness and what each member cache holds,
 * which operation each member cluster needs and which statuses are known without IO.
 */
import {
  isClusterReady,
  type KubeFedCluster,
  MANAGED_LABEL,
  MANAGED_LABEL_FALSE,
  MANAGED_LABEL_TRUE,
  ORPHAN_ANNOTATION,
  ORPHAN_ANNOTATION_TRUE,
  type PropagationStatus,
  type Switch,
  SYNC_CONTROLLER_FINALIZER,
} from '@kubefed/api';
import type { DeleteOptions, KubeObject } from '@kubefed/client';
import { parseDeleteOptions } from './delete-options.js';

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
   * other operations: the placeholder recorded until the operation finishes (`*TimedOut`,
   * kept if it does not finish in time); see {@link operationOutcomeStatus}.
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

/** A member cluster as dispatch sees it. */
export type DispatchCluster = Pick<KubeFedCluster, 'metadata' | 'status'>;

/** Options shared by the planning functions. */
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
const isTerminating = (obj: KubeObject): boolean => obj.metadata.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
const isHostNamespace = (obj: KubeObject, o: DispatchOptions): boolean =>
  o.hostNamespaceUid !== undefined && o.hostNamespaceUid !== '' && obj.metadata.uid === o.hostNamespaceUid;

/**
 * The sync-flow decision for one member cluster (§4.4.9 table), in KubeFed's order:
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
  const none = (status?: PropagationStatus): ClusterOperation => (status === undefined ? { cluster, op: 'none' } : { cluster, op: 'none', status });
  if (!input.ready) return input.selected ? none('ClusterNotReady') : none();
  if (member.state === 'unreadable') return none('CachedRetrievalFailed');
  if (!input.selected) {
    if (member.state === 'absent' || !isManaged(member.object)) return none();
    const obj = member.object;
    if (isTerminating(obj)) return { cluster, op: 'none', status: 'WaitingForRemoval', member: obj };
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

/** How an operation ended. */
export type OperationOutcome = 'succeeded' | 'failed' | 'timedOut';

/**
 * The status a cluster reports after its operation (§4.4.9): create/update → `""` on success,
 * `CreationFailed` / `UpdateFailed` on error; delete → `WaitingForRemoval` / `DeletionFailed`;
 * unlabel → no entry (`undefined`) / `LabelRemovalFailed`; timed out → the `*TimedOut`
 * placeholder. A create that met an existing object is re-planned with the fetched object
 * instead ({@link planClusterSync}). `none` keeps its planned status.
 */
export function operationOutcomeStatus(op: ClusterOperation, outcome: OperationOutcome): PropagationStatus | undefined {
  const table: Record<Exclude<ClusterOperationType, 'none'>, Record<OperationOutcome, PropagationStatus | undefined>> = {
    create: { succeeded: '', failed: 'CreationFailed', timedOut: 'CreationTimedOut' },
    update: { succeeded: '', failed: 'UpdateFailed', timedOut: 'UpdateTimedOut' },
    delete: { succeeded: 'WaitingForRemoval', failed: 'DeletionFailed', timedOut: 'DeletionTimedOut' },
    unlabel: { succeeded: undefined, failed: 'LabelRemovalFailed', timedOut: 'LabelRemovalTimedOut' },
  };
  return op.op === 'none' ? op.status : table[op.op][outcome];
}

/** Input of {@link planDispatch}. */
export interface DispatchInput extends DispatchOptions {
  /** The federated object: deletionTimestamp, finalizers and annotations are read. */
  readonly fedObject: {
    readonly metadata: {
      readonly deletionTimestamp?: string | null | undefined;
      readonly finalizers?: readonly string[] | undefined;
      readonly annotations?: Readonly<Record<string, string>> | undefined;
    };
  };
  /** Every registered KubeFedCluster, ready or not. */
  readonly clusters: readonly DispatchCluster[];
  /** The effective placement (§4.4.4). */
  readonly placement: Iterable<string>;
  /** Cache observations by cluster name; a missing entry means absent. */
  readonly members: ReadonlyMap<string, MemberObservation>;
}

/** Sync flow: one operation per registered cluster (§4.4.9). */
export interface SyncPlan {
  readonly mode: 'sync';
  readonly operations: readonly ClusterOperation[];
}

/** Deletion with the finalizer already gone: nothing to do (§4.4.11 step 1). */
export interface FinalizedPlan {
  readonly mode: 'finalized';
}

/** What a deletion plan leaves to do after its operations. */
export type DeletionNext =
  /** Some placement cluster is not Ready or unreadable: after the operations, return Error (retry with back-off). */
  | 'error'
  /** Objects remain: Normal event `WaitForRemovalInCluster`, recheck after 10 s. */
  | 'recheck'
  /** Nothing remains: verify with live GETs ({@link isReleased}), then remove the finalizer. */
  | 'verifyAndRemoveFinalizer'
  /** Orphaning with every placement cluster readable: done once the unlabels succeed (a failure → Error). */
  | 'done';

/** Deletion flow: orphaning (unlabel) or removal (delete), over the placement clusters only (§4.4.11). */
export interface DeletionPlan {
  readonly mode: 'orphan' | 'delete';
  /** Orphaning removes the finalizer before unlabelling. */
  readonly removeFinalizerFirst: boolean;
  readonly operations: readonly ClusterOperation[];
  /** Placement clusters that are not Ready (`the following clusters were not ready: …`). */
  readonly unreadyClusters: readonly string[];
  /** Placement clusters whose cache could not be read. */
  readonly unreadableClusters: readonly string[];
  /** Clusters still holding a managed object (delete mode). */
  readonly remainingClusters: readonly string[];
  /** Options passed on every delete (delete mode; `{}` in orphan mode). */
  readonly deleteOptions: DeleteOptions;
  readonly next: DeletionNext;
}

/** Result of {@link planDispatch}. */
export type DispatchPlan = SyncPlan | FinalizedPlan | DeletionPlan;

const observe = (members: ReadonlyMap<string, MemberObservation>, cluster: string): MemberObservation => members.get(cluster) ?? { state: 'absent' };
const nameOf = (c: DispatchCluster): string => c.metadata.name ?? '';
/** Named clusters sorted by name, so plans are deterministic. */
const sortedClusters = (clusters: readonly DispatchCluster[]): DispatchCluster[] =>
  clusters.filter((c) => nameOf(c) !== '').sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));

function planDeletion(input: DispatchInput, orphan: boolean): DeletionPlan {
  const deleteOptions = orphan ? {} : parseDeleteOptions(input.fedObject);
  const placement = new Set(input.placement);
  const operations: ClusterOperation[] = [];
  const unready: string[] = [];
  const unreadable: string[] = [];
  const remaining: string[] = [];
  for (const c of sortedClusters(input.clusters)) {
    const cluster = nameOf(c);
    if (!placement.has(cluster)) continue;
    if (!isClusterReady(c)) {
      unready.push(cluster);
      continue;
    }
    const member = observe(input.members, cluster);
    if (member.state === 'unreadable') {
      unreadable.push(cluster);
      continue;
    }
    if (member.state === 'absent' || !isManaged(member.object)) continue;
    const obj = member.object;
    const host = isHostNamespace(obj, input);
    if (orphan) {
      if (!isTerminating(obj)) operations.push({ cluster, op: 'unlabel', member: obj });
      continue;
    }
    // A terminating host namespace cannot be waited for: the namespace controller removes the
    // FederatedNamespace once the namespace is gone.
    if (host && isTerminating(obj)) continue;
    remaining.push(cluster);
    if (isTerminating(obj)) continue;
    operations.push(host ? { cluster, op: 'unlabel', member: obj } : { cluster, op: 'delete', member: obj, deleteOptions });
  }
  const blocked = unready.length > 0 || unreadable.length > 0;
  const next: DeletionNext = blocked ? 'error' : orphan ? 'done' : remaining.length > 0 ? 'recheck' : 'verifyAndRemoveFinalizer';
  return {
    mode: orphan ? 'orphan' : 'delete',
    removeFinalizerFirst: orphan,
    operations,
    unreadyClusters: unready,
    unreadableClusters: unreadable,
    remainingClusters: remaining,
    deleteOptions,
    next,
  };
}

/**
 * Plans one reconcile of a federated object:
 * - not being deleted → `sync`: {@link planClusterSync} for every registered cluster, sorted by name;
 * - being deleted without the `kubefed.io/sync-controller` finalizer → `finalized`;
 * - being deleted with `kubefed.io/orphan: "true"` → `orphan`: remove the finalizer first, then
 *   unlabel every non-terminating managed object in Ready placement clusters;
 * - being deleted otherwise → `delete`: in each Ready placement cluster with a managed object,
 *   delete it with the annotation's delete options (the host namespace is unlabelled instead,
 *   and skipped entirely when terminating); terminating objects get no new operation but still
 *   count as remaining.
 * Clusters outside the placement are not looked at during deletion.
 *
 * @throws DeleteOptionsError when deleting and `kubefed.io/deleteoption` is invalid.
 */
export function planDispatch(input: DispatchInput): DispatchPlan {
  const meta = input.fedObject.metadata;
  if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) {
    if (!(meta.finalizers ?? []).includes(SYNC_CONTROLLER_FINALIZER)) return { mode: 'finalized' };
    return planDeletion(input, meta.annotations?.[ORPHAN_ANNOTATION] === ORPHAN_ANNOTATION_TRUE);
  }
  const placement = new Set(input.placement);
  const operations = sortedClusters(input.clusters).map((c) =>
    planClusterSync({
      cluster: nameOf(c),
      ready: isClusterReady(c),
      selected: placement.has(nameOf(c)),
      member: observe(input.members, nameOf(c)),
      adoptResources: input.adoptResources,
      hostNamespaceUid: input.hostNamespaceUid,
    }),
  );
  return { mode: 'sync', operations };
}

/**
 * Plans the release of member objects whose federated object no longer exists (§4.4.2
 * "possible orphan", §9.4): unlabel every non-terminating managed object in every registered
 * cluster (never delete). Not-ready clusters are returned as `unreadyClusters` (the reconcile
 * then fails with `the following clusters were not ready: …` and retries).
 */
export function planRelease(input: Pick<DispatchInput, 'clusters' | 'members'>): { operations: ClusterOperation[]; unreadyClusters: string[]; unreadableClusters: string[] } {
  const operations: ClusterOperation[] = [];
  const unreadyClusters: string[] = [];
  const unreadableClusters: string[] = [];
  for (const c of sortedClusters(input.clusters)) {
    const cluster = nameOf(c);
    if (!isClusterReady(c)) {
      unreadyClusters.push(cluster);
      continue;
    }
    const member = observe(input.members, cluster);
    if (member.state === 'unreadable') unreadableClusters.push(cluster);
    else if (member.state === 'present' && isManaged(member.object) && !isTerminating(member.object))
      operations.push({ cluster, op: 'unlabel', member: member.object });
  }
  return { operations, unreadyClusters, unreadableClusters };
}

/**
 * The final check before removing the finalizer (§4.4.11 step 6), on a live GET of one Ready
 * placement cluster (`undefined` = not found): the object is gone, or is the host namespace
 * being deleted, or no longer carries the managed label. A terminating non-host object or a
 * still-labelled object is not released.
 */
export function isReleased(obj: KubeObject | undefined, options: Pick<DispatchOptions, 'hostNamespaceUid'> = {}): boolean {
  if (obj === undefined) return true;
  if (isHostNamespace(obj, options) && isTerminating(obj)) return true;
  if (isTerminating(obj)) return false;
  return !isManaged(obj);
}
