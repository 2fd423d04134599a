import type { KubeObject, ResourceMapping } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.js';
import {
  compareKubeVersions,
  contentsTypes,
  defaultFederatedType,
  federatedObjectFor,
  federatedTemplate,
  parseFederateInput,
  skippedForContents,
} from './federate-objects.js';

const configMap: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'web-config',
    namespace: 'demo',
    uid: '1b2c',
    resourceVersion: '42',
    labels: { app: 'web' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [{ manager: 'kubectl' }],
  },
  data: { 'app.properties': 'color=blue' },
};

const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'demo', generation: 3, uid: 'u1' },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
  },
  status: { replicas: 3, readyReplicas: 2, observedGeneration: 3 },
};

const namespace: KubeObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'demo', labels: { team: 'a' } },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
};

const service: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'demo' },
  spec: {
    type: 'NodePort',
    clusterIP: '10.96.0.17',
    clusterIPs: ['10.96.0.17'],
    selector: { app: 'web' },
    ports: [
      { name: 'http', port: 80, targetPort: 8080, nodePort: 30080 },
      { name: 'https', port: 443, targetPort: 8443, nodePort: 30443 },
    ],
  },
  status: { loadBalancer: {} },
};

const serviceAccount: KubeObject = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'builder', namespace: 'demo' },
  secrets: [{ name: 'builder-token-abcde' }],
  imagePullSecrets: [{ name: 'registry' }],
};

const fedType = (kind: string, namespaced = true) => ({
  group: 'types.kubefed.io',
  version: 'v1beta1',
  kind: `Federated${kind}`,
  namespaced,
});

describe('federatedTemplate', () => {
  it.each([
    [
      'a ConfigMap keeps its data and labels only',
      configMap,
      { metadata: { labels: { app: 'web' } }, data: { 'app.properties': 'color=blue' } },
    ],
    [
      'a Deployment loses its status and metadata',
      deployment,
      {
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
        },
      },
    ],
    ['a Namespace loses spec.finalizers', namespace, { metadata: { labels: { team: 'a' } }, spec: {} }],
    [
      'a Service loses clusterIP, clusterIPs and every nodePort',
      service,
      {
        spec: {
          type: 'NodePort',
          selector: { app: 'web' },
          ports: [
            { name: 'http', port: 80, targetPort: 8080 },
            { name: 'https', port: 443, targetPort: 8443 },
          ],
        },
      },
    ],
    ['a ServiceAccount loses its token secrets', serviceAccount, { imagePullSecrets: [{ name: 'registry' }] }],
  ])('%s', (_title, target, expected) => {
    expect(federatedTemplate(target)).toEqual(expected);
  });

  it('does not modify its input', () => {
    const before = structuredClone(service);
    federatedTemplate(service);
    expect(service).toEqual(before);
  });
});

describe('federatedObjectFor', () => {
  it.each([
    ['ConfigMap', configMap, fedType('ConfigMap'), { name: 'web-config', namespace: 'demo' }],
    ['Deployment', deployment, fedType('Deployment'), { name: 'web', namespace: 'demo' }],
    [
      'Namespace (the FederatedNamespace lives in the namespace itself)',
      namespace,
      fedType('Namespace'),
      { name: 'demo', namespace: 'demo' },
    ],
    [
      'cluster-scoped federated type (no namespace)',
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [] },
      fedType('ClusterRole', false),
      { name: 'reader' },
    ],
  ])('names the federated object of a %s after the target and places it in all clusters', (_kind, target, type, metadata) => {
    const { object } = federatedObjectFor(target, type);
    expect(object.apiVersion).toBe('types.kubefed.io/v1beta1');
    expect(object.kind).toBe(type.kind);
    expect(object.metadata).toEqual(metadata);
    expect(object['spec']).toEqual({ template: federatedTemplate(target), placement: { clusterSelector: { matchLabels: {} } } });
  });

  it.each([
    ['none', {}, []],
    ["only kubectl apply's record, silently", { 'kubectl.kubernetes.io/last-applied-configuration': '{}' }, []],
    ["only the deployment controller's revision, silently", { 'deployment.kubernetes.io/revision': '3' }, []],
    [
      "the user's own, naming them and not the tools' ones",
      { 'kubectl.kubernetes.io/last-applied-configuration': '{}', owner: 'team-a', 'example.com/tier': 'gold' },
      [
        'Annotations defined for ConfigMap "demo/web-config" will not appear in the template of the federated resource: example.com/tier, owner',
      ],
    ],
  ])('drops the annotations of the target (%s) and warns about those a user wrote', (_what, annotations, warnings) => {
    const target = { ...configMap, metadata: { ...configMap.metadata, annotations } };
    const converted = federatedObjectFor(target, fedType('ConfigMap'));
    expect(converted.warnings).toEqual(warnings);
    expect(converted.object['spec']).toMatchObject({ template: { data: configMap['data'] } });
    expect(JSON.stringify(converted.object)).not.toContain('last-applied');
  });
});

describe('defaultFederatedType', () => {
  it.each([
    [
      'a namespaced Deployment',
      deployment,
      { group: 'types.kubefed.io', version: 'v1beta1', kind: 'FederatedDeployment', namespaced: true, ftcName: 'deployments.apps' },
    ],
    [
      'a Namespace (namespaced federated type)',
      namespace,
      { group: 'types.kubefed.io', version: 'v1beta1', kind: 'FederatedNamespace', namespaced: true, ftcName: 'namespaces' },
    ],
    [
      'a document without namespace',
      { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' } },
      {
        group: 'types.kubefed.io',
        version: 'v1beta1',
        kind: 'FederatedIngressClass',
        namespaced: false,
        ftcName: 'ingressclasses.networking.k8s.io',
      },
    ],
    [
      'a Policy (plural ies)',
      { apiVersion: 'example.com/v1', kind: 'Policy', metadata: { name: 'p', namespace: 'x' } },
      { group: 'types.kubefed.io', version: 'v1beta1', kind: 'FederatedPolicy', namespaced: true, ftcName: 'policies.example.com' },
    ],
  ])('derives the type of %s', (_title, doc, expected) => {
    expect(defaultFederatedType(doc)).toEqual(expected);
  });

  it('uses the federated group given', () => {
    expect(defaultFederatedType(configMap, { federatedGroup: 'fed.example.com' }).group).toBe('fed.example.com');
  });
});

describe('parseFederateInput', () => {
  it('reads every document of a multi-document stream, skipping empty ones and expanding Lists', () => {
    const text = [
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: { name: a, namespace: demo }',
      '---',
      '---',
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- { apiVersion: v1, kind: Secret, metadata: { name: b, namespace: demo } }',
      '',
    ].join('\n');
    expect(parseFederateInput(text, 'in.yaml').map((o) => `${o.kind ?? ''}/${o.metadata.name ?? ''}`)).toEqual(['ConfigMap/a', 'Secret/b']);
  });

  it.each([
    ['a: [1, 2', /in\.yaml: document 1 is not valid YAML/],
    ['- 1\n- 2\n', /in\.yaml: document 1 is not a Kubernetes resource/],
    [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n---\nkind: Secret\nmetadata: { name: b }\n',
      /in\.yaml: document 2: apiVersion is required/,
    ],
    ['apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n', /in\.yaml: document 1: metadata\.name is required/],
    ['', /in\.yaml: no resources found/],
  ])('rejects %j naming the document and the problem', (text, message) => {
    expect(() => parseFederateInput(text, 'in.yaml')).toThrow(UsageError);
    expect(() => parseFederateInput(text, 'in.yaml')).toThrow(message);
  });
});

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

describe('contentsTypes and skippedForContents', () => {
  const all = [
    mapping({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'] }),
    mapping({ group: '', version: 'v1', resource: 'events', kind: 'Event' }),
    mapping({ group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints' }),
    mapping({ group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice' }),
    mapping({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false }),
    mapping({ group: '', version: 'v1', resource: 'pods/log', kind: 'Pod' }),
    mapping({ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event' }),
    mapping({ group: 'extensions', version: 'v1beta1', resource: 'ingresses', kind: 'Ingress' }),
    mapping({ group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps', kind: 'FederatedConfigMap' }),
    mapping({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'propagatedversions', kind: 'PropagatedVersion' }),
    mapping({
      group: 'autoscaling',
      version: 'v1',
      resource: 'horizontalpodautoscalers',
      kind: 'HorizontalPodAutoscaler',
      shortNames: ['hpa'],
    }),
    mapping({
      group: 'autoscaling',
      version: 'v2beta2',
      resource: 'horizontalpodautoscalers',
      kind: 'HorizontalPodAutoscaler',
      preferred: false,
    }),
    mapping({
      group: 'autoscaling',
      version: 'v2',
      resource: 'horizontalpodautoscalers',
      kind: 'HorizontalPodAutoscaler',
      preferred: false,
    }),
    mapping({ group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' }),
    mapping({
      group: 'authorization.k8s.io',
      version: 'v1',
      resource: 'localsubjectaccessreviews',
      kind: 'LocalSubjectAccessReview',
      verbs: ['create'],
    }),
  ];

  it('keeps namespaced, listable types once each (highest version), without the ones KubeFed skips', () => {
    expect(contentsTypes(all, []).map((m) => `${m.resource}.${m.group}/${m.version}`)).toEqual([
      'configmaps./v1',
      'deployments.apps/v1',
      'horizontalpodautoscalers.autoscaling/v2',
    ]);
  });

  it.each([
    [['cm'], 'configmaps'],
    [['ConfigMap'], 'configmaps'],
    [['deployments.apps'], 'deployments'],
    [['apps'], 'deployments'],
    [['HPA'], 'horizontalpodautoscalers'],
  ])('--skip-api-resources %j leaves out %s', (skip, resource) => {
    expect(contentsTypes(all, skip).map((m) => m.resource)).not.toContain(resource);
    expect(contentsTypes(all, skip)).toHaveLength(2);
  });

  it('skips Federated kinds of the federated group only', () => {
    const fed = mapping({ group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps', kind: 'FederatedConfigMap' });
    expect(skippedForContents(fed, [])).toBe(true);
    expect(skippedForContents({ ...fed, group: 'example.com' }, [])).toBe(false);
  });
});

describe('compareKubeVersions', () => {
  it.each([
    ['v1', 'v2beta1', 1],
    ['v2', 'v1', 1],
    ['v1beta2', 'v1beta1', 1],
    ['v1beta1', 'v2alpha1', 1],
    ['v1', 'v1', 0],
    ['v1', 'foo', 1],
  ])('ranks %s against %s as %i', (a, b, sign) => {
    expect(Math.sign(compareKubeVersions(a, b))).toBe(sign);
    expect(Math.sign(compareKubeVersions(b, a))).toBe(-sign || 0);
  });
});
