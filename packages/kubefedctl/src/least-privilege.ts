import type { FederatedTypeConfig } from '@kubefed/api';

/** One RBAC PolicyRule (rbac.authorization.k8s.io/v1), keys in the order the API server prints them. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/**
 * Label on the member (Cluster)Role of a `join --least-privilege`: its rules follow the enabled
 * FederatedTypeConfigs, so `enable`/`disable` know to recompute them with {@link leastPrivilegeRules}.
 */
export const LEAST_PRIVILEGE_LABEL = 'kubefed.io/least-privilege';
/** Value of {@link LEAST_PRIVILEGE_LABEL}. */
export const LEAST_PRIVILEGE_LABEL_VALUE = 'true';

/** Verbs the sync and status controllers use on a federated target type. */
export const TARGET_TYPE_VERBS: readonly string[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** What the cluster health check reads: `/healthz` and `/version`, and nodes for region/zone. */
export const HEALTH_CHECK_RULES: readonly PolicyRule[] = [
  { verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] },
  { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
];

/** KubeFed's full-access rules of the member ClusterRole (scope Cluster). */
export const FULL_ACCESS_CLUSTER_RULES: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['get'], nonResourceURLs: ['*'] },
];

/** KubeFed's full-access rules of the member Role (scope Namespaced). */
export const FULL_ACCESS_NAMESPACE_RULES: readonly PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];

type FtcSpec = Pick<FederatedTypeConfig, 'spec'>;

/**
 * One rule per target type of the enabled (`propagation: Enabled`) FTCs: the verbs of
 * {@link TARGET_TYPE_VERBS} on that resource. Sorted by group then resource, duplicates merged.
 * `namespacedOnly` keeps just the namespaced target types (for a Role).
 */
export function targetTypeRules(ftcs: readonly FtcSpec[], options: { namespacedOnly?: boolean } = {}): PolicyRule[] {
  const seen = new Map<string, { group: string; resource: string }>();
  for (const ftc of ftcs) {
    if (ftc.spec.propagation !== 'Enabled') continue;
    const t = ftc.spec.targetType;
    if (options.namespacedOnly === true && t.scope !== 'Namespaced') continue;
    const group = t.group ?? '';
    seen.set(`${group}/${t.pluralName}`, { group, resource: t.pluralName });
  }
  return [...seen.values()]
    .sort((a, b) => a.group.localeCompare(b.group) || a.resource.localeCompare(b.resource))
    .map((t) => ({ verbs: [...TARGET_TYPE_VERBS], apiGroups: [t.group], resources: [t.resource] }));
}

/** The member workloads the replica scheduler reads (ReplicaSchedulingPreference targets FederatedDeployment and FederatedReplicaSet). */
const SCHEDULED_TARGETS: ReadonlySet<string> = new Set(['apps/deployments', 'apps/replicasets']);

/**
 * What the replica scheduler (and `kubefedctl plan`) reads in a member besides the workload
 * itself: `list` of the workload's pods (by its selector) while not all its replicas are ready,
 * to count unschedulable ones. Granted once an enabled FTC targets Deployments or ReplicaSets;
 * nothing otherwise.
 */
export function replicaSchedulingRules(ftcs: readonly FtcSpec[]): PolicyRule[] {
  const scheduled = ftcs.some(
    (f) => f.spec.propagation === 'Enabled' && SCHEDULED_TARGETS.has(`${f.spec.targetType.group ?? ''}/${f.spec.targetType.pluralName}`),
  );
  return scheduled ? [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] : [];
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * What the API server demands besides create/update to write RBAC objects (its privilege
 * escalation check): `escalate` on a federated (Cluster)Role type, since the propagated role may
 * grant what the control plane does not hold, and `bind` on the roles a federated binding type
 * may reference (ClusterRoleBinding: clusterroles; RoleBinding: roles and clusterroles).
 * Federating RBAC types therefore lets the member credentials grant anything in the member, as
 * full access would. Only the namespaced part with `namespacedOnly` (a Role).
 */
export function rbacDelegationRules(ftcs: readonly FtcSpec[], options: { namespacedOnly?: boolean } = {}): PolicyRule[] {
  const enabled = new Set(
    ftcs
      .filter((f) => f.spec.propagation === 'Enabled' && (f.spec.targetType.group ?? '') === RBAC_GROUP)
      .filter((f) => options.namespacedOnly !== true || f.spec.targetType.scope === 'Namespaced')
      .map((f) => f.spec.targetType.pluralName),
  );
  const escalate = ['clusterroles', 'roles'].filter((r) => enabled.has(r));
  const bind = new Set<string>();
  if (enabled.has('clusterrolebindings')) bind.add('clusterroles');
  if (enabled.has('rolebindings')) for (const r of ['clusterroles', 'roles']) bind.add(r);
  return [
    ...(escalate.length === 0 ? [] : [{ verbs: ['escalate'], apiGroups: [RBAC_GROUP], resources: escalate }]),
    ...(bind.size === 0 ? [] : [{ verbs: ['bind'], apiGroups: [RBAC_GROUP], resources: [...bind].sort() }]),
  ];
}

/**
 * The rules of a least-privilege member ClusterRole: for every enabled FTC, full use of its
 * target type (get/list/watch/create/update/patch/delete), what writing federated RBAC types
 * takes ({@link rbacDelegationRules}), what the replica scheduler reads
 * ({@link replicaSchedulingRules}) and what the health check reads ({@link HEALTH_CHECK_RULES}).
 * Pure; FTCs with propagation Disabled grant nothing.
 */
export function leastPrivilegeRules(ftcs: readonly FtcSpec[]): PolicyRule[] {
  return [...targetTypeRules(ftcs), ...rbacDelegationRules(ftcs), ...replicaSchedulingRules(ftcs), ...HEALTH_CHECK_RULES.map(cloneRule)];
}

/**
 * The rules of a least-privilege member Role (control plane scope Namespaced, in the kubefed
 * namespace): the namespaced target types and {@link replicaSchedulingRules}; the health check
 * has a ClusterRole of its own.
 */
export function leastPrivilegeNamespaceRules(ftcs: readonly FtcSpec[]): PolicyRule[] {
  return [
    ...targetTypeRules(ftcs, { namespacedOnly: true }),
    ...rbacDelegationRules(ftcs, { namespacedOnly: true }),
    ...replicaSchedulingRules(ftcs),
  ];
}

/** A deep copy of a rule. */
export function cloneRule(r: PolicyRule): PolicyRule {
  return JSON.parse(JSON.stringify(r)) as PolicyRule;
}
