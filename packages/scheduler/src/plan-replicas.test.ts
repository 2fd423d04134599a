import { describe, expect, it } from 'vitest';
import { type ClusterPreferences, InvalidPlanInputError, type PlanInput, planReplicas } from '@kubefed/scheduler';

type Prefs = Record<string, ClusterPreferences>;
const ABC = ['A', 'B', 'C'];

// Vectors of KubeFed's own planner unit tests (key '', no capacity, no current replicas).
const kubefedPlain: [string, Prefs, number, string[], Record<string, number>][] = [
  ['equal weights split 50 as 16/17/17 (hash order)', { '*': { weight: 1 } }, 50, ABC, { A: 16, B: 17, C: 17 }],
  ['equal weights split 50 over two clusters evenly', { '*': { weight: 1 } }, 50, ['A', 'B'], { A: 25, B: 25 }],
  ['a single replica goes to the lowest hash (B before A)', { '*': { weight: 1 } }, 1, ['A', 'B'], { A: 0, B: 1 }],
  ['a single replica among four goes to D (lowest hash)', { '*': { weight: 1 } }, 1, ['A', 'B', 'C', 'D'], { A: 0, B: 0, C: 0, D: 1 }],
  ['one cluster takes the only replica', { '*': { weight: 1 } }, 1, ['A'], { A: 1 }],
  ['no available clusters give an empty plan', { '*': { weight: 1 } }, 1, [], {}],
  ['minimums with weight 0 stay at the minimum', { '*': { minReplicas: 2, weight: 0 } }, 50, ABC, { A: 2, B: 2, C: 2 }],
  ['minimums larger than the total are served in hash order', { '*': { minReplicas: 20, weight: 0 } }, 50, ABC, { A: 10, B: 20, C: 20 }],
  [
    'the heavier cluster serves its minimum first',
    { '*': { minReplicas: 20, weight: 0 }, A: { minReplicas: 100, weight: 1 } },
    50,
    ABC,
    { A: 50, B: 0, C: 0 },
  ],
  ['min below max then weights up to max', { '*': { minReplicas: 10, weight: 1, maxReplicas: 12 } }, 50, ABC, { A: 12, B: 12, C: 12 }],
  ['max caps every cluster', { '*': { weight: 1, maxReplicas: 2 } }, 50, ABC, { A: 2, B: 2, C: 2 }],
  ['weight 0 places nothing', { '*': { weight: 0, maxReplicas: 2 } }, 50, ABC, { A: 0, B: 0, C: 0 }],
  ['weights 1:2 split 60 as 20:40, unlisted C gets 0', { A: { weight: 1 }, B: { weight: 2 } }, 60, ABC, { A: 20, B: 40, C: 0 }],
  ['a dominant weight takes everything', { A: { weight: 10000 }, B: { weight: 1 } }, 50, ABC, { A: 50, B: 0, C: 0 }],
  ['an unavailable dominant cluster leaves the rest to B', { A: { weight: 10000 }, B: { weight: 1 } }, 50, ['B', 'C'], { B: 50, C: 0 }],
  [
    'a capped dominant cluster spills over evenly',
    { A: { weight: 10000, maxReplicas: 10 }, B: { weight: 1 }, C: { weight: 1 } },
    50,
    ABC,
    { A: 10, B: 20, C: 20 },
  ],
  [
    'two capped clusters spill over to B',
    { A: { weight: 10000, maxReplicas: 10 }, B: { weight: 1 }, C: { weight: 1, maxReplicas: 10 } },
    50,
    ABC,
    { A: 10, B: 30, C: 10 },
  ],
  [
    'caps of 10, 21 and 10 leave 30 for B',
    { A: { weight: 10000, maxReplicas: 10 }, B: { weight: 1 }, C: { weight: 1, maxReplicas: 21 }, D: { weight: 1, maxReplicas: 10 } },
    71,
    ['A', 'B', 'C', 'D'],
    { A: 10, B: 30, C: 21, D: 10 },
  ],
  [
    'caps with two unbounded clusters split the rest 25/25',
    {
      A: { weight: 10000, maxReplicas: 10 },
      B: { weight: 1 },
      C: { weight: 1, maxReplicas: 21 },
      D: { weight: 1, maxReplicas: 10 },
      E: { weight: 1 },
    },
    91,
    ['A', 'B', 'C', 'D', 'E'],
    { A: 10, B: 25, C: 21, D: 10, E: 25 },
  ],
];

describe('planReplicas on KubeFed planner test vectors', () => {
  it.each(kubefedPlain)('%s', (_title, clusters, totalReplicas, availableClusters, expected) => {
    expect(planReplicas({ totalReplicas, clusters, availableClusters })).toEqual({ plan: expected, overflow: {} });
  });
});

// KubeFed's vectors with current replicas (rebalance false, no capacity).
const kubefedExisting: [string, number, string[], Record<string, number>, Record<string, number>][] = [
  ['30 running in C are kept, 20 split between A and B', 50, ABC, { C: 30 }, { A: 10, B: 10, C: 30 }],
  ['30 running in A are kept, B gets the remaining 20', 50, ['A', 'B'], { A: 30 }, { A: 30, B: 20 }],
  ['A with 0 running gets the rest next to B 8', 15, ['A', 'B'], { A: 0, B: 8 }, { A: 7, B: 8 }],
  ['A with 1 running gets the rest next to B 8', 15, ['A', 'B'], { A: 1, B: 8 }, { A: 7, B: 8 }],
  ['A with 4 running gets the rest next to B 8', 15, ['A', 'B'], { A: 4, B: 8 }, { A: 7, B: 8 }],
  ['A with 5 running gets the rest next to B 8', 15, ['A', 'B'], { A: 5, B: 8 }, { A: 7, B: 8 }],
  ['A with 6 running gets the rest next to B 8', 15, ['A', 'B'], { A: 6, B: 8 }, { A: 7, B: 8 }],
  ['a layout matching the plan stays as is', 15, ['A', 'B'], { A: 7, B: 8 }, { A: 7, B: 8 }],
  ['300000 running in A are kept at large totals', 500000, ['A', 'B'], { A: 300000 }, { A: 300000, B: 200000 }],
  ['10 running in A grow to the even share', 50, ['A', 'B'], { A: 10 }, { A: 25, B: 25 }],
  ['B keeps everything it can (KubeFed issue 31816: ideally 10/40)', 50, ['A', 'B'], { A: 10, B: 70 }, { A: 0, B: 50 }],
  ['a total of 1 stays where it runs', 1, ['A', 'B'], { A: 30 }, { A: 1, B: 0 }],
  ['10 and 20 running grow to the even share', 50, ['A', 'B'], { A: 10, B: 20 }, { A: 25, B: 25 }],
];

describe('planReplicas keeps running replicas when rebalance is false', () => {
  it.each(kubefedExisting)('%s', (_title, totalReplicas, availableClusters, currentReplicas, expected) => {
    const result = planReplicas({ totalReplicas, clusters: { '*': { weight: 1 } }, availableClusters, currentReplicas });
    expect(result).toEqual({ plan: expected, overflow: {} });
  });

  it('keeps 3 running in the heavier cluster and gives the other the rest: weights 2:1 over 6 plan 3/3 while the pods of a 4/2 plan start', () => {
    const input = { totalReplicas: 6, clusters: { a: { weight: 2 }, b: { weight: 1 } }, availableClusters: ['a', 'b'] };
    expect(planReplicas({ ...input, currentReplicas: { a: 3, b: 2 } }).plan).toEqual({ a: 3, b: 3 });
    // Once split so, it stays; rebalance (or nothing running yet) gives the weighted split.
    expect(planReplicas({ ...input, currentReplicas: { a: 3, b: 3 } }).plan).toEqual({ a: 3, b: 3 });
    expect(planReplicas({ ...input, currentReplicas: { a: 3, b: 2 }, rebalance: true }).plan).toEqual({ a: 4, b: 2 });
    expect(planReplicas({ ...input, currentReplicas: {} }).plan).toEqual({ a: 4, b: 2 });
  });
});

// KubeFed's vectors with estimated capacity.
const kubefedCapacity: [
  string,
  boolean,
  Prefs,
  number,
  string[],
  Record<string, number>,
  Record<string, number>,
  Record<string, number>,
][] = [
  [
    'capacity 10 in C moves its share to A and B, overflow 7 (rebalance)',
    true,
    { '*': { weight: 1 } },
    50,
    ABC,
    { C: 10 },
    { A: 20, B: 20, C: 10 },
    { C: 7 },
  ],
  [
    'capacity 10 in B with A unavailable leaves 40 overflow (rebalance)',
    true,
    { A: { weight: 10000 }, B: { weight: 1 } },
    50,
    ['B', 'C'],
    { B: 10 },
    { B: 10, C: 0 },
    { B: 40 },
  ],
  [
    'capacity 10 in heavier B sends the rest to A (rebalance)',
    true,
    { A: { weight: 1 }, B: { weight: 2 } },
    60,
    ABC,
    { B: 10 },
    { A: 50, B: 10, C: 0 },
    { B: 30 },
  ],
  [
    'capacity and max together (rebalance)',
    true,
    { A: { weight: 10000, maxReplicas: 10 }, B: { weight: 1 }, C: { weight: 1, maxReplicas: 21 }, D: { weight: 1, maxReplicas: 10 } },
    71,
    ['A', 'B', 'C', 'D'],
    { C: 10 },
    { A: 10, B: 41, C: 10, D: 10 },
    { C: 11 },
  ],
  [
    'both capacities hit: overflow is what could not be placed',
    false,
    { A: { weight: 1 }, B: { weight: 1 } },
    60,
    ABC,
    { A: 10, B: 10 },
    { A: 10, B: 10, C: 0 },
    { A: 20, B: 20 },
  ],
  [
    'overflow is dropped when A can take it (no rebalance)',
    false,
    { A: { weight: 1 }, B: { weight: 5 } },
    60,
    ABC,
    { B: 10 },
    { A: 50, B: 10, C: 0 },
    {},
  ],
  [
    'capacity below the minimum caps the minimum',
    false,
    { '*': { minReplicas: 20, weight: 0 } },
    50,
    ABC,
    { B: 10 },
    { A: 20, B: 10, C: 20 },
    {},
  ],
  [
    'overflow keeps the last round share (rebalance)',
    true,
    { '*': { minReplicas: 20, weight: 1 } },
    60,
    ['A', 'B'],
    { B: 10 },
    { A: 50, B: 10 },
    { B: 15 },
  ],
];

describe('planReplicas honours estimated capacity', () => {
  it.each(kubefedCapacity)('%s', (_title, rebalance, clusters, totalReplicas, availableClusters, capacity, plan, overflow) => {
    expect(planReplicas({ totalReplicas, rebalance, clusters, availableClusters, capacity })).toEqual({ plan, overflow });
  });
});

// The user guide examples (3 clusters A, B, C), RSP defaults applied by the controller.
const userGuide: [string, PlanInput, Record<string, number>][] = [
  [
    'no preferences (controller default "*": weight 1) split 9 evenly',
    { totalReplicas: 9, clusters: { '*': { weight: 1 } }, availableClusters: ABC },
    { A: 3, B: 3, C: 3 },
  ],
  [
    'weights 1 and 2 give A 3 and B 6, C unlisted',
    { totalReplicas: 9, clusters: { A: { weight: 1 }, B: { weight: 2 } }, availableClusters: ABC },
    { A: 3, B: 6, C: 0 },
  ],
  [
    'minimums and maximums: A 4, B 5',
    {
      totalReplicas: 9,
      clusters: { A: { minReplicas: 4, maxReplicas: 6, weight: 1 }, B: { minReplicas: 4, maxReplicas: 8, weight: 2 } },
      availableClusters: ABC,
    },
    { A: 4, B: 5, C: 0 },
  ],
  [
    '"*" with C capped at 20 splits 50 as 16/17/17',
    { totalReplicas: 50, clusters: { '*': { weight: 1 }, C: { maxReplicas: 20, weight: 1 } }, availableClusters: ABC },
    { A: 16, B: 17, C: 17 },
  ],
  [
    'with B offline A gets 30 and C its max 20',
    { totalReplicas: 50, clusters: { '*': { weight: 1 }, C: { maxReplicas: 20, weight: 1 } }, availableClusters: ['A', 'C'] },
    { A: 30, C: 20 },
  ],
  [
    'with A and B offline C gets its max 20',
    { totalReplicas: 50, clusters: { '*': { weight: 1 }, C: { maxReplicas: 20, weight: 1 } }, availableClusters: ['C'] },
    { C: 20 },
  ],
];

describe('planReplicas on the KubeFed user guide examples', () => {
  it.each(userGuide)('%s', (_title, input, plan) => {
    expect(planReplicas(input).plan).toEqual(plan);
  });
});

// Hand-computed cases.
const handComputed: [string, PlanInput, Record<string, number>, Record<string, number>][] = [
  [
    'a total of 0 plans 0 everywhere',
    { totalReplicas: 0, clusters: { '*': { weight: 1, minReplicas: 3 } }, availableClusters: ABC },
    { A: 0, B: 0, C: 0 },
    {},
  ],
  [
    'an empty preference map plans 0 everywhere (no default in the planner)',
    { totalReplicas: 10, clusters: {}, availableClusters: ABC },
    { A: 0, B: 0, C: 0 },
    {},
  ],
  [
    'a missing weight counts as 0',
    { totalReplicas: 10, clusters: { A: {}, B: { weight: 1 } }, availableClusters: ['A', 'B'] },
    { A: 0, B: 10 },
    {},
  ],
  [
    'a listed cluster overrides "*" and takes no part when its weight is 0',
    { totalReplicas: 10, clusters: { '*': { weight: 1 }, B: { weight: 0 } }, availableClusters: ABC },
    { A: 5, B: 0, C: 5 },
    {},
  ],
  [
    'listed but unavailable clusters are ignored',
    { totalReplicas: 6, clusters: { A: { weight: 1 }, B: { weight: 1 }, X: { weight: 100 } }, availableClusters: ['A', 'B'] },
    { A: 3, B: 3 },
    {},
  ],
  [
    'current replicas move freely with rebalance',
    {
      totalReplicas: 50,
      rebalance: true,
      clusters: { '*': { weight: 1 } },
      availableClusters: ['A', 'B'],
      currentReplicas: { A: 10, B: 70 },
    },
    { A: 25, B: 25 },
    {},
  ],
  [
    'current replicas above max keep only max',
    {
      totalReplicas: 20,
      clusters: { A: { weight: 1, maxReplicas: 5 }, B: { weight: 1 } },
      availableClusters: ['A', 'B'],
      currentReplicas: { A: 15 },
    },
    { A: 5, B: 15 },
    {},
  ],
  [
    'current replicas above capacity keep only the capacity',
    { totalReplicas: 20, clusters: { '*': { weight: 1 } }, availableClusters: ['A', 'B'], currentReplicas: { A: 15 }, capacity: { A: 4 } },
    { A: 4, B: 16 },
    {},
  ],
  [
    'overflow with rebalance is the share above capacity',
    { totalReplicas: 30, rebalance: true, clusters: { '*': { weight: 1 } }, availableClusters: ['A', 'B'], capacity: { A: 5, B: 5 } },
    { A: 5, B: 5 },
    { A: 10, B: 10 },
  ],
  [
    'overflow without rebalance is trimmed to the unplaced replicas',
    { totalReplicas: 30, clusters: { '*': { weight: 1 } }, availableClusters: ['A', 'B'], capacity: { A: 5, B: 20 } },
    // Each overflow entry is trimmed separately, so together they exceed the 5 unplaced.
    { A: 5, B: 20 },
    { A: 5, B: 5 },
  ],
  [
    'a minimum above the maximum is clamped back in the weighted round',
    { totalReplicas: 10, clusters: { A: { minReplicas: 8, maxReplicas: 3, weight: 1 }, B: { weight: 1 } }, availableClusters: ['A', 'B'] },
    { A: 3, B: 7 },
    {},
  ],
  [
    'replicas stay unplaced when every cluster is at max',
    { totalReplicas: 10, clusters: { '*': { weight: 1, maxReplicas: 2 } }, availableClusters: ['A', 'B'] },
    { A: 2, B: 2 },
    {},
  ],
  [
    'more clusters than replicas: hash order picks E, D, C for 3 replicas',
    { totalReplicas: 3, clusters: { '*': { weight: 1 } }, availableClusters: ['A', 'B', 'C', 'D', 'E'] },
    { A: 0, B: 0, C: 1, D: 1, E: 1 },
    {},
  ],
  [
    'without a key the hash order puts cluster3 first',
    { totalReplicas: 1, clusters: { '*': { weight: 1 } }, availableClusters: ['cluster1', 'cluster2', 'cluster3'] },
    { cluster1: 0, cluster2: 0, cluster3: 1 },
    {},
  ],
  [
    'the key default/foo changes the hash order to put cluster2 first',
    { totalReplicas: 1, clusters: { '*': { weight: 1 } }, availableClusters: ['cluster1', 'cluster2', 'cluster3'], key: 'default/foo' },
    { cluster1: 0, cluster2: 1, cluster3: 0 },
    {},
  ],
];

describe('planReplicas on hand-computed cases', () => {
  it.each(handComputed)('%s', (_title, input, plan, overflow) => {
    expect(planReplicas(input)).toEqual({ plan, overflow });
  });
});

describe('planReplicas input validation', () => {
  it.each([
    ['a fractional weight', { totalReplicas: 1, clusters: { A: { weight: 1.5 } }, availableClusters: ['A'] }, 'clusters["A"].weight'],
    ['a NaN total', { totalReplicas: Number.NaN, clusters: {}, availableClusters: [] }, 'totalReplicas'],
    ['an infinite capacity', { totalReplicas: 1, clusters: {}, availableClusters: [], capacity: { A: Infinity } }, 'capacity["A"]'],
  ] as [string, PlanInput, string][])('rejects %s naming the field', (_title, input, field) => {
    expect(() => planReplicas(input)).toThrow(InvalidPlanInputError);
    expect(() => planReplicas(input)).toThrow(field);
  });
});

describe('planReplicas with unusual cluster names', () => {
  it('treats a cluster named __proto__ as an ordinary key', () => {
    const clusters = JSON.parse('{"__proto__": {"weight": 3}, "a": {"weight": 1}}') as PlanInput['clusters'];
    const { plan } = planReplicas({ totalReplicas: 4, clusters, availableClusters: ['__proto__', 'a'] });
    expect(Object.hasOwn(plan, '__proto__')).toBe(true);
    expect(Object.entries(plan)).toEqual([
      ['__proto__', 3],
      ['a', 1],
    ]);
  });

  it('ignores inherited properties such as toString when resolving preferences', () => {
    const { plan } = planReplicas({ totalReplicas: 4, clusters: { a: { weight: 1 } }, availableClusters: ['a', 'toString'] });
    expect(plan).toEqual({ a: 4, toString: 0 });
  });
});
