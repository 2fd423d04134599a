import type { DynamicClient, KubeObject } from '@kubefed/client';
import { type Controller, type Fleet, type Informer, listerWatcherFor, type Manager, type Runnable, untilAborted } from '@kubefed/runtime';
import { assertStatusTypeServed, ServiceStatusController } from '../service-status/service-status-controller.js';
import { StatusControllers } from '../service-status/status-controllers.js';
import type { SyncScope } from '../sync/shared/sync-settings.js';
import type { SyncType } from '../sync/sync-type.js';
import { FEDERATED_TYPE_CONFIG_GVR, FederatedTypeConfigReconciler } from './federated-type-config-reconciler.js';

/** Options of {@link registerFederatedTypeConfigController}. */
export interface FederatedTypeConfigControllerOptions {
  /** Client of the host cluster. */
  readonly host: DynamicClient;
  /** Client of the host for the status writes of the status controllers; default `host`. */
  readonly reporting?: DynamicClient | undefined;
  /** Where FTCs live (`kubefedNamespace`), and the control plane's scope. */
  readonly scope: SyncScope;
  /** The member clusters (for the status controller of `services`). */
  readonly fleet: Pick<Fleet, 'readyClusters' | 'isReady' | 'onChange' | 'subscribe' | 'informer'>;
  /** Resolves once the readiness of every member cluster is known (the cluster health controller's `clustersKnown`); default none. */
  readonly clustersKnown?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /** Builds the sync controller of an enabled type: `SyncPath.syncController` of `../sync/register-sync-path.ts`. */
  readonly syncController: (type: SyncType) => Runnable;
  /** FederatedServices reconciled in parallel by the status controller of `services` (KubeFedConfig `spec.statusController.maxConcurrentReconciles`); default 1. */
  readonly maxConcurrentStatusReconciles?: number | undefined;
  /** The KubeFedConfig feature gate `RawResourceStatusCollection`: true runs no status controller. Default always true (no status controller). */
  readonly rawResourceStatusCollection?: (() => boolean) | undefined;
  /** The KubeFedConfig feature gate `PushReconciler` (false pauses propagation); default always true. */
  readonly pushReconciler?: (() => boolean) | undefined;
  /** Subscribes to KubeFedConfig changes, so that a change of `PushReconciler` applies at once; returns the unsubscribe function. */
  readonly onConfigChange?: ((listener: () => void) => () => void) | undefined;
}

/** What {@link registerFederatedTypeConfigController} added to the manager. */
export interface FederatedTypeConfigControllerHandle {
  readonly controller: Controller;
  readonly informer: Informer<KubeObject>;
  /** The sync type of a running sync controller, by FTC name. */
  readonly syncType: (name: string) => SyncType | undefined;
}

/**
 * Adds the FederatedTypeConfig controller to `manager` (docs/kubefed-compatibility.md §4.3): an
 * informer on FTCs in the kubefed namespace (no resync) and the `federatedtypeconfig` controller,
 * which decides which federated types run: it starts the sync controller `syncController` builds
 * for each FTC with propagation Enabled, and the {@link ServiceStatusController} of `services` when
 * its status collection asks for one and `rawResourceStatusCollection` is off. Stopping the
 * manager stops every sync controller.
 */
export function registerFederatedTypeConfigController(
  manager: Manager,
  options: FederatedTypeConfigControllerOptions,
): FederatedTypeConfigControllerHandle {
  const { host, scope } = options;
  const namespace = scope.kubefedNamespace;
  const informer = manager.informer({
    name: 'federatedtypeconfigs',
    listerWatcher: listerWatcherFor(host.resource(FEDERATED_TYPE_CONFIG_GVR, namespace)),
  });
  const reconciler: FederatedTypeConfigReconciler = new FederatedTypeConfigReconciler({
    host,
    scope: scope.scope ?? 'Cluster',
    pushReconciler: options.pushReconciler,
    ftcs: informer.store,
    syncController: options.syncController,
    onChildError: (name, err) =>
      manager.logger.error({ controller: `sync-${name}`, err }, 'sync controller failed; restarting it with backoff'),
    requeue: (key) => controller.queue.add(key),
    rawResourceStatusCollection: options.rawResourceStatusCollection ?? (() => true),
    statusControllers: new StatusControllers({
      check: (type) => assertStatusTypeServed(host, type),
      build: (type) =>
        new ServiceStatusController({
          host,
          informers: manager.sharedInformers(host),
          reporting: options.reporting,
          type,
          fleet: options.fleet,
          clustersKnown: options.clustersKnown,
          namespace: scope.scope === 'Namespaced' ? namespace : undefined,
          maxConcurrentReconciles: options.maxConcurrentStatusReconciles,
          logger: manager.logger,
          metrics: manager.metrics,
        }),
      onError: (name, err) =>
        manager.logger.error({ controller: `status-${name}`, err }, 'status controller failed; restarting it with backoff'),
      requeue: (key) => controller.queue.add(key),
    }),
  });
  // Added before the controller so that it stops after it: children stop once no reconcile runs.
  manager.add({
    name: 'federatedtypeconfig-children',
    start: async (signal) => {
      await untilAborted(signal);
      await reconciler.close();
    },
  });
  const controller = manager.controller({ name: 'federatedtypeconfig', reconciler }).watch(informer);
  options.onConfigChange?.(() => {
    for (const key of informer.store.keys()) controller.queue.add(key);
  });
  return { controller, informer, syncType: (name) => reconciler.syncType(name) };
}
