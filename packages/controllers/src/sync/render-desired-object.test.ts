import type { FederatedObject, GenericOverrideItem } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { ApplyOverridesError, ComputeResourceError, FieldRetentionError } from './errors.js';
import { renderDesiredObject } from './render-desired-object.js';

const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };
const configMap = { group: '', version: 'v1', kind: 'ConfigMap' };
const namespaceType = { group: '', version: 'v1', kind: 'Namespace' };
const clusterRole = { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' };
const MANAGED = { 'kubefed.io/managed': 'true' };

const fed = (spec: FederatedObject['spec'], metadata: FederatedObject['metadata'] = { name: 'web', namespace: 'ns' }): FederatedObject => ({
  metadata,
  spec,
});
const errorOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
};
const NOT_SUPPORTED = (f: string) =>
  `metadata.${f} cannot be set via template to avoid conflicting with controllers in member clusters. Consider using an override to add or remove elements from this collection.`;

describe('renderDesiredObject: template and identity (docs/kubefed-compatibility.md §4.4.5)', () => {
  it.each<[string, FederatedObject, typeof deployment, KubeObject]>([
    [
      'copies the template and sets name, namespace, kind, apiVersion and the managed label',
      fed({ template: { metadata: { labels: { app: 'web' } }, spec: { replicas: 2 } } }),
      deployment,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'ns', labels: { app: 'web', ...MANAGED } },
        spec: { replicas: 2 },
      },
    ],
    [
      'overwrites template name, namespace and kind with the federated identity',
      fed({ template: { kind: 'Other', metadata: { name: 'other', namespace: 'elsewhere' } } }),
      deployment,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', labels: MANAGED } },
    ],
    [
      'keeps an apiVersion given in the template',
      fed({ template: { apiVersion: 'apps/v1beta2' } }),
      deployment,
      { apiVersion: 'apps/v1beta2', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', labels: MANAGED } },
    ],
    [
      'uses v1 for the core group',
      fed({ template: { data: { a: '1' } } }),
      configMap,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'ns', labels: MANAGED }, data: { a: '1' } },
    ],
    [
      'renders an empty object from a missing template',
      fed({}),
      configMap,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'ns', labels: MANAGED } },
    ],
    [
      'does not set a namespace for the Namespace target',
      fed({}, { name: 'team-a', namespace: 'team-a' }),
      namespaceType,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: MANAGED } },
    ],
    [
      'removes a template namespace for a cluster-scoped target',
      fed({ template: { metadata: { namespace: 'x' }, rules: [] } }, { name: 'admin' }),
      clusterRole,
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'admin', labels: MANAGED }, rules: [] },
    ],
    [
      'keeps empty template annotations without a warning',
      fed({ template: { metadata: { annotations: {} } } }),
      configMap,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'ns', annotations: {}, labels: MANAGED } },
    ],
  ])('%s', (_title, fedObject, targetType, expected) => {
    const before = structuredClone(fedObject);
    const { object, warnings } = renderDesiredObject({ fedObject, targetType, cluster: 'c1' });
    expect(object).toEqual(expected);
    expect(warnings).toEqual([]);
    expect(fedObject).toEqual(before);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['annotations', { annotations: { a: 'b' } }, ['AnnotationsNotSupported']],
    ['finalizers', { finalizers: ['x'] }, ['FinalizersNotSupported']],
    ['annotations and finalizers', { annotations: { a: 'b' }, finalizers: ['x'] }, ['AnnotationsNotSupported', 'FinalizersNotSupported']],
  ])('drops template %s with KubeFed’s warning (§4.4.5 step 2)', (_title, metadata, reasons) => {
    const { object, warnings } = renderDesiredObject({ fedObject: fed({ template: { metadata } }), targetType: configMap, cluster: 'c1' });
    expect(object.metadata).toEqual({ name: 'web', namespace: 'ns', labels: MANAGED });
    expect(warnings).toEqual(
      reasons.map((reason) => ({ reason, message: NOT_SUPPORTED(reason === 'AnnotationsNotSupported' ? 'annotations' : 'finalizers') })),
    );
  });

  it('drops template ownerReferences with a warning: a missing owner in the member makes its garbage collector delete the copy', () => {
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: '00000000-0000-0000-0000-000000000000' }];
    const { object, warnings } = renderDesiredObject({
      fedObject: fed({ template: { metadata: { ownerReferences } } }),
      targetType: configMap,
      cluster: 'c1',
    });
    expect(object.metadata).toEqual({ name: 'web', namespace: 'ns', labels: MANAGED });
    expect(warnings).toEqual([{ reason: 'OwnerReferencesNotSupported', message: expect.stringContaining('garbage collector') as unknown }]);
  });

  it('refuses an override into ownerReferences (ApplyOverridesFailed)', () => {
    const fedObject = fed({
      template: {},
      overrides: [{ clusterName: 'c1', clusterOverrides: [{ op: 'add', path: '/metadata/ownerReferences', value: [{ name: 'gone' }] }] }],
    });
    expect(() => renderDesiredObject({ fedObject, targetType: configMap, cluster: 'c1' })).toThrow(
      expect.objectContaining({ status: 'ApplyOverridesFailed', message: expect.stringContaining('/metadata/ownerReferences') as unknown }),
    );
  });

  it.each<[string, unknown, RegExp]>([
    ['a template that is a list', [1], /spec\.template of "ns\/web" is not an object/],
    ['template metadata that is a string', { metadata: 'x' }, /spec\.template\.metadata/],
  ])('throws ComputeResourceError for %s', (_title, template, message) => {
    const fedObject = { metadata: { name: 'web', namespace: 'ns' }, spec: { template } } as unknown as FederatedObject;
    const err = errorOf(() => renderDesiredObject({ fedObject, targetType: configMap, cluster: 'c1' }));
    expect(err).toBeInstanceOf(ComputeResourceError);
    expect(err).toMatchObject({ status: 'ComputeResourceFailed', cluster: 'c1' });
    expect((err as Error).message).toMatch(message);
  });
});

describe('renderDesiredObject: update path (§4.4.6)', () => {
  const member: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'ns',
      resourceVersion: '17',
      annotations: { 'deployment.kubernetes.io/revision': '3' },
      finalizers: ['f'],
    },
    spec: { replicas: 7 },
  };

  it('retains member fields before applying overrides, so overrides still win', () => {
    const overrides: GenericOverrideItem[] = [
      {
        clusterName: 'c1',
        clusterOverrides: [
          { path: '/metadata/annotations/extra', value: 'x', op: 'add' },
          { path: '/spec/replicas', value: 1 },
        ],
      },
    ];
    const fedObject = fed({ template: { spec: { replicas: 2 } }, overrides, retainReplicas: true });
    const { object } = renderDesiredObject({ fedObject, targetType: deployment, cluster: 'c1', existing: member });
    expect(object).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'ns',
        resourceVersion: '17',
        finalizers: ['f'],
        annotations: { 'deployment.kubernetes.io/revision': '3', extra: 'x' },
        labels: MANAGED,
      },
      spec: { replicas: 1 },
    });
  });

  it('retains replicas only when retainReplicas is true', () => {
    const render = (retainReplicas: boolean) =>
      renderDesiredObject({
        fedObject: fed({ template: { spec: { replicas: 2 } }, retainReplicas }),
        targetType: deployment,
        cluster: 'c1',
        existing: member,
      }).object.spec;
    expect([render(true), render(false)]).toEqual([{ replicas: 7 }, { replicas: 2 }]);
  });

  it('throws FieldRetentionError when a member field has the wrong type', () => {
    const bad: KubeObject = { ...member, spec: { replicas: 'many' } };
    const err = errorOf(() =>
      renderDesiredObject({ fedObject: fed({ retainReplicas: true }), targetType: deployment, cluster: 'c1', existing: bad }),
    );
    expect(err).toBeInstanceOf(FieldRetentionError);
  });
});

describe('renderDesiredObject: overrides and the managed label (§4.4.7)', () => {
  const render = (
    overrides: GenericOverrideItem[],
    cluster = 'c1',
    template: Record<string, unknown> = { spec: { replicas: 2, template: { spec: { containers: [{ name: 'a', image: 'a:1' }] } } } },
  ) => renderDesiredObject({ fedObject: fed({ template, overrides }), targetType: deployment, cluster }).object;

  it.each<[string, GenericOverrideItem[], string, Record<string, unknown>]>([
    [
      'applies only the overrides of the rendered cluster',
      [{ clusterName: 'c2', clusterOverrides: [{ path: '/spec/replicas', value: 9 }] }],
      'c1',
      { replicas: 2 },
    ],
    [
      'treats an absent op as replace',
      [{ clusterName: 'c1', clusterOverrides: [{ path: '/spec/replicas', value: 5 }] }],
      'c1',
      { replicas: 5 },
    ],
    [
      'treats an empty op as replace',
      [{ clusterName: 'c1', clusterOverrides: [{ op: '', path: '/spec/replicas', value: 5 }] }],
      'c1',
      { replicas: 5 },
    ],
    [
      'applies overrides in list order',
      [
        {
          clusterName: 'c1',
          clusterOverrides: [
            { op: 'add', path: '/spec/strategy', value: {} },
            { op: 'add', path: '/spec/strategy/type', value: 'Recreate' },
          ],
        },
      ],
      'c1',
      { replicas: 2, strategy: { type: 'Recreate' } },
    ],
    [
      'replaces a missing key (library quirk, §9.8)',
      [{ clusterName: 'c1', clusterOverrides: [{ path: '/spec/paused', value: true }] }],
      'c1',
      { replicas: 2, paused: true },
    ],
    [
      'ignores the value of remove',
      [{ clusterName: 'c1', clusterOverrides: [{ op: 'remove', path: '/spec/replicas', value: 8 }] }],
      'c1',
      {},
    ],
  ])('%s', (_title, overrides, cluster, spec) => {
    expect(render(overrides, cluster, { spec: { replicas: 2 } }).spec).toEqual(spec);
  });

  it('adds array elements and labels through overrides', () => {
    const object = render([
      {
        clusterName: 'c1',
        clusterOverrides: [
          { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'b', image: 'b:1' } },
          { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'a:2' },
          { op: 'add', path: '/metadata/labels', value: { tier: 'front' } },
        ],
      },
    ]);
    expect(object.metadata.labels).toEqual({ tier: 'front', ...MANAGED });
    expect(object.spec).toEqual({
      replicas: 2,
      template: {
        spec: {
          containers: [
            { name: 'a', image: 'a:2' },
            { name: 'b', image: 'b:1' },
          ],
        },
      },
    });
  });

  it.each<[string, GenericOverrideItem[]]>([
    ['removing the labels', [{ clusterName: 'c1', clusterOverrides: [{ op: 'remove', path: '/metadata/labels' }] }]],
    [
      'setting it to false',
      [{ clusterName: 'c1', clusterOverrides: [{ op: 'add', path: '/metadata/labels', value: { 'kubefed.io/managed': 'false' } }] }],
    ],
  ])('sets the managed label last, so %s by override has no effect (§4.4.5 step 6)', (_title, overrides) => {
    expect(render(overrides, 'c1', { metadata: { labels: { a: 'b' } } }).metadata.labels?.['kubefed.io/managed']).toBe('true');
  });

  it('may override apiVersion', () => {
    expect(render([{ clusterName: 'c1', clusterOverrides: [{ path: '/apiVersion', value: 'apps/v1beta1' }] }]).apiVersion).toBe(
      'apps/v1beta1',
    );
  });

  it.each<[string, GenericOverrideItem[], string, RegExp]>([
    [
      'a cluster listed twice (even for another cluster)',
      [{ clusterName: 'c2' }, { clusterName: 'c2' }],
      'c1',
      /^Error reading cluster overrides: .*cluster "c2" appears more than once/,
    ],
    [
      'a path listed twice',
      [
        {
          clusterName: 'c1',
          clusterOverrides: [
            { path: '/spec/replicas', value: 1 },
            { path: '/spec/replicas', value: 2 },
          ],
        },
      ],
      'c1',
      /^Error reading cluster overrides: .*path "\/spec\/replicas" appears more than once for cluster "c1"/,
    ],
    [
      'a forbidden path',
      [{ clusterName: 'c1', clusterOverrides: [{ path: '/metadata/name', value: 'x' }] }],
      'c1',
      /^Error reading cluster overrides: .*override\[0\] for cluster "c1" has an invalid path: \/metadata\/name/,
    ],
    [
      'a missing parent',
      [
        {
          clusterName: 'c1',
          clusterOverrides: [
            { path: '/spec/replicas', value: 1 },
            { op: 'add', path: '/status/x/y', value: 1 },
          ],
        },
      ],
      'c1',
      /override\[1\] for cluster "c1": add "\/status\/x\/y": the parent does not exist/,
    ],
    [
      'removing a missing key',
      [{ clusterName: 'c1', clusterOverrides: [{ op: 'remove', path: '/spec/paused' }] }],
      'c1',
      /override\[0\] for cluster "c1": remove "\/spec\/paused"/,
    ],
    [
      'an array index out of range',
      [{ clusterName: 'c1', clusterOverrides: [{ path: '/spec/template/spec/containers/3/image', value: 'x' }] }],
      'c1',
      /override\[0\].*containers\/3/,
    ],
  ])('throws ApplyOverridesError for %s', (_title, overrides, cluster, message) => {
    const err = errorOf(() => render(overrides, cluster));
    expect(err).toBeInstanceOf(ApplyOverridesError);
    expect(err).toMatchObject({ status: 'ApplyOverridesFailed', cluster });
    expect((err as Error).message).toMatch(message);
  });
});
