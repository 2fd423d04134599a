import {
  API_VERSIONS,
  ENFORCE_MOUNTABLE_SECRETS_ANNOTATION,
  KINDS,
  SECRET_CA_KEY,
  SECRET_TOKEN_KEY,
  SERVICE_ACCOUNT_NAME_ANNOTATION,
} from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import {
  FULL_ACCESS_CLUSTER_RULES,
  FULL_ACCESS_NAMESPACE_RULES,
  HEALTH_CHECK_RULES,
  LEAST_PRIVILEGE_LABEL,
  LEAST_PRIVILEGE_LABEL_VALUE,
  cloneRule,
} from './least-privilege.js';
import type { PolicyRule } from './least-privilege.js';

/** The names of everything `join` creates for one member (KUBEFED-REFERENCE §2). */
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
}

/** Derives the join artefact names of KubeFed. */
export function joinNames(cluster: string, host: string, namespace: string): JoinNames {
  const serviceAccount = `${cluster}-${host}`;
  return {
    cluster,
    host,
    namespace,
    serviceAccount,
    role: `kubefed-controller-manager:${serviceAccount}`,
    healthCheckRole: `kubefed-controller-manager:${namespace}:healthcheck-${serviceAccount}`,
  };
}

/** Control-plane scope read from the KubeFedConfig. */
export type KubeFedScope = 'Cluster' | 'Namespaced';

const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';
const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** The kubefed namespace (created in the member when missing). */
export function namespaceObject(names: JoinNames): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: names.namespace } };
}

/** The member ServiceAccount the control plane authenticates as. */
export function serviceAccountObject(names: JoinNames): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: names.serviceAccount,
      namespace: names.namespace,
      annotations: { [ENFORCE_MOUNTABLE_SECRETS_ANNOTATION]: 'true' },
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
      annotations: { [SERVICE_ACCOUNT_NAME_ANNOTATION]: names.serviceAccount },
    },
    type: 'kubernetes.io/service-account-token',
  };
}

function roleMetadata(name: string, namespace: string | undefined, leastPrivilege: boolean): KubeObject['metadata'] {
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    ...(leastPrivilege ? { labels: { [LEAST_PRIVILEGE_LABEL]: LEAST_PRIVILEGE_LABEL_VALUE } } : {}),
  };
}

function binding(kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, roleKind: 'ClusterRole' | 'Role', names: JoinNames): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind,
    metadata: { name, ...(kind === 'RoleBinding' ? { namespace: names.namespace } : {}) },
    roleRef: { apiGroup: RBAC_GROUP, kind: roleKind, name },
    subjects: [{ kind: 'ServiceAccount', name: names.serviceAccount, namespace: names.namespace }],
  };
}

/** Options of {@link memberRbacObjects}. */
export interface MemberRbacOptions {
  scope: KubeFedScope;
  /**
   * Least-privilege rules replacing KubeFed's full access (see `leastPrivilegeRules`); with scope
   * Namespaced only the namespaced target-type rules go into the Role. Undefined = KubeFed's rules.
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
  if (options.scope === 'Cluster') {
    const rules = (lp?.clusterRules ?? FULL_ACCESS_CLUSTER_RULES).map(cloneRule);
    return [
      { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: roleMetadata(names.role, undefined, lp !== undefined), rules },
      binding('ClusterRoleBinding', names.role, 'ClusterRole', names),
    ];
  }
  const rules = (lp?.namespaceRules ?? FULL_ACCESS_NAMESPACE_RULES).map(cloneRule);
  return [
    { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: roleMetadata(names.role, names.namespace, lp !== undefined), rules },
    binding('RoleBinding', names.role, 'Role', names),
    {
      apiVersion: RBAC_API_VERSION,
      kind: 'ClusterRole',
      metadata: roleMetadata(names.healthCheckRole, undefined, lp !== undefined),
      rules: HEALTH_CHECK_RULES.map(cloneRule),
    },
    binding('ClusterRoleBinding', names.healthCheckRole, 'ClusterRole', names),
  ];
}

/** Base64 `data` copied from the member token secret into the host secret. */
export interface TokenData {
  token: string;
  caCrt?: string | undefined;
}

/**
 * The host Secret holding the member token (and `ca.crt` when the member secret has one):
 * named `secretName`, else `generateName: <cluster>-`. `data` values are base64, as in the API.
 */
export function hostSecretObject(names: JoinNames, data: TokenData | undefined, secretName: string | undefined): KubeObject {
  const metadata: KubeObject['metadata'] =
    secretName === undefined ? { generateName: `${names.cluster}-`, namespace: names.namespace } : { name: secretName, namespace: names.namespace };
  const obj: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque' };
  if (data !== undefined) {
    obj['data'] = { [SECRET_TOKEN_KEY]: data.token, ...(data.caCrt === undefined ? {} : { [SECRET_CA_KEY]: data.caCrt }) };
  }
  return obj;
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

/** The KubeFedCluster `spec` of KUBEFED-REFERENCE §3.2 step 10. */
export function kubeFedClusterSpec(inputs: KubeFedClusterInputs): Record<string, unknown> {
  return {
    apiEndpoint: inputs.apiEndpoint,
    ...(inputs.caBundle === undefined ? {} : { caBundle: inputs.caBundle }),
    secretRef: { name: inputs.secretName },
    ...(inputs.insecureSkipTlsVerify ? { disabledTLSValidations: ['*'] } : {}),
    ...(inputs.proxyUrl === undefined ? {} : { proxyURL: inputs.proxyUrl }),
  };
}

/** The host KubeFedCluster `<cluster>` in the kubefed namespace. */
export function kubeFedClusterObject(names: JoinNames, inputs: KubeFedClusterInputs): KubeObject {
  return {
    apiVersion: API_VERSIONS.core,
    kind: KINDS.kubeFedCluster,
    metadata: { name: names.cluster, namespace: names.namespace },
    spec: kubeFedClusterSpec(inputs),
  };
}
