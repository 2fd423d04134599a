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

/**
 * How a member role lets its holder grant itself more than its rules say:
 * - `bind`: writes (Cluster)RoleBindings and may `bind` ClusterRoles, so it can bind any
 *   ClusterRole (cluster-admin included) to itself;
 * - `escalate`: writes (Cluster)Roles and may `escalate` them, so it can add any rule to its own role;
 * - `impersonate`: may impersonate users, groups or service accounts (system:masters included);
 * - `token`: may mint or read the tokens of other service accounts (TokenRequest on
 *   `serviceaccounts/token`, or creating or reading Secrets, which holds `kubernetes.io/service-account-token`
 *   Secrets of any service account, those of kube-system's controllers included).
 */
type SelfEscalation = 'bind' | 'escalate' | 'impersonate' | 'token';

/** One way of {@link SelfEscalation}, and the resources (`plural.group`, core: `plural`) of the rules that make it. */
export interface SelfEscalationFinding {
  how: SelfEscalation;
  resources: string[];
}

const WRITE_VERBS = ['create', 'update', 'patch'];

function ruleGrants(rule: PolicyRule, verbs: readonly string[], group: string, resource: string): boolean {
  if (rule.nonResourceURLs !== undefined && rule.resources === undefined) return false;
  const verbOk = rule.verbs.includes('*') || verbs.some((v) => rule.verbs.includes(v));
  const groupOk = (rule.apiGroups ?? []).some((g) => g === '*' || g === group);
  const [res = '', sub] = resource.split('/', 2);
  const resourceOk = (rule.resources ?? []).some(
    (r) => r === '*' || r === resource || (sub !== undefined && (r === `${res}/*` || r === `*/${sub}`)),
  );
  return verbOk && groupOk && resourceOk;
}

function qualified(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

/**
 * Whether the holder of `rules` can grant itself more than they say, and through what (kube-apiserver's
 * RBAC escalation prevention stops a writer of RBAC objects only when it lacks `bind`/`escalate`).
 * Checked: {@link SelfEscalation}'s RBAC, impersonation and token cases. Not checked (so a role
 * reported clean can still reach more): running a Pod as another service account (write on
 * workloads), `pods/exec`, `nodes/proxy`, and what the resources of CRDs or webhooks allow.
 * `resourceNames` are ignored, so a rule limited to some names still counts. Pure; findings in
 * the order bind, escalate, impersonate, token, resources in the order of `rules`.
 */
export function selfEscalations(rules: readonly PolicyRule[]): SelfEscalationFinding[] {
  const found: SelfEscalationFinding[] = [];
  const resourcesOf = (matches: readonly (readonly [readonly string[], string, string])[]): string[] => {
    const names = new Set<string>();
    for (const rule of rules)
      for (const [verbs, group, resource] of matches) if (ruleGrants(rule, verbs, group, resource)) names.add(qualified(group, resource));
    return [...names];
  };
  const anyOf = (verbs: readonly string[], group: string, resource: string): boolean =>
    rules.some((r) => ruleGrants(r, verbs, group, resource));
  const bindings = [
    [WRITE_VERBS, RBAC_GROUP, 'clusterrolebindings'],
    [WRITE_VERBS, RBAC_GROUP, 'rolebindings'],
  ] as const;
  const bindable = anyOf(['bind'], RBAC_GROUP, 'clusterroles') || anyOf(['bind'], RBAC_GROUP, 'roles');
  if (bindable && resourcesOf(bindings).length > 0)
    found.push({
      how: 'bind',
      resources: resourcesOf([...bindings, [['bind'], RBAC_GROUP, 'clusterroles'], [['bind'], RBAC_GROUP, 'roles']]),
    });
  const escalatable = (['clusterroles', 'roles'] as const).filter(
    (r) => anyOf(['escalate'], RBAC_GROUP, r) && anyOf(WRITE_VERBS, RBAC_GROUP, r),
  );
  if (escalatable.length > 0) found.push({ how: 'escalate', resources: escalatable.map((r) => qualified(RBAC_GROUP, r)) });
  const impersonated = resourcesOf([
    [['impersonate'], '', 'users'],
    [['impersonate'], '', 'groups'],
    [['impersonate'], '', 'serviceaccounts'],
  ]);
  if (impersonated.length > 0) found.push({ how: 'impersonate', resources: impersonated });
  const tokens = resourcesOf([
    [['create'], '', 'serviceaccounts/token'],
    [['create', 'get', 'list', 'watch'], '', 'secrets'],
  ]);
  if (tokens.length > 0) found.push({ how: 'token', resources: tokens });
  return found;
}

/** The FTC names (`plural.group`) among `resources` of {@link selfEscalations} that enabled FTCs grant, sorted. */
function selfEscalatingTypes(ftcs: readonly FtcSpec[], findings: readonly SelfEscalationFinding[]): string[] {
  const named = new Set(findings.flatMap((f) => f.resources));
  const types = new Set<string>();
  for (const f of ftcs) {
    if (f.spec.propagation !== 'Enabled') continue;
    const name = qualified(f.spec.targetType.group ?? '', f.spec.targetType.pluralName);
    if (named.has(name)) types.add(name);
  }
  return [...types].sort();
}

const HOW_TEXT: Record<SelfEscalation, string> = {
  bind: 'bind any ClusterRole to itself, cluster-admin included',
  escalate: 'add any rule to its own ClusterRole',
  impersonate: 'impersonate any user or group, system:masters included',
  token: "create or read the service-account tokens of any service account, kube-system's controllers included",
};

/**
 * The warning `join` and `enable` print when a least-privilege member role lets its holder grant
 * itself more ({@link selfEscalations} of `rules`), naming the enabled types that make it so;
 * undefined when it cannot.
 */
export function selfEscalationWarning(cluster: string, ftcs: readonly FtcSpec[], rules: readonly PolicyRule[]): string | undefined {
  const findings = selfEscalations(rules);
  if (findings.length === 0) return undefined;
  const types = selfEscalatingTypes(ftcs, findings);
  const what = findings.map((f) => HOW_TEXT[f.how]).join('; ');
  const by = types.length === 0 ? 'its rules let it' : `the enabled ${types.length === 1 ? 'type' : 'types'} ${types.join(', ')} let it`;
  const fix = types.length === 0 ? '' : `; disable those types (kubefedctl disable <type>) to bound it`;
  return `the member token of ${cluster} can grant itself more than least privilege (in effect cluster-admin): ${by} ${what}${fix} (docs/operations.md, "What each credential can do")`;
}
