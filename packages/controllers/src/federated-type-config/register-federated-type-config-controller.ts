import type { DynamicClient, KubeObject } from '@kubefed/client';
import type { JobProducer, SyncProcessor } from '@kubefed/queue';
import { type Controller, type EventSink, type Informer, listerWatcherFor, type Manager, untilAborted } from '@kubefed/runtime';
import type { MemberFleet } from '../kubefed-cluster/member-fleet.js';
import type { PlacementCluster } from '../placement/index.js';
import { assertStatusTypeServed, ServiceStatusController } from '../service-status/service-status-controller.js';
import { StatusControllers } from '../service-status/status-controllers.js';
import { SyncController } from '../sync/reconcile/sync-controller.js';
import { type SyncSettings, SyncWorker } from '../sync/worker/sync-worker.js';
import { OwnWrites } from '../sync/worker/own-writes.js';
import { type StaleOutcomeReason, StatusRecorder } from '../sync/status/status-recorder.js';
import type { SyncType } from '../sync/sync-type.js';
import { VersionStore, watchPropagatedVersions } from '../sync/worker/version-store.js';
import { FEDERATED_TYPE_CONFIG_GVR, FederatedTypeConfigReconciler } from './federated-type-config-reconciler.js';

/** Options of {@link registerFederatedTypeConfigController}. */
export interface FederatedTypeConfigControllerOptions {
  /** Client of the host cluster. */
  host: DynamicClient;
  /**
   * Client of the host for the writes that only report: the status of federated objects. Give
   * it connections and a rate budget of its own so that a burst of status writes (every object
   * after a cluster's readiness changed) never delays the host requests of event-driven work.
   * Default `host`.
   */
  reporting?: DynamicClient;
  /** The kubefed namespace (where FTCs and KubeFedClusters live). */
  namespace: string;
  /** The member clusters, their readiness and clients (engaged by the cluster health controller). */
  fleet: MemberFleet;
  /**
   * Resolves once the readiness of every registered member cluster is known (the cluster health
   * controller's `clustersKnown`): the sync and status controllers' first reconciles wait for it,
   * so that a restart does not report every placed cluster `ClusterNotReady`. Default none.
   */
  clustersKnown?: (signal: AbortSignal) => Promise<void>;
  /** Every registered KubeFedCluster, e.g. the KubeFedCluster informer's `store.list()`. */
  clusters: () => readonly PlacementCluster[];
  /** Where sync jobs go. */
  producer: JobProducer;
  /** Subscribes to KubeFedCluster label changes (see `SyncControllerOptions.onClusterLabelsChange`); default none. */
  onClusterLabelsChange?: (listener: () => void) => () => void;
  /** Outcomes shared by workers and status writers in this process; default a new one. */
  recorder?: StatusRecorder;
  /** Scope of the control plane; default `Cluster`. */
  scope?: 'Cluster' | 'Namespaced';
  /** The KubeFedConfig settings the sync controllers and workers use (read on every job); default adoption Enabled and remote status collection on. */
  settings?: () => SyncSettings;
  /** Where Warning events about failed member operations are recorded; default none. */
  events?: EventSink;
  /** Watch managed member copies to revert drift at once; default true. */
  watchMembers?: boolean;
  /** Status flush period of each sync controller; default 200 ms. */
  statusFlushMs?: number;
  /** How long a Ready placed cluster may take to report before the status is written without it (see `StatusWriterOptions.reportTimeoutMs`); default 30 s. */
  reportTimeoutMs?: number;
  /** Poll period while member copies are being removed; default 500 ms. */
  removalPollMs?: number;
  /** Resync period of each sync controller (repairs drift in members); default 5 min. */
  resyncPeriodMs?: number;
  /** Federated objects of one type reconciled in parallel by its sync controller (KubeFedConfig `spec.syncController.maxConcurrentReconciles`); default 4. */
  maxConcurrentReconciles?: number;
  /** FederatedServices reconciled in parallel by the status controller of `services` (KubeFedConfig `spec.statusController.maxConcurrentReconciles`); default 1. */
  maxConcurrentStatusReconciles?: number;
  /** Record written versions in (Cluster)PropagatedVersions in the host (KubeFed's way); default true. False keeps them in memory. */
  persistVersions?: boolean;
  /**
   * Watch the (Cluster)PropagatedVersions, so that a job of this process's workers finding its
   * member copy current makes no host request, and the sync controllers enqueue no job for a
   * copy the caches show current; default false (a GET per read, and a job per target cluster).
   */
  cacheVersions?: boolean;
  /** The KubeFedConfig feature gate `PushReconciler` (false pauses propagation); default always true. */
  pushReconciler?: () => boolean;
  /** Subscribes to KubeFedConfig changes, so that a change of `PushReconciler` applies at once; returns the unsubscribe function. */
  onConfigChange?: (listener: () => void) => () => void;
}

/** What {@link registerFederatedTypeConfigController} added to the manager. */
export interface FederatedTypeConfigControllerHandle {
  readonly controller: Controller;
  readonly informer: Informer<KubeObject>;
  readonly recorder: StatusRecorder;
  /** The sync type of a running sync controller, by FTC name. */
  readonly syncType: (name: string) => SyncType | undefined;
  /** The sync worker for this process's types: run it in a `SyncWorkerHost`. */
  readonly processor: SyncProcessor;
}

/**
 * Adds the FederatedTypeConfig controller to `manager` (docs/kubefed-compatibility.md §4.3): an informer
 * on FTCs in the kubefed namespace (no resync) and the `federatedtypeconfig` controller, which
 * starts a {@link SyncController} per FTC with propagation Enabled (their host informers come
 * from `manager.sharedInformers(host)`, shared with every other reader in the process), and the
 * {@link ServiceStatusController} of `services` when its status collection asks for one and the
 * `RawResourceStatusCollection` gate of `settings` is off. Also returns the sync job
 * processor for this process's workers (it knows the types whose controllers run here).
 * Stopping the manager stops every sync controller.
 */
export function registerFederatedTypeConfigController(
  manager: Manager,
  options: FederatedTypeConfigControllerOptions,
): FederatedTypeConfigControllerHandle {
  const recorder =
    options.recorder ??
    new StatusRecorder({
      logger: manager.logger,
      onStale: staleOutcomeCounter(manager),
    });
  // Member writes of the workers below, so that the member watches of the sync controllers skip their echo.
  const ownWrites = new OwnWrites();
  const versions = options.persistVersions === false ? undefined : versionStore(manager, options);
  const env = { host: options.host, clusters: options.clusters, scope: options.scope ?? 'Cluster' } as const;
  const informer = manager.informer({
    name: 'federatedtypeconfigs',
    listerWatcher: listerWatcherFor(options.host.resource(FEDERATED_TYPE_CONFIG_GVR, options.namespace)),
  });
  const reconciler: FederatedTypeConfigReconciler<SyncController> = new FederatedTypeConfigReconciler({
    host: options.host,
    scope: env.scope,
    pushReconciler: options.pushReconciler,
    ftcs: informer.store,
    syncController: (type) =>
      new SyncController({
        ...env,
        type,
        fleet: options.fleet,
        clustersKnown: options.clustersKnown,
        informers: manager.sharedInformers(options.host),
        producer: options.producer,
        recorder,
        kubefedNamespace: options.namespace,
        events: options.events,
        reporting: options.reporting,
        statusFlushMs: options.statusFlushMs,
        reportTimeoutMs: options.reportTimeoutMs,
        removalPollMs: options.removalPollMs,
        resyncPeriodMs: options.resyncPeriodMs,
        onClusterLabelsChange: options.onClusterLabelsChange,
        remoteStatusCollection: options.settings === undefined ? undefined : () => options.settings?.().remoteStatusCollection ?? true,
        watchMembers: options.watchMembers,
        maxConcurrentReconciles: options.maxConcurrentReconciles,
        ownWrites,
        versions,
        logger: manager.logger,
        metrics: manager.metrics,
      }),
    onChildError: (name, err) =>
      manager.logger.error({ controller: `sync-${name}`, err }, 'sync controller failed; restarting it with backoff'),
    requeue: (key) => controller.queue.add(key),
    // No settings: remote status collection is on (see `settings`), so no status controller runs.
    rawResourceStatusCollection: () => options.settings?.().remoteStatusCollection ?? true,
    statusControllers: new StatusControllers({
      check: (type) => assertStatusTypeServed(options.host, type),
      build: (type) =>
        new ServiceStatusController({
          host: options.host,
          informers: manager.sharedInformers(options.host),
          reporting: options.reporting,
          type,
          fleet: options.fleet,
          clustersKnown: options.clustersKnown,
          namespace: env.scope === 'Namespaced' ? options.namespace : undefined,
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
  const worker = new SyncWorker({
    ...env,
    types: (name) => reconciler.syncType(name),
    caches: (name) => reconciler.syncRunnable(name)?.caches,
    memberClient: (cluster) => options.fleet.readyClient(cluster),
    kubefedNamespace: options.namespace,
    recorder,
    settings: options.settings,
    events: options.events,
    versionStore: versions,
    ownWrites,
  });
  const processor: SyncProcessor = (job, ctx) => worker.process(job, ctx);
  return { controller, informer, recorder, syncType: (name) => reconciler.syncType(name), processor };
}

/** The (Cluster)PropagatedVersion store of this process's workers, reading from watch-fed caches with `cacheVersions`. */
function versionStore(manager: Manager, options: FederatedTypeConfigControllerOptions): VersionStore {
  if (options.cacheVersions !== true) return new VersionStore(options.host);
  const namespace = (options.scope ?? 'Cluster') === 'Namespaced' ? options.namespace : undefined;
  return new VersionStore(options.host, { caches: watchPropagatedVersions(manager, { host: options.host, namespace }) });
}

/** `kubefed_sync_stale_outcomes_total{reason}`: outcomes the status recorder dropped (another object's UID, an older generation). */
function staleOutcomeCounter(manager: Manager): (reason: StaleOutcomeReason) => void {
  const counter = manager.metrics.counter(
    'kubefed_sync_stale_outcomes_total',
    'Sync outcomes dropped by the status writer: about another object of the same name (uid) or older than one applied (generation)',
    ['reason'],
  );
  return (reason) => counter.inc({ reason });
}
