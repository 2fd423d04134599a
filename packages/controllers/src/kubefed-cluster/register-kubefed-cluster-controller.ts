import { type DynamicClient, jsonEqual, type KubeObject, systemClock } from '@kubefed/client';
import {
  type Clock,
  type Controller,
  type Informer,
  InformerHolds,
  type Manager,
  type SharedInformers,
  untilAborted,
} from '@kubefed/runtime';
import type { ControlPlaneScope } from './cluster-health.js';
import { staticHealthCheckSettings, type HealthCheckSettingsSource } from './health-check-settings.js';
import { KUBEFED_CLUSTER_GVR, KubeFedClusterReconciler } from './kubefed-cluster-reconciler.js';
import { createMemberFleet, type MemberFleet } from './member-fleet.js';

/** Options of {@link registerKubeFedClusterController}. */
export interface KubeFedClusterControllerOptions {
  /** Client of the host cluster. */
  host: DynamicClient;
  /**
   * The host's shared informers, where the KubeFedCluster informer is held (shared with the other
   * readers of KubeFedClusters in the process, e.g. the replica scheduling controller); default
   * `manager.sharedInformers(host)`.
   */
  informers?: SharedInformers;
  /** The kubefed namespace (where KubeFedClusters and their Secrets live). */
  namespace: string;
  /** Health-check settings, read at every probe; default KubeFed's defaults, never changing. */
  settings?: HealthCheckSettingsSource;
  /**
   * Where clusters are engaged and their readiness published; default a new one
   * ({@link createMemberFleet} with `memberRateLimit`), added to `manager` and returned. A Fleet
   * passed here is the caller's to add to the manager.
   */
  fleet?: MemberFleet;
  /** Clusters probed in parallel; default 10. */
  maxConcurrentReconciles?: number;
  /** Every KubeFedCluster is reconciled again this often, besides its probe period; default 10 min (KubeFed's informer resync). */
  resyncPeriodMs?: number;
  /** Rate limit of each member cluster's client in the default Fleet (sync workers and member informers share it; probes have their own); default 100 QPS, burst 200. */
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
  readonly fleet: MemberFleet;
  /**
   * Resolves once the KubeFedCluster cache has synced and every cluster in it has had its first
   * reconcile (engaged with the readiness its status stores, or refused): controllers that read
   * the Fleet's readiness wait for it before their first reconcile (`startAfter`), so that a
   * restart does not show them every member not Ready.
   */
  readonly clustersKnown: (signal: AbortSignal) => Promise<void>;
}

/** The least time between two probes of one cluster that its connection failures ask for. */
const EARLY_PROBE_SPACING_MS = 1000;

/**
 * A Ready member whose sync or watch connection fails is probed at once, not at its next period
 * (beyond KubeFed, which notices only at its next probe: docs/concepts.md, differences): the
 * thresholds still decide, so it takes as many failed probes as they ask for. A member that is
 * down fails every request, so at most one such probe a second per cluster.
 */
function earlyProbes(clock: Clock, probe: (name: string) => void): (name: string) => void {
  const last = new Map<string, number>();
  return (name) => {
    const now = clock.now();
    const previous = last.get(name);
    if (previous !== undefined && now - previous < EARLY_PROBE_SPACING_MS) return;
    last.set(name, now);
    probe(name);
  };
}

const identityChanged = (o: KubeObject, n: KubeObject): boolean =>
  o.metadata.generation !== n.metadata.generation ||
  !jsonEqual(o.metadata.labels ?? {}, n.metadata.labels ?? {}) ||
  !jsonEqual(o.metadata.annotations ?? {}, n.metadata.annotations ?? {});

/**
 * Adds the cluster health controller to `manager` (docs/kubefed-compatibility.md §4.2): a shared
 * host informer on KubeFedClusters in the kubefed namespace (held for the manager's run), the
 * `kubefedcluster` controller (leader only) running {@link KubeFedClusterReconciler}, which
 * engages each cluster in the Fleet and publishes
 * its readiness there (the stored `Ready` condition until this process's first probe decides),
 * and a runnable that re-probes every cluster at once when the health-check settings change and
 * disengages every cluster on stop.
 *
 * Status writes by the controller itself do not re-trigger it: only a changed spec
 * (generation), labels or annotations, an add/delete, or the periodic requeue do.
 */
export function registerKubeFedClusterController(
  manager: Manager,
  options: KubeFedClusterControllerOptions,
): KubeFedClusterControllerHandle {
  const settings = options.settings ?? staticHealthCheckSettings();
  const fleet = options.fleet ?? createMemberFleet({ rateLimit: options.memberRateLimit, logger: manager.logger });
  // Added first so that it stops last: members are disengaged once nothing reads them.
  if (options.fleet === undefined) manager.add(fleet);
  const holds = new InformerHolds(options.informers ?? manager.sharedInformers(options.host), 'kubefedcluster-informers');
  manager.add(holds);
  const informer = holds.acquire({ resource: KUBEFED_CLUSTER_GVR, namespace: options.namespace });
  const reconciler = new KubeFedClusterReconciler({
    host: options.host,
    clusters: informer.store,
    settings,
    fleet,
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    stateGauge: manager.metrics.gauge('kubefed_cluster_health_state', 'KubeFedCluster health: 1 for the current state of each cluster', [
      'cluster',
      'state',
    ]),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const probeSoon = earlyProbes(options.clock ?? systemClock, (name) => {
    if (fleet.isReady(name)) controller.queue.add(`${options.namespace}/${name}`);
  });
  // Added before the controller so that it stops after it (reverse order): clients are closed
  // only once no probe runs any more.
  manager.add({
    name: 'kubefedcluster-settings',
    start: async (signal) => {
      const off = settings.onChange(() => {
        for (const key of informer.store.keys()) controller.queue.add(key);
      });
      const unsubscribe = fleet.subscribe({ onConnectionFailed: probeSoon });
      await untilAborted(signal);
      unsubscribe();
      off();
      reconciler.close();
    },
  });
  const controller = manager
    .controller({ name: 'kubefedcluster', reconciler, maxConcurrentReconciles: options.maxConcurrentReconciles ?? 10 })
    .watch(informer, { updatePredicate: identityChanged, resyncPeriodMs: options.resyncPeriodMs ?? 600_000 });
  const clustersKnown = async (signal: AbortSignal): Promise<void> => {
    if (await informer.waitForSync(signal)) await reconciler.whenDecided(() => informer.store.keys(), signal);
  };
  return { controller, informer, fleet, clustersKnown };
}
