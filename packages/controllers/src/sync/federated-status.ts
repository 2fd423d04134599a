/**
 * The status of a federated object (docs/kubefed-compatibility.md §1.4, §4.4.10): the `Propagation`
 * condition, per-cluster statuses and observedGeneration, plus the retry decision.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  AggregateReason,
  type FederatedClusterStatus,
  type FederatedCondition,
  type FederatedStatus,
  PROPAGATION_CONDITION_TYPE,
  type PropagationStatus,
} from '@kubefed/api';
import { boundRemoteStatuses } from './bounded-remote-status.js';

/** The outcome reported for one member cluster. */
export interface ClusterPropagationResult {
  /** PropagationStatus; `""` or absent = in the desired state. */
  readonly status?: PropagationStatus | undefined;
  /** The member object's `.status` (only used with raw status collection). */
  readonly remoteStatus?: Readonly<Record<string, unknown>> | undefined;
}

/** Input of {@link computeFederatedStatus}. */
export interface FederatedStatusInput {
  /** The federated object's `metadata.generation`. */
  readonly generation: number | undefined;
  /** Aggregate reason from listing clusters / computing placement: `""` (default), `ClusterRetrievalFailed`, `ComputePlacementFailed`. */
  readonly reason?: AggregateReason | undefined;
  /** Why the aggregate `reason` failed (the selector parser's message); written as the condition's `message`. Default none. */
  readonly message?: string | undefined;
  /** A namespaced target in a cluster-scoped plane has no FederatedNamespace (`effectivePlacement` reason). Default false. */
  readonly namespaceNotFederated?: boolean | undefined;
  /** Per-cluster outcomes of this reconcile, by cluster name. */
  readonly clusterStatuses: ReadonlyMap<string, ClusterPropagationResult>;
  /** The current `.status` of the federated object. */
  readonly previousStatus?: FederatedStatus | undefined;
  /** The reconcile time (condition timestamps, RFC 3339 UTC, second precision). */
  readonly now: Date;
  /** FTC `statusCollection: Enabled` and the `RawResourceStatusCollection` gate is on. Default false. */
  readonly remoteStatusCollection?: boolean | undefined;
  /** A member object was created or updated in this reconcile. Default false. */
  readonly updatePerformed?: boolean | undefined;
}

/** Result of {@link computeFederatedStatus}. */
export interface FederatedStatusResult {
  /** The complete new `.status` (replaces the old one entirely). */
  readonly status: FederatedStatus;
  /** The final reason of the Propagation condition (`""` = True). */
  readonly reason: AggregateReason;
  /** Whether KubeFed would write the status (generation changed, condition transition or propagated changes). */
  readonly changed: boolean;
}

/** RFC 3339 UTC with second precision, e.g. `2026-11-21T10:00:00Z`. */
export function formatConditionTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

function cleanCondition(c: FederatedCondition): FederatedCondition {
  const out: FederatedCondition = { type: c.type, status: c.status };
  if (c.reason !== undefined && c.reason !== '') out.reason = c.reason;
  if (c.message !== undefined && c.message !== '') out.message = c.message;
  if (c.lastUpdateTime !== undefined) out.lastUpdateTime = c.lastUpdateTime;
  if (c.lastTransitionTime !== undefined) out.lastTransitionTime = c.lastTransitionTime;
  return out;
}

function clusterEntry(name: string, r: ClusterPropagationResult, collection: boolean): FederatedClusterStatus {
  const out: FederatedClusterStatus = { name };
  if (r.status !== undefined && r.status !== '') out.status = r.status;
  if (collection && r.remoteStatus !== undefined) out.remoteStatus = structuredClone(r.remoteStatus);
  return out;
}

function clustersDiffer(previous: readonly FederatedClusterStatus[], wanted: readonly FederatedClusterStatus[]): boolean {
  if (previous.length !== wanted.length) return true;
  const byName = new Map(previous.map((c) => [c.name, c]));
  return wanted.some((w) => {
    const p = byName.get(w.name);
    return p === undefined || (p.status ?? '') !== (w.status ?? '') || !isDeepStrictEqual(p.remoteStatus, w.remoteStatus);
  });
}

/**
 * Computes the new status (§4.4.10):
 * 1. reason `NamespaceNotFederated` when the aggregate reason is `""` and `namespaceNotFederated`;
 * 2. `observedGeneration` ← generation (omitted when 0);
 * 3. reason `CheckClusters` when still `""` and any cluster status is non-empty (or, with
 *    collection, a cluster has no remote status);
 * 4. `clusters` rebuilt (sorted by name; `status` omitted when `""`; `remoteStatus` only with
 *    collection, bounded by {@link boundRemoteStatuses}) when an entry was added, removed or changed, else kept;
 * 5. the `Propagation` condition: status `True` iff the reason is `""` (reason then omitted);
 *    `lastTransitionTime` ← now when it is new or its status/reason changed; `lastUpdateTime` ←
 *    now on a transition or when clusters changed (or, with collection, an update was
 *    performed). Conditions of other types are kept (only type, status, reason and times).
 * The condition's `message` is `input.message` while the reason is not `""`. Inputs are not modified.
 */
export function computeFederatedStatus(input: FederatedStatusInput): FederatedStatusResult {
  const collection = input.remoteStatusCollection ?? false;
  const previous = input.previousStatus ?? {};
  let reason: AggregateReason = input.reason ?? AggregateReason.None;
  if (reason === '' && input.namespaceNotFederated === true) reason = AggregateReason.NamespaceNotFederated;

  const generation = input.generation ?? 0;
  const generationChanged = (previous.observedGeneration ?? 0) !== generation;

  const results = [...input.clusterStatuses];
  if (reason === '' && results.some(([, r]) => (r.status ?? '') !== '' || (collection && r.remoteStatus === undefined))) {
    reason = AggregateReason.CheckClusters;
  }

  const entries = results.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, r]) => clusterEntry(name, r, collection));
  const wanted = collection ? boundRemoteStatuses(entries) : entries;
  const previousClusters = previous.clusters ?? [];
  const clustersChanged = clustersDiffer(previousClusters, wanted);
  const clusters = clustersChanged ? wanted : previousClusters.map((c) => structuredClone(c));
  const hasRemote = results.some(([, r]) => r.remoteStatus !== undefined);
  const changesPropagated = clustersChanged || (collection && results.length > 0 && hasRemote && input.updatePerformed === true);

  const now = formatConditionTime(input.now);
  const conditions = (previous.conditions ?? []).map(cleanCondition);
  let index = conditions.findIndex((c) => c.type === PROPAGATION_CONDITION_TYPE);
  const created = index === -1;
  if (created) index = conditions.push({ type: PROPAGATION_CONDITION_TYPE, status: '' }) - 1;
  const current = conditions[index] ?? { type: PROPAGATION_CONDITION_TYPE, status: '' };
  const newStatus = reason === '' ? 'True' : 'False';
  const transition = created || current.status !== newStatus || (current.reason ?? '') !== reason;
  const message = reason === '' ? '' : (input.message ?? '');
  const messageChanged = (current.message ?? '') !== message;
  const next: FederatedCondition = { ...current };
  if (transition) {
    next.status = newStatus;
    if (reason === '') delete next.reason;
    else next.reason = reason;
    next.lastTransitionTime = now;
  }
  if (message === '') delete next.message;
  else next.message = message;
  if (transition || changesPropagated || messageChanged) next.lastUpdateTime = now;
  conditions[index] = cleanCondition(next);

  const status: FederatedStatus = {};
  if (generation !== 0) status.observedGeneration = generation;
  status.conditions = conditions;
  if (clusters.length > 0) status.clusters = clusters;
  return { status, reason, changed: generationChanged || transition || changesPropagated || messageChanged };
}

const withoutTimes = (c: FederatedCondition): FederatedCondition => {
  const out: FederatedCondition = { type: c.type, status: c.status };
  if (c.reason !== undefined && c.reason !== '') out.reason = c.reason;
  return out;
};
const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T): number =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * Whether two statuses are the same apart from condition timestamps, to avoid no-op status
 * writes: observedGeneration (absent = 0), conditions by type (status, reason; `""` = absent),
 * clusters by name (status, remoteStatus). Order of conditions and clusters is ignored.
 */
export function statusEqual(a: FederatedStatus | undefined, b: FederatedStatus | undefined): boolean {
  const norm = (s: FederatedStatus | undefined) => ({
    observedGeneration: s?.observedGeneration ?? 0,
    conditions: (s?.conditions ?? []).map(withoutTimes).sort(byKey((c) => c.type)),
    clusters: (s?.clusters ?? [])
      .map((c) => ({ name: c.name, status: c.status ?? '', remoteStatus: c.remoteStatus }))
      .sort(byKey((c) => c.name)),
  });
  return isDeepStrictEqual(norm(a), norm(b));
}
