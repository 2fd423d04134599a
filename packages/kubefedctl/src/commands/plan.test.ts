import type { ReplicaSchedulingPreference } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { explainRsp, formatPlanJson, formatPlanTable, parseClusterList, parseClusterNumbers, parseRspYaml } from './plan.js';

function rsp(totalReplicas: number, clusters?: ReplicaSchedulingPreference['spec']['clusters']): ReplicaSchedulingPreference {
  return {
    apiVersion: 'scheduling.kubefed.io/v1alpha1',
    kind: 'ReplicaSchedulingPreference',
    metadata: { name: 'web', namespace: 'demo' },
    spec: { targetKind: 'FederatedDeployment', totalReplicas, ...(clusters === undefined ? {} : { clusters }) },
  };
}

describe('parseClusterNumbers', () => {
  it.each([
    ['a=3,b=1', { a: 3, b: 1 }],
    [' a=3 , b=-1 ,', { a: 3, b: -1 }],
    ['', {}],
  ])('parses %j', (value, expected) => {
    expect(parseClusterNumbers(value, '--current')).toEqual(expected);
  });

  it.each(['a3', 'a=x', '=3', 'a=1.5'])('rejects %j naming the flag and the pair', (value) => {
    expect(() => parseClusterNumbers(value, '--capacity')).toThrow(UsageError);
    expect(() => parseClusterNumbers(value, '--capacity')).toThrow(`--capacity: "${value}" is not <cluster>=<integer>`);
  });
});

describe('parseClusterList', () => {
  it('splits and trims names, and rejects an empty list', () => {
    expect(parseClusterList(' a, b ,c')).toEqual(['a', 'b', 'c']);
    expect(() => parseClusterList(' , ')).toThrow('--clusters: no cluster names given');
  });
});

describe('parseRspYaml', () => {
  it('reads a ReplicaSchedulingPreference', () => {
    const r = parseRspYaml(
      'apiVersion: scheduling.kubefed.io/v1alpha1\nkind: ReplicaSchedulingPreference\nmetadata: {name: web}\nspec: {targetKind: FederatedDeployment, totalReplicas: 5}\n',
      'rsp.yaml',
    );
    expect(r.spec.totalReplicas).toBe(5);
  });

  it.each([
    ['kind: ConfigMap\nmetadata: {name: x}\n', '-f rsp.yaml: kind is "ConfigMap", expected ReplicaSchedulingPreference'],
    [
      'kind: ReplicaSchedulingPreference\nmetadata: {name: x}\nspec: {targetKind: FederatedDeployment, totalReplicas: "five"}\n',
      'spec.totalReplicas',
    ],
    [
      'kind: ReplicaSchedulingPreference\nmetadata: {name: x}\nspec: {targetKind: FederatedJob, totalReplicas: 1}\n',
      'spec.targetKind: must be one of FederatedDeployment, FederatedReplicaSet',
    ],
    ['just a string', '-f rsp.yaml: no object found'],
    ['a: [', '-f rsp.yaml: not valid YAML'],
  ])('rejects %j naming the field', (text, message) => {
    expect(() => parseRspYaml(text, 'rsp.yaml')).toThrow(message);
  });
});

describe('offline plans of the KubeFed user guide examples (clusters A, B, C)', () => {
  it.each([
    ['total 9 without preferences', rsp(9), ['A', 'B', 'C'], { A: 3, B: 3, C: 3 }],
    ['A weight 1, B weight 2', rsp(9, { A: { weight: 1 }, B: { weight: 2 } }), ['A', 'B', 'C'], { A: 3, B: 6, C: 0 }],
    [
      'A {min 4, max 6, w 1}, B {min 4, max 8, w 2}',
      rsp(9, { A: { minReplicas: 4, maxReplicas: 6, weight: 1 }, B: { minReplicas: 4, maxReplicas: 8, weight: 2 } }),
      ['A', 'B', 'C'],
      { A: 4, B: 5, C: 0 },
    ],
    [
      'total 50, "*" weight 1 and C max 20, B offline',
      rsp(50, { '*': { weight: 1 }, C: { maxReplicas: 20, weight: 1 } }),
      ['A', 'C'],
      { A: 30, C: 20 },
    ],
    [
      'total 50, "*" weight 1 and C max 20, A and B offline',
      rsp(50, { '*': { weight: 1 }, C: { maxReplicas: 20, weight: 1 } }),
      ['C'],
      { C: 20 },
    ],
  ] as const)('%s', (_name, r, available, expected) => {
    const e = explainRsp(r, { available, key: '' });
    expect(e.plan).toEqual(expected);
  });

  it('splits total 50 with "*" weight 1 and C max 20 over all three, C within its max', () => {
    const e = explainRsp(rsp(50, { '*': { weight: 1 }, C: { maxReplicas: 20, weight: 1 } }), { available: ['A', 'B', 'C'], key: '' });
    expect(Object.values(e.plan).reduce((a, b) => a + b, 0)).toBe(50);
    expect(Object.values(e.plan).every((n) => n >= 16 && n <= 17)).toBe(true);
  });

  it('prints a table with every column and the reasons, and JSON with plan, overflow and explanation', () => {
    const e = explainRsp(rsp(9, { A: { weight: 1 }, B: { weight: 2, maxReplicas: 4 } }), {
      available: ['A', 'B', 'C'],
      current: { A: 1 },
      capacity: { A: 3 },
      key: 'demo/web',
    });
    const table = formatPlanTable(e);
    for (const head of ['CLUSTER', 'MIN', 'MAX', 'WEIGHT', 'CURRENT', 'CAPACITY', 'PLANNED', 'WHY']) expect(table).toContain(head);
    expect(table).toContain('3 (+2 overflow)');
    expect(e.clusters.find((c) => c.name === 'B')?.why).toContain('capped at maxReplicas 4');
    expect(table).toContain('maxReplicas 4.');
    expect(table).toContain('C has no entry in clusters');
    expect(table).toContain('total 9: placed 7, unplaced 2');
    const json = JSON.parse(formatPlanJson(e)) as { plan: unknown; overflow: unknown; clusters: unknown[] };
    expect(json.plan).toEqual({ A: 3, B: 4, C: 0 });
    expect(json.overflow).toEqual(e.overflow);
    expect(json.clusters).toHaveLength(3);
  });
});
