import { InvalidPlanInputError } from './errors.js';
import { analyzePods, type PodLike } from './pod-analyzer.js';
import type { ClusterPreferences, PlanResult } from './plan-input.js';

/** The member copy of the workload in one cluster, as the RSP controller sees it. */
export interface MemberWorkload {
  cluster: string;
  /** `spec.replicas` of the member object; absent counts as 0. */
  replicas?: number | null | undefined;
  /** `status.readyReplicas` of the member object; absent counts as 0. */
  readyReplicas?: number | null | undefined;
  /**
   * Pods matching the object's `spec.selector.matchLabels` in its namespace. Needed only when
   * {@link needsPodAnalysis} is true (KubeFed lists pods only then).
   */
  pods?: readonly PodLike[] | undefined;
}

/** Current replicas and capacity estimates per cluster: the planner's `currentReplicas` and `capacity`. */
export interface ClusterReplicaState {
  currentReplicas: Record<string, number>;
  capacity: Record<string, number>;
  /**
   * Some pods are unschedulable but not yet for 60 s, so the capacity estimate may change soon:
   * KubeFed answers NeedsRecheck. As in KubeFed, only the LAST cluster whose pods were analysed
   * decides this flag.
   */
  needsRecheck: boolean;
}

/** True when KubeFed looks at the pods: `spec.replicas` differs from `status.readyReplicas`. */
export function needsPodAnalysis(workload: Pick<MemberWorkload, 'replicas' | 'readyReplicas'>): boolean {
  return (workload.replicas ?? 0) !== (workload.readyReplicas ?? 0);
}

/**
 * What the RSP controller feeds the planner, per cluster with a member copy of the workload
 * (clusters without one are simply not listed):
 * - replicas equal readyReplicas: current = readyReplicas, no capacity estimate;
 * - otherwise the pods are analysed at `now`: current = running-and-ready pods, and when some
 *   pods have been unschedulable for over 60 s, capacity = replicas − unschedulable.
 *
 * @throws InvalidPlanInputError when `pods` is missing for a workload that needs pod analysis.
 */
export function clustersReplicaState(workloads: readonly MemberWorkload[], now: Date | number): ClusterReplicaState {
  const state: ClusterReplicaState = { currentReplicas: {}, capacity: {}, needsRecheck: false };
  workloads.forEach((workload, index) => {
    const replicas = workload.replicas ?? 0;
    const ready = workload.readyReplicas ?? 0;
    if (!needsPodAnalysis(workload)) {
      state.currentReplicas[workload.cluster] = ready;
      return;
    }
    if (workload.pods === undefined) {
      throw new InvalidPlanInputError(
        `workloads[${String(index)}].pods`,
        `required for cluster "${workload.cluster}" because replicas (${String(replicas)}) differ from readyReplicas (${String(ready)})`,
      );
    }
    const analysis = analyzePods(workload.pods, now);
    state.currentReplicas[workload.cluster] = analysis.runningAndReady;
    if (analysis.unschedulable > 0) state.capacity[workload.cluster] = replicas - analysis.unschedulable;
    state.needsRecheck = analysis.unschedulableNow !== analysis.unschedulable;
  });
  return state;
}

/**
 * The replicas the RSP controller writes per cluster: `plan + overflow` for every planned
 * cluster, and 0 for clusters that only appear in `currentReplicas`. Because overflow is added,
 * the sum can exceed totalReplicas (KubeFed quirk). Keys are sorted by name; the keys are also
 * the placement the controller writes.
 */
export function schedulingResult(
  planned: PlanResult,
  currentReplicas: Readonly<Record<string, number | undefined>> = {},
): Record<string, number> {
  const result = new Map<string, number>();
  for (const name of Object.keys(currentReplicas)) result.set(name, 0);
  for (const [name, n] of Object.entries(planned.plan)) result.set(name, n);
  for (const [name, n] of Object.entries(planned.overflow)) result.set(name, (result.get(name) ?? 0) + n);
  const names = [...result.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(names.map((name) => [name, result.get(name) ?? 0]));
}

/**
 * `spec.clusters` as the RSP controller uses it: an empty or missing map becomes
 * `{"*": {weight: 1}}` (spread evenly over every available cluster); anything else is returned
 * unchanged.
 */
export function withDefaultClusterPreferences(
  clusters: Readonly<Record<string, ClusterPreferences | undefined>> | null | undefined,
): Readonly<Record<string, ClusterPreferences | undefined>> {
  if (clusters === null || clusters === undefined || Object.keys(clusters).length === 0) return { '*': { weight: 1 } };
  return clusters;
}
