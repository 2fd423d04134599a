import { type DynamicClient, jsonEqual, type KubeObject } from '@kubefed/client';
import { listerWatcherFor, type Clock, type Controller, type Informer, type Manager } from '@kubefed/runtime';
import type { ControlPlaneScope } from './cluster-health.js';
import { ClusterHealthTracker } from './cluster-health-tracker.js';
import { staticHealthCheckSettings, type HealthCheckSettingsSource } from './health-check-settings.js';
import { KUBEFED_CLUSTER_GVR, KubeFedClusterReconciler } from './kubefed-cluster-reconciler.js';

/** Options of {@link registerKubeFedClusterController}. */
export interface KubeFedClusterControllerOptions {
  /** Client of the host cluster. */
  host: DynamicClient;
  /** The kubefed namespace (where KubeFedClusters and their Secrets live). */
  namespace: string;
  /** Health-check settings, read at every probe; default KubeFed's defaults, never changing. */
  settings?: HealthCheckSettingsSource;
  /** Where ready clusters are published; default a new tracker (returned). */
  tracker?: ClusterHealthTracker;
  /** Clusters probed in parallel; default 10. */
  maxConcurrentReconciles?: number;
  /** KubeFedCluster informer resync; default 10 min (KubeFed's). */
  resyncPeriodMs?: number;
  /** Rate limit of each member cluster's client (health probes and sync workers share it); default 100 QPS, burst 200. */
  memberRateLimit?: { qps: number; burst: number };
  /**
   * The running control plane's scope: clusters joined for another one (annotation
   * `kubefed.io/join-scope`) are reported `Ready=False` `JoinScopeMismatch` and not used.
   * Default none: join scopes are not checked.
   */
  scope?: ControlPlaneScope;
  clock?: Clock;
}

/** What {@link registerKubeFedClusterController} added to the manager. */
export interface KubeFedClusterControllerHandle {
  readonly controller: Controller;
  readonly informer: Informer<KubeObject>;
  readonly tracker: ClusterHealthTracker;
}

const identityChanged = (o: KubeObject, n: KubeObject): boolean =>
  o.metadata.generation !== n.metadata.generation ||
  !jsonEqual(o.metadata.labels ?? {}, n.metadata.labels ?? {}) ||
  !jsonEqual(o.metadata.annotations ?? {}, n.metadata.annotations ?? {});

/**
 * Adds the cluster health controller to `manager` (docs/kubefed-compatibility.md §4.2): an informer on
 * KubeFedClusters in the kubefed namespace, the `kubefedcluster` controller (leader only)
 * running {@link KubeFedClusterReconciler}, and a runnable that re-probes every cluster at once
 * when the health-check settings change and closes the member clients on stop.
 *
 * Status writes by the controller itself do not re-trigger it: only a changed spec
 * (generation), labels or annotations, an add/delete, or the periodic requeue do.
 */
export function registerKubeFedClusterController(
  manager: Manager,
  options: KubeFedClusterControllerOptions,
): KubeFedClusterControllerHandle {
  const settings = options.settings ?? staticHealthCheckSettings();
  const tracker = options.tracker ?? new ClusterHealthTracker();
  const informer = manager.informer({
    name: 'kubefedclusters',
    listerWatcher: listerWatcherFor(options.host.resource(KUBEFED_CLUSTER_GVR, options.namespace)),
    resyncPeriodMs: options.resyncPeriodMs ?? 600_000,
  });
  const reconciler = new KubeFedClusterReconciler({
    host: options.host,
    clusters: informer.store,
    settings,
    tracker,
    ...(options.memberRateLimit === undefined ? {} : { memberRateLimit: options.memberRateLimit }),
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    stateGauge: manager.metrics.gauge('kubefed_cluster_health_state', 'KubeFedCluster health: 1 for the current state of each cluster', [
      'cluster',
      'state',
    ]),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  // Added before the controller so that it stops after it (reverse order): clients are closed
  // only once no probe runs any more.
  manager.add({
    name: 'kubefedcluster-settings',
    start: async (signal) => {
      const off = settings.onChange(() => {
        for (const key of informer.store.keys()) controller.queue.add(key);
      });
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      off();
      reconciler.close();
    },
  });
  const controller = manager
    .controller({ name: 'kubefedcluster', reconciler, maxConcurrentReconciles: options.maxConcurrentReconciles ?? 10 })
    .watch(informer, { updatePredicate: identityChanged });
  return { controller, informer, tracker };
}
