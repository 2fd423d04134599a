import type { FederatedObject, KubeFedCluster, LabelSelector } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { ComputePlacementError } from './errors.js';
import { computePlacement, computeSelectorPlacement, effectivePlacement, type PlacementSource } from './placement.js';

const cluster = (name: string, labels?: Record<string, string>): KubeFedCluster => ({
  metadata: labels === undefined ? { name } : { name, labels },
  spec: { apiEndpoint: `https://${name}.example`, secretRef: { name } },
});
const clusters = [cluster('cluster1'), cluster('cluster2', { foo: 'bar' }), cluster('cluster3', { foo: 'baz', zone: 'a' })];

type PlacementSpec = { clusters?: { name: string }[]; clusterSelector?: LabelSelector };
const obj = (placement?: PlacementSpec, spec = true): PlacementSource => ({
  metadata: { name: 'web', namespace: 'ns' },
  ...(spec ? { spec: placement === undefined ? {} : { placement } } : {}),
});
const names = (...n: string[]): { name: string }[] => n.map((name) => ({ name }));

describe('computePlacement', () => {
  it.each<[string, PlacementSource, string[]]>([
    [
      'names [cluster1] + selector {} → cluster1 only: the list wins (docs/kubefed-compatibility.md §4.4.3, §9)',
      obj({ clusters: names('cluster1'), clusterSelector: {} }),
      ['cluster1'],
    ],
    [
      'an empty clusters list selects nothing even with a selector (§4.4.3)',
      obj({ clusters: [], clusterSelector: { matchLabels: { foo: 'bar' } } }),
      [],
    ],
    ['no placement selects nothing (§4.4.3)', obj(), []],
    ['an empty placement selects nothing (§4.4.3)', obj({}), []],
    ['a missing spec selects nothing (§4.4.3)', obj(undefined, false), []],
    ['selector {} selects every registered cluster (§4.4.3)', obj({ clusterSelector: {} }), ['cluster1', 'cluster2', 'cluster3']],
    ['selector foo=bar selects the labelled cluster (§9 vectors)', obj({ clusterSelector: { matchLabels: { foo: 'bar' } } }), ['cluster2']],
    [
      'matchExpressions In selects matching clusters',
      obj({ clusterSelector: { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar', 'baz'] }] } }),
      ['cluster2', 'cluster3'],
    ],
    [
      'matchExpressions NotIn selects clusters without the value (absent label included)',
      obj({ clusterSelector: { matchExpressions: [{ key: 'foo', operator: 'NotIn', values: ['bar'] }] } }),
      ['cluster1', 'cluster3'],
    ],
    ['matchExpressions Exists', obj({ clusterSelector: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } }), ['cluster3']],
    [
      'matchExpressions DoesNotExist',
      obj({ clusterSelector: { matchExpressions: [{ key: 'foo', operator: 'DoesNotExist' }] } }),
      ['cluster1'],
    ],
    [
      'matchLabels AND matchExpressions must both hold',
      obj({ clusterSelector: { matchLabels: { foo: 'baz' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] } }),
      [],
    ],
    [
      'unknown cluster names disappear silently (§4.4.3 step 3)',
      obj({ clusters: names('cluster3', 'gone', 'cluster1') }),
      ['cluster1', 'cluster3'],
    ],
    ['duplicate names are selected once', obj({ clusters: names('cluster2', 'cluster2') }), ['cluster2']],
  ])('%s', (_title, fedObject, expected) => {
    expect(computePlacement(fedObject, clusters)).toEqual(expected);
  });

  it.each<[string, LabelSelector]>([
    ['an unknown operator', { matchExpressions: [{ key: 'foo', operator: 'Equals', values: ['bar'] }] }],
    ['In without values', { matchExpressions: [{ key: 'foo', operator: 'In' }] }],
    ['an invalid label key', { matchLabels: { 'bad key!': 'x' } }],
  ])('throws ComputePlacementError for a selector with %s (§4.4.3)', (_title, clusterSelector) => {
    expect(() => computePlacement(obj({ clusterSelector }), clusters)).toThrow(ComputePlacementError);
    expect(() => computePlacement(obj({ clusterSelector }), clusters)).toThrow(/ns\/web.*clusterSelector/);
  });

  it('accepts a parsed FederatedObject', () => {
    const fedObject: FederatedObject = {
      metadata: { name: 'web', namespace: 'ns' },
      spec: { placement: { clusterSelector: { matchLabels: { foo: 'baz' } } } },
    };
    expect(computePlacement(fedObject, clusters)).toEqual(['cluster3']);
  });

  it('does not evaluate an invalid selector when a clusters list is present', () => {
    const fedObject = obj({ clusters: names('cluster1'), clusterSelector: { matchExpressions: [{ key: 'foo', operator: 'Bogus' }] } });
    expect(computePlacement(fedObject, clusters)).toEqual(['cluster1']);
  });
});

describe('computeSelectorPlacement', () => {
  it.each<[string, PlacementSource, string[]]>([
    [
      'evaluates the selector even when a clusters list exists (§4.4.3 selector-only)',
      obj({ clusters: names('cluster1'), clusterSelector: { matchLabels: { foo: 'bar' } } }),
      ['cluster2'],
    ],
    ['selects nothing without a selector even with a clusters list', obj({ clusters: names('cluster1') }), []],
    ['selects every cluster for selector {}', obj({ clusters: [], clusterSelector: {} }), ['cluster1', 'cluster2', 'cluster3']],
  ])('%s', (_title, fedObject, expected) => {
    expect(computeSelectorPlacement(fedObject, clusters)).toEqual(expected);
  });
});

describe('effectivePlacement', () => {
  const deployment = { kind: 'Deployment', group: 'apps', scope: 'Namespaced' } as const;
  const clusterRole = { kind: 'ClusterRole', group: 'rbac.authorization.k8s.io', scope: 'Cluster' } as const;
  const namespace = { kind: 'Namespace', group: '', scope: 'Cluster' } as const;
  const all = obj({ clusterSelector: {} });
  const fedNs = (placement: PlacementSpec): PlacementSource => ({ metadata: { name: 'ns', namespace: 'ns' }, spec: { placement } });

  it.each<[string, Parameters<typeof effectivePlacement>[0], string[], string | undefined]>([
    [
      'a FederatedNamespace restricts a namespaced target (R ∩ F, §4.4.4)',
      {
        fedObject: all,
        clusters,
        targetType: deployment,
        scope: 'Cluster',
        federatedNamespace: fedNs({ clusters: names('cluster2', 'cluster3') }),
      },
      ['cluster2', 'cluster3'],
      undefined,
    ],
    [
      'a FederatedNamespace placed nowhere empties the placement',
      { fedObject: all, clusters, targetType: deployment, scope: 'Cluster', federatedNamespace: fedNs({}) },
      [],
      undefined,
    ],
    [
      'no FederatedNamespace in a cluster-scoped plane places nowhere with NamespaceNotFederated (§4.4.4, §9.2)',
      { fedObject: all, clusters, targetType: deployment, scope: 'Cluster' },
      [],
      'NamespaceNotFederated',
    ],
    [
      'no FederatedNamespace in a namespace-scoped plane keeps R (§4.4.4)',
      { fedObject: all, clusters, targetType: deployment, scope: 'Namespaced' },
      ['cluster1', 'cluster2', 'cluster3'],
      undefined,
    ],
    [
      'a FederatedNamespace also restricts in a namespace-scoped plane',
      { fedObject: all, clusters, targetType: deployment, scope: 'Namespaced', federatedNamespace: fedNs({ clusters: names('cluster1') }) },
      ['cluster1'],
      undefined,
    ],
    [
      'cluster-scoped targets use R directly',
      { fedObject: all, clusters, targetType: clusterRole, scope: 'Cluster' },
      ['cluster1', 'cluster2', 'cluster3'],
      undefined,
    ],
    [
      'the Namespace target uses R directly',
      { fedObject: obj({ clusters: names('cluster1') }), clusters, targetType: namespace, scope: 'Cluster' },
      ['cluster1'],
      undefined,
    ],
    [
      'selector-only evaluates selectors of both objects',
      {
        fedObject: obj({ clusters: [], clusterSelector: { matchLabels: { foo: 'bar' } } }),
        clusters,
        targetType: deployment,
        scope: 'Cluster',
        federatedNamespace: fedNs({ clusters: [], clusterSelector: {} }),
        selectorOnly: true,
      },
      ['cluster2'],
      undefined,
    ],
  ])('%s', (_title, input, expected, reason) => {
    const result = effectivePlacement(input);
    expect(result.clusters).toEqual(expected);
    expect(result.reason).toBe(reason);
  });

  it('throws ComputePlacementError when the FederatedNamespace selector is invalid', () => {
    const bad = fedNs({ clusterSelector: { matchExpressions: [{ key: 'a', operator: 'Nope' }] } });
    expect(() =>
      effectivePlacement({ fedObject: all, clusters, targetType: deployment, scope: 'Cluster', federatedNamespace: bad }),
    ).toThrow(ComputePlacementError);
  });
});
