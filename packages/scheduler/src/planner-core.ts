import { PlanNotConvergingError } from './errors.js';
import type { IntOps } from './int-ops.js';
import type { NormalizedPlanInput, PlannerEntry } from './plan-input.js';

/** What happened to one cluster while planning; collected only when asked for. */
export interface ClusterTrace {
  /** Replicas assigned by the minimum step. */
  afterMinimum: number;
  /** Replicas pre-allocated to keep running replicas (rebalance false). */
  preallocated: number;
  /** It got less than its minimum, kept count or weighted share because replicas ran out. */
  limitedByRemaining: boolean;
  /** Its maxReplicas cut a kept count or a weighted share. */
  cappedByMax: boolean;
  /** Its estimated capacity cut a minimum, a kept count or a weighted share. */
  cappedByCapacity: boolean;
}

/** Raw planner output in the arithmetic it ran on. */
export interface CoreResult<N> {
  plan: Map<string, N>;
  overflow: Map<string, N>;
  /** Replicas left unplaced (KubeFed's `remainingReplicas` at the end). */
  remaining: N;
}

/** Rounds allowed when negative weights make termination uncertain. */
const NEGATIVE_WEIGHT_ROUND_LIMIT = 1_000_000;

interface Slot<N> {
  entry: PlannerEntry;
  /** Index into the per-name state arrays (duplicate names share one, as they share Go's map keys). */
  at: number;
  min: N;
  max: N | null;
  weight: N;
  capacity: N | null;
  current: N | null;
}

/**
 * KubeFed's replica planner (`pkg/controller/util/planner`), step for step: minimums, then
 * pre-allocation of running replicas when rebalance is false, then weighted rounds with
 * ceiling shares, maxReplicas and capacity caps, then overflow trimming. Pass `trace` to
 * learn per cluster why it got its number.
 *
 * @throws PlanNotConvergingError only with negative weights after 1,000,000 rounds.
 */
export function runPlanner<N>(ops: IntOps<N>, input: NormalizedPlanInput, trace?: Map<string, ClusterTrace>): CoreResult<N> {
  const zero = ops.of(0);
  const one = ops.of(1);
  const overflow = new Map<string, N>();
  const note = (name: string): ClusterTrace | undefined => {
    if (trace === undefined) return undefined;
    let t = trace.get(name);
    if (t === undefined) {
      t = { afterMinimum: 0, preallocated: 0, limitedByRemaining: false, cappedByMax: false, cappedByCapacity: false };
      trace.set(name, t);
    }
    return t;
  };

  const indexOf = new Map<string, number>();
  for (const entry of input.entries) if (!indexOf.has(entry.name)) indexOf.set(entry.name, indexOf.size);
  // Per-name state; Go keeps it in maps keyed by cluster name.
  const planned: N[] = new Array<N>(indexOf.size).fill(zero);
  const preallocated: N[] = new Array<N>(indexOf.size).fill(zero);
  const slots: Slot<N>[] = input.entries.map((entry) => ({
    entry,
    at: indexOf.get(entry.name) ?? 0,
    min: ops.of(entry.min),
    max: entry.max === null ? null : ops.of(entry.max),
    weight: ops.of(entry.weight),
    capacity: entry.capacity === null ? null : ops.of(entry.capacity),
    current: entry.current === null ? null : ops.of(entry.current),
  }));

  let remaining = ops.of(input.total);

  // Minimums (maxReplicas is deliberately not consulted here, as in KubeFed).
  for (const slot of slots) {
    const name = slot.entry.name;
    let assigned = ops.min(slot.min, remaining);
    if (slot.capacity !== null) assigned = ops.min(assigned, slot.capacity);
    const t = note(name);
    if (t !== undefined) {
      t.afterMinimum = ops.toNumber(assigned);
      t.limitedByRemaining ||= ops.lt(remaining, slot.min);
      t.cappedByCapacity ||= slot.capacity !== null && ops.lt(slot.capacity, ops.min(slot.min, remaining));
    }
    remaining = ops.sub(remaining, assigned);
    planned[slot.at] = assigned;
  }

  // Pre-allocation: keep what already runs, within max, capacity and what is left.
  if (!input.rebalance) {
    for (const slot of slots) {
      const name = slot.entry.name;
      const start = planned[slot.at] ?? zero;
      if (slot.current === null || !ops.lt(start, slot.current)) continue;
      const current: N = slot.current;
      let target: N = current;
      if (slot.max !== null) target = ops.min(slot.max, target);
      if (slot.capacity !== null) target = ops.min(slot.capacity, target);
      const wanted = ops.sub(target, start);
      let extra = ops.min(wanted, remaining);
      if (ops.lt(extra, zero)) extra = zero;
      const t = note(name);
      if (t !== undefined) {
        t.preallocated = ops.toNumber(extra);
        t.cappedByMax ||= slot.max !== null && ops.lt(slot.max, current);
        t.cappedByCapacity ||= slot.capacity !== null && ops.lt(slot.capacity, ops.min(current, slot.max ?? current));
        t.limitedByRemaining ||= ops.lt(remaining, wanted);
      }
      remaining = ops.sub(remaining, extra);
      preallocated[slot.at] = extra;
      planned[slot.at] = ops.add(start, extra);
    }
  }

  // Weighted rounds until nothing changes or nothing is left.
  let active = slots;
  let modified = true;
  let rounds = 0;
  while (modified && ops.isPositive(remaining)) {
    rounds++;
    if (input.negativeWeights && rounds > NEGATIVE_WEIGHT_ROUND_LIMIT) {
      throw new PlanNotConvergingError(input.key, NEGATIVE_WEIGHT_ROUND_LIMIT);
    }
    modified = false;
    let weightSum = zero;
    for (const slot of active) weightSum = ops.add(weightSum, slot.weight);
    const next: Slot<N>[] = [];
    const distribute = remaining;
    for (const slot of active) {
      if (!ops.isPositive(weightSum)) break;
      const name = slot.entry.name;
      const start = planned[slot.at] ?? zero;
      const share = ops.quo(ops.add(ops.mul(distribute, slot.weight), ops.sub(weightSum, one)), weightSum);
      let extra = ops.min(share, remaining);

      // Replicas pre-allocated earlier pay for the share before anything is added.
      const pre = preallocated[slot.at] ?? zero;
      const used = ops.min(extra, pre);
      preallocated[slot.at] = ops.sub(pre, used);
      extra = ops.sub(extra, used);
      if (ops.isPositive(used)) modified = true;

      let total = ops.add(start, extra);
      let full = false;
      const t = note(name);
      if (t !== undefined) t.limitedByRemaining ||= ops.lt(remaining, share);
      if (slot.max !== null && ops.lt(slot.max, total)) {
        total = slot.max;
        full = true;
        if (t !== undefined) t.cappedByMax = true;
      }
      if (slot.capacity !== null && ops.lt(slot.capacity, total)) {
        overflow.set(name, ops.sub(total, slot.capacity));
        total = slot.capacity;
        full = true;
        if (t !== undefined) t.cappedByCapacity = true;
      }
      if (!full) next.push(slot);

      remaining = ops.sub(remaining, ops.sub(total, start));
      planned[slot.at] = total;
      if (ops.lt(start, total)) modified = true;
    }
    active = next;
  }

  const plan = new Map<string, N>();
  for (const name of input.unpreferred) plan.set(name, zero);
  for (const [name, at] of indexOf) plan.set(name, planned[at] ?? zero);
  if (input.rebalance) return { plan, overflow, remaining };
  // Without rebalance, overflow is limited to the replicas that could not be placed anywhere.
  const trimmed = new Map<string, N>();
  for (const [name, value] of overflow) {
    const kept = ops.min(value, remaining);
    if (ops.isPositive(kept)) trimmed.set(name, kept);
  }
  return { plan, overflow: trimmed, remaining };
}
