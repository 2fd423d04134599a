import type { SyncCaches, SyncType } from '../sync-type.js';

/**
 * The federated types whose sync controller runs in this process, with the informer caches it
 * holds (the federated objects, their FederatedNamespaces, the managed member copies): the
 * workers of the same process run the jobs of these types alone, and read these caches instead
 * of the API servers. Kept by the sync controllers (`reconcile/sync-controller.ts`), read by the
 * worker (`worker/sync-worker.ts`): neither knows the other.
 */
export class RunningSyncTypes {
  readonly #running = new Map<string, { readonly type: SyncType; readonly caches: SyncCaches }>();

  /** Records that the sync controller of `type` runs with `caches`; the returned function ends the record (idempotent). */
  add(type: SyncType, caches: SyncCaches): () => void {
    const entry = { type, caches };
    this.#running.set(type.name, entry);
    return () => {
      if (this.#running.get(type.name) === entry) this.#running.delete(type.name);
    };
  }

  /** The sync type of a running sync controller, by FTC name. */
  type(name: string): SyncType | undefined {
    return this.#running.get(name)?.type;
  }

  /** The caches of a running sync controller, by FTC name. */
  caches(name: string): SyncCaches | undefined {
    return this.#running.get(name)?.caches;
  }
}
