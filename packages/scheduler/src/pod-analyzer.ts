/** A pod condition, as found in `pod.status.conditions` (only the fields the analysis reads). */
export interface PodConditionLike {
  type?: string | undefined;
  status?: string | undefined;
  reason?: string | null | undefined;
  /** RFC 3339 string as served by the API, a Date, or epoch milliseconds. */
  lastTransitionTime?: string | Date | number | null | undefined;
}

/** A pod (raw API object or anything with the same `status` shape). */
export interface PodLike {
  status?: { phase?: string | undefined; conditions?: readonly PodConditionLike[] | null | undefined } | null | undefined;
}

/** Counts KubeFed's pod analyzer derives from a workload's pods. */
export interface PodAnalysis {
  /** Pods examined. */
  total: number;
  /**
   * Pods in phase `Running` with a condition of type `Ready`, whatever its status (KubeFed
   * quirk: a Running pod with `Ready=False` counts). Counted per matching condition.
   */
  runningAndReady: number;
  /** Non-running pods with `PodScheduled=False`, reason `Unschedulable`, for more than 60 s. */
  unschedulable: number;
  /** Non-running pods with `PodScheduled=False`, reason `Unschedulable`, however recently. */
  unschedulableNow: number;
}

/** How long a pod must have been unschedulable before it lowers the capacity estimate. */
export const UNSCHEDULABLE_THRESHOLD_MS = 60_000;

/** Epoch ms of a condition timestamp; missing or unparsable counts as long ago (Go's zero time). */
function transitionMs(value: PodConditionLike['lastTransitionTime']): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  return Number.NEGATIVE_INFINITY;
}

/**
 * KubeFed's pod analysis (`podanalyzer.AnalyzePods`) at instant `now`: counts running-and-ready
 * pods and pods that have been unschedulable for more than {@link UNSCHEDULABLE_THRESHOLD_MS}
 * (strictly: lastTransitionTime + 60 s is before `now`). Conditions are examined one by one as
 * KubeFed does, so a pod with duplicated conditions counts once per condition.
 */
export function analyzePods(pods: readonly PodLike[], now: Date | number): PodAnalysis {
  const nowMs = now instanceof Date ? now.getTime() : now;
  const result: PodAnalysis = { total: 0, runningAndReady: 0, unschedulable: 0, unschedulableNow: 0 };
  for (const pod of pods) {
    result.total++;
    const running = pod.status?.phase === 'Running';
    for (const condition of pod.status?.conditions ?? []) {
      if (running) {
        if (condition.type === 'Ready') result.runningAndReady++;
      } else if (condition.type === 'PodScheduled' && condition.status === 'False' && condition.reason === 'Unschedulable') {
        result.unschedulableNow++;
        if (transitionMs(condition.lastTransitionTime) + UNSCHEDULABLE_THRESHOLD_MS < nowMs) result.unschedulable++;
      }
    }
  }
  return result;
}
