/**
 * Which KubeFedCluster may use the token of a host Secret. `spec.secretRef` only names a Secret:
 * without a binding, anyone allowed to write a KubeFedCluster could point one at another member's
 * token Secret and at a server of their own, and the control plane would send them that token.
 * The Secret therefore names its cluster (annotation {@link CLUSTER_NAME_ANNOTATION}, written by
 * `kubefedctl join`), and every member client built from a KubeFedCluster goes through
 * {@link memberClientFromSecret}, which refuses any other pairing before a connection exists.
 * Changing the binding takes write access to Secrets, which already means access to the tokens.
 */
import { KUBEFED_NAMESPACE_DEFAULT } from '@kubefed/api';
import { ConfigError } from './api-error.js';
import type { KubeFedClusterInput, SecretInput } from './cluster-config.js';
import { DynamicClient } from './dynamic-client.js';
import type { ClientOptions } from './dynamic-client.js';

/**
 * Annotation on a host token Secret: the name of the one KubeFedCluster (in the Secret's
 * namespace) whose member the token may be sent to. An annotation rather than a label: cluster
 * names may be 253 characters long, label values only 63.
 */
export const CLUSTER_NAME_ANNOTATION = 'kubefed.io/cluster-name';

/** The parts of the referenced Secret the binding check and the client use. */
export interface BoundSecretInput extends SecretInput {
  metadata?: { name?: string | undefined; namespace?: string | undefined; annotations?: Record<string, string> | undefined } | undefined;
}

/** Why the token of a Secret must not be used for a KubeFedCluster. */
export interface SecretBindingProblem {
  /** `unbound`: no (or an empty) {@link CLUSTER_NAME_ANNOTATION}; `boundElsewhere`: it names another cluster. */
  readonly kind: 'unbound' | 'boundElsewhere';
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
 * {@link CLUSTER_NAME_ANNOTATION} is exactly the cluster's name, else the problem. Pure.
 */
export function secretBindingProblem(cluster: KubeFedClusterInput, secret: BoundSecretInput): SecretBindingProblem | undefined {
  const name = cluster.metadata.name ?? '';
  const namespace = secret.metadata?.namespace ?? cluster.metadata.namespace ?? KUBEFED_NAMESPACE_DEFAULT;
  const secretName = secret.metadata?.name ?? cluster.spec.secretRef.name;
  const shown = `${namespace}/${secretName}`;
  const boundTo = secret.metadata?.annotations?.[CLUSTER_NAME_ANNOTATION];
  if (boundTo === name && name !== '') return undefined;
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
export async function memberClientFromHost(host: DynamicClient, cluster: KubeFedClusterInput, options: ClientOptions = {}): Promise<DynamicClient> {
  const namespace = cluster.metadata.namespace ?? KUBEFED_NAMESPACE_DEFAULT;
  const secret = await host.resource({ group: '', version: 'v1', resource: 'secrets' }, namespace).get(cluster.spec.secretRef.name);
  return memberClientFromSecret(cluster, secret, options);
}
