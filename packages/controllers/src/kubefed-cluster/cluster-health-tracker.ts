import type { DynamicClient } from '@kubefed/client';

/** Called with the names of the ready clusters after the set (or a ready cluster's client) changed. */
export type ReadyClustersListener = (ready: readonly string[]) => void;

/**
 * The member clusters that are Ready right now, with the client the health controller probes
 * them with: a small in-process view for later controllers in the same process (they may as
 * well read `KubeFedCluster.status` from the API). Written only by the cluster health
 * controller. Clients handed out stay owned by the controller: never close them; a client is
 * replaced (and the old one closed) when the cluster's spec or Secret changes, which is
 * announced through {@link onChange}.
 */
export class ClusterHealthTracker {
  readonly #ready = new Map<string, DynamicClient>();
  readonly #listeners = new Set<ReadyClustersListener>();

  /** Ready clusters by name. */
  readyClusters(): ReadonlyMap<string, DynamicClient> {
    return new Map(this.#ready);
  }

  /** Whether `name` is Ready. */
  isReady(name: string): boolean {
    return this.#ready.has(name);
  }

  /** Subscribes to changes; returns the unsubscribe function. A throwing listener is ignored. */
  onChange(listener: ReadyClustersListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Records `name` as ready with `client`, or as not ready (`undefined`). Notifies on change only. */
  set(name: string, client: DynamicClient | undefined): void {
    const current = this.#ready.get(name);
    if (current === client) return;
    if (client === undefined) this.#ready.delete(name);
    else this.#ready.set(name, client);
    const names = [...this.#ready.keys()].sort();
    for (const l of this.#listeners) {
      try {
        l(names);
      } catch {
        // a listener's failure must not break the health controller
      }
    }
  }
}
