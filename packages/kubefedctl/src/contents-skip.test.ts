import type { KubeObject, ResourceMapping } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { contentsSkipOf, formatContentsSkips, reportedNeverFederatedTypes, type SkippedObject } from './contents-skip.js';

const mapping = (m: Partial<ResourceMapping> & Pick<ResourceMapping, 'group' | 'version' | 'resource' | 'kind'>): ResourceMapping => ({
  singularName: m.kind.toLowerCase(),
  namespaced: true,
  shortNames: [],
  verbs: ['list', 'get', 'create'],
  categories: [],
  preferred: true,
  subresources: [],
  ...m,
});

const configMaps = mapping({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' });
const serviceAccounts = mapping({ group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount' });
const secrets = mapping({ group: '', version: 'v1', resource: 'secrets', kind: 'Secret' });
const pods = mapping({ group: '', version: 'v1', resource: 'pods', kind: 'Pod' });
const replicaSets = mapping({ group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet' });

const controllerOf = (kind: string, name: string, controller = true) => [
  { apiVersion: 'apps/v1', kind, name, uid: `${name}-uid`, controller, blockOwnerDeletion: true },
];

const obj = (name: string, extra: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name, namespace: 'demo', ...metadata },
  ...extra,
});

describe('contentsSkipOf', () => {
  it.each<[string, KubeObject, ResourceMapping, SkippedObject | undefined]>([
    ["a user's ConfigMap is federated", obj('web-config'), configMaps, undefined],
    [
      'the kube-root-ca.crt ConfigMap is skipped',
      obj('kube-root-ca.crt'),
      configMaps,
      { ref: 'configmap/kube-root-ca.crt', reason: 'per-namespace' },
    ],
    ['the default ServiceAccount is skipped', obj('default'), serviceAccounts, { ref: 'serviceaccount/default', reason: 'per-namespace' }],
    ["a user's ServiceAccount is federated", obj('builder'), serviceAccounts, undefined],
    ['a ConfigMap named default is federated', obj('default'), configMaps, undefined],
    [
      'a service account token Secret is skipped',
      obj('builder-token', { type: 'kubernetes.io/service-account-token' }),
      secrets,
      { ref: 'secret/builder-token', reason: 'token' },
    ],
    ['an Opaque Secret is federated', obj('creds', { type: 'Opaque' }), secrets, undefined],
    [
      'a Pod of a ReplicaSet is skipped, naming its owner',
      obj('web-6d4f-x1', {}, { ownerReferences: controllerOf('ReplicaSet', 'web-6d4f') }),
      pods,
      { ref: 'pod/web-6d4f-x1', reason: 'owned', owner: 'ReplicaSet web-6d4f' },
    ],
    [
      'a ReplicaSet of a Deployment is skipped with its group in the name',
      obj('web-6d4f', {}, { ownerReferences: controllerOf('Deployment', 'web') }),
      replicaSets,
      { ref: 'replicaset.apps/web-6d4f', reason: 'owned', owner: 'Deployment web' },
    ],
    [
      'an object whose owner is not its controller is federated',
      obj('web-config', {}, { ownerReferences: controllerOf('Deployment', 'web', false) }),
      configMaps,
      undefined,
    ],
    ['an object with owner references that do not parse counts as unowned', obj('x', {}, { ownerReferences: 'bad' }), pods, undefined],
    ['a name that is not a DNS-1123 subdomain is skipped', obj('Bad_Name'), configMaps, { ref: 'configmap/Bad_Name', reason: 'name' }],
  ])('%s', (_what, o, m, expected) => {
    expect(contentsSkipOf(o, m, { includeOwned: false })).toEqual(expected);
  });

  it('federates owned objects with includeOwned, and still skips the ones Kubernetes makes in every namespace', () => {
    const pod = obj('web-6d4f-x1', {}, { ownerReferences: controllerOf('ReplicaSet', 'web-6d4f') });
    expect(contentsSkipOf(pod, pods, { includeOwned: true })).toBeUndefined();
    expect(contentsSkipOf(obj('kube-root-ca.crt'), configMaps, { includeOwned: true })?.reason).toBe('per-namespace');
  });
});

describe('reportedNeverFederatedTypes', () => {
  it('counts endpoints, EndpointSlices, core events and propagated versions, once each, and nothing else', () => {
    const all = [
      configMaps,
      mapping({ group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints' }),
      mapping({ group: '', version: 'v1', resource: 'events', kind: 'Event' }),
      mapping({ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event' }),
      mapping({ group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice' }),
      mapping({ group: 'discovery.k8s.io', version: 'v1beta1', resource: 'endpointslices', kind: 'EndpointSlice', preferred: false }),
      mapping({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'propagatedversions', kind: 'PropagatedVersion' }),
    ];
    expect(reportedNeverFederatedTypes(all).map((m) => `${m.resource}.${m.group}/${m.version}`)).toEqual([
      'endpoints./v1',
      'events./v1',
      'endpointslices.discovery.k8s.io/v1',
      'propagatedversions.core.kubefed.io/v1alpha1',
    ]);
  });
});

describe('formatContentsSkips', () => {
  const pod = (i: number): SkippedObject => ({ ref: `pod/web-${i}`, reason: 'owned', owner: 'ReplicaSet web' });

  it('names each object with its reason, grouped by reason, and the never-federated types by count', () => {
    const lines = formatContentsSkips({
      objects: [
        { ref: 'configmap/kube-root-ca.crt', reason: 'per-namespace' },
        { ref: 'replicaset.apps/web', reason: 'owned', owner: 'Deployment web' },
        { ref: 'secret/builder-token', reason: 'token' },
        { ref: 'serviceaccount/default', reason: 'per-namespace' },
      ],
      types: [
        { resource: 'events', count: 4, reason: 'cluster-kept' },
        { resource: 'endpoints', count: 1, reason: 'cluster-kept' },
        { resource: 'endpointslices.discovery.k8s.io', count: 0, reason: 'cluster-kept' },
        { resource: 'propagatedversions.core.kubefed.io', count: 2, reason: 'control-plane' },
      ],
    });
    expect(lines).toEqual([
      'skipped replicaset.apps/web: its controller Deployment web makes it in each cluster (--include-owned federates it)',
      'skipped configmap/kube-root-ca.crt: created by Kubernetes in every namespace',
      'skipped serviceaccount/default: created by Kubernetes in every namespace',
      'skipped secret/builder-token: a service account token: each cluster issues its own',
      "skipped events (4), endpoints (1): kept by each cluster's own controllers",
      'skipped propagatedversions.core.kubefed.io (2): kept by the KubeFed control plane',
    ]);
  });

  it.each([
    [0, []],
    [3, ['pod/web-0', 'pod/web-1', 'pod/web-2']],
    [5, ['pod/web-0', 'pod/web-1', 'pod/web-2', 'pod/web-3', 'pod/web-4']],
    [40, ['pod/web-0', 'pod/web-1', 'pod/web-2', 'pod/web-3', 'pod/web-4', '35 more']],
  ])('prints at most five objects of a reason and counts the rest (%i skipped)', (n, shown) => {
    const lines = formatContentsSkips({ objects: Array.from({ length: n }, (_, i) => pod(i)), types: [] });
    expect(lines.map((l) => /^skipped ([^:]+):/.exec(l)?.[1])).toEqual(shown);
    if (n > 5) expect(lines.at(-1)).toBe('skipped 35 more: their controllers make them in each cluster (--include-owned federates them)');
  });
});
