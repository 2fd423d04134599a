/**
 * The decisions of the cluster health controller as pure functions (docs/kubefed-compatibility.md §1.1,
 * §4.2): the conditions a probe produces, KubeFed's threshold adjustment, the member topology
 * read from Node labels, and whether a status write is needed.
 */
import {
  ClusterConditionMessage,
  ClusterConditionReason,
  ClusterConditionType,
  ConditionStatus,
  isClusterReady,
  JOIN_SCOPE_ANNOTATION,
  REGION_NODE_LABEL,
  ZONE_NODE_LABEL,
  type ClusterCondition,
  type KubeFedClusterStatus,
} from '@kubefed/api';

/**
 * Reason of the `Ready=False` condition of a cluster whose token Secret is not bound to it
 * (annotation `kubefed.io/cluster-name`, see `secretBindingProblem` of `@kubefed/client`): the
 * token was not sent anywhere. Also the reason of the Warning event. Beyond KubeFed.
 */
export const SECRET_NOT_BOUND_REASON = 'ClusterSecretNotBound';

/**
 * Reason of the `Ready=False` condition (and of the Warning event) of a cluster joined for
 * another control-plane scope than the running one (annotation `kubefed.io/join-scope`): its
 * RBAC in the member does not fit, so it is not probed nor used. Beyond KubeFed.
 */
export const JOIN_SCOPE_MISMATCH_REASON = 'JoinScopeMismatch';

/**
 * `Ready=False` reason (and Warning event) of a KubeFedCluster beyond the controller manager's
 * `--max-member-clusters`: no client, informers or sync worker exist for it.
 */
export const TOO_MANY_CLUSTERS_REASON = 'TooManyMemberClusters';

/**
 * `Ready=False` reason (and Warning event) of a KubeFedCluster whose member held more than its
 * cache budget in this controller manager (`--member-cache-max-objects`, `--member-cache-max-bytes`):
 * it is disengaged, and engaged again once the retry delay has passed.
 */
export const CACHE_BUDGET_EXCEEDED_REASON = 'CacheBudgetExceeded';

/**
 * Warning event of a KubeFedCluster whose short-lived member token could not be renewed
 * (`member-token-renewal.ts`): the message says whether the member or the host refused, and the
 * cluster stays usable until the token expires.
 */
export const TOKEN_RENEWAL_FAILED_REASON = 'TokenRenewalFailed';

/** Control-plane scopes (`KubeFedConfig.spec.scope`). */
export type ControlPlaneScope = 'Cluster' | 'Namespaced';

/** The identity of a KubeFedCluster {@link joinScopeProblem} reads. */
export interface JoinedCluster {
  readonly metadata: {
    readonly name?: string | undefined;
    readonly namespace?: string | undefined;
    readonly annotations?: Readonly<Record<string, string>> | undefined;
  };
}

/**
 * Why `cluster` must not be used by a control plane running with `scope`: the scope
 * `kubefedctl join` granted RBAC for (annotation `kubefed.io/join-scope`) is another one, or is
 * not a scope at all. Undefined when they agree, or when the annotation is absent (a cluster
 * joined by KubeFed's kubefedctl or before the annotation existed: its scope is unknown).
 */
export function joinScopeProblem(cluster: JoinedCluster, scope: ControlPlaneScope): string | undefined {
  const joined = cluster.metadata.annotations?.[JOIN_SCOPE_ANNOTATION];
  if (joined === undefined || joined === scope) return undefined;
  const name = cluster.metadata.name ?? '';
  const where = `annotation ${JOIN_SCOPE_ANNOTATION} of KubeFedCluster ${cluster.metadata.namespace ?? ''}/${name}`;
  if (joined !== 'Cluster' && joined !== 'Namespaced') {
    return `cluster ${name} has join scope ${JSON.stringify(joined)} (${where}), which is neither Cluster nor Namespaced: it is not used`;
  }
  return (
    `cluster ${name} was joined for scope ${joined} (${where}) but the control plane runs with scope ${scope} (KubeFedConfig spec.scope): ` +
    `the RBAC that join granted in the member does not fit, so the cluster is not used; unjoin it and join it again with this control plane`
  );
}

/** What one health probe of a member found. */
export type ProbeResult =
  /** No client could be built (missing/bad Secret, bad endpoint, bad CA ...). */
  | { readonly kind: 'malformed' }
  /** The token Secret is not bound to this cluster: no client was built, nothing was sent. `message` names Secret and cluster. */
  | { readonly kind: 'secretNotBound'; readonly message: string }
  /** The cluster was joined for another control-plane scope ({@link joinScopeProblem}): nothing was probed. `message` says what to do. */
  | { readonly kind: 'scopeMismatch'; readonly message: string }
  /** The process already serves its maximum of member clusters: no client was kept, nothing was probed. `message` names the limit. */
  | { readonly kind: 'tooManyClusters'; readonly message: string }
  /** The member passed its cache budget and is refused for a while: no client was kept, nothing was probed. `message` names the limit. */
  | { readonly kind: 'overCacheBudget'; readonly message: string }
  /** GET /healthz failed: network error, timeout or a non-2xx answer. `error` is appended to the message. */
  | { readonly kind: 'unreachable'; readonly error: string }
  /** /healthz answered 2xx with a body other than `ok`. */
  | { readonly kind: 'notReady' }
  /** /healthz answered `ok` (case-insensitive). */
  | { readonly kind: 'ready' };

/** Thresholds of `KubeFedConfig.spec.clusterHealthCheck`. */
export interface HealthThresholds {
  /** Probes needed (since the last transition) before a Ready cluster becomes not ready. */
  readonly failureThreshold: number;
  /** Probes needed (since the last transition) before a not-ready cluster becomes Ready. */
  readonly successThreshold: number;
}

/** The controller's memory of one cluster: the last published status and KubeFed's `resultRun`. */
export interface HealthHistory {
  readonly status: KubeFedClusterStatus;
  /** Probes since the readiness last flipped (KubeFed's counter; see {@link applyThresholds}). */
  readonly resultRun: number;
}

/** Formats epoch ms as a Kubernetes `metav1.Time` (RFC 3339, whole seconds, UTC). */
export function formatKubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function condition(type: string, status: string, reason: string, message: string, time: string): ClusterCondition {
  return { type, status, lastProbeTime: time, lastTransitionTime: time, reason, message };
}

/**
 * The conditions a probe writes (the table of docs/kubefed-compatibility.md §1.1, plus `Ready=False`
 * {@link SECRET_NOT_BOUND_REASON} for a token Secret bound to another cluster and
 * {@link JOIN_SCOPE_MISMATCH_REASON} for a cluster joined for another scope, and
 * {@link TOO_MANY_CLUSTERS_REASON} for a cluster beyond `--max-member-clusters`, {@link CACHE_BUDGET_EXCEEDED_REASON}
 * for one over its cache budget). Every condition gets
 * `lastProbeTime = lastTransitionTime = probeTime`; {@link applyThresholds} then keeps the
 * previous transition time where readiness did not change.
 */
export function probeConditions(result: ProbeResult, probeTime: string): ClusterCondition[] {
  const R = ClusterConditionReason;
  const M = ClusterConditionMessage;
  switch (result.kind) {
    case 'malformed':
      return [
        condition(
          ClusterConditionType.ConfigMalformed,
          ConditionStatus.True,
          R.ClusterConfigMalformed,
          M.ClusterConfigMalformed,
          probeTime,
        ),
      ];
    case 'secretNotBound':
      return [condition(ClusterConditionType.Ready, ConditionStatus.False, SECRET_NOT_BOUND_REASON, result.message, probeTime)];
    case 'scopeMismatch':
      return [condition(ClusterConditionType.Ready, ConditionStatus.False, JOIN_SCOPE_MISMATCH_REASON, result.message, probeTime)];
    case 'tooManyClusters':
      return [condition(ClusterConditionType.Ready, ConditionStatus.False, TOO_MANY_CLUSTERS_REASON, result.message, probeTime)];
    case 'overCacheBudget':
      return [condition(ClusterConditionType.Ready, ConditionStatus.False, CACHE_BUDGET_EXCEEDED_REASON, result.message, probeTime)];
    case 'unreachable':
      return [
        condition(
          ClusterConditionType.Offline,
          ConditionStatus.True,
          R.ClusterNotReachable,
          `${M.ClusterNotReachable}: ${result.error}`,
          probeTime,
        ),
      ];
    case 'notReady':
      return [
        condition(ClusterConditionType.Ready, ConditionStatus.False, R.ClusterNotReady, M.ClusterNotReady, probeTime),
        condition(ClusterConditionType.Offline, ConditionStatus.False, R.ClusterReachable, M.ClusterReachable, probeTime),
      ];
    case 'ready':
      return [condition(ClusterConditionType.Ready, ConditionStatus.True, R.ClusterReady, M.ClusterReady, probeTime)];
  }
}

/**
 * KubeFed's threshold adjustment (§4.2.3), exactly: given the previous history and the status
 * a probe produced, returns the status to publish and the new `resultRun`.
 *
 * 1. No history: publish the probe as is, `resultRun = 1`.
 * 2. `threshold` = successThreshold when the probe is ready, else failureThreshold.
 * 3. `resultRun < threshold`: keep the previous conditions, moving only their lastProbeTime;
 *    else, when readiness did not change, every condition takes the previous first
 *    condition's lastTransitionTime.
 * 4. Readiness unchanged: `resultRun + 1`; flipped: `1`.
 *
 * Note (faithful to KubeFed): `resultRun` counts probes since the last transition, not
 * consecutive failures, so a long-Ready cluster flips on its first failed probe.
 * Fields besides `conditions` (kubernetesVersion, region, zones) always come from the probe.
 */
export function applyThresholds(
  previous: HealthHistory | undefined,
  probed: KubeFedClusterStatus,
  thresholds: HealthThresholds,
): HealthHistory {
  if (previous === undefined) return { status: probed, resultRun: 1 };
  const prevReady = isClusterReady(previous);
  const threshold = isClusterReady({ status: probed }) ? thresholds.successThreshold : thresholds.failureThreshold;
  const probeTime = probed.conditions[0]?.lastProbeTime;
  let conditions: ClusterCondition[];
  if (previous.resultRun < threshold) {
    conditions = previous.status.conditions.map((c) => ({ ...c, ...(probeTime === undefined ? {} : { lastProbeTime: probeTime }) }));
  } else if (isClusterReady({ status: probed }) === prevReady) {
    const kept = previous.status.conditions[0]?.lastTransitionTime;
    conditions = probed.conditions.map((c) => {
      const { lastTransitionTime: _dropped, ...rest } = c;
      return kept === undefined ? rest : { ...rest, lastTransitionTime: kept };
    });
  } else {
    conditions = probed.conditions;
  }
  const status: KubeFedClusterStatus = { ...probed, conditions };
  const resultRun = isClusterReady({ status }) === prevReady ? previous.resultRun + 1 : 1;
  return { status, resultRun };
}

/**
 * The history to start from when the controller has none for a cluster (after a restart or a
 * change of leader) but the API holds a status: KubeFed publishes the first probe as is; this
 * also keeps the stored lastTransitionTime when readiness did not change, so a restart does not
 * fake a transition. `resultRun` starts at 1 as in KubeFed.
 */
export function firstHistory(stored: KubeFedClusterStatus | undefined, probed: KubeFedClusterStatus): HealthHistory {
  const kept = stored?.conditions[0]?.lastTransitionTime;
  if (stored === undefined || kept === undefined || isClusterReady({ status: stored }) !== isClusterReady({ status: probed })) {
    return { status: probed, resultRun: 1 };
  }
  return { status: { ...probed, conditions: probed.conditions.map((c) => ({ ...c, lastTransitionTime: kept })) }, resultRun: 1 };
}

/** Region and zones of a member, from its Node labels. */
export interface ClusterTopology {
  readonly region?: string;
  readonly zones?: string[];
}

const TOPOLOGY_REGION = 'topology.kubernetes.io/region';
const TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';

/**
 * Region and zones from Node labels: `topology.kubernetes.io/region|zone`, falling back per node
 * to the legacy `failure-domain.beta.kubernetes.io/region|zone`. Zones are the sorted distinct
 * values; the region is the first node's that has one (KubeFed's helper took the first node's).
 * Fields without any labelled node are absent.
 */
export function topologyFromNodes(nodes: readonly { metadata: { labels?: Record<string, string> } }[]): ClusterTopology {
  const zones = new Set<string>();
  let region: string | undefined;
  for (const node of nodes) {
    const labels = node.metadata.labels ?? {};
    const zone = nonEmpty(labels[TOPOLOGY_ZONE]) ?? nonEmpty(labels[ZONE_NODE_LABEL]);
    if (zone !== undefined) zones.add(zone);
    region ??= nonEmpty(labels[TOPOLOGY_REGION]) ?? nonEmpty(labels[REGION_NODE_LABEL]);
  }
  return {
    ...(region === undefined ? {} : { region }),
    ...(zones.size === 0 ? {} : { zones: [...zones].sort() }),
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** Inputs of {@link probedStatus}. */
export interface ProbedStatusInput {
  readonly result: ProbeResult;
  readonly probeTime: string;
  /** `/version` gitVersion; used only when the probe was ready. */
  readonly kubernetesVersion?: string | undefined;
  /** Topology to publish: read in this probe, or the last known one (`undefined` = unknown, or nodes not listable). */
  readonly topology?: ClusterTopology | undefined;
}

/**
 * The status one probe produces, before thresholds: the conditions of {@link probeConditions},
 * `kubernetesVersion` only when ready (cleared otherwise, as KubeFed), region/zones from
 * `topology`.
 */
export function probedStatus(input: ProbedStatusInput): KubeFedClusterStatus {
  const version = input.result.kind === 'ready' ? input.kubernetesVersion : undefined;
  const t = input.topology;
  return {
    conditions: probeConditions(input.result, input.probeTime),
    ...(version === undefined || version === '' ? {} : { kubernetesVersion: version }),
    ...(t?.region === undefined ? {} : { region: t.region }),
    ...(t?.zones === undefined ? {} : { zones: [...t.zones] }),
  };
}

function normalized(status: KubeFedClusterStatus | undefined): unknown {
  if (status === undefined) return undefined;
  return {
    conditions: status.conditions.map((c) => [
      c.type,
      c.status,
      c.lastProbeTime,
      c.lastTransitionTime ?? '',
      c.reason ?? '',
      c.message ?? '',
    ]),
    kubernetesVersion: status.kubernetesVersion ?? '',
    region: status.region ?? '',
    zones: status.zones ?? [],
  };
}

/**
 * Whether the stored status differs from the one to publish (so a write is needed). KubeFed
 * writes on every probe because lastProbeTime moves each time; this compares everything,
 * lastProbeTime included, so only probes within the same second (sub-second periods) are skipped.
 */
export function statusNeedsWrite(stored: KubeFedClusterStatus | undefined, desired: KubeFedClusterStatus): boolean {
  return JSON.stringify(normalized(stored)) !== JSON.stringify(normalized(desired));
}
