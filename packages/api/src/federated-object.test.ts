import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { isForbiddenOverridePath, parseFederatedObject, validateFederatedObject, validateOverrides } from './federated-object.js';

const DEPLOYMENT_YAML = `
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata:
  name: web
  namespace: shop
  uid: 0b7b2f9e-4f1a-4a8e-9d55-1c2d3e4f5a6b
  resourceVersion: "812"
  generation: 7
  creationTimestamp: "2026-11-21T09:00:00Z"
  labels:
    app: web
  annotations:
    kubefed.io/orphan: "true"
    kubefed.io/deleteoption: '{"propagationPolicy":"Foreground"}'
  finalizers:
    - kubefed.io/sync-controller
spec:
  template:
    metadata:
      labels:
        app: web
      creationTimestamp: null
    spec:
      replicas: 3
      selector:
        matchLabels:
          app: web
      template:
        metadata:
          labels:
            app: web
        spec:
          containers:
            - name: web
              image: nginx:1.27
              ports:
                - containerPort: 80
              x-future-field:
                nested: [1, "two", { three: 3 }]
      zz-unknown: keep me
  placement:
    clusters:
      - name: cluster1
      - name: cluster2
    clusterSelector:
      matchLabels:
        region: eu
      matchExpressions:
        - key: tier
          operator: In
          values:
            - gold
            - silver
        - key: legacy
          operator: DoesNotExist
  overrides:
    - clusterName: cluster2
      clusterOverrides:
        - op: replace
          path: /spec/replicas
          value: 5
        - path: /spec/template/spec/containers/0/image
          value: nginx:1.28
        - op: add
          path: /metadata/labels/extra
          value:
            nested:
              object: [true, null, 1.5]
        - op: remove
          path: /metadata/labels/app
  retainReplicas: true
status:
  observedGeneration: 7
  conditions:
    - type: Propagation
      status: "False"
      reason: CheckClusters
      lastUpdateTime: "2026-11-21T09:00:05Z"
      lastTransitionTime: "2026-11-21T09:00:05Z"
  clusters:
    - name: cluster1
      remoteStatus:
        availableReplicas: 3
        conditions:
          - type: Available
            status: "True"
        anythingElse: { deep: [1, 2] }
    - name: cluster2
      status: ClusterNotReady
`;

const valid = () => parse(DEPLOYMENT_YAML);

describe('Federated<Kind>', () => {
  it('round-trips a realistic FederatedDeployment exactly, keeping template, remoteStatus and override values', () => {
    const input = valid();
    const parsed = parseFederatedObject(input);
    expect(stringify(parsed)).toBe(stringify(input));
    expect(parsed.spec.template).toEqual(input.spec.template);
  });

  it('accepts an empty spec (it propagates nowhere) and a FederatedNamespace without template', () => {
    expect(validateFederatedObject({ metadata: { name: 'x', namespace: 'x' }, spec: {} }).ok).toBe(true);
  });

  it.each<[string, (o: ReturnType<typeof valid>) => void, { path: string; message: string }[]]>([
    ['a missing spec', (o) => delete o.spec, [{ path: 'spec', message: 'Required value' }]],
    [
      'an unknown override op',
      (o) => (o.spec.overrides[0].clusterOverrides[1].op = 'move'),
      [{ path: 'spec.overrides[0].clusterOverrides[1].op', message: 'must be one of add, remove, replace' }],
    ],
    [
      'an override without path',
      (o) => delete o.spec.overrides[0].clusterOverrides[0].path,
      [{ path: 'spec.overrides[0].clusterOverrides[0].path', message: 'Required value' }],
    ],
    [
      'a cluster listed twice in overrides',
      (o) => o.spec.overrides.push({ clusterName: 'cluster2' }),
      [{ path: 'spec.overrides[1].clusterName', message: 'cluster "cluster2" appears more than once' }],
    ],
    [
      'a path listed twice for a cluster',
      (o) => o.spec.overrides[0].clusterOverrides.push({ path: '/spec/replicas', value: 1 }),
      [
        {
          path: 'spec.overrides[0].clusterOverrides[4].path',
          message: 'path "/spec/replicas" appears more than once for cluster "cluster2"',
        },
      ],
    ],
    [
      'forbidden override paths',
      (o) =>
        o.spec.overrides[0].clusterOverrides.push(
          { path: '/metadata/name', value: 'x' },
          { path: '/metadata/namespace', value: 'x' },
          { path: '/metadata/generateName', value: 'x' },
          { path: '/kind', value: 'x' },
          { path: '/apiVersion', value: 'apps/v1' },
        ),
      [
        {
          path: 'spec.overrides[0].clusterOverrides[4].path',
          message: 'override[4] for cluster "cluster2" has an invalid path: /metadata/name',
        },
        {
          path: 'spec.overrides[0].clusterOverrides[5].path',
          message: 'override[5] for cluster "cluster2" has an invalid path: /metadata/namespace',
        },
        {
          path: 'spec.overrides[0].clusterOverrides[6].path',
          message: 'override[6] for cluster "cluster2" has an invalid path: /metadata/generateName',
        },
        { path: 'spec.overrides[0].clusterOverrides[7].path', message: 'override[7] for cluster "cluster2" has an invalid path: /kind' },
      ],
    ],
    [
      'a path that is not a JSON pointer',
      (o) => (o.spec.overrides[0].clusterOverrides[0].path = 'spec.replicas'),
      [{ path: 'spec.overrides[0].clusterOverrides[0].path', message: 'must be a JSON pointer starting with "/"' }],
    ],
    [
      'a placement cluster without name',
      (o) => (o.spec.placement.clusters[1] = {}),
      [{ path: 'spec.placement.clusters[1].name', message: 'Required value' }],
    ],
    [
      'a selector with a bad operator',
      (o) => (o.spec.placement.clusterSelector.matchExpressions[0].operator = 'Within'),
      [{ path: 'spec.placement.clusterSelector.matchExpressions[0].operator', message: 'must be one of In, NotIn, Exists, DoesNotExist' }],
    ],
    ['a template that is not an object', (o) => (o.spec.template = 'x'), [{ path: 'spec.template', message: 'must be an object' }]],
    [
      'retainReplicas that is not a boolean',
      (o) => (o.spec.retainReplicas = 'yes'),
      [{ path: 'spec.retainReplicas', message: 'must be a boolean' }],
    ],
  ])('reports %s with its field path', (_title, mutate, issues) => {
    const o = valid();
    mutate(o);
    expect(validateFederatedObject(o).issues).toEqual(issues);
  });

  it.each<[string, boolean]>([
    ['/metadata', true],
    ['/', true],
    ['', true],
    ['/metadata/name', true],
    ['/metadata/labels', false],
    ['/metadata/namespaces', false],
    ['/spec', false],
    ['/metadata/ownerReferences', true],
    ['/metadata/ownerReferences/0', true],
    ['/metadata/ownerReferences/-', true],
    ['/metadata/ownerReferencesX', false],
  ])('treats an override at %j as forbidden: %s (it could replace the name, namespace, kind or owners)', (path, forbidden) => {
    expect(isForbiddenOverridePath(path)).toBe(forbidden);
    const issues = validateOverrides([{ clusterName: 'a', clusterOverrides: [{ path, value: { name: 'elsewhere' } }] }]);
    expect(issues.some((i) => i.message.includes('has an invalid path'))).toBe(forbidden);
  });

  it('reports shape and rule problems of different overrides together', () => {
    const issues = validateOverrides([
      { clusterName: 'a', clusterOverrides: [{ path: '/kind' }] },
      { clusterName: 'a', clusterOverrides: [{ op: 'bogus', path: '/x' }] },
    ]);
    expect(issues).toEqual([
      { path: 'spec.overrides[0].clusterOverrides[0].path', message: 'override[0] for cluster "a" has an invalid path: /kind' },
      { path: 'spec.overrides[1].clusterName', message: 'cluster "a" appears more than once' },
    ]);
    const o = valid();
    o.spec.overrides = [
      { clusterName: 'a', clusterOverrides: [{ path: '/kind' }] },
      { clusterName: 'b', clusterOverrides: [{ path: '/x' }, { op: 'bogus', path: '/y' }] },
    ];
    expect(validateFederatedObject(o).issues).toEqual([
      { path: 'spec.overrides[1].clusterOverrides[1].op', message: 'must be one of add, remove, replace' },
      { path: 'spec.overrides[0].clusterOverrides[0].path', message: 'override[0] for cluster "a" has an invalid path: /kind' },
    ]);
  });
});

describe('Federated<Kind> opaque fields', () => {
  it('keeps any JSON in template, override values and remoteStatus exactly', () => {
    // A "__proto__" key is dropped by zod's record parsing (it copies through an object literal):
    // no Kubernetes field has that name, and the generator leaves it out so the property holds.
    const json = fc.dictionary(
      fc.string().filter((k) => k !== '__proto__'),
      fc.jsonValue(),
      { maxKeys: 6 },
    );
    fc.assert(
      fc.property(json, fc.jsonValue(), json, (template, value, remoteStatus) => {
        const input = {
          metadata: { name: 'x', namespace: 'y' },
          spec: { template, overrides: [{ clusterName: 'c', clusterOverrides: [{ path: '/a', value }] }] },
          status: { clusters: [{ name: 'c', remoteStatus }] },
        };
        const expected = structuredClone(input);
        expect(parseFederatedObject(input)).toStrictEqual(expected);
      }),
    );
  });
});
