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
  const run = new PlannerRun(ops, input, trace);
  run.assignMinimums();
  if (!input.rebalance) run.preallocate();
  run.distributeByWeight();
  return run.result();
}

/** The state of one {@link runPlanner} call, one method per step of KubeFed's planner. */
class PlannerRun<N> {
  readonly #ops: IntOps<N>;
  readonly #input: NormalizedPlanInput;
  readonly #trace: Map<string, ClusterTrace> | undefined;
  readonly #zero: N;
  readonly #one: N;
  readonly #indexOf = new Map<string, number>();
  readonly #slots: Slot<N>[];
  // Per-name state; Go keeps it in maps keyed by cluster name.
  readonly #planned: N[];
  readonly #preallocated: N[];
  readonly #overflow = new Map<string, N>();
  #remaining: N;

  constructor(ops: IntOps<N>, input: NormalizedPlanInput, trace: Map<string, ClusterTrace> | undefined) {
    this.#ops = ops;
    this.#input = input;
    this.#trace = trace;
    this.#zero = ops.of(0);
    this.#one = ops.of(1);
    for (const entry of input.entries) if (!this.#indexOf.has(entry.name)) this.#indexOf.set(entry.name, this.#indexOf.size);
    this.#planned = new Array<N>(this.#indexOf.size).fill(this.#zero);
    this.#preallocated = new Array<N>(this.#indexOf.size).fill(this.#zero);
    this.#slots = input.entries.map((entry) => ({
      entry,
      at: this.#indexOf.get(entry.name) ?? 0,
      min: ops.of(entry.min),
      max: entry.max === null ? null : ops.of(entry.max),
      weight: ops.of(entry.weight),
      capacity: entry.capacity === null ? null : ops.of(entry.capacity),
      current: entry.current === null ? null : ops.of(entry.current),
    }));
    this.#remaining = ops.of(input.total);
  }

  #note(name: string): ClusterTrace | undefined {
    if (this.#trace === undefined) return undefined;
    let t = this.#trace.get(name);
    if (t === undefined) {
      t = { afterMinimum: 0, preallocated: 0, limitedByRemaining: false, cappedByMax: false, cappedByCapacity: false };
      this.#trace.set(name, t);
    }
    return t;
  }

  /** Minimums (maxReplicas is deliberately not consulted here, as in KubeFed). */
  assignMinimums(): void {
    const ops = this.#ops;
    for (const slot of this.#slots) {
      const remaining = this.#remaining;
      let assigned = ops.min(slot.min, remaining);
      if (slot.capacity !== null) assigned = ops.min(assigned, slot.capacity);
      const t = this.#note(slot.entry.name);
      if (t !== undefined) {
        t.afterMinimum = ops.toNumber(assigned);
        t.limitedByRemaining ||= ops.lt(remaining, slot.min);
        t.cappedByCapacity ||= slot.capacity !== null && ops.lt(slot.capacity, ops.min(slot.min, remaining));
      }
      this.#remaining = ops.sub(remaining, assigned);
      this.#planned[slot.at] = assigned;
    }
  }

  /** Pre-allocation (rebalance false): keep what already runs, within max, capacity and what is left. */
  preallocate(): void {
    const ops = this.#ops;
    const zero = this.#zero;
    for (const slot of this.#slots) {
      const start = this.#planned[slot.at] ?? zero;
      if (slot.current === null || !ops.lt(start, slot.current)) continue;
      const current: N = slot.current;
      let target: N = current;
      if (slot.max !== null) target = ops.min(slot.max, target);
      if (slot.capacity !== null) target = ops.min(slot.capacity, target);
      const wanted = ops.sub(target, start);
      const remaining = this.#remaining;
      let extra = ops.min(wanted, remaining);
      if (ops.lt(extra, zero)) extra = zero;
      const t = this.#note(slot.entry.name);
      if (t !== undefined) {
        t.preallocated = ops.toNumber(extra);
        t.cappedByMax ||= slot.max !== null && ops.lt(slot.max, current);
        t.cappedByCapacity ||= slot.capacity !== null && ops.lt(slot.capacity, ops.min(current, slot.max ?? current));
        t.limitedByRemaining ||= ops.lt(remaining, wanted);
      }
      this.#remaining = ops.sub(remaining, extra);
      this.#preallocated[slot.at] = extra;
      this.#planned[slot.at] = ops.add(start, extra);
    }
  }

  /** Weighted rounds until nothing changes or nothing is left; clusters that reach a cap drop out. */
  distributeByWeight(): void {
    let active = this.#slots;
    let modified = true;
    let rounds = 0;
    while (modified && this.#ops.isPositive(this.#remaining)) {
      rounds++;
      if (this.#input.negativeWeights && rounds > NEGATIVE_WEIGHT_ROUND_LIMIT) {
        throw new PlanNotConvergingError(this.#input.key, NEGATIVE_WEIGHT_ROUND_LIMIT);
      }
      ({ active, modified } = this.#round(active));
    }
  }

  /** One weighted round over `active`: the slots still open afterwards and whether anything changed. */
  #round(active: Slot<N>[]): { active: Slot<N>[]; modified: boolean } {
    const ops = this.#ops;
    let modified = false;
    let weightSum = this.#zero;
    for (const slot of active) weightSum = ops.add(weightSum, slot.weight);
    const next: Slot<N>[] = [];
    const distribute = this.#remaining;
    for (const slot of active) {
      if (!ops.isPositive(weightSum)) break;
      const share = ops.quo(ops.add(ops.mul(distribute, slot.weight), ops.sub(weightSum, this.#one)), weightSum);
      const step = this.#give(slot, share);
      if (step.modified) modified = true;
      if (!step.full) next.push(slot);
    }
    return { active: next, modified };
  }

  /** Gives `slot` its weighted `share`, paid first from its pre-allocation and cut by max and capacity. */
  #give(slot: Slot<N>, share: N): { modified: boolean; full: boolean } {
    const ops = this.#ops;
    const name = slot.entry.name;
    const start = this.#planned[slot.at] ?? this.#zero;
    let extra = ops.min(share, this.#remaining);

    // Replicas pre-allocated earlier pay for the share before anything is added.
    const pre = this.#preallocated[slot.at] ?? this.#zero;
    const used = ops.min(extra, pre);
    this.#preallocated[slot.at] = ops.sub(pre, used);
    extra = ops.sub(extra, used);

    let total = ops.add(start, extra);
    let full = false;
    const t = this.#note(name);
    if (t !== undefined) t.limitedByRemaining ||= ops.lt(this.#remaining, share);
    if (slot.max !== null && ops.lt(slot.max, total)) {
      total = slot.max;
      full = true;
      if (t !== undefined) t.cappedByMax = true;
    }
    if (slot.capacity !== null && ops.lt(slot.capacity, total)) {
      this.#overflow.set(name, ops.sub(total, slot.capacity));
      total = slot.capacity;
      full = true;
      if (t !== undefined) t.cappedByCapacity = true;
    }
    this.#remaining = ops.sub(this.#remaining, ops.sub(total, start));
    this.#planned[slot.at] = total;
    return { modified: ops.isPositive(used) || ops.lt(start, total), full };
  }

  /** The plan by cluster name; without rebalance, overflow is limited to the replicas placed nowhere. */
  result(): CoreResult<N> {
    const ops = this.#ops;
    const remaining = this.#remaining;
    const plan = new Map<string, N>();
    for (const name of this.#input.unpreferred) plan.set(name, this.#zero);
    for (const [name, at] of this.#indexOf) plan.set(name, this.#planned[at] ?? this.#zero);
    if (this.#input.rebalance) return { plan, overflow: this.#overflow, remaining };
    const trimmed = new Map<string, N>();
    for (const [name, value] of this.#overflow) {
      const kept = ops.min(value, remaining);
      if (ops.isPositive(kept)) trimmed.set(name, kept);
    }
    return { plan, overflow: trimmed, remaining };
  }
}
