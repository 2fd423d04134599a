import type { GaugeSample, HistogramMetric, RuntimeMetrics } from '@kubefed/runtime';

/** KubeFed's buckets of its duration histograms (kubefed pkg/metrics/metrics.go), in seconds. */
const KUBEFED_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 7.5, 10, 12.5, 15, 17.5, 20, 22.5, 25, 27.5, 30, 50, 75, 100, 1000];

/** The states of `kubefedcluster_total`, KubeFed's (pkg/metrics: ClusterReady, ClusterNotReady, ClusterOffline). */
const CLUSTER_STATES = ['ready', 'notready', 'offline'] as const;

/** The gauge of the KubeFedCluster controller that `kubefedcluster_total` is read from. */
const CLUSTER_HEALTH_STATE = 'kubefed_cluster_health_state';

/** The controller whose reconcile is one cluster's health check and status write. */
const CLUSTER_HEALTH_CONTROLLER = 'kubefedcluster';

/** Sync controllers are named `sync-<FederatedTypeConfig name>`. */
const SYNC_CONTROLLER = /^sync-/;

/** The member writes `dispatch_operation_duration_seconds` tells apart, KubeFed's `action` label. */
type DispatchAction = 'create' | 'update' | 'delete';

/** KubeFed's metric names that need an observation from outside the runtime (see {@link kubeFedMetrics}). */
export interface KubeFedMetrics {
  /** One member write of a sync worker, in `dispatch_operation_duration_seconds{action}`. */
  readonly dispatched: (action: DispatchAction, seconds: number) => void;
}

const registered = new WeakMap<RuntimeMetrics, KubeFedMetrics>();

/**
 * Registers KubeFed's metric names (kubefed pkg/metrics/metrics.go) in `metrics`, with KubeFed's
 * labels and buckets, once per registry (later calls return the same object):
 *
 * - `kubefedcluster_total{state,cluster}`: 1 for the current state (ready, notready, offline) of
 *   each KubeFedCluster, 0 for the others; read on scrape from `kubefed_cluster_health_state`.
 * - `joined_cluster_total`: the KubeFedClusters whose state is known (KubeFed's was counted by
 *   `kubefedctl join` in the kubefedctl process, so its controller manager always served 0).
 * - `cluster_health_status_duration_seconds`: one cluster's health check and status write (a
 *   reconcile of the `kubefedcluster` controller).
 * - `reconcile_federated_resources_duration_seconds`: one reconcile of a sync controller.
 * - `dispatch_operation_duration_seconds{action}`: one member write, observed through
 *   {@link KubeFedMetrics.dispatched}; the three actions have zero series from the start.
 *
 * docs/operations.md (Metrics) lists which of KubeFed's names are not served and why.
 */
export function kubeFedMetrics(metrics: RuntimeMetrics): KubeFedMetrics {
  const existing = registered.get(metrics);
  if (existing !== undefined) return existing;
  metrics.collectedGauge({
    name: 'kubefedcluster_total',
    help: 'Number of total kubefed cluster in a specific state.',
    labelNames: ['state', 'cluster'],
    read: async () => (await metrics.series(CLUSTER_HEALTH_STATE)).filter((s) => isClusterState(s.labels['state'])),
  });
  metrics.collectedGauge({
    name: 'joined_cluster_total',
    help: 'Number of total joined clusters.',
    labelNames: [],
    read: async () => [{ labels: {}, value: knownClusters(await metrics.series(CLUSTER_HEALTH_STATE)) }],
  });
  const clusterHealth = kubeFedHistogram(
    metrics,
    'cluster_health_status_duration_seconds',
    'Time taken for the cluster health periodic function.',
  );
  const reconcile = kubeFedHistogram(
    metrics,
    'reconcile_federated_resources_duration_seconds',
    'Time taken to reconcile federated resources in the target clusters.',
  );
  const dispatch = metrics.histogramOf({
    name: 'dispatch_operation_duration_seconds',
    help: 'Time taken to run dispatch operation.',
    labelNames: ['action'],
    buckets: KUBEFED_BUCKETS,
    zeroed: [{ action: 'create' }, { action: 'update' }, { action: 'delete' }],
  });
  metrics.onReconciled((controller, _result, seconds) => {
    if (controller === CLUSTER_HEALTH_CONTROLLER) clusterHealth.observe({}, seconds);
    else if (SYNC_CONTROLLER.test(controller)) reconcile.observe({}, seconds);
  });
  const kubefed: KubeFedMetrics = { dispatched: (action, seconds) => dispatch.observe({ action }, seconds) };
  registered.set(metrics, kubefed);
  return kubefed;
}

function kubeFedHistogram(metrics: RuntimeMetrics, name: string, help: string): HistogramMetric {
  return metrics.histogramOf({ name, help, buckets: KUBEFED_BUCKETS, zeroed: [{}] });
}

function isClusterState(state: string | undefined): boolean {
  return (CLUSTER_STATES as readonly (string | undefined)[]).includes(state);
}

/** Clusters with a state of value 1 (a forgotten cluster keeps its series, all at 0). */
function knownClusters(samples: readonly GaugeSample[]): number {
  return new Set(samples.filter((s) => s.value === 1).map((s) => s.labels['cluster'])).size;
}
