import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  defaultReplicaSchedulingPreferenceSpec,
  parseReplicaSchedulingPreference,
  validateReplicaSchedulingPreference,
  type ReplicaSchedulingPreferenceSpec,
} from './replica-scheduling-preference.js';

const RSP_YAML = `
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata:
  name: web
  namespace: shop
spec:
  targetKind: FederatedDeployment
  totalReplicas: 9
  rebalance: true
  intersectWithClusterSelector: false
  clusters:
    "*":
      weight: 1
    cluster1:
      minReplicas: 2
      maxReplicas: 6
      weight: 2
status: {}
`;

const valid = () => parse(RSP_YAML);

describe('ReplicaSchedulingPreference', () => {
  it('round-trips a realistic document exactly', () => {
    const input = valid();
    expect(stringify(parseReplicaSchedulingPreference(input))).toBe(stringify(input));
  });

  it.each<[string, ReplicaSchedulingPreferenceSpec, ReplicaSchedulingPreferenceSpec['clusters']]>([
    ['absent clusters', { targetKind: 'FederatedDeployment', totalReplicas: 3 }, { '*': { weight: 1 } }],
    ['empty clusters', { targetKind: 'FederatedDeployment', totalReplicas: 3, clusters: {} }, { '*': { weight: 1 } }],
    ['given clusters', { targetKind: 'FederatedDeployment', totalReplicas: 3, clusters: { a: { weight: 0 } } }, { a: { weight: 0 } }],
  ])('defaults %s', (_title, spec, clusters) => {
    expect(defaultReplicaSchedulingPreferenceSpec(spec).clusters).toEqual(clusters);
  });

  it.each<[string, (o: ReturnType<typeof valid>) => void, { path: string; message: string }[]]>([
    [
      'an unsupported target kind',
      (o) => (o.spec.targetKind = 'FederatedStatefulSet'),
      [{ path: 'spec.targetKind', message: 'must be one of FederatedDeployment, FederatedReplicaSet' }],
    ],
    ['missing totalReplicas', (o) => delete o.spec.totalReplicas, [{ path: 'spec.totalReplicas', message: 'Required value' }]],
    [
      'totalReplicas beyond int32',
      (o) => (o.spec.totalReplicas = 2 ** 31),
      [{ path: 'spec.totalReplicas', message: 'must be less than or equal to 2147483647' }],
    ],
    [
      'a non-integer weight',
      (o) => (o.spec.clusters.cluster1.weight = 0.5),
      [{ path: 'spec.clusters.cluster1.weight', message: 'must be an integer' }],
    ],
    [
      'a negative totalReplicas',
      (o) => (o.spec.totalReplicas = -5),
      [{ path: 'spec.totalReplicas', message: 'must be greater than or equal to 0' }],
    ],
    [
      'a negative weight',
      (o) => (o.spec.clusters.cluster1.weight = -1),
      [{ path: 'spec.clusters.cluster1.weight', message: 'must be greater than or equal to 0' }],
    ],
    [
      'a negative minReplicas',
      (o) => (o.spec.clusters.cluster1.minReplicas = -1),
      [{ path: 'spec.clusters.cluster1.minReplicas', message: 'must be greater than or equal to 0' }],
    ],
    [
      'a negative maxReplicas',
      (o) => (o.spec.clusters['*'].maxReplicas = -2),
      [{ path: 'spec.clusters.*.maxReplicas', message: 'must be greater than or equal to 0' }],
    ],
  ])('reports %s with its field path', (_title, mutate, issues) => {
    const o = valid();
    mutate(o);
    expect(validateReplicaSchedulingPreference(o).issues).toEqual(issues);
  });
});
