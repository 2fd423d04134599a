import { MANAGED_LABEL, MANAGED_LABEL_TRUE } from '@kubefed/api';
import { type DynamicClient, isAlreadyExists, isConflict, isNotFound, type KubeObject } from '@kubefed/client';
import { done, type ReconcileContext, type ReconcileOutcome, type Reader, type Reconciler, retry, splitKey } from '@kubefed/runtime';
import type { MemberWatches } from '../sync/reconcile/member-watches.js';
import { clusterStatusOf, desiredStatusObject, updatedStatusObject } from './cluster-status.js';
import type { ServiceStatusType } from './service-status-type.js';

/** Options of {@link ServiceStatusReconciler}. */
export interface ServiceStatusReconcilerOptions {
  /** Client of the host cluster (the status objects are written with it). */
  readonly host: DynamicClient;
  readonly type: ServiceStatusType;
  /** The federated objects (an informer cache). */
  readonly objects: Reader<KubeObject>;
  /** The status objects (an informer cache). */
  readonly statuses: Reader<KubeObject>;
  /** Ready member clusters with their clients. */
  readonly readyClusters: () => ReadonlyMap<string, DynamicClient>;
  /** The managed member copies as watched; a cluster whose cache has not synced is asked directly. */
  readonly memberCopies: Pick<MemberWatches, 'managedCopy'>;
}

/**
 * Converges the status object (FederatedServiceStatus) of one federated object (KubeFed
 * `pkg/controller/status/controller.go`): a missing or terminating federated object needs
 * nothing (the garbage collector removes its status object through the ownerReference);
 * otherwise the status of its managed copy in every Ready cluster is gathered
 * ({@link clusterStatusOf}) and the status object created, or updated when its `clusterStatus`
 * differs. API errors are retried with backoff; AlreadyExists and Conflict (the cache lagging
 * a write) are retried without an error.
 */
export class ServiceStatusReconciler implements Reconciler {
  readonly #o: ServiceStatusReconcilerOptions;

  constructor(options: ServiceStatusReconcilerOptions) {
    this.#o = options;
  }

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileOutcome> {
    const fedObject = this.#o.objects.get(key);
    const deleting = fedObject?.metadata.deletionTimestamp !== undefined && fedObject.metadata.deletionTimestamp !== null;
    if (fedObject === undefined || deleting) return done();
    const clusterStatus = clusterStatusOf(await this.#memberCopies(key, ctx.signal));
    const { namespace, name } = splitKey(key);
    const client = this.#o.host.resource(this.#o.type.statusGvr, namespace);
    const existing = this.#o.statuses.get(key);
    try {
      if (existing === undefined) {
        await client.create(desiredStatusObject(this.#o.type, fedObject, clusterStatus));
        ctx.logger.debug({ name }, 'created the status object');
        return done();
      }
      const updated = updatedStatusObject(existing, clusterStatus);
      if (updated !== undefined) await client.update(updated);
      return done();
    } catch (err) {
      // The cache has not seen our last write yet: its watch event enqueues the key again.
      if (isAlreadyExists(err) || isConflict(err)) return retry('the status object changed meanwhile');
      throw err;
    }
  }

  /** The managed copy of `key` in every Ready cluster (`null` when there is none), from the watch caches or, before they synced, from the members. */
  async #memberCopies(key: string, signal: AbortSignal): Promise<Map<string, KubeObject | null>> {
    const copies = new Map<string, KubeObject | null>();
    const { namespace, name } = splitKey(key);
    const gvr = this.#o.type.sync.targetGvr;
    await Promise.all(
      [...this.#o.readyClusters()].map(async ([cluster, client]) => {
        let copy = this.#o.memberCopies.managedCopy(cluster, key);
        if (copy === undefined) {
          try {
            copy = await client.resource(gvr, namespace).get(name, { signal });
          } catch (err) {
            if (!isNotFound(err)) throw err;
            copy = null;
          }
          if (copy?.metadata.labels?.[MANAGED_LABEL] !== MANAGED_LABEL_TRUE) copy = null;
        }
        copies.set(cluster, copy);
      }),
    );
    return copies;
  }
}
