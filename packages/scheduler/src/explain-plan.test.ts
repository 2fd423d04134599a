import { describe, expect, it } from 'vitest';
import { explainPlan, type PlanInput, type PlanReason, planReplicas } from '@kubefed/scheduler';

function reasonsOf(input: PlanInput): Record<string, PlanReason[]> {
  return Object.fromEntries(explainPlan(input).clusters.map((c) => [c.name, c.reasons]));
}

describe('explainPlan', () => {
  it.each([
    [
      'weights, an unlisted cluster and an unavailable listed one',
      { totalReplicas: 9, clusters: { A: { weight: 1 }, B: { weight: 2 }, X: { weight: 5 } }, availableClusters: ['A', 'B', 'C'] },
      { A: ['weight-share'], B: ['weight-share'], C: ['no-preference'], X: ['not-available'] },
    ],
    [
      'minimums and a maximum cap',
      { totalReplicas: 50, clusters: { '*': { minReplicas: 10, maxReplicas: 12, weight: 1 } }, availableClusters: ['A', 'B'] },
      { A: ['minimum', 'weight-share', 'maximum-cap'], B: ['minimum', 'weight-share', 'maximum-cap'] },
    ],
    [
      'a capacity cap with overflow',
      { totalReplicas: 50, rebalance: true, clusters: { '*': { weight: 1 } }, availableClusters: ['A', 'B', 'C'], capacity: { C: 10 } },
      { A: ['weight-share'], B: ['weight-share'], C: ['weight-share', 'capacity-cap'] },
    ],
    [
      'kept running replicas',
      { totalReplicas: 50, clusters: { '*': { weight: 1 } }, availableClusters: ['A', 'B', 'C'], currentReplicas: { C: 30 } },
      { A: ['weight-share'], B: ['weight-share'], C: ['kept-current'] },
    ],
    [
      'more clusters than replicas',
      { totalReplicas: 1, clusters: { '*': { weight: 1 } }, availableClusters: ['A', 'B'] },
      { B: ['weight-share'], A: ['replicas-exhausted'] },
    ],
    [
      'weight 0 with a minimum',
      { totalReplicas: 50, clusters: { '*': { minReplicas: 2, weight: 0 } }, availableClusters: ['A'] },
      { A: ['minimum', 'zero-weight'] },
    ],
  ] as [string, PlanInput, Record<string, PlanReason[]>][])('gives the reasons for %s', (_title, input, expected) => {
    expect(reasonsOf(input)).toEqual(expected);
  });

  it('lists planned clusters in planning order, then the unpreferred, then the unavailable', () => {
    const explanation = explainPlan({
      totalReplicas: 9,
      clusters: { A: { weight: 1 }, B: { weight: 2 }, Z: { weight: 1 } },
      availableClusters: ['C', 'A', 'B'],
      currentReplicas: { Y: 3 },
    });
    expect(explanation.clusters.map((c) => [c.name, c.rank])).toEqual([
      ['B', 0],
      ['A', 1],
      ['C', null],
      ['Y', null],
      ['Z', null],
    ]);
  });

  it('reports the inputs, the breakdown and a sentence for each cluster', () => {
    const explanation = explainPlan({
      totalReplicas: 30,
      clusters: { A: { minReplicas: 2, maxReplicas: 12, weight: 1 }, B: { weight: 2 } },
      availableClusters: ['A', 'B'],
      currentReplicas: { B: 4 },
      capacity: { B: 100 },
      key: 'default/web',
    });
    const b = explanation.clusters.find((c) => c.name === 'B')!;
    expect(b).toMatchObject({ min: 0, max: null, weight: 2, current: 4, capacity: 100, preference: 'cluster', available: true });
    expect(b.breakdown.minimum + b.breakdown.keptCurrent + b.breakdown.weightShare).toBe(b.planned);
    const a = explanation.clusters.find((c) => c.name === 'A')!;
    expect(a.planned).toBe(11);
    expect(a.why).toBe('A: 11 replicas = minimum 2 + weight share 9 (weight 1 of 3); replicas ran out before it got its full share.');
    expect(b.why).toBe('B: 19 replicas = 4 kept where they run + weight share 15 (weight 2 of 3).');
    expect(explanation).toMatchObject({ placed: 30, unplaced: 0, key: 'default/web', rebalance: false });
  });

  it('explains replicas left unplaced when every cluster is at its maximum', () => {
    const explanation = explainPlan({ totalReplicas: 10, clusters: { '*': { weight: 1, maxReplicas: 2 } }, availableClusters: ['A', 'B'] });
    expect(explanation).toMatchObject({ placed: 4, unplaced: 6 });
    expect(explanation.clusters[0]!.why).toBe('B: 2 replicas = weight share 2 (weight 1 of 2); capped at maxReplicas 2.');
  });

  it('explains why an unavailable or unpreferred cluster gets nothing', () => {
    const explanation = explainPlan({ totalReplicas: 4, clusters: { A: { weight: 1 }, X: { weight: 1 } }, availableClusters: ['A', 'B'] });
    expect(explanation.clusters.map((c) => c.why)).toEqual([
      'A: 4 replicas = weight share 4 (weight 1 of 1).',
      'B has no entry in clusters and there is no "*" entry, so it gets 0 replicas.',
      'X is not among the available clusters (not Ready or not selected), so it gets no replicas.',
    ]);
  });

  it('plans the same numbers as planReplicas', () => {
    const input: PlanInput = {
      totalReplicas: 71,
      rebalance: true,
      clusters: {
        A: { weight: 10000, maxReplicas: 10 },
        B: { weight: 1 },
        C: { weight: 1, maxReplicas: 21 },
        D: { weight: 1, maxReplicas: 10 },
      },
      availableClusters: ['A', 'B', 'C', 'D'],
      capacity: { C: 10 },
    };
    const explanation = explainPlan(input);
    expect({ plan: explanation.plan, overflow: explanation.overflow }).toEqual(planReplicas(input));
    expect(Object.fromEntries(explanation.clusters.map((c) => [c.name, c.planned]))).toEqual(planReplicas(input).plan);
  });
});
