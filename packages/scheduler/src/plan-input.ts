import { InvalidPlanInputError } from './errors.js';
import { fnv1_32 } from './fnv1-32.js';

/**
 * Preferences for one cluster (or for `"*"`, every cluster without an entry of its own), as in
 * `ReplicaSchedulingPreference.spec.clusters`. `null` and `undefined` mean "not set".
 */
export interface ClusterPreferences {
  /** Replicas the cluster gets before any weighted share. Default 0. */
  minReplicas?: number | null | undefined;
  /** Upper bound for the cluster. Default: unbounded. */
  maxReplicas?: number | null | undefined;
  /** Relative share of the replicas left after minimums. Default 0 (no share). */
  weight?: number | null | undefined;
}

/**
 * Input of {@link planReplicas} and {@link explainPlan}: KubeFed's planner inputs. All numbers
 * must be safe integers (KubeFed's fields are int32/int64); negative values are accepted and
 * computed with as KubeFed computes them (it validates nothing).
 */
export interface PlanInput {
  /** `spec.totalReplicas`: replicas to distribute. */
  totalReplicas: number;
  /** `spec.rebalance`: when false (the default) running replicas are kept where they are. */
  rebalance?: boolean | undefined;
  /**
   * `spec.clusters`: per-cluster preferences; key `"*"` applies to clusters without an entry.
   * Clusters matched by neither get 0 replicas. The RSP controller substitutes
   * `{"*": {weight: 1}}` for an empty map BEFORE planning; the planner itself does not
   * (see {@link withDefaultClusterPreferences}).
   */
  clusters: Readonly<Record<string, ClusterPreferences | undefined>>;
  /** Candidate clusters (the Ready ones). Order does not change the result. */
  availableClusters: readonly string[];
  /** Replicas currently running per cluster; used only when `rebalance` is false. */
  currentReplicas?: Readonly<Record<string, number | undefined>> | undefined;
  /** Estimated capacity per cluster; a cluster without an entry is unlimited. */
  capacity?: Readonly<Record<string, number | undefined>> | undefined;
  /** Tie-break salt: the RSP's `namespace/name`. Default `''` (what KubeFed's unit tests use). */
  key?: string | undefined;
}

/** Result of {@link planReplicas}. */
export interface PlanResult {
  /** Replicas per cluster: a key for every available cluster (0 allowed), sorted by name. */
  plan: Record<string, number>;
  /**
   * Replicas that would be nice to place on capacity-limited clusters in case they fit after
   * all (only clusters that hit their capacity). The RSP controller writes `plan + overflow`.
   */
  overflow: Record<string, number>;
}

/** Where a cluster's preferences came from. */
export type PreferenceSource = 'cluster' | 'wildcard' | 'none';

/** One available cluster with resolved preferences, ready for planning. */
export interface PlannerEntry {
  readonly name: string;
  readonly source: 'cluster' | 'wildcard';
  /** FNV-1 32 of the name's bytes followed by the key's bytes. */
  readonly hash: number;
  readonly min: number;
  readonly max: number | null;
  readonly weight: number;
  readonly capacity: number | null;
  readonly current: number | null;
}

/** Planner input after validation, preference resolution and sorting. */
export interface NormalizedPlanInput {
  readonly total: number;
  readonly rebalance: boolean;
  readonly key: string;
  /** Entries in planning order: weight descending, then hash ascending, then name. */
  readonly entries: readonly PlannerEntry[];
  /** Available clusters without any preference (planned 0, excluded from planning). */
  readonly unpreferred: readonly string[];
  /** True when plain numbers compute every intermediate value exactly (no int64 emulation needed). */
  readonly fitsNumbers: boolean;
  /** True when some weight is negative (KubeFed would not necessarily terminate). */
  readonly negativeWeights: boolean;
}

const WILDCARD = '*';
/** Every intermediate value of the planner stays below this on the plain-number path. */
const NUMBER_PATH_LIMIT = 2 ** 50;

function ownValue<T>(record: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, name) ? record[name] : undefined;
}

/** The value as an integer, null when unset. `field` is only evaluated to report a bad value. */
function integer(value: unknown, field: () => string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    const shown = typeof value === 'number' ? String(value) : typeof value;
    throw new InvalidPlanInputError(field(), `must be a safe integer, got ${shown}`);
  }
  return value;
}

const entryPath = (field: string, name: string): string => `${field}[${JSON.stringify(name)}]`;

function integerMap(record: Readonly<Record<string, number | undefined>> | undefined, field: string): Map<string, number> {
  const result = new Map<string, number>();
  if (record === undefined) return result;
  for (const [name, value] of Object.entries(record)) {
    const n = integer(value, () => entryPath(field, name));
    if (n !== null) result.set(name, n);
  }
  return result;
}

function comparePlanningOrder(a: PlannerEntry, b: PlannerEntry): number {
  if (a.weight !== b.weight) return a.weight > b.weight ? -1 : 1;
  if (a.hash !== b.hash) return a.hash < b.hash ? -1 : 1;
  // Equal weight and hash: Go's order is unspecified; the name makes ours deterministic.
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return 0;
}

/**
 * Validates the input and resolves every available cluster's preferences (its own entry, else
 * `"*"`, else none), computes tie-break hashes and sorts into planning order.
 *
 * @throws InvalidPlanInputError when a number is not a safe integer.
 */
export function normalizePlanInput(input: PlanInput): NormalizedPlanInput {
  const total = integer(input.totalReplicas, () => 'totalReplicas');
  if (total === null) throw new InvalidPlanInputError('totalReplicas', 'is required');
  const key = input.key ?? '';
  const prefs = new Map<string, { min: number; max: number | null; weight: number }>();
  for (const [name, pref] of Object.entries(input.clusters)) {
    if (pref === undefined) continue;
    const field = (leaf: string) => () => `${entryPath('clusters', name)}.${leaf}`;
    prefs.set(name, {
      min: integer(pref.minReplicas, field('minReplicas')) ?? 0,
      max: integer(pref.maxReplicas, field('maxReplicas')),
      weight: integer(pref.weight, field('weight')) ?? 0,
    });
  }
  const capacity = integerMap(input.capacity, 'capacity');
  const current = integerMap(input.currentReplicas, 'currentReplicas');

  const entries: PlannerEntry[] = [];
  const unpreferred: string[] = [];
  let bound = Math.abs(total);
  let maxWeight = 0;
  let negativeWeights = false;
  for (const name of input.availableClusters) {
    const own = prefs.get(name);
    const pref = own ?? prefs.get(WILDCARD);
    if (pref === undefined) {
      unpreferred.push(name);
      continue;
    }
    const entry: PlannerEntry = {
      name,
      source: own === undefined ? 'wildcard' : 'cluster',
      hash: fnv1_32(key, fnv1_32(name)),
      min: pref.min,
      max: pref.max,
      weight: pref.weight,
      capacity: capacity.get(name) ?? null,
      current: current.get(name) ?? null,
    };
    entries.push(entry);
    bound = Math.max(bound, Math.abs(entry.min), Math.abs(entry.max ?? 0));
    bound = Math.max(bound, Math.abs(entry.capacity ?? 0), Math.abs(entry.current ?? 0));
    maxWeight = Math.max(maxWeight, Math.abs(entry.weight));
    if (entry.weight < 0) negativeWeights = true;
  }
  entries.sort(comparePlanningOrder);

  // With non-negative weights every value the planner computes is bounded by
  // (n + 2) * bound, and the largest product is that times a weight (see README).
  const n = entries.length;
  const fitsNumbers = !negativeWeights && (n + 3) * (bound + 1) * (maxWeight + 1) + (n + 1) * (maxWeight + 1) < NUMBER_PATH_LIMIT;

  return {
    total,
    rebalance: input.rebalance ?? false,
    key,
    entries,
    unpreferred,
    fitsNumbers,
    negativeWeights,
  };
}

/** Looks up the preferences KubeFed would use for `name`: its own entry, else `"*"`. */
export function resolvePreferences(
  clusters: PlanInput['clusters'],
  name: string,
): { source: PreferenceSource; preferences: ClusterPreferences } {
  const own = ownValue(clusters, name);
  if (own !== undefined) return { source: 'cluster', preferences: own };
  const wildcard = ownValue(clusters, WILDCARD);
  if (wildcard !== undefined) return { source: 'wildcard', preferences: wildcard };
  return { source: 'none', preferences: {} };
}
