import { buildFederatedTypeConfig } from '@kubefed/api';
import type { FederatedTypeConfig } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import {
  HEALTH_CHECK_RULES,
  TARGET_TYPE_VERBS,
  leastPrivilegeNamespaceRules,
  leastPrivilegeRules,
  targetTypeRules,
} from './least-privilege.js';

function ftc(
  group: string,
  kind: string,
  pluralName: string,
  scope: 'Namespaced' | 'Cluster',
  propagation: 'Enabled' | 'Disabled' = 'Enabled',
): FederatedTypeConfig {
  const c = buildFederatedTypeConfig({ group, version: 'v1', kind, pluralName, scope });
  return { ...c, spec: { ...c.spec, propagation } };
}

const verbs = [...TARGET_TYPE_VERBS];
const deployments = ftc('apps', 'Deployment', 'deployments', 'Namespaced');
const configmaps = ftc('', 'ConfigMap', 'configmaps', 'Namespaced');
const namespaces = ftc('', 'Namespace', 'namespaces', 'Cluster');
const disabledSecrets = ftc('', 'Secret', 'secrets', 'Namespaced', 'Disabled');
const replicasets = ftc('apps', 'ReplicaSet', 'replicasets', 'Namespaced');
const rbac = 'rbac.authorization.k8s.io';
const clusterRoles = ftc(rbac, 'ClusterRole', 'clusterroles', 'Cluster');
const clusterRoleBindings = ftc(rbac, 'ClusterRoleBinding', 'clusterrolebindings', 'Cluster');
const roleBindings = ftc(rbac, 'RoleBinding', 'rolebindings', 'Namespaced');
const disabledDeployments = ftc('apps', 'Deployment', 'deployments', 'Namespaced', 'Disabled');

describe('leastPrivilegeRules', () => {
  it.each([
    ['no FTCs', [], []],
    [
      'enabled FTCs, sorted by group and resource, and list pods for the replica scheduler of deployments',
      [deployments, configmaps, namespaces],
      [
        { verbs, apiGroups: [''], resources: ['configmaps'] },
        { verbs, apiGroups: [''], resources: ['namespaces'] },
        { verbs, apiGroups: ['apps'], resources: ['deployments'] },
        { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      ],
    ],
    [
      'list pods once for replicasets and deployments',
      [replicasets, deployments],
      [
        { verbs, apiGroups: ['apps'], resources: ['deployments'] },
        { verbs, apiGroups: ['apps'], resources: ['replicasets'] },
        { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      ],
    ],
    ['no pods for a disabled deployments FTC', [disabledDeployments], []],
    [
      'escalate on federated roles and bind on the roles federated bindings may reference (the API server checks both)',
      [clusterRoles, clusterRoleBindings, roleBindings],
      [
        { verbs, apiGroups: [rbac], resources: ['clusterrolebindings'] },
        { verbs, apiGroups: [rbac], resources: ['clusterroles'] },
        { verbs, apiGroups: [rbac], resources: ['rolebindings'] },
        { verbs: ['escalate'], apiGroups: [rbac], resources: ['clusterroles'] },
        { verbs: ['bind'], apiGroups: [rbac], resources: ['clusterroles', 'roles'] },
      ],
    ],
    ['a disabled FTC grants nothing', [disabledSecrets], []],
    ['a type listed twice once', [configmaps, configmaps], [{ verbs, apiGroups: [''], resources: ['configmaps'] }]],
  ])('grants %s plus the health-check reads', (_what, ftcs, typeRules) => {
    expect(leastPrivilegeRules(ftcs)).toEqual([...typeRules, ...HEALTH_CHECK_RULES]);
  });

  it('keeps only namespaced target types for a Role', () => {
    expect(targetTypeRules([deployments, namespaces], { namespacedOnly: true })).toEqual([
      { verbs, apiGroups: ['apps'], resources: ['deployments'] },
    ]);
  });

  it('grants a Role (scope Namespaced) bind on the roles its federated RoleBindings may reference, and no cluster-scoped type', () => {
    expect(leastPrivilegeNamespaceRules([clusterRoles, roleBindings])).toEqual([
      { verbs, apiGroups: [rbac], resources: ['rolebindings'] },
      { verbs: ['bind'], apiGroups: [rbac], resources: ['clusterroles', 'roles'] },
    ]);
  });

  it('grants a Role (scope Namespaced) the namespaced target types and list pods for the replica scheduler', () => {
    expect(leastPrivilegeNamespaceRules([deployments, namespaces, configmaps])).toEqual([
      { verbs, apiGroups: [''], resources: ['configmaps'] },
      { verbs, apiGroups: ['apps'], resources: ['deployments'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
    ]);
  });

  it('lets the health check read /healthz, /version and nodes', () => {
    expect(HEALTH_CHECK_RULES).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] },
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
    ]);
  });
});
