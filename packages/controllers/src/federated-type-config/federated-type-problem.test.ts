import type { ApiResource } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { federatedTypeProblem } from './federated-type-problem.js';

const resource = (group: string, kind: string, pluralName: string): ApiResource => ({
  group,
  version: 'v1',
  kind,
  pluralName,
  scope: 'Namespaced',
});
const configMaps = resource('', 'ConfigMap', 'configmaps');
const clusterRoles = { ...resource('rbac.authorization.k8s.io', 'ClusterRole', 'clusterroles'), scope: 'Cluster' as const };

describe('federatedTypeProblem', () => {
  it.each<[string, ApiResource, ApiResource, unknown]>([
    [
      'accepts the federated type kubefedctl enable generates',
      configMaps,
      resource('types.kubefed.io', 'FederatedConfigMap', 'federatedconfigmaps'),
      undefined,
    ],
    [
      "accepts a federated type in a group of the user's own",
      configMaps,
      resource('federation.example.com', 'FederatedConfigMap', 'federatedconfigmaps'),
      undefined,
    ],
    [
      'accepts a group that only looks like a Kubernetes one',
      configMaps,
      resource('cluster.x-k8s.io', 'FederatedConfigMap', 'federatedconfigmaps'),
      undefined,
    ],
    [
      'refuses the target type itself',
      clusterRoles,
      clusterRoles,
      'spec.federatedType: clusterroles.rbac.authorization.k8s.io is the target type itself; a federated type holds a template, a placement and overrides (e.g. federatedclusterroles.types.kubefed.io)',
    ],
    [
      'refuses a Kubernetes API group',
      configMaps,
      resource('rbac.authorization.k8s.io', 'Role', 'roles'),
      'spec.federatedType.group: "rbac.authorization.k8s.io" is reserved for Kubernetes APIs (k8s.io, kubernetes.io and their subdomains), not a federated type\'s group',
    ],
    [
      'refuses kubernetes.io subdomains',
      configMaps,
      resource('node.kubernetes.io', 'X', 'xs'),
      expect.stringContaining('reserved for Kubernetes APIs'),
    ],
    [
      "refuses the control plane's own API",
      configMaps,
      resource('core.kubefed.io', 'KubeFedCluster', 'kubefedclusters'),
      'spec.federatedType.group: "core.kubefed.io" is an API group of the control plane itself, not of federated types',
    ],
    [
      'refuses the scheduling API',
      configMaps,
      resource('scheduling.kubefed.io', 'ReplicaSchedulingPreference', 'replicaschedulingpreferences'),
      expect.stringContaining('control plane itself'),
    ],
  ])('%s', (_title, targetType, federatedType, expected) => {
    expect(federatedTypeProblem({ targetType, federatedType })).toEqual(expected);
  });
});
