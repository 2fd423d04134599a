import { buildFederatedTypeConfig } from '@kubefed/api';
import type { FederatedTypeConfig } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { HEALTH_CHECK_RULES, TARGET_TYPE_VERBS, leastPrivilegeNamespaceRules, leastPrivilegeRules, targetTypeRules } from './least-privilege.js';

function ftc(group: string, kind: string, pluralName: string, scope: 'Namespaced' | 'Cluster', propagation: 'Enabled' | 'Disabled' = 'Enabled'): FederatedTypeConfig {
  const c = buildFederatedTypeConfig({ group, version: 'v1', kind, pluralName, scope });
  return { ...c, spec: { ...c.spec, propagation } };
}

const verbs = [...TARGET_TYPE_VERBS];
const deployments = ftc('apps', 'Deployment', 'deployments', 'Namespaced');
const configmaps = ftc('', 'ConfigMap', 'configmaps', 'Namespaced');
const namespaces = ftc('', 'Namespace', 'namespaces', 'Cluster');
const disabledSecrets = ftc('', 'Secret', 'secrets', 'Namespaced', 'Disabled');
const replicasets = ftc('apps', 'ReplicaSet', 'replicasets', 'Namespaced');
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
    ['a disabled FTC grants nothing', [disabledSecrets], []],
    ['a type listed twice once', [configmaps, configmaps], [{ verbs, apiGroups: [''], resources: ['configmaps'] }]],
  ])('grants %s plus the health-check reads', (_what, ftcs, typeRules) => {
    expect(leastPrivilegeRules(ftcs)).toEqual([...typeRules, ...HEALTH_CHECK_RULES]);
  });

  it('keeps only namespaced target types for a Role', () => {
    expect(targetTypeRules([deployments, namespaces], { namespacedOnly: true })).toEqual([{ verbs, apiGroups: ['apps'], resources: ['deployments'] }]);
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
