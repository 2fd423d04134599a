/**
 * Which member copies the deletion of a federated object waits for (KubeFed
 * `pkg/controller/sync/controller.go`, `deleteFromClusters` and `ensureRemovedOrUnmanaged`).
 */
import { isDeleting, type KubeObject } from '@kubefed/client';

/**
 * The clusters of `copies` (the managed copies of the object, by cluster) that its deletion waits
 * for (docs/kubefed-compatibility.md §4.4.11 step 4): every one but the host cluster's own
 * Namespace once it is terminating, told by its uid `hostNamespaceUid` (the host joined as a
 * member; none: no copy is the host's). The user deleted that Namespace, which holds the
 * FederatedNamespace: it waits for the finalizer, so waiting for it would leave both stuck. A
 * host Namespace that is not terminating is waited for: it is unlabelled, never deleted, and
 * then no longer a managed copy.
 */
export function awaitedRemovals(copies: ReadonlyMap<string, KubeObject>, hostNamespaceUid: string | undefined): string[] {
  const isTerminatingHostNamespace = (copy: KubeObject): boolean =>
    hostNamespaceUid !== undefined && hostNamespaceUid !== '' && copy.metadata.uid === hostNamespaceUid && isDeleting(copy);
  return [...copies].filter(([, copy]) => !isTerminatingHostNamespace(copy)).map(([cluster]) => cluster);
}
