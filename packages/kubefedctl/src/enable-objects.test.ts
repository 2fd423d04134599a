import { describe, expect, it } from 'vitest';
import { enableObjects, type EnableTarget, isEquivalentApi, typeDisplayName } from './enable-objects.js';

const deployments: EnableTarget = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  resource: 'deployments',
  namespaced: true,
  shortNames: ['deploy'],
};
const namespaces: EnableTarget = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  namespaced: false,
  shortNames: ['ns'],
};
const clusterRoles: EnableTarget = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  resource: 'clusterroles',
  namespaced: false,
  shortNames: [],
};
const configMaps: EnableTarget = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  resource: 'configmaps',
  namespaced: true,
  shortNames: ['cm'],
};

describe('enableObjects', () => {
  it.each([
    [deployments, 'deployments.apps', 'federateddeployments.types.kubefed.io', 'FederatedDeployment', 'Namespaced', ['fdeploy'], 'Enabled'],
    [namespaces, 'namespaces', 'federatednamespaces.types.kubefed.io', 'FederatedNamespace', 'Namespaced', ['fns'], undefined],
    [
      clusterRoles,
      'clusterroles.rbac.authorization.k8s.io',
      'federatedclusterroles.types.kubefed.io',
      'FederatedClusterRole',
      'Cluster',
      undefined,
      undefined,
    ],
    [configMaps, 'configmaps', 'federatedconfigmaps.types.kubefed.io', 'FederatedConfigMap', 'Namespaced', ['fcm'], undefined],
  ] as const)('names the FTC and CRD of %o like KubeFed', (target, ftcName, crdName, kind, scope, shortNames, statusCollection) => {
    const { ftc, crd } = enableObjects(target, { kubefedNamespace: 'kube-federation-system' });
    expect(ftc.metadata).toEqual({ name: ftcName, namespace: 'kube-federation-system' });
    expect(ftc.spec.federatedType).toEqual({
      group: 'types.kubefed.io',
      version: 'v1beta1',
      kind,
      pluralName: `federated${target.resource}`,
      scope,
    });
    expect(ftc.spec.targetType.group).toBe(target.group === '' ? undefined : target.group);
    expect(ftc.spec.propagation).toBe('Enabled');
    expect(ftc.spec.statusCollection).toBe(statusCollection);
    expect(crd.metadata.name).toBe(crdName);
    expect(crd.spec.scope).toBe(scope);
    expect(crd.spec.names.shortNames).toEqual(shortNames);
    expect(crd.spec.versions[0]!.additionalPrinterColumns?.map((c) => c.name)).toEqual(['Propagation', 'Age']);
  });

  it('adds retainReplicas and the given template schema, in the given federated group and version', () => {
    const template = {
      type: 'object' as const,
      properties: { spec: { type: 'object' as const, properties: { replicas: { type: 'integer' as const } } } },
    };
    const { ftc, crd } = enableObjects(deployments, {
      kubefedNamespace: 'fed',
      federatedGroup: 'example.io',
      federatedVersion: 'v1',
      templateSchema: template,
      hasReplicas: true,
    });
    expect(ftc.spec.federatedType).toMatchObject({ group: 'example.io', version: 'v1' });
    expect(crd.metadata.name).toBe('federateddeployments.example.io');
    const spec = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!['spec']!;
    expect(spec.properties!['retainReplicas']).toEqual({ type: 'boolean' });
    expect(spec.properties!['template']).toEqual(template);
  });
});

describe('isEquivalentApi', () => {
  it.each([
    [
      { pluralName: 'deployments', group: 'extensions', version: 'v1beta1' },
      { pluralName: 'deployments', group: 'apps', version: 'v1' },
      true,
    ],
    [{ pluralName: 'deployments', group: 'apps', version: 'v1' }, { pluralName: 'deployments', group: 'apps', version: 'v1' }, false],
    [
      { pluralName: 'deployments', group: 'example.com', version: 'v1' },
      { pluralName: 'deployments', group: 'apps', version: 'v1' },
      false,
    ],
    [
      { pluralName: 'ingresses', group: 'extensions', version: 'v1beta1' },
      { pluralName: 'ingresses', group: 'networking.k8s.io', version: 'v1beta1' },
      true,
    ],
  ])('%o vs %o → %s', (a, b, expected) => {
    expect(isEquivalentApi(a, b)).toBe(expected);
  });

  it('renders names as plural[.group]/version', () => {
    expect(typeDisplayName({ pluralName: 'configmaps', version: 'v1' })).toBe('configmaps/v1');
    expect(typeDisplayName({ pluralName: 'deployments', group: 'apps', version: 'v1' })).toBe('deployments.apps/v1');
  });
});
