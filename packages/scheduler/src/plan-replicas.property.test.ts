import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ClusterPreferences, explainPlan, type PlanInput, planReplicas } from '@kubefed/scheduler';
import { int64Ops, numberOps } from './int-ops.js';
import { normalizePlanInput } from './plan-input.js';
import { runPlanner } from './planner-core.js';

const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,5}$/), { minLength: 0, maxLength: 8 });

/** Preferences with min <= max (when both are set), non-negative values and weight >= 1. */
const sanePreferences: fc.Arbitrary<ClusterPreferences> = fc
  .record({
    min: fc.option(fc.nat(15), { nil: undefined }),
    max: fc.option(fc.nat(40), { nil: undefined }),
    weight: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ min, max, weight }) => ({
    weight,
    ...(min === undefined ? {} : { minReplicas: min }),
    ...(max === undefined ? {} : { maxReplicas: Math.max(max, min ?? 0) }),
  }));

/** Any preferences KubeFed's API can hold, including weight 0 and min > max. */
const anyPreferences: fc.Arbitrary<ClusterPreferences> = fc.record(
  { minReplicas: fc.nat(30), maxReplicas: fc.nat(40), weight: fc.nat(6) },
  { requiredKeys: [] },
);

function inputs(preferences: fc.Arbitrary<ClusterPreferences>, withWildcard: boolean): fc.Arbitrary<PlanInput> {
  return names.chain((available) => {
    const listed = fc.subarray(available).chain((own) => fc.tuple(...own.map((name) => fc.tuple(fc.constant(name), preferences))));
    const known = fc.constantFrom(...available, 'gone');
    const perCluster = (value: fc.Arbitrary<number>) =>
      available.length === 0 ? fc.constant({}) : fc.dictionary(known, value, { maxKeys: 4 });
    return fc
      .record({
        totalReplicas: fc.nat(120),
        rebalance: fc.boolean(),
        listed,
        wildcard: withWildcard ? fc.option(preferences, { nil: undefined }) : fc.constant(undefined),
        currentReplicas: perCluster(fc.nat(60)),
        capacity: perCluster(fc.nat(50)),
        key: fc.constantFrom('', 'default/web', 'ns/app'),
      })
      .map(({ listed: own, wildcard, ...rest }) => ({
        ...rest,
        availableClusters: available,
        clusters: Object.fromEntries(wildcard === undefined ? own : [...own, ['*', wildcard] as const]),
      }));
  });
}

function preferencesOf(input: PlanInput, name: string): ClusterPreferences | undefined {
  return Object.hasOwn(input.clusters, name) ? input.clusters[name] : input.clusters['*'];
}

const sum = (record: Record<string, number>): number => Object.values(record).reduce((a, b) => a + b, 0);

describe('planReplicas properties', () => {
  it('places min(totalReplicas, what max and capacity allow) when weights are positive', () => {
    fc.assert(
      fc.property(inputs(sanePreferences, true), (input) => {
        const { plan } = planReplicas(input);
        let room = 0;
        for (const name of input.availableClusters) {
          const prefs = preferencesOf(input, name);
          if (prefs === undefined) continue;
          const cap = input.capacity?.[name] ?? Infinity;
          room += Math.min(prefs.maxReplicas ?? Infinity, cap);
        }
        expect(sum(plan)).toBe(Math.min(input.totalReplicas, room));
      }),
      { numRuns: 400 },
    );
  });

  it('gives every available cluster a key and no other cluster one', () => {
    fc.assert(
      fc.property(inputs(anyPreferences, true), (input) => {
        expect(Object.keys(planReplicas(input).plan).sort()).toEqual([...input.availableClusters].sort());
      }),
      { numRuns: 200 },
    );
  });

  it('respects max and capacity always, and minimums when they fit', () => {
    fc.assert(
      fc.property(inputs(sanePreferences, true), (input) => {
        const { plan } = planReplicas(input);
        let minimums = 0;
        let minimumsFit = true;
        for (const name of input.availableClusters) {
          const prefs = preferencesOf(input, name);
          if (prefs === undefined) continue;
          minimums += prefs.minReplicas ?? 0;
          const cap = input.capacity?.[name];
          if (cap !== undefined && cap < (prefs.minReplicas ?? 0)) minimumsFit = false;
        }
        for (const name of input.availableClusters) {
          const prefs = preferencesOf(input, name);
          const planned = plan[name]!;
          if (prefs === undefined) {
            expect(planned).toBe(0);
            continue;
          }
          expect(planned).toBeLessThanOrEqual(prefs.maxReplicas ?? Infinity);
          expect(planned).toBeLessThanOrEqual(input.capacity?.[name] ?? Infinity);
          if (minimumsFit && minimums <= input.totalReplicas) expect(planned).toBeGreaterThanOrEqual(prefs.minReplicas ?? 0);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('is deterministic and ignores the order of clusters keys and of availableClusters', () => {
    fc.assert(
      fc.property(inputs(anyPreferences, true), fc.integer(), (input, seed) => {
        const first = planReplicas(input);
        const shuffled: PlanInput = {
          ...input,
          availableClusters: shuffle(input.availableClusters, seed),
          clusters: Object.fromEntries(shuffle(Object.entries(input.clusters), seed + 1)),
        };
        expect(JSON.stringify(planReplicas(input))).toBe(JSON.stringify(first));
        expect(JSON.stringify(planReplicas(shuffled))).toBe(JSON.stringify(first));
      }),
      { numRuns: 300 },
    );
  });

  it('explains exactly the numbers it plans', () => {
    fc.assert(
      fc.property(inputs(anyPreferences, true), (input) => {
        const planned = planReplicas(input);
        const explanation = explainPlan(input);
        expect({ plan: explanation.plan, overflow: explanation.overflow }).toEqual(planned);
        for (const cluster of explanation.clusters) {
          expect(cluster.planned).toBe(planned.plan[cluster.name] ?? 0);
          expect(cluster.overflow).toBe(planned.overflow[cluster.name] ?? 0);
          const { minimum, keptCurrent, weightShare } = cluster.breakdown;
          expect(minimum + keptCurrent + weightShare).toBe(cluster.planned);
          expect(cluster.reasons.length + cluster.why.length).toBeGreaterThan(0);
        }
        const listed = new Set(explanation.clusters.map((c) => c.name));
        for (const name of input.availableClusters) expect(listed.has(name)).toBe(true);
        expect(explanation.placed).toBe(sum(planned.plan));
      }),
      { numRuns: 300 },
    );
  });

  it('computes the same plan with plain numbers and with int64 emulation', () => {
    const anyInteger = fc.integer({ min: -50, max: 200 });
    const wild = fc.record({ minReplicas: anyInteger, maxReplicas: anyInteger, weight: fc.nat(8) }, { requiredKeys: [] });
    fc.assert(
      fc.property(inputs(wild, true), (input) => {
        const normalized = normalizePlanInput(input);
        const asNumbers = runPlanner(numberOps, normalized);
        const asInt64 = runPlanner(int64Ops, normalized);
        expect([...asInt64.plan].map(([k, v]) => [k, Number(v)])).toEqual([...asNumbers.plan]);
        expect([...asInt64.overflow].map(([k, v]) => [k, Number(v)])).toEqual([...asNumbers.overflow]);
        expect(Number(asInt64.remaining)).toBe(asNumbers.remaining);
      }),
      { numRuns: 300 },
    );
  });
});

describe('planReplicas beyond plain numbers', () => {
  it('wraps like Go int64 when the replicas times a weight overflow', () => {
    // 2048 * (2^53 - 1) = 2^64 - 2048 wraps to -2048 in KubeFed, so both ceiling shares are 0
    // and nothing is placed; exact arithmetic would give 1024 each.
    const weight = Number.MAX_SAFE_INTEGER;
    const input: PlanInput = { totalReplicas: 2048, clusters: { a: { weight }, b: { weight } }, availableClusters: ['a', 'b'] };
    expect(planReplicas(input)).toEqual({ plan: { a: 0, b: 0 }, overflow: {} });
    expect(explainPlan(input)).toMatchObject({ placed: 0, unplaced: 2048 });
  });

  it('takes the int64 path for large weights and still matches the small-weight plan', () => {
    const small = planReplicas({
      totalReplicas: 1_000_000,
      clusters: { a: { weight: 1 }, b: { weight: 3 } },
      availableClusters: ['a', 'b'],
    });
    const large = planReplicas({
      totalReplicas: 1_000_000,
      clusters: { a: { weight: 1e12 }, b: { weight: 3e12 } },
      availableClusters: ['a', 'b'],
    });
    expect(large).toEqual(small);
  });
});

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const result = [...items];
  let state = seed >>> 0;
  for (let i = result.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [result[i], result[j]] = [result[j]!, result[i]!];
  }
  return result;
}
