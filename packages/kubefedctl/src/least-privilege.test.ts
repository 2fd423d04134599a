import { buildFederatedTypeConfig, type FederatedTypeConfig } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import {
  HEALTH_CHECK_RULES,
  leastPrivilegeNamespaceRules,
  leastPrivilegeRules,
  type PolicyRule,
  selfEscalations,
  selfEscalationWarning,
  TARGET_TYPE_VERBS,
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

describe('selfEscalations', () => {
  const rbacWrite = (resources: string[]): PolicyRule => ({ verbs: ['create', 'update'], apiGroups: [rbac], resources });
  it.each<[string, PolicyRule[], ReturnType<typeof selfEscalations>]>([
    ['nothing for the health check alone', [...HEALTH_CHECK_RULES], []],
    ['nothing for write on bindings without bind (escalation prevention stops it)', [rbacWrite(['clusterrolebindings'])], []],
    ['nothing for escalate without write on roles', [{ verbs: ['escalate'], apiGroups: [rbac], resources: ['clusterroles'] }], []],
    [
      'bind: write on bindings and bind on clusterroles',
      [rbacWrite(['clusterrolebindings']), { verbs: ['bind'], apiGroups: [rbac], resources: ['clusterroles'] }],
      [{ how: 'bind', resources: [`clusterrolebindings.${rbac}`, `clusterroles.${rbac}`] }],
    ],
    [
      'escalate: write and escalate on clusterroles',
      [rbacWrite(['clusterroles']), { verbs: ['escalate'], apiGroups: [rbac], resources: ['clusterroles'] }],
      [{ how: 'escalate', resources: [`clusterroles.${rbac}`] }],
    ],
    [
      'every way for a wildcard rule',
      [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      // The resources named are those the check asked about.
      [
        { how: 'bind', resources: [`clusterrolebindings.${rbac}`, `rolebindings.${rbac}`, `clusterroles.${rbac}`, `roles.${rbac}`] },
        { how: 'escalate', resources: [`clusterroles.${rbac}`, `roles.${rbac}`] },
        { how: 'impersonate', resources: ['users', 'groups', 'serviceaccounts'] },
        { how: 'token', resources: ['serviceaccounts/token', 'secrets'] },
      ],
    ],
    [
      'impersonate users',
      [{ verbs: ['impersonate'], apiGroups: [''], resources: ['users'] }],
      [{ how: 'impersonate', resources: ['users'] }],
    ],
    [
      'token: TokenRequest for other service accounts',
      [{ verbs: ['create'], apiGroups: [''], resources: ['serviceaccounts/token'] }],
      [{ how: 'token', resources: ['serviceaccounts/token'] }],
    ],
    [
      'token: secrets',
      [{ verbs: [...TARGET_TYPE_VERBS], apiGroups: [''], resources: ['secrets'] }],
      [{ how: 'token', resources: ['secrets'] }],
    ],
    ['nothing for serviceaccounts without the token subresource', [{ verbs, apiGroups: [''], resources: ['serviceaccounts'] }], []],
  ])('%s', (_title, rules, expected) => {
    expect(selfEscalations(rules)).toEqual(expected);
  });

  it('finds bind and escalate in the rules a join generates for the RBAC types', () => {
    expect(selfEscalations(leastPrivilegeRules([clusterRoles, clusterRoleBindings])).map((f) => f.how)).toEqual(['bind', 'escalate']);
    expect(selfEscalations(leastPrivilegeRules([deployments, configmaps, namespaces]))).toEqual([]);
  });
});

describe('selfEscalationWarning', () => {
  it('names the enabled types that let the member token grant itself more', () => {
    const ftcs = [clusterRoles, clusterRoleBindings, configmaps];
    expect(selfEscalationWarning('member1', ftcs, leastPrivilegeRules(ftcs))).toBe(
      `the member token of member1 can grant itself more than least privilege (in effect cluster-admin): the enabled types clusterrolebindings.${rbac}, clusterroles.${rbac} let it bind any ClusterRole to itself, cluster-admin included; add any rule to its own ClusterRole; disable those types (kubefedctl disable <type>) to bound it (docs/operations.md, "What each credential can do")`,
    );
  });

  it('says nothing when the role cannot grant itself more', () => {
    const ftcs = [configmaps, deployments, disabledSecrets];
    expect(selfEscalationWarning('member1', ftcs, leastPrivilegeRules(ftcs))).toBeUndefined();
  });
});
