/**
 * The ReplicaSchedulingPreference status this controller writes (beyond KubeFed, which never
 * writes one): the replicas per cluster of the last plan and a `Scheduled` condition. Pure.
 */

/** Condition type of the RSP status. */
export const SCHEDULED_CONDITION = 'Scheduled';

/** Why an RSP is (not) scheduled. */
export type ScheduledReason =
  | 'Scheduled'
  | 'InvalidSpec'
  | 'InvalidTargetKind'
  | 'NoReadyClusters'
  | 'TargetNotFound'
  | 'NoMatchingClusters'
  | 'NamespaceNotFederated'
  | 'MissingSelector'
  | 'PlanFailed';

/** One condition of the RSP status. */
export interface SchedulingCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

/** The RSP status. */
export interface SchedulingStatus {
  observedGeneration?: number;
  /** Replicas written per cluster by the last successful scheduling. */
  clusters: Record<string, { replicas: number }>;
  conditions: SchedulingCondition[];
}

/** The outcome of one reconcile, as far as status is concerned. */
export interface SchedulingOutcome {
  reason: ScheduledReason;
  message: string;
  /** Replicas per cluster; only for reason `Scheduled` (otherwise the previous clusters are kept). */
  result?: Readonly<Record<string, number>> | undefined;
}

/** RFC 3339 with seconds precision, as Kubernetes serialises `metav1.Time`. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Reads a previously written status leniently: anything malformed counts as absent. */
export function readSchedulingStatus(raw: unknown): SchedulingStatus | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Partial<SchedulingStatus>;
  const clusters = typeof r.clusters === 'object' && r.clusters !== null ? r.clusters : {};
  const conditions = Array.isArray(r.conditions) ? r.conditions : [];
  return {
    ...(typeof r.observedGeneration === 'number' ? { observedGeneration: r.observedGeneration } : {}),
    clusters,
    conditions,
  };
}

/**
 * The status after `outcome` at `nowMs`: `clusters` from the result (kept from `previous` when the
 * outcome has none), a `Scheduled` condition (True only for reason `Scheduled`) whose
 * `lastTransitionTime` moves only when its status changes, and `observedGeneration`.
 */
export function schedulingStatus(
  previous: SchedulingStatus | undefined,
  outcome: SchedulingOutcome & { generation?: number | undefined },
  nowMs: number,
): SchedulingStatus {
  const status = outcome.reason === 'Scheduled' ? 'True' : 'False';
  const old = previous?.conditions.find((c) => c.type === SCHEDULED_CONDITION);
  const condition: SchedulingCondition = {
    type: SCHEDULED_CONDITION,
    status,
    reason: outcome.reason,
    message: outcome.message,
    lastTransitionTime: old !== undefined && old.status === status ? old.lastTransitionTime : formatTime(nowMs),
  };
  const clusters =
    outcome.result === undefined
      ? (previous?.clusters ?? {})
      : Object.fromEntries(Object.entries(outcome.result).map(([name, replicas]) => [name, { replicas }]));
  const others = (previous?.conditions ?? []).filter((c) => c.type !== SCHEDULED_CONDITION);
  return {
    ...(outcome.generation === undefined ? {} : { observedGeneration: outcome.generation }),
    clusters,
    conditions: [...others, condition],
  };
}

/** True when `next` differs from `previous` (key order of `clusters` ignored). */
export function schedulingStatusChanged(previous: SchedulingStatus | undefined, next: SchedulingStatus): boolean {
  if (previous === undefined) return true;
  const canon = (s: SchedulingStatus): string =>
    JSON.stringify({
      g: s.observedGeneration ?? null,
      c: Object.entries(s.clusters)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([n, v]) => [n, v.replicas]),
      k: s.conditions.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime]),
    });
  return canon(previous) !== canon(next);
}

/** A one-line summary of a scheduling result, for the condition message. */
export function describeResult(result: Readonly<Record<string, number>>): string {
  const entries = Object.entries(result);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  return `${String(total)} replicas over ${String(entries.length)} clusters: ${entries.map(([c, n]) => `${c}=${String(n)}`).join(', ')}`;
}
