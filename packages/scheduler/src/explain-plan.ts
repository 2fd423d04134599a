import { type PlanInput, type PlannerEntry, type PlanResult, type PreferenceSource, resolvePreferences } from './plan-input.js';
import { planWithTrace, type DetailedPlan } from './plan-replicas.js';

/**
 * Why a cluster got its number:
 * - `minimum`: it received replicas for its minReplicas;
 * - `kept-current`: replicas already running there were kept (rebalance false);
 * - `weight-share`: it received a share of the rest proportional to its weight;
 * - `maximum-cap`: maxReplicas cut what it would otherwise have received;
 * - `capacity-cap`: the estimated capacity cut it (see `overflow`);
 * - `replicas-exhausted`: replicas ran out before it got its full minimum, kept count or share;
 * - `zero-weight`: weight 0 (or less), so nothing beyond its minimum and kept replicas;
 * - `no-preference`: available, but neither its own entry nor `"*"` exists: always 0;
 * - `not-available`: not among the available clusters: never planned.
 */
export type PlanReason =
  | 'minimum'
  | 'kept-current'
  | 'weight-share'
  | 'maximum-cap'
  | 'capacity-cap'
  | 'replicas-exhausted'
  | 'zero-weight'
  | 'no-preference'
  | 'not-available';

/** One cluster of a {@link PlanExplanation}. */
export interface ClusterExplanation {
  name: string;
  /** In `availableClusters`. */
  available: boolean;
  /** Whose preferences apply: its own entry, `"*"`, or none. */
  preference: PreferenceSource;
  /** 0-based position in planning order (weight desc, hash asc); null when not planned. */
  rank: number | null;
  /** FNV-1 32 tie-break hash; null when not planned. */
  hash: number | null;
  min: number;
  /** null = unbounded. */
  max: number | null;
  weight: number;
  /** Running replicas given as input; null when not given. */
  current: number | null;
  /** Estimated capacity; null = unlimited. */
  capacity: number | null;
  /** Replicas planned: equals `planReplicas(input).plan[name]` (0 when not available). */
  planned: number;
  /** Overflow replicas: equals `planReplicas(input).overflow[name]` or 0. */
  overflow: number;
  /** `planned = minimum + keptCurrent + weightShare` (weightShare is negative when maxReplicas took back part of a minimum). */
  breakdown: { minimum: number; keptCurrent: number; weightShare: number };
  reasons: PlanReason[];
  /** One human sentence, e.g. `a: 12 replicas = minimum 2 + weight share 10 (weight 1 of 3); capped at maxReplicas 12.` */
  why: string;
}

/** Result of {@link explainPlan}. */
export interface PlanExplanation extends PlanResult {
  totalReplicas: number;
  rebalance: boolean;
  key: string;
  /** Sum of `plan`. */
  placed: number;
  /** Replicas KubeFed's planner left unplaced (all clusters full, at max or weight 0). */
  unplaced: number;
  /**
   * Planned clusters in planning order, then available clusters without preferences, then
   * clusters named in `clusters`, `currentReplicas` or `capacity` that are not available
   * (both by name).
   */
  clusters: ClusterExplanation[];
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const replicas = (n: number): string => `${String(n)} replica${n === 1 || n === -1 ? '' : 's'}`;

function sentence(c: Omit<ClusterExplanation, 'why'>, weightSum: number): string {
  if (!c.available) return `${c.name} is not among the available clusters (not Ready or not selected), so it gets no replicas.`;
  if (c.preference === 'none') return `${c.name} has no entry in clusters and there is no "*" entry, so it gets 0 replicas.`;
  const parts: string[] = [];
  const { minimum, keptCurrent, weightShare } = c.breakdown;
  if (minimum !== 0) parts.push(`minimum ${String(minimum)}`);
  if (keptCurrent !== 0) parts.push(`${String(keptCurrent)} kept where they run`);
  if (weightShare > 0) parts.push(`weight share ${String(weightShare)} (weight ${String(c.weight)} of ${String(weightSum)})`);
  let text = `${c.name}: ${replicas(c.planned)}`;
  if (parts.length > 0) text += ` = ${parts.join(' + ')}`;
  if (weightShare < 0) text += ` − ${String(-weightShare)} taken back by maxReplicas`;
  const notes: string[] = [];
  if (c.reasons.includes('maximum-cap')) notes.push(`capped at maxReplicas ${String(c.max)}`);
  if (c.reasons.includes('capacity-cap')) {
    const over = c.overflow > 0 ? ` (overflow ${String(c.overflow)}: asked for too, in case they fit)` : '';
    notes.push(`capped at its estimated capacity ${String(c.capacity)}${over}`);
  }
  if (c.reasons.includes('replicas-exhausted')) notes.push('replicas ran out before it got its full share');
  if (c.reasons.includes('zero-weight')) notes.push('weight 0, so no share beyond its minimum');
  return `${text}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}.`;
}

/**
 * Explains a plan: for every cluster its preferences, inputs, planned replicas and the reasons
 * it got that number, plus a one-sentence `why`. Runs the same planner as {@link planReplicas}
 * (same numbers, guaranteed) with tracing enabled.
 *
 * @throws InvalidPlanInputError as planReplicas does.
 */
export function explainPlan(input: PlanInput): PlanExplanation {
  const detailed = planWithTrace(input, true);
  const { normalized, plan, overflow } = detailed;
  const weightSum = normalized.entries.reduce((sum, e) => sum + e.weight, 0);
  const explained: Omit<ClusterExplanation, 'why'>[] = [];
  const seen = new Set<string>();
  normalized.entries.forEach((entry, rank) => {
    if (seen.has(entry.name)) return;
    seen.add(entry.name);
    explained.push(explainPlanned(entry, rank, detailed));
  });
  for (const name of [...new Set(normalized.unpreferred)].sort(byName)) {
    seen.add(name);
    explained.push(explainUnplanned(input, name, true));
  }
  const others = new Set([
    ...Object.keys(input.clusters).filter((name) => name !== '*'),
    ...Object.keys(input.currentReplicas ?? {}),
    ...Object.keys(input.capacity ?? {}),
  ]);
  for (const name of [...others].sort(byName)) {
    if (!seen.has(name)) explained.push(explainUnplanned(input, name, false));
  }
  return {
    totalReplicas: normalized.total,
    rebalance: normalized.rebalance,
    key: normalized.key,
    plan,
    overflow,
    placed: Object.values(plan).reduce((sum, n) => sum + n, 0),
    unplaced: detailed.remaining,
    clusters: explained.map((c) => ({ ...c, why: sentence(c, weightSum) })),
  };
}

/** A cluster the planner planned (rank = its place in planning order), from the planner's trace. */
function explainPlanned(entry: PlannerEntry, rank: number, detailed: DetailedPlan): Omit<ClusterExplanation, 'why'> {
  const t = detailed.trace.get(entry.name);
  const planned = detailed.plan[entry.name] ?? 0;
  const minimum = t?.afterMinimum ?? 0;
  const keptCurrent = t?.preallocated ?? 0;
  const weightShare = planned - minimum - keptCurrent;
  const reasons: PlanReason[] = [];
  if (minimum > 0) reasons.push('minimum');
  if (keptCurrent > 0) reasons.push('kept-current');
  if (weightShare > 0) reasons.push('weight-share');
  if (t?.cappedByMax === true) reasons.push('maximum-cap');
  if (t?.cappedByCapacity === true) reasons.push('capacity-cap');
  if (t?.limitedByRemaining === true) reasons.push('replicas-exhausted');
  if (entry.weight <= 0) reasons.push('zero-weight');
  return {
    name: entry.name,
    available: true,
    preference: entry.source,
    rank,
    hash: entry.hash,
    min: entry.min,
    max: entry.max,
    weight: entry.weight,
    current: entry.current,
    capacity: entry.capacity,
    planned,
    overflow: detailed.overflow[entry.name] ?? 0,
    breakdown: { minimum, keptCurrent, weightShare },
    reasons,
  };
}

/** A cluster the planner did not plan: available without preferences, or not available (its preferences by name). */
function explainUnplanned(input: PlanInput, name: string, available: boolean): Omit<ClusterExplanation, 'why'> {
  const current = input.currentReplicas ?? {};
  const capacity = input.capacity ?? {};
  const { source, preferences } = available ? { source: 'none' as const, preferences: {} } : resolvePreferences(input.clusters, name);
  return {
    name,
    available,
    preference: source,
    rank: null,
    hash: null,
    min: preferences.minReplicas ?? 0,
    max: preferences.maxReplicas ?? null,
    weight: preferences.weight ?? 0,
    current: (Object.hasOwn(current, name) ? current[name] : undefined) ?? null,
    capacity: (Object.hasOwn(capacity, name) ? capacity[name] : undefined) ?? null,
    planned: 0,
    overflow: 0,
    breakdown: { minimum: 0, keptCurrent: 0, weightShare: 0 },
    reasons: [available ? 'no-preference' : 'not-available'],
  };
}
