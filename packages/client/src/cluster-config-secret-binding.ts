/**
 * Which KubeFedCluster may use the token of a host Secret. `spec.secretRef` only names a Secret:
 * without a binding, anyone allowed to write a KubeFedCluster could point one at another member's
 * token Secret and at a server of their own, and the control plane would send them that token.
 * The Secret therefore names its cluster (annotation {@link CLUSTER_NAME_ANNOTATION}, written by
 * `kubefedctl join`), and every member client built from a KubeFedCluster goes through
 * {@link memberClientFromSecret}, which refuses any other pairing before a connection exists.
 * The Secret also names the connection its token is for (annotation
 * {@link CLUSTER_CONNECTION_ANNOTATION}: a digest of `apiEndpoint`, `caBundle`, `proxyURL` and
 * `disabledTLSValidations`), so that whoever may edit the KubeFedCluster cannot redirect its own
 * token to a server (or through a proxy, or to a certificate authority) of their choosing.
 * Changing the binding takes write access to Secrets, which already means access to the tokens.
 */
import { createHash } from 'node:crypto';
import { KUBEFED_NAMESPACE_DEFAULT, RESOURCES } from '@kubefed/api';
import { ConfigError } from './api-error.js';
import { type KubeFedClusterInput, parseApiEndpoint, type SecretInput } from './cluster-config.js';
import { type ClientOptions, DynamicClient } from './dynamic-client.js';

/**
 * Annotation on a host token Secret: the name of the one KubeFedCluster (in the Secret's
 * namespace) whose member the token may be sent to. An annotation rather than a label: cluster
 * names may be 253 characters long, label values only 63.
 */
export const CLUSTER_NAME_ANNOTATION = 'kubefed.io/cluster-name';

/**
 * Annotation on a host token Secret: `sha256:<hex>` of the connection settings of the
 * KubeFedCluster the token was issued for ({@link connectionDigest}). The token is sent only
 * while the KubeFedCluster's settings have that digest.
 */
export const CLUSTER_CONNECTION_ANNOTATION = 'kubefed.io/cluster-connection';

/**
 * The digest bound in {@link CLUSTER_CONNECTION_ANNOTATION}: `sha256:` and the hex SHA-256 of
 * the JSON array [endpoint, caBundle, proxyURL, sorted disabledTLSValidations], the endpoint
 * normalized as the client connects to it (`member:6443` and `https://member:6443/` are one
 * endpoint), absent fields as `""` / `[]`. Pure.
 */
export function connectionDigest(spec: Omit<KubeFedClusterInput['spec'], 'secretRef'>): string {
  let endpoint = spec.apiEndpoint.trim();
  try {
    endpoint = parseApiEndpoint(endpoint);
  } catch {
    // A malformed endpoint is refused when the client is built; here it only has to differ.
  }
  const disabled = [...(spec.disabledTLSValidations ?? [])].sort();
  const canonical = JSON.stringify([endpoint, spec.caBundle ?? '', spec.proxyURL ?? '', disabled]);
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}

/** The parts of the referenced Secret the binding check and the client use. */
export interface BoundSecretInput extends SecretInput {
  metadata?: { name?: string | undefined; namespace?: string | undefined; annotations?: Record<string, string> | undefined } | undefined;
}

/** Why the token of a Secret must not be used for a KubeFedCluster. */
export interface SecretBindingProblem {
  /**
   * `unbound`: no (or an empty) {@link CLUSTER_NAME_ANNOTATION}; `boundElsewhere`: it names
   * another cluster; `connectionUnbound`: no {@link CLUSTER_CONNECTION_ANNOTATION};
   * `connectionChanged`: the KubeFedCluster's connection settings differ from the bound ones.
   */
  readonly kind: 'unbound' | 'boundElsewhere' | 'connectionUnbound' | 'connectionChanged';
  /** `<namespace>/<name>` of the Secret. */
  readonly secret: string;
  /** The KubeFedCluster that asked for the token. */
  readonly cluster: string;
  /** The cluster the Secret is bound to (`boundElsewhere` only). */
  readonly boundTo?: string | undefined;
  /** One line for conditions, events and logs: names the Secret and the cluster, never the token. */
  readonly message: string;
}

/**
 * Whether the token of `secret` may be used for `cluster`: undefined when the Secret's
 * {@link CLUSTER_NAME_ANNOTATION} is exactly the cluster's name and its
 * {@link CLUSTER_CONNECTION_ANNOTATION} the {@link connectionDigest} of the cluster's spec,
 * else the problem. Pure.
 */
export function secretBindingProblem(cluster: KubeFedClusterInput, secret: BoundSecretInput): SecretBindingProblem | undefined {
  const name = cluster.metadata.name ?? '';
  const namespace = secret.metadata?.namespace ?? cluster.metadata.namespace ?? KUBEFED_NAMESPACE_DEFAULT;
  const secretName = secret.metadata?.name ?? cluster.spec.secretRef.name;
  const shown = `${namespace}/${secretName}`;
  const boundTo = secret.metadata?.annotations?.[CLUSTER_NAME_ANNOTATION];
  if (boundTo === name && name !== '') return connectionProblem(cluster, secret, shown);
  if (boundTo === undefined || boundTo === '') {
    return {
      kind: 'unbound',
      secret: shown,
      cluster: name,
      message:
        `secret ${shown} is not bound to a cluster (no ${CLUSTER_NAME_ANNOTATION} annotation): its token is not used for ${name}; ` +
        `if it holds the token of ${name}, bind it with "kubectl annotate secret -n ${namespace} ${secretName} ${CLUSTER_NAME_ANNOTATION}=${name}", ` +
        `or re-run "kubefedctl join ${name} --error-on-existing=false"`,
    };
  }
  return {
    kind: 'boundElsewhere',
    secret: shown,
    cluster: name,
    boundTo,
    message: `secret ${shown} is bound to cluster ${boundTo}, not to ${name} (annotation ${CLUSTER_NAME_ANNOTATION}): its token is not used for ${name}`,
  };
}

/** Whether the KubeFedCluster's connection settings are those the Secret is bound to (see {@link CLUSTER_CONNECTION_ANNOTATION}). */
function connectionProblem(cluster: KubeFedClusterInput, secret: BoundSecretInput, shown: string): SecretBindingProblem | undefined {
  const name = cluster.metadata.name ?? '';
  const bound = secret.metadata?.annotations?.[CLUSTER_CONNECTION_ANNOTATION] ?? '';
  const current = connectionDigest(cluster.spec);
  if (bound === current) return undefined;
  const [namespace, secretName] = shown.split('/');
  const rebind =
    `if these settings are right, re-run "kubefedctl join ${name} --error-on-existing=false", ` +
    `or bind them with "kubectl annotate --overwrite secret -n ${namespace ?? ''} ${secretName ?? ''} ${CLUSTER_CONNECTION_ANNOTATION}=${current}"`;
  const base = { secret: shown, cluster: name };
  if (bound === '') {
    return {
      ...base,
      kind: 'connectionUnbound',
      message: `secret ${shown} is not bound to the connection settings of ${name} (no ${CLUSTER_CONNECTION_ANNOTATION} annotation): its token is not sent; ${rebind}`,
    };
  }
  return {
    ...base,
    kind: 'connectionChanged',
    message:
      `the connection settings of ${name} (spec.apiEndpoint "${cluster.spec.apiEndpoint}", caBundle, proxyURL, disabledTLSValidations) ` +
      `differ from those secret ${shown} is bound to (annotation ${CLUSTER_CONNECTION_ANNOTATION}): its token is not sent; ${rebind}`,
  };
}

/** The token Secret of a KubeFedCluster is not bound to it (see {@link secretBindingProblem}); nothing was sent. */
export class SecretNotBoundError extends ConfigError {
  readonly problem: SecretBindingProblem;

  constructor(problem: SecretBindingProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

/**
 * The client of a member cluster from its KubeFedCluster and token Secret, after checking that
 * the Secret is bound to that cluster. Every member client the control plane and kubefedctl
 * build from a KubeFedCluster comes from here. Throws {@link SecretNotBoundError} (no client, no
 * connection) or, for a malformed spec or Secret, ConfigError.
 */
export function memberClientFromSecret(cluster: KubeFedClusterInput, secret: BoundSecretInput, options: ClientOptions = {}): DynamicClient {
  const problem = secretBindingProblem(cluster, secret);
  if (problem !== undefined) throw new SecretNotBoundError(problem);
  return DynamicClient.fromKubeFedCluster(cluster, secret, options);
}

/**
 * Reads the Secret named by `cluster.spec.secretRef` through `host` (in the KubeFedCluster's
 * namespace, default `kube-federation-system`) and builds the member client with
 * {@link memberClientFromSecret}. Rejects with ApiError (e.g. NotFound), SecretNotBoundError or
 * ConfigError.
 */
export async function memberClientFromHost(
  host: DynamicClient,
  cluster: KubeFedClusterInput,
  options: ClientOptions = {},
): Promise<DynamicClient> {
  const namespace = cluster.metadata.namespace ?? KUBEFED_NAMESPACE_DEFAULT;
  const secret = await host.resource(RESOURCES.secrets, namespace).get(cluster.spec.secretRef.name);
  return memberClientFromSecret(cluster, secret, options);
}
