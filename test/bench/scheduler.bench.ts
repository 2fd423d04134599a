// Replica planning time for large federations: 100 and 1,000 clusters, 1e3 and 1e6 replicas.
// Run: npm run bench -- test/bench/scheduler.bench.ts   (prints a table; asserts nothing about time)
//
import { type ClusterPreferences, explainPlan, type PlanInput, planReplicas } from '@kubefed/scheduler';

/** Deterministic pseudo-random numbers (LCG), so every run plans the same inputs. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Scenario {
  name: string;
  input: PlanInput;
}

function scenario(clusterCount: number, totalReplicas: number, rebalance: boolean): Scenario {
  const next = random(clusterCount * 31 + totalReplicas);
  const availableClusters = Array.from({ length: clusterCount }, (_, i) => `cluster-${String(i).padStart(4, '0')}`);
  const clusters: Record<string, ClusterPreferences> = { '*': { weight: 1 } };
  const currentReplicas: Record<string, number> = {};
  const capacity: Record<string, number> = {};
  const fairShare = Math.ceil(totalReplicas / clusterCount);
  for (const name of availableClusters) {
    const r = next();
    // A realistic mix: most clusters explicit with weights 1..10, some with min/max, a few
    // capacity-limited, current replicas near the fair share.
    if (r < 0.8) {
      clusters[name] = {
        weight: 1 + Math.floor(next() * 10),
        ...(next() < 0.3 ? { minReplicas: Math.floor(fairShare / 4) } : {}),
        ...(next() < 0.3 ? { maxReplicas: Math.ceil(fairShare * 1.5) } : {}),
      };
    }
    if (next() < 0.1) capacity[name] = Math.floor(fairShare * next());
    currentReplicas[name] = Math.floor(fairShare * 2 * next());
  }
  return {
    name: `${String(clusterCount)} clusters, ${totalReplicas.toExponential(0)} replicas, rebalance ${String(rebalance)}`,
    input: { totalReplicas, rebalance, clusters, availableClusters, currentReplicas, capacity, key: 'bench/web' },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function measure(run: () => unknown, minRuns: number, budgetMs: number): { runs: number; median: number; p99: number } {
  for (let i = 0; i < 5; i++) run(); // warm-up
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < minRuns || (performance.now() - started < budgetMs && samples.length < 5000)) {
    const t0 = performance.now();
    run();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { runs: samples.length, median: percentile(samples, 50), p99: percentile(samples, 99) };
}

const rows: Record<string, string | number>[] = [];
for (const clusterCount of [100, 1000]) {
  for (const totalReplicas of [1e3, 1e6]) {
    for (const rebalance of [true, false]) {
      const { name, input } = scenario(clusterCount, totalReplicas, rebalance);
      const plan = measure(() => planReplicas(input), 50, 1500);
      const explain = measure(() => explainPlan(input), 20, 500);
      const placed = Object.values(planReplicas(input).plan).reduce((a, b) => a + b, 0);
      rows.push({
        scenario: name,
        placed,
        runs: plan.runs,
        'plan median ms': Number(plan.median.toFixed(3)),
        'plan p99 ms': Number(plan.p99.toFixed(3)),
        'explain median ms': Number(explain.median.toFixed(3)),
      });
    }
  }
}
console.table(rows);
