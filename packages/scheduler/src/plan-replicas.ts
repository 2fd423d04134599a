import { int64Ops, type IntOps, numberOps } from './int-ops.js';
import { type NormalizedPlanInput, normalizePlanInput, type PlanInput, type PlanResult } from './plan-input.js';
import { type ClusterTrace, runPlanner } from './planner-core.js';

/** Planner output with everything {@link explainPlan} needs. */
export interface DetailedPlan extends PlanResult {
  normalized: NormalizedPlanInput;
  /** Replicas KubeFed left unplaced (`remainingReplicas` after the last round). */
  remaining: number;
  trace: Map<string, ClusterTrace>;
}

function sortedRecord<N>(map: Map<string, N>, ops: IntOps<N>): Record<string, number> {
  const names = [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const record: Record<string, number> = {};
  for (const name of names) {
    const value = ops.toNumber(map.get(name) as N);
    // Plain assignment is faster than Object.fromEntries, but would set the prototype for this key.
    if (name === '__proto__') Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
    else record[name] = value;
  }
  return record;
}

function run<N>(ops: IntOps<N>, normalized: NormalizedPlanInput, trace?: Map<string, ClusterTrace>) {
  const result = runPlanner(ops, normalized, trace);
  return {
    plan: sortedRecord(result.plan, ops),
    overflow: sortedRecord(result.overflow, ops),
    remaining: ops.toNumber(result.remaining),
  };
}

/** @internal Runs the planner with tracing; shared by planReplicas and explainPlan. */
export function planWithTrace(input: PlanInput, withTrace: boolean): DetailedPlan {
  const normalized = normalizePlanInput(input);
  const trace = new Map<string, ClusterTrace>();
  const traceArg = withTrace ? trace : undefined;
  const result = normalized.fitsNumbers ? run(numberOps, normalized, traceArg) : run(int64Ops, normalized, traceArg);
  return { ...result, normalized, trace };
}

/**
 * Divides `totalReplicas` across `availableClusters` exactly as KubeFed v0.10.0's replica
 * planner does, for every input (int64 arithmetic, truncating division and its quirks):
 *
 * 1. Each available cluster takes its own preferences, else those of `"*"`; a cluster with
 *    neither is planned 0 and takes no further part.
 * 2. Clusters are ordered by weight (descending), then by the 32-bit FNV-1 hash of the cluster
 *    name's bytes followed by `key`'s bytes (ascending).
 * 3. Each gets `min(minReplicas, remaining, capacity)` in that order.
 * 4. With `rebalance` false, each keeps up to its current replicas (within max and capacity).
 * 5. Remaining replicas are handed out in rounds: each cluster gets the ceiling of its weight's
 *    share, cut at maxReplicas and capacity (cut clusters leave the rounds; replicas above
 *    capacity are recorded as overflow), until nothing is left or nothing changes.
 * 6. With `rebalance` false, overflow is limited to the replicas left unplaced.
 *
 * `plan` has a key for every available cluster (0 allowed); replicas may stay unplaced when
 * every cluster is full or has weight 0. Output maps are sorted by cluster name; the result
 * does not depend on the key order of `clusters` nor on the order of `availableClusters`.
 *
 * @throws InvalidPlanInputError when a number is not a safe integer (field path in the message).
 */
export function planReplicas(input: PlanInput): PlanResult {
  const { plan, overflow } = planWithTrace(input, false);
  return { plan, overflow };
}
