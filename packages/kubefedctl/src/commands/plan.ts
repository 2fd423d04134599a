import { type ReplicaSchedulingPreference, validateReplicaSchedulingPreference } from '@kubefed/api';
import { explainPlan, type PlanExplanation, type PlanInput, withDefaultClusterPreferences } from '@kubefed/scheduler';
import Table from 'cli-table3';
import { parseAllDocuments } from 'yaml';
import { UsageError } from '../errors.js';

/**
 * Parses `a=3,b=1` (the `--current` / `--capacity` flags) into a map. Rejects with
 * {@link UsageError} naming `flag` and the bad pair when a pair is not `<cluster>=<integer>`.
 */
export function parseClusterNumbers(value: string, flag: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of value.split(',')) {
    const pair = part.trim();
    if (pair === '') continue;
    const m = /^([^=\s]+)=(-?\d+)$/.exec(pair);
    if (m === null || !Number.isSafeInteger(Number(m[2]))) {
      throw new UsageError(`${flag}: "${pair}" is not <cluster>=<integer>`, { hint: `write ${flag} a=3,b=1` });
    }
    out[m[1]!] = Number(m[2]);
  }
  return out;
}

/** Parses `a,b,c` (the `--clusters` flag); rejects an empty list. */
export function parseClusterList(value: string, flag = '--clusters'): string[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) throw new UsageError(`${flag}: no cluster names given`, { hint: `write ${flag} a,b,c` });
  return names;
}

/**
 * Reads a ReplicaSchedulingPreference from YAML text (the first document). Rejects with
 * {@link UsageError} naming `source` and every bad field when it is not a valid RSP.
 */
export function parseRspYaml(text: string, source: string): ReplicaSchedulingPreference {
  let value: unknown;
  try {
    const docs = parseAllDocuments(text);
    const first = Array.isArray(docs) ? docs.find((d) => d.contents !== null) : undefined;
    if (first !== undefined && first.errors.length > 0) throw first.errors[0]!;
    value = first?.toJS();
  } catch (e) {
    throw new UsageError(`-f ${source}: not valid YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof value !== 'object' || value === null) throw new UsageError(`-f ${source}: no object found`);
  const kind = (value as { kind?: unknown }).kind;
  if (kind !== 'ReplicaSchedulingPreference') {
    throw new UsageError(`-f ${source}: kind is ${JSON.stringify(kind ?? null)}, expected ReplicaSchedulingPreference`);
  }
  const result = validateReplicaSchedulingPreference(value);
  if (!result.ok) {
    throw new UsageError(
      `-f ${source}: not a valid ReplicaSchedulingPreference: ${result.issues.map((i) => `${i.path === '' ? '<object>' : i.path}: ${i.message}`).join('; ')}`,
    );
  }
  return result.value;
}

/** Inputs besides the RSP: what the planner needs about the clusters. */
export interface PlanClusters {
  available: readonly string[];
  current?: Readonly<Record<string, number>> | undefined;
  capacity?: Readonly<Record<string, number>> | undefined;
  key: string;
}

/** The planner input for an RSP (empty `clusters` → `{"*": {weight: 1}}`, as the RSP controller does). */
export function planInputFor(rsp: ReplicaSchedulingPreference, clusters: PlanClusters): PlanInput {
  return {
    totalReplicas: rsp.spec.totalReplicas,
    rebalance: rsp.spec.rebalance === true,
    clusters: withDefaultClusterPreferences(rsp.spec.clusters),
    availableClusters: clusters.available,
    currentReplicas: clusters.current,
    capacity: clusters.capacity,
    key: clusters.key,
  };
}

const show = (n: number | null): string => (n === null ? '-' : String(n));

/** The plan as a table: cluster, min, max, weight, current, capacity, planned, why; and a summary line. */
export function formatPlanTable(explanation: PlanExplanation): string {
  const table = new Table({
    head: ['CLUSTER', 'MIN', 'MAX', 'WEIGHT', 'CURRENT', 'CAPACITY', 'PLANNED', 'WHY'],
    style: { head: [], border: [] },
    wordWrap: true,
    colWidths: [null, null, null, null, null, null, null, 60],
  });
  for (const c of explanation.clusters) {
    const planned = c.overflow > 0 ? `${c.planned} (+${c.overflow} overflow)` : String(c.planned);
    table.push([c.name, String(c.min), show(c.max), String(c.weight), show(c.current), show(c.capacity), planned, c.why]);
  }
  const summary = `total ${explanation.totalReplicas}: placed ${explanation.placed}, unplaced ${explanation.unplaced}; rebalance ${String(explanation.rebalance)}; key ${JSON.stringify(explanation.key)}`;
  return `${table.toString()}\n${summary}\n`;
}

/** The plan and its explanation as JSON (`-o json`). */
export function formatPlanJson(explanation: PlanExplanation): string {
  return `${JSON.stringify(explanation, null, 2)}\n`;
}

/** Plans an RSP with the planner and explains every cluster's number. */
export function explainRsp(rsp: ReplicaSchedulingPreference, clusters: PlanClusters): PlanExplanation {
  return explainPlan(planInputFor(rsp, clusters));
}
