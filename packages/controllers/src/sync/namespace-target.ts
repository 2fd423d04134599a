/**
 * Which member Namespace a FederatedNamespace stands for (KubeFed
 * `pkg/controller/sync/controller.go`, `reconcile`): its name must equal its namespace, and the
 * member Namespace is named after the namespace the object lives in, never after anything else
 * a writer controls. Whoever may create a FederatedNamespace in `N` can thus only ever propagate
 * (create, adopt, relabel or delete) the member Namespace `N`.
 */
import { UNPROPAGATED_NAMESPACES } from '@kubefed/api';

/** What a FederatedNamespace propagates: the member Namespace `name`, or nothing and why. */
export type NamespaceTarget =
  | { readonly propagate: true; readonly name: string }
  /**
   * `InvalidName`: its name differs from its namespace (Warning event `InvalidName`, ignored).
   * `Unpropagated`: `kube-system`, `kube-public`, `default` or the kubefed namespace: the object
   * only constrains the placement of the objects inside that namespace.
   */
  | { readonly propagate: false; readonly reason: 'InvalidName' | 'Unpropagated' };

/** The {@link NamespaceTarget} of a FederatedNamespace with metadata `meta`. */
export function namespaceTargetOf(
  meta: { readonly name?: string | undefined; readonly namespace?: string | undefined },
  kubefedNamespace: string,
): NamespaceTarget {
  const namespace = meta.namespace ?? '';
  if (namespace === '' || meta.name !== namespace) return { propagate: false, reason: 'InvalidName' };
  if ((UNPROPAGATED_NAMESPACES as readonly string[]).includes(namespace) || namespace === kubefedNamespace)
    return { propagate: false, reason: 'Unpropagated' };
  return { propagate: true, name: namespace };
}
