import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  defaultFederatedTypeConfig,
  groupQualifiedName,
  isFederatedNamespaced,
  isStatusCollectionEnabled,
  parseFederatedTypeConfig,
  pluralName,
  validateFederatedTypeConfig,
  type FederatedTypeConfig,
} from './federated-type-config.js';

const FTC_YAML = `
apiVersion: core.kubefed.io/v1beta1
kind: FederatedTypeConfig
metadata:
  name: services
  namespace: kube-federation-system
  generation: 3
  finalizers:
    - core.kubefed.io/federated-type-config
spec:
  targetType:
    version: v1
    kind: Service
    pluralName: services
    scope: Namespaced
  propagation: Enabled
  federatedType:
    group: types.kubefed.io
    version: v1beta1
    kind: FederatedService
    pluralName: federatedservices
    scope: Namespaced
  statusType:
    group: core.kubefed.io
    version: v1alpha1
    kind: FederatedServiceStatus
    pluralName: federatedservicestatuses
    scope: Namespaced
  statusCollection: Enabled
status:
  observedGeneration: 3
  propagationController: Running
  statusController: Running
`;

const valid = () => parse(FTC_YAML);

describe('FederatedTypeConfig', () => {
  it('round-trips a realistic document exactly', () => {
    const input = valid();
    expect(stringify(parseFederatedTypeConfig(input))).toBe(stringify(input));
  });

  it.each([
    ['Deployment', 'deployments'],
    ['Ingress', 'ingresses'],
    ['Box', 'boxes'],
    ['Match', 'matches'],
    ['Mesh', 'meshes'],
    ['Quiz', 'quizes'],
    ['Potato', 'potatoes'],
    ['Policy', 'policies'],
    ['NetworkPolicy', 'networkpolicies'],
    ['Endpoints', 'endpointses'],
  ])('pluralises %s as %s', (kind, plural) => {
    expect(pluralName(kind)).toBe(plural);
  });

  it.each([
    [{ pluralName: 'configmaps' }, 'configmaps'],
    [{ pluralName: 'configmaps', group: '' }, 'configmaps'],
    [{ pluralName: 'deployments', group: 'apps' }, 'deployments.apps'],
  ])('qualifies %j as %s', (res, name) => {
    expect(groupQualifiedName(res)).toBe(name);
  });

  it.each<[string, FederatedTypeConfig, FederatedTypeConfig['spec']]>([
    [
      'fills target plural and group from the name and the federated plural from its kind',
      {
        metadata: { name: 'deployments.apps' },
        spec: {
          targetType: { version: 'v1', kind: 'Deployment', pluralName: '', scope: 'Namespaced' },
          propagation: 'Enabled',
          federatedType: {
            group: 'types.kubefed.io',
            version: 'v1beta1',
            kind: 'FederatedDeployment',
            pluralName: '',
            scope: 'Namespaced',
          },
        },
      },
      {
        targetType: { group: 'apps', version: 'v1', kind: 'Deployment', pluralName: 'deployments', scope: 'Namespaced' },
        propagation: 'Enabled',
        federatedType: {
          group: 'types.kubefed.io',
          version: 'v1beta1',
          kind: 'FederatedDeployment',
          pluralName: 'federateddeployments',
          scope: 'Namespaced',
        },
      },
    ],
    [
      'fills the status type from its kind and the federated type',
      {
        metadata: { name: 'services' },
        spec: {
          targetType: { version: 'v1', kind: 'Service', pluralName: 'services', scope: 'Namespaced' },
          propagation: 'Enabled',
          federatedType: {
            group: 'types.kubefed.io',
            version: 'v1beta1',
            kind: 'FederatedService',
            pluralName: 'federatedservices',
            scope: 'Namespaced',
          },
          statusType: { version: '', kind: 'FederatedServiceStatus', pluralName: '', scope: 'Namespaced' },
        },
      },
      {
        targetType: { version: 'v1', kind: 'Service', pluralName: 'services', scope: 'Namespaced' },
        propagation: 'Enabled',
        federatedType: {
          group: 'types.kubefed.io',
          version: 'v1beta1',
          kind: 'FederatedService',
          pluralName: 'federatedservices',
          scope: 'Namespaced',
        },
        statusType: {
          group: 'types.kubefed.io',
          version: 'v1beta1',
          kind: 'FederatedServiceStatus',
          pluralName: 'federatedservicestatuses',
          scope: 'Namespaced',
        },
      },
    ],
  ])('defaulting %s', (_title, ftc, spec) => {
    const before = structuredClone(ftc);
    expect(defaultFederatedTypeConfig(ftc).spec).toEqual(spec);
    expect(ftc).toEqual(before);
  });

  it('treats the namespaces FTC as federated-namespaced although Namespace is cluster-scoped', () => {
    const ns = defaultFederatedTypeConfig({
      metadata: { name: 'namespaces' },
      spec: {
        targetType: { version: 'v1', kind: 'Namespace', pluralName: 'namespaces', scope: 'Cluster' },
        propagation: 'Enabled',
        federatedType: { group: 'types.kubefed.io', version: 'v1beta1', kind: 'FederatedNamespace', pluralName: '', scope: 'Namespaced' },
      },
    });
    expect(isFederatedNamespaced(ns)).toBe(true);
    expect(isStatusCollectionEnabled(ns)).toBe(false);
    expect(isStatusCollectionEnabled(parseFederatedTypeConfig(valid()))).toBe(true);
  });

  it.each<[string, (o: ReturnType<typeof valid>) => void, { path: string; message: string }[]]>([
    [
      'a name that is not the qualified target name',
      (o) => (o.metadata.name = 'svc'),
      [{ path: 'metadata.name', message: `Invalid value: "svc": name must be 'TARGET_PLURAL_NAME(.TARGET_GROUP_NAME)'` }],
    ],
    [
      'an unknown propagation',
      (o) => (o.spec.propagation = 'On'),
      [{ path: 'spec.propagation', message: 'must be one of Enabled, Disabled' }],
    ],
    [
      'an unknown scope',
      (o) => (o.spec.targetType.scope = 'Global'),
      [{ path: 'spec.targetType.scope', message: 'must be one of Cluster, Namespaced' }],
    ],
    [
      'a federated group without a dot',
      (o) => (o.spec.federatedType.group = 'types'),
      [{ path: 'spec.federatedType.group', message: 'Invalid value: "types": should be a domain with at least one dot' }],
    ],
    [
      'a missing federated group',
      (o) => delete o.spec.federatedType.group,
      [{ path: 'spec.federatedType.group', message: 'Required value' }],
    ],
    [
      'an invalid target group',
      (o) => {
        o.spec.targetType.group = 'Apps_';
        o.metadata.name = 'services.Apps_';
      },
      [{ path: 'spec.targetType.group', message: expect.stringContaining('Invalid value: "Apps_": a lowercase RFC 1123 subdomain') }],
    ],
    [
      'an empty version and a version that is no DNS-1035 label',
      (o) => {
        o.spec.targetType.version = '';
        o.spec.federatedType.version = '1beta';
      },
      [
        { path: 'spec.targetType.version', message: 'Required value' },
        { path: 'spec.federatedType.version', message: expect.stringContaining('Invalid value: "1beta": a DNS-1035 label') },
      ],
    ],
    [
      'a kind whose lowercase is no DNS-1035 label',
      (o) => (o.spec.statusType.kind = 'Federated_Status'),
      [{ path: 'spec.statusType.kind', message: expect.stringContaining('Invalid value: "Federated_Status"') }],
    ],
    [
      'a missing pluralName',
      (o) => delete o.spec.federatedType.pluralName,
      [{ path: 'spec.federatedType.pluralName', message: 'Required value' }],
    ],
    [
      'an unknown status collection',
      (o) => (o.spec.statusCollection = 'Yes'),
      [{ path: 'spec.statusCollection', message: 'must be one of Enabled, Disabled' }],
    ],
    [
      'a negative observed generation',
      (o) => (o.status.observedGeneration = -1),
      [{ path: 'status.observedGeneration', message: 'Invalid value: -1: must be greater than or equal to 0' }],
    ],
    [
      'an unknown controller status',
      (o) => (o.status.propagationController = 'Up'),
      [{ path: 'status.propagationController', message: 'must be one of Running, NotRunning' }],
    ],
  ])('reports %s with its field path', (_title, mutate, issues) => {
    const o = valid();
    mutate(o);
    expect(validateFederatedTypeConfig(o).issues).toEqual(issues);
  });
});
