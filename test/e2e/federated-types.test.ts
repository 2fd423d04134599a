// Create, update, re-place and delete one federated object of every default type through the
// real processes: the kube-sim CLI (host + member1, member2), Redis, `kubefedctl join` and
// `kubefedctl enable --default-types`, and the kubefed-controller-manager process. The templates
// and the overrides of the first cluster follow KubeFed's e2e fixtures (docs/kubefed-compatibility.md §7);
// every member copy is read back from the member clusters themselves.
import { getOrUndefined, type GroupVersionResource, type KubeObject } from '@kubefed/client';
import { RESOURCES } from '@kubefed/api';
import { POLL, uniqueName } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, it } from 'vitest';
import { at, createFederatedNamespace, federated, propagatedTo, propagationOf, withValueAt } from './support/e2e-federation.js';

const MEMBERS = ['member1', 'member2'] as const;
const [FIRST] = MEMBERS;

/** One JSON-pointer edit: an override of the first cluster, or a template change. */
interface Edit {
  readonly path: string;
  readonly value: unknown;
}

/** A default type with a fixture-like template, the first cluster's overrides and a template update. */
interface TypeCase {
  /** FTC name. */
  readonly type: string;
  readonly federatedKind: string;
  readonly federatedResource: string;
  readonly target: GroupVersionResource;
  /** Whether the target lives in a namespace (the FederatedNamespace is the object itself for namespaces). */
  readonly namespaced: boolean;
  readonly template: Record<string, unknown>;
  readonly overrides: readonly Edit[];
  /** A template change at a path the overrides leave alone. */
  readonly update: Edit;
}

const podTemplate = (labels: Record<string, string>): Record<string, unknown> => ({
  metadata: { labels },
  spec: {
    containers: [{ name: 'busybox', image: 'busybox', command: ['/bin/sh', '-c', 'trap "exit 0" SIGTERM; while true; do sleep 1; done'] }],
  },
});

const CASES: readonly TypeCase[] = [
  {
    type: 'namespaces',
    federatedKind: 'FederatedNamespace',
    federatedResource: 'federatednamespaces',
    target: RESOURCES.namespaces,
    namespaced: false,
    template: { metadata: { labels: { e2e: 'template' } } },
    overrides: [{ path: '/metadata/labels/e2e', value: 'first' }],
    update: { path: '/metadata/labels/stage', value: 'updated' },
  },
  {
    type: 'configmaps',
    federatedKind: 'FederatedConfigMap',
    federatedResource: 'federatedconfigmaps',
    target: RESOURCES.configMaps,
    namespaced: true,
    template: { data: { foo: 'bar' } },
    overrides: [{ path: '/data/foo', value: 'baz' }],
    update: { path: '/data/added', value: 'by-update' },
  },
  {
    type: 'secrets',
    federatedKind: 'FederatedSecret',
    federatedResource: 'federatedsecrets',
    target: RESOURCES.secrets,
    namespaced: true,
    template: { type: 'Opaque', data: { foo: 'YmFy' } },
    overrides: [{ path: '/data/foo', value: 'YmF6' }],
    update: { path: '/data/added', value: 'dXBkYXRlZA==' },
  },
  {
    type: 'services',
    federatedKind: 'FederatedService',
    federatedResource: 'federatedservices',
    target: { group: '', version: 'v1', resource: 'services' },
    namespaced: true,
    template: { spec: { type: 'ClusterIP', selector: { app: 'e2e' }, ports: [{ name: 'http', port: 80 }] } },
    overrides: [{ path: '/spec/ports/0/port', value: 8080 }],
    update: { path: '/spec/sessionAffinity', value: 'ClientIP' },
  },
  {
    type: 'serviceaccounts',
    federatedKind: 'FederatedServiceAccount',
    federatedResource: 'federatedserviceaccounts',
    target: RESOURCES.serviceAccounts,
    namespaced: true,
    template: { automountServiceAccountToken: true },
    overrides: [{ path: '/automountServiceAccountToken', value: false }],
    update: { path: '/imagePullSecrets', value: [{ name: 'registry' }] },
  },
  {
    type: 'deployments.apps',
    federatedKind: 'FederatedDeployment',
    federatedResource: 'federateddeployments',
    target: RESOURCES.deployments,
    namespaced: true,
    template: { spec: { replicas: 2, selector: { matchLabels: { app: 'e2e-deploy' } }, template: podTemplate({ app: 'e2e-deploy' }) } },
    overrides: [
      { path: '/spec/replicas', value: 1 },
      { path: '/spec/template/spec/containers/0/image', value: 'busybox:1.31.0-uclibc' },
    ],
    update: { path: '/spec/minReadySeconds', value: 5 },
  },
  {
    type: 'replicasets.apps',
    federatedKind: 'FederatedReplicaSet',
    federatedResource: 'federatedreplicasets',
    target: RESOURCES.replicaSets,
    namespaced: true,
    template: { spec: { replicas: 1, selector: { matchLabels: { app: 'e2e-rs' } }, template: podTemplate({ app: 'e2e-rs' }) } },
    overrides: [{ path: '/spec/replicas', value: 2 }],
    update: { path: '/spec/minReadySeconds', value: 5 },
  },
  {
    type: 'jobs.batch',
    federatedKind: 'FederatedJob',
    federatedResource: 'federatedjobs',
    target: { group: 'batch', version: 'v1', resource: 'jobs' },
    namespaced: true,
    template: {
      spec: {
        parallelism: 1,
        manualSelector: true,
        selector: { matchLabels: { app: 'e2e-job' } },
        template: {
          ...podTemplate({ app: 'e2e-job' }),
          spec: { restartPolicy: 'Never', containers: [{ name: 'busybox', image: 'busybox', command: ['true'] }] },
        },
      },
    },
    overrides: [{ path: '/spec/parallelism', value: 2 }],
    update: { path: '/spec/activeDeadlineSeconds', value: 600 },
  },
  {
    type: 'ingresses.networking.k8s.io',
    federatedKind: 'FederatedIngress',
    federatedResource: 'federatedingresses',
    target: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
    namespaced: true,
    template: { spec: { defaultBackend: { service: { name: 'testsvc', port: { number: 80 } } } } },
    overrides: [{ path: '/spec/defaultBackend/service/port/number', value: 8080 }],
    update: { path: '/spec/ingressClassName', value: 'e2e' },
  },
  {
    type: 'clusterroles.rbac.authorization.k8s.io',
    federatedKind: 'FederatedClusterRole',
    federatedResource: 'federatedclusterroles',
    target: RESOURCES.clusterRoles,
    namespaced: false,
    template: { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
    overrides: [{ path: '/rules/0/verbs', value: ['get', 'list'] }],
    update: { path: '/rules/1', value: { nonResourceURLs: ['/healthz'], verbs: ['get'] } },
  },
  {
    type: 'clusterrolebindings.rbac.authorization.k8s.io',
    federatedKind: 'FederatedClusterRoleBinding',
    federatedResource: 'federatedclusterrolebindings',
    target: RESOURCES.clusterRoleBindings,
    namespaced: false,
    template: {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
    },
    overrides: [{ path: '/subjects/0/name', value: 'first-reader' }],
    update: { path: '/subjects/1', value: { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'auditors' } },
  },
];

const fed = useLocalFederation({ members: MEMBERS });

/** What a member holds: the managed label and the values at the given paths, or `absent`. */
async function memberView(cluster: string, c: TypeCase, ns: string | undefined, name: string, paths: readonly string[]): Promise<unknown> {
  const obj = await getOrUndefined(fed.client(cluster).resource(c.target, ns), name);
  if (obj === undefined) return 'absent';
  return { managed: obj.metadata.labels?.['kubefed.io/managed'], ...Object.fromEntries(paths.map((p) => [p, at(obj, p)])) };
}

/** The view {@link memberView} must show: overridden values in the first cluster, template values elsewhere. */
function expectedView(cluster: string, c: TypeCase, template: Record<string, unknown>, paths: readonly string[]): unknown {
  const overridden = new Map(cluster === FIRST ? c.overrides.map((o) => [o.path, o.value]) : []);
  return { managed: 'true', ...Object.fromEntries(paths.map((p) => [p, overridden.has(p) ? overridden.get(p) : at(template, p)])) };
}

describe('every default federated type', () => {
  it.concurrent.for(CASES)(
    '$type: propagates with the first cluster overridden, follows template and placement changes, and leaves no member copy behind on delete',
    { timeout: 120_000 },
    async (c, { expect }) => {
      // Namespaces are cluster-wide, so every case gets a name of its own (the namespace case's object is its namespace).
      const name = uniqueName(`e2e-${c.type.split('.')[0] ?? c.type}`);
      const ns = c.type === 'namespaces' ? name : c.namespaced ? uniqueName('crud') : undefined;
      const hostNamespace = c.type === 'namespaces' ? name : ns;
      if (c.type === 'namespaces') {
        await fed.client('host').resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      } else if (ns !== undefined) {
        await createFederatedNamespace(fed, ns, MEMBERS);
      }
      const memberNs = c.namespaced ? ns : undefined;
      const fedObjects = fed.client('host').resource(federated(c.federatedResource), hostNamespace);
      const overridePaths = c.overrides.map((o) => o.path);
      const views = (paths: readonly string[]) => Promise.all(MEMBERS.map((m) => memberView(m, c, memberNs, name, paths)));
      const fedObject: KubeObject = {
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: c.federatedKind,
        metadata: { name, ...(hostNamespace === undefined ? {} : { namespace: hostNamespace }) },
        spec: {
          template: c.template,
          placement: { clusters: MEMBERS.map((m) => ({ name: m })) },
          overrides: [{ clusterName: FIRST, clusterOverrides: c.overrides.map((o) => ({ path: o.path, value: o.value })) }],
        },
      };

      // Create: a managed copy in every member, the first one overridden.
      await fedObjects.create(fedObject);
      await expect.poll(() => views(overridePaths), POLL).toEqual(MEMBERS.map((m) => expectedView(m, c, c.template, overridePaths)));
      await expect.poll(() => propagationOf(fedObjects, name), POLL).toEqual(propagatedTo(MEMBERS));

      // Update the template: every member follows, the override still applies in the first.
      const updated = withValueAt(c.template, c.update.path, c.update.value);
      await fedObjects.patch(name, { spec: { template: updated } }, 'merge');
      const allPaths = [...overridePaths, c.update.path];
      await expect.poll(() => views(allPaths), POLL).toEqual(MEMBERS.map((m) => expectedView(m, c, updated, allPaths)));
      await expect.poll(() => propagationOf(fedObjects, name), POLL).toEqual(propagatedTo(MEMBERS));

      // Take the second cluster out of the placement: its copy is removed, the first keeps its own.
      await fedObjects.patch(name, { spec: { placement: { clusters: [{ name: FIRST }] } } }, 'merge');
      await expect.poll(() => views(allPaths), POLL).toEqual([expectedView(FIRST, c, updated, allPaths), 'absent']);
      await expect.poll(() => propagationOf(fedObjects, name), POLL).toEqual(propagatedTo([FIRST]));

      // Delete: the federated object goes away and so does every member copy.
      await fedObjects.delete(name);
      await expect.poll(() => getOrUndefined(fedObjects, name), POLL).toBeUndefined();
      await expect.poll(() => views([]), POLL).toEqual(['absent', 'absent']);
    },
  );
});

/** The CRD of `widgets.example.io`, whose schema knows the given `spec` fields (all strings or integers). */
function widgetCrd(specFields: Record<string, 'string' | 'integer'>): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.io' },
    spec: {
      group: 'example.io',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: Object.fromEntries(Object.entries(specFields).map(([k, type]) => [k, { type }])) },
              },
            },
          },
        },
      ],
    },
  };
}

describe('a federated type whose members know more fields than the host', () => {
  it('keeps every template field, so a field only the members know reaches them (KubeFed keeps spec.template open)', async ({ expect }) => {
    const crds = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
    const widgets = { group: 'example.io', version: 'v1', resource: 'widgets' };
    await fed
      .client('host')
      .resource(crds)
      .create(widgetCrd({ size: 'integer' }));
    for (const m of MEMBERS)
      await fed
        .client(m)
        .resource(crds)
        .create(widgetCrd({ size: 'integer', color: 'string' }));
    // The CRDs need a moment before they are served.
    await expect
      .poll(async () => (await fed.kubefedctl(['enable', 'widgets.example.io', '--host-cluster-context', 'host'])).code, POLL)
      .toBe(0);
    const ns = uniqueName('widgets');
    await createFederatedNamespace(fed, ns, MEMBERS);
    const template = { apiVersion: 'example.io/v1', spec: { size: 1, color: 'red' } };
    const fedWidgets = fed.client('host').resource(federated('federatedwidgets'), ns);
    await expect
      .poll(
        () =>
          fedWidgets
            .create({
              apiVersion: 'types.kubefed.io/v1beta1',
              kind: 'FederatedWidget',
              metadata: { name: 'w', namespace: ns },
              spec: { template, placement: { clusters: MEMBERS.map((name) => ({ name })) } },
            })
            .then(() => 'created'),
        POLL,
      )
      .toBe('created');

    expect(at(await fedWidgets.get('w'), '/spec/template')).toEqual(template);
    await expect
      .poll(() => Promise.all(MEMBERS.map(async (m) => at(await getOrUndefined(fed.client(m).resource(widgets, ns), 'w'), '/spec'))), POLL)
      .toEqual([template.spec, template.spec]);
    await expect.poll(() => propagationOf(fedWidgets, 'w'), POLL).toEqual(propagatedTo(MEMBERS));
  });
});
