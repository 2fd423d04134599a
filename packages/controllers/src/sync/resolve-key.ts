/**
 * Mapping a queued key to the federated object and target object it concerns
 * (KUBEFED-REFERENCE §4.4.2).
 */
import { UNPROPAGATED_NAMESPACES } from '@kubefed/api';

/** A namespace/name pair; `namespace` is `""` for cluster-scoped objects. */
export interface ObjectKey {
  readonly namespace: string;
  readonly name: string;
}

/** Result of {@link resolveSyncKey}. */
export type ResolvedKey =
  | { readonly ignore: true }
  | { readonly ignore: false; readonly federated: ObjectKey; readonly target: ObjectKey };

/** Options of {@link resolveSyncKey}. */
export interface ResolveKeyOptions {
  /** The target type is Namespace. */
  readonly targetIsNamespace: boolean;
  /** The control plane's namespace (never propagated as a Namespace target). */
  readonly kubefedNamespace: string;
}

/**
 * Resolves a key (from the federated informer, a member informer or a host Namespace event):
 * - Namespace target: keys naming `kube-system`, `kube-public`, `default` or the kubefed
 *   namespace are ignored; `N` (a Namespace or member event) and `N/N` (a FederatedNamespace
 *   event) both map to the federated object `N/N` and the target Namespace `N`;
 * - other targets: the federated object and the member object share namespace and name.
 */
export function resolveSyncKey(key: ObjectKey, options: ResolveKeyOptions): ResolvedKey {
  if (!options.targetIsNamespace) return { ignore: false, federated: key, target: key };
  const name = key.namespace === '' ? key.name : key.namespace;
  if ((UNPROPAGATED_NAMESPACES as readonly string[]).includes(name) || name === options.kubefedNamespace) return { ignore: true };
  return { ignore: false, federated: { namespace: name, name }, target: { namespace: '', name } };
}

/** A FederatedNamespace is valid only when its name equals its namespace (else event `InvalidName`, ignored). */
export function isValidFederatedNamespace(meta: { readonly name?: string | undefined; readonly namespace?: string | undefined }): boolean {
  return meta.name !== undefined && meta.name !== '' && meta.name === meta.namespace;
}
