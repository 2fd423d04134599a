import { KubeFedError } from '@kubefed/api';
import { type DynamicClient, HttpDiscovery, isNotFound } from '@kubefed/client';
import {
  type Clock,
  Controller,
  type Fleet,
  InformerHolds,
  type Logger,
  type Runnable,
  type RuntimeMetrics,
  type SharedInformers,
  silentLogger,
  systemClock,
  withoutManagedFields,
} from '@kubefed/runtime';
import { MemberWatches } from '../sync/reconcile/member-watches.js';
import { ServiceStatusReconciler } from './service-status-reconciler.js';
import type { ServiceStatusType } from './service-status-type.js';

/** Options of {@link ServiceStatusController}. */
export interface ServiceStatusControllerOptions {
  /** Client of the host cluster. */
  readonly host: DynamicClient;
  /**
   * The host's shared informers (`Manager.sharedInformers(host)`), where the informers on the
   * federated and the status type are held (the federated one is the `services` sync
   * controller's too); default a set of this controller's own over `host`.
   */
  readonly informers?: SharedInformers | undefined;
  /** Host client of the status object writes (reporting only, on a rate budget of its own); default `host`. */
  readonly reporting?: DynamicClient | undefined;
  readonly type: ServiceStatusType;
  /** The member clusters: Ready ones with their clients, readiness changes, and the shared member informers. */
  readonly fleet: Pick<Fleet, 'readyClusters' | 'onChange' | 'subscribe' | 'informer'>;
  /**
   * Resolves once the readiness of every registered member cluster is known (the cluster health
   * controller's `clustersKnown`): the first reconcile waits for it. Default none.
   */
  readonly clustersKnown?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /** Watch only this namespace, in the host and in the members (a Namespaced control plane); default every namespace. */
  readonly namespace?: string | undefined;
  /** Federated objects reconciled in parallel (KubeFedConfig `spec.statusController.maxConcurrentReconciles`); default 1. */
  readonly maxConcurrentReconciles?: number | undefined;
  readonly logger?: Logger | undefined;
  readonly clock?: Clock | undefined;
  /** Where the controller, its work queue and its informers report; default none. Pass the manager's. */
  readonly metrics?: RuntimeMetrics | undefined;
}

/**
 * The status controller of the `services` FTC (KubeFed's legacy FederatedServiceStatus
 * collection, `pkg/controller/status/controller.go`), as one runnable: informers on the
 * federated type and the status type in the host (held from the shared ones), {@link MemberWatches} on the managed member
 * copies in every Ready cluster (status changes included; the Fleet's shared informers), and a controller running
 * {@link ServiceStatusReconciler}. A change of any of them enqueues the federated object's key;
 * a change of the set of Ready clusters enqueues every federated object. Check first that the
 * host serves the status type ({@link assertStatusTypeServed}): its informer would never sync.
 */
export class ServiceStatusController implements Runnable {
  readonly name: string;
  readonly needLeaderElection = true;
  readonly #o: ServiceStatusControllerOptions;

  constructor(options: ServiceStatusControllerOptions) {
    this.#o = options;
    this.name = `status-${options.type.name}`;
  }

  async start(signal: AbortSignal): Promise<void> {
    const o = this.#o;
    const logger = o.logger ?? silentLogger();
    const clock = o.clock ?? systemClock;
    // Without shared informers, this run's own: started and stopped with it.
    const holds = InformerHolds.onGivenOrOwn(o.informers, `${this.name}-informers`, {
      cluster: 'host',
      client: o.host,
      logger,
      metrics: o.metrics,
      clock,
    });
    const objects = holds.acquire({ resource: o.type.federatedGvr, namespace: o.namespace, transform: withoutManagedFields });
    const statuses = holds.acquire({ resource: o.type.statusGvr, namespace: o.namespace });
    const members = new MemberWatches({
      type: o.type.sync,
      statusChanges: () => true,
      namespace: o.namespace,
      fleet: o.fleet,
      logger,
      clock,
      onChange: (_cluster, key) => controller.queue.add(key),
    });
    const reconciler = new ServiceStatusReconciler({
      host: o.reporting ?? o.host,
      type: o.type,
      objects: objects.store,
      statuses: statuses.store,
      readyClusters: () => o.fleet.readyClusters(),
      memberCopies: members,
    });
    const maxConcurrentReconciles = o.maxConcurrentReconciles ?? 1;
    const controller = new Controller({
      name: this.name,
      reconciler,
      maxConcurrentReconciles,
      ...(o.metrics === undefined
        ? {}
        : {
            metrics: {
              controller: o.metrics.controller(this.name, { maxConcurrentReconciles }),
              queue: o.metrics.workQueue(this.name),
            },
          }),
      logger,
      clock,
      ...(o.clustersKnown === undefined ? {} : { startAfter: o.clustersKnown }),
    })
      .watch(objects)
      .watch(statuses);
    members.sync(o.fleet.readyClusters());
    const offReady = o.fleet.onChange(() => {
      members.sync(o.fleet.readyClusters());
      for (const key of objects.store.keys()) controller.queue.add(key, { priority: 'low' });
    });
    try {
      await Promise.all([holds.start(signal), controller.start(signal)]);
    } finally {
      offReady();
      await members.stop();
    }
  }
}

/**
 * Resolves when `host` serves the status type of `type`.
 *
 * @throws ServiceStatusTypeNotServedError naming `spec.statusType` when it does not; API errors other than NotFound as they are.
 */
export async function assertStatusTypeServed(host: DynamicClient, type: ServiceStatusType): Promise<void> {
  const { group, version, resource } = type.statusGvr;
  let served: boolean;
  try {
    served = (await new HttpDiscovery(host).serverResources(group, version)).some((r) => r.name === resource);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    served = false;
  }
  if (served) return;
  const gvr = `${resource}${group === '' ? '' : `.${group}`}/${version}`;
  throw new ServiceStatusTypeNotServedError(`spec.statusType: the host API server does not serve ${gvr} (kind ${type.statusKind})`);
}

/** The status type of the FTC is not served by the host, so no status controller can run for it (it is restarted with backoff). */
export class ServiceStatusTypeNotServedError extends KubeFedError {}
