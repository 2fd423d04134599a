import {
  API_VERSIONS,
  ENFORCE_MOUNTABLE_SECRETS_ANNOTATION,
  JOIN_SCOPE_ANNOTATION,
  KINDS,
  SECRET_CA_KEY,
  SECRET_TOKEN_KEY,
  SERVICE_ACCOUNT_NAME_ANNOTATION,
} from '@kubefed/api';
import {
  CLUSTER_CONNECTION_ANNOTATION,
  CLUSTER_NAME_ANNOTATION,
  connectionDigest,
  JOIN_SERVICE_ACCOUNT_ANNOTATION,
  type KubeObject,
} from '@kubefed/client';
import {
  cloneRule,
  FULL_ACCESS_CLUSTER_RULES,
  FULL_ACCESS_NAMESPACE_RULES,
  HEALTH_CHECK_RULES,
  LEAST_PRIVILEGE_LABEL,
  LEAST_PRIVILEGE_LABEL_VALUE,
  type PolicyRule,
} from './least-privilege.js';

/** The names of everything `join` creates for one member (KubeFed `pkg/kubefedctl/join.go`). */
export interface JoinNames {
  /** The joining cluster's name (KubeFedCluster name). */
  cluster: string;
  /** The host cluster's name used inside generated names. */
  host: string;
  /** The kubefed namespace (host and member). */
  namespace: string;
  /** ServiceAccount and token Secret in the member: `<cluster>-<host>`. */
  serviceAccount: string;
  /** (Cluster)Role and (Cluster)RoleBinding: `kubefed-controller-manager:<sa>`. */
  role: string;
  /** Health-check ClusterRole/Binding of scope Namespaced: `kubefed-controller-manager:<ns>:healthcheck-<sa>`. */
  healthCheckRole: string;
  /** Role/RoleBinding in the kubefed namespace of a join with short-lived tokens (`--token-lifetime`): `kubefed-controller-manager:<sa>:token`. */
  tokenRole: string;
}

/**
 * Annotation on every member object `join` writes except the namespace (ServiceAccount, token
 * Secret, (Cluster)Roles and (Cluster)RoleBindings): the joined cluster's name. `unjoin` removes an
 * object only when it names the cluster being removed (or is missing, on objects of older joins);
 * an object named like the join's but annotated with another cluster belongs to that other join.
 * An annotation rather than a label: cluster names may be 253 characters, label values only 63.
 */
export const JOINED_CLUSTER_ANNOTATION = 'kubefed.io/joined-cluster';

/**
 * Annotation on the member's kubefed namespace when `join` created it: the cluster whose join did.
 * `unjoin` deletes the namespace only when it carries this annotation and no other service
 * account (another join, another federation's control plane) remains in it.
 */
export const NAMESPACE_CREATED_BY_JOIN_ANNOTATION = 'kubefed.io/namespace-created-by-join';

/**
 * Annotation on the host token Secret: the member ServiceAccount (in the kubefed namespace) whose
 * token it holds. `enable`/`disable` derive the names of this join's member roles from it
 * (`kubefed-controller-manager:<service account>`), also for a join made with
 * `--host-cluster-name`, and the control plane renews a short-lived token of it; the Secret is
 * bound to its cluster, so this is trusted as much as the token.
 */
export { JOIN_SERVICE_ACCOUNT_ANNOTATION };

/** The member ServiceAccount a host token Secret's join created ({@link JOIN_SERVICE_ACCOUNT_ANNOTATION}); undefined for older joins. */
export function joinServiceAccountOf(secret: KubeObject): string | undefined {
  const sa = secret.metadata.annotations?.[JOIN_SERVICE_ACCOUNT_ANNOTATION];
  return sa === '' ? undefined : sa;
}

/** The cluster a host token Secret is bound to (`kubefed.io/cluster-name`); undefined when unbound (joins made before the binding). */
export function boundClusterOf(secret: KubeObject): string | undefined {
  const bound = secret.metadata.annotations?.[CLUSTER_NAME_ANNOTATION];
  return bound === '' ? undefined : bound;
}

/** The join an existing member object belongs to: its {@link JOINED_CLUSTER_ANNOTATION}, undefined on objects of older joins. */
export function joinedClusterOf(obj: KubeObject): string | undefined {
  return obj.metadata.annotations?.[JOINED_CLUSTER_ANNOTATION];
}

/** The name of the (Cluster)Role and (Cluster)RoleBinding join creates for a member ServiceAccount. */
export function memberRoleName(serviceAccount: string): string {
  return `kubefed-controller-manager:${serviceAccount}`;
}

/** Derives the join artefact names of KubeFed. */
export function joinNames(cluster: string, host: string, namespace: string): JoinNames {
  const serviceAccount = `${cluster}-${host}`;
  return {
    cluster,
    host,
    namespace,
    serviceAccount,
    role: memberRoleName(serviceAccount),
    healthCheckRole: `kubefed-controller-manager:${namespace}:healthcheck-${serviceAccount}`,
    tokenRole: `${memberRoleName(serviceAccount)}:token`,
  };
}

/** Control-plane scope read from the KubeFedConfig. */
export type KubeFedScope = 'Cluster' | 'Namespaced';

const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';
const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** The kubefed namespace (created in the member when missing), marked as created by this join. */
export function namespaceObject(names: JoinNames): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: names.namespace, annotations: { [NAMESPACE_CREATED_BY_JOIN_ANNOTATION]: names.cluster } },
  };
}

function joinedBy(names: JoinNames): Record<string, string> {
  return { [JOINED_CLUSTER_ANNOTATION]: names.cluster };
}

/** The member ServiceAccount the control plane authenticates as. */
export function serviceAccountObject(names: JoinNames): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: names.serviceAccount,
      namespace: names.namespace,
      annotations: { [ENFORCE_MOUNTABLE_SECRETS_ANNOTATION]: 'true', ...joinedBy(names) },
    },
    automountServiceAccountToken: false,
  };
}

/** The member token Secret; the member's token controller fills `data.token` and `data["ca.crt"]`. */
export function tokenSecretObject(names: JoinNames): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: names.serviceAccount,
      namespace: names.namespace,
      annotations: { [SERVICE_ACCOUNT_NAME_ANNOTATION]: names.serviceAccount, ...joinedBy(names) },
    },
    type: 'kubernetes.io/service-account-token',
  };
}

function roleMetadata(name: string, names: JoinNames, options: { namespaced: boolean; leastPrivilege: boolean }): KubeObject['metadata'] {
  return {
    name,
    ...(options.namespaced ? { namespace: names.namespace } : {}),
    ...(options.leastPrivilege ? { labels: { [LEAST_PRIVILEGE_LABEL]: LEAST_PRIVILEGE_LABEL_VALUE } } : {}),
    annotations: joinedBy(names),
  };
}

function binding(kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, names: JoinNames): KubeObject {
  const roleKind = kind === 'RoleBinding' ? 'Role' : 'ClusterRole';
  return {
    apiVersion: RBAC_API_VERSION,
    kind,
    metadata: { name, ...(kind === 'RoleBinding' ? { namespace: names.namespace } : {}), annotations: joinedBy(names) },
    roleRef: { apiGroup: RBAC_GROUP, kind: roleKind, name },
    subjects: [{ kind: 'ServiceAccount', name: names.serviceAccount, namespace: names.namespace }],
  };
}

/** Options of {@link memberRbacObjects}. */
export interface MemberRbacOptions {
  scope: KubeFedScope;
  /**
   * Least-privilege rules replacing KubeFed's full access (see `leastPrivilegeRules`); with scope
   * Namespaced the Role gets `namespaceRules` (`leastPrivilegeNamespaceRules`). Undefined = KubeFed's rules.
   */
  leastPrivilege?: { clusterRules: readonly PolicyRule[]; namespaceRules: readonly PolicyRule[] } | undefined;
}

/**
 * The member RBAC objects, in creation order (each role before its binding). Scope Cluster:
 * ClusterRole + ClusterRoleBinding `kubefed-controller-manager:<sa>`. Scope Namespaced: Role +
 * RoleBinding of that name in the kubefed namespace, plus the health-check ClusterRole +
 * ClusterRoleBinding (KubeFed's verb `Get` is written `get`, which RBAC actually matches).
 */
export function memberRbacObjects(names: JoinNames, options: MemberRbacOptions): KubeObject[] {
  const lp = options.leastPrivilege;
  const leastPrivilege = lp !== undefined;
  if (options.scope === 'Cluster') {
    const rules = (lp?.clusterRules ?? FULL_ACCESS_CLUSTER_RULES).map(cloneRule);
    return [
      {
        apiVersion: RBAC_API_VERSION,
        kind: 'ClusterRole',
        metadata: roleMetadata(names.role, names, { namespaced: false, leastPrivilege }),
        rules,
      },
      binding('ClusterRoleBinding', names.role, names),
    ];
  }
  const rules = (lp?.namespaceRules ?? FULL_ACCESS_NAMESPACE_RULES).map(cloneRule);
  return [
    { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: roleMetadata(names.role, names, { namespaced: true, leastPrivilege }), rules },
    binding('RoleBinding', names.role, names),
    {
      apiVersion: RBAC_API_VERSION,
      kind: 'ClusterRole',
      metadata: roleMetadata(names.healthCheckRole, names, { namespaced: false, leastPrivilege }),
      rules: HEALTH_CHECK_RULES.map(cloneRule),
    },
    binding('ClusterRoleBinding', names.healthCheckRole, names),
  ];
}

/**
 * The Role and RoleBinding of a join with short-lived tokens: the member ServiceAccount may ask
 * for tokens of itself only (`create` on `serviceaccounts/token`, `resourceNames` its own name),
 * which the control plane does with the current token to renew it (docs/operations.md "Member tokens").
 */
export function tokenRenewalRbacObjects(names: JoinNames): KubeObject[] {
  return [
    {
      apiVersion: RBAC_API_VERSION,
      kind: 'Role',
      metadata: roleMetadata(names.tokenRole, names, { namespaced: true, leastPrivilege: false }),
      rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], resourceNames: [names.serviceAccount], verbs: ['create'] }],
    },
    binding('RoleBinding', names.tokenRole, names),
  ];
}

/** Base64 `data` copied from the member token secret into the host secret. */
export interface TokenData {
  token: string;
  caCrt?: string | undefined;
}

/**
 * The host Secret holding the member token (and `ca.crt` when the member secret has one):
 * named `secretName`, else `generateName: <cluster>-`, bound to the cluster (annotation
 * `kubefed.io/cluster-name`: the control plane and kubefedctl use the token for no other
 * KubeFedCluster) and naming the member ServiceAccount ({@link JOIN_SERVICE_ACCOUNT_ANNOTATION}).
 * `data` values are base64, as in the API.
 */
export function hostSecretObject(names: JoinNames, data: TokenData | undefined, secretName: string | undefined): KubeObject {
  const annotations = { [CLUSTER_NAME_ANNOTATION]: names.cluster, [JOIN_SERVICE_ACCOUNT_ANNOTATION]: names.serviceAccount };
  const metadata: KubeObject['metadata'] =
    secretName === undefined
      ? { generateName: `${names.cluster}-`, namespace: names.namespace, annotations }
      : { name: secretName, namespace: names.namespace, annotations };
  const obj: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque' };
  if (data !== undefined) {
    obj['data'] = { [SECRET_TOKEN_KEY]: data.token, ...(data.caCrt === undefined ? {} : { [SECRET_CA_KEY]: data.caCrt }) };
  }
  return obj;
}

/**
 * `secret` bound to the connection settings of `kubeFedCluster` as well (annotation
 * `kubefed.io/cluster-connection`): whoever may edit the KubeFedCluster cannot redirect the token
 * to another server, proxy or certificate authority. Returns a copy.
 */
export function bindToConnection(secret: KubeObject, kubeFedCluster: KubeObject): KubeObject {
  const spec = kubeFedCluster['spec'] as Parameters<typeof connectionDigest>[0];
  const annotations = { ...(secret.metadata.annotations ?? {}), [CLUSTER_CONNECTION_ANNOTATION]: connectionDigest(spec) };
  return { ...secret, metadata: { ...secret.metadata, annotations } };
}

/** Inputs of the KubeFedCluster spec. */
export interface KubeFedClusterInputs {
  /** The member context's server URL. */
  apiEndpoint: string;
  /** Base64 CA bundle (kubeconfig CA data, else the token secret's `ca.crt`). */
  caBundle: string | undefined;
  /** Name of the host secret. */
  secretName: string;
  /** The member context sets insecure-skip-tls-verify. */
  insecureSkipTlsVerify: boolean;
  /** The member context's proxy-url. */
  proxyUrl: string | undefined;
}

/** The KubeFedCluster `spec` KubeFed's join writes (`pkg/kubefedctl/join.go`, `createKubeFedCluster`). */
export function kubeFedClusterSpec(inputs: KubeFedClusterInputs): Record<string, unknown> {
  return {
    apiEndpoint: inputs.apiEndpoint,
    ...(inputs.caBundle === undefined ? {} : { caBundle: inputs.caBundle }),
    secretRef: { name: inputs.secretName },
    ...(inputs.insecureSkipTlsVerify ? { disabledTLSValidations: ['*'] } : {}),
    ...(inputs.proxyUrl === undefined ? {} : { proxyURL: inputs.proxyUrl }),
  };
}

/**
 * The host KubeFedCluster `<cluster>` in the kubefed namespace. With `scope`, annotated
 * `kubefed.io/join-scope: <scope>`: the control-plane scope whose RBAC the join granted in the
 * member (the controller manager refuses a cluster joined for another scope than its own).
 */
export function kubeFedClusterObject(names: JoinNames, inputs: KubeFedClusterInputs, scope?: KubeFedScope): KubeObject {
  return {
    apiVersion: API_VERSIONS.core,
    kind: KINDS.kubeFedCluster,
    metadata: {
      name: names.cluster,
      namespace: names.namespace,
      ...(scope === undefined ? {} : { annotations: { [JOIN_SCOPE_ANNOTATION]: scope } }),
    },
    spec: kubeFedClusterSpec(inputs),
  };
}

/** `https://Member:443/` and `https://member` name the same endpoint; unparsable URLs compare as written. */
export function normalizeEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url.replace(/\/+$/, '');
  }
}

/** Inputs of {@link otherJoinsOfMember}. */
export interface OtherJoinsInputs {
  /** The names of the join being made. */
  names: JoinNames;
  /** The joining member's API endpoint (its kubeconfig server). */
  endpoint: string;
  /** The KubeFedClusters in the host's kubefed namespace. */
  kubeFedClusters: readonly KubeObject[];
  /** The ServiceAccounts in the member's kubefed namespace. */
  memberServiceAccounts: readonly KubeObject[];
}

/** Another KubeFedCluster of the host that registers the joining member, and how it was recognised. */
export interface OtherJoin {
  cluster: string;
  /** e.g. `its service account kube-federation-system/member2-host is in the member`; undefined for the same endpoint. */
  evidence: string | undefined;
}

/**
 * The KubeFedClusters other than `names.cluster` that register the joining member with this host:
 * those with the same API endpoint, and those whose join's ServiceAccount `<name>-<host>` is in the
 * member (which also finds a member whose endpoint was rewritten after its join). A service
 * account annotated as created by the join of a different cluster does not count.
 */
export function otherJoinsOfMember(inputs: OtherJoinsInputs): OtherJoin[] {
  const { names } = inputs;
  const endpoint = normalizeEndpoint(inputs.endpoint);
  const memberSas = new Map(inputs.memberServiceAccounts.map((sa) => [sa.metadata.name ?? '', sa]));
  const found: OtherJoin[] = [];
  for (const kfc of inputs.kubeFedClusters) {
    const name = kfc.metadata.name ?? '';
    if (name === '' || name === names.cluster) continue;
    const apiEndpoint = (kfc['spec'] as { apiEndpoint?: unknown } | undefined)?.apiEndpoint;
    if (typeof apiEndpoint === 'string' && normalizeEndpoint(apiEndpoint) === endpoint) {
      found.push({ cluster: name, evidence: undefined });
      continue;
    }
    const saName = joinNames(name, names.host, names.namespace).serviceAccount;
    const sa = memberSas.get(saName);
    const owner = sa === undefined ? undefined : joinedClusterOf(sa);
    if (sa !== undefined && (owner === undefined || owner === name)) {
      found.push({ cluster: name, evidence: `its service account ${names.namespace}/${saName} is in the member` });
    }
  }
  return found;
}
