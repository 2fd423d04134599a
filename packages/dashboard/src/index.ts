/**
 * @kubefed/dashboard: the fleet dashboard that `kubefedctl dashboard` serves: a read-only web UI
 * of the member clusters, a matrix of federated objects against clusters, and replica
 * scheduling, kept live by watches on the host and pushed to the page as server-sent events.
 *
 * Start reading at `dashboard-server.ts` (`startDashboard`: the hono app, token check, event
 * stream), then `fleet-watch.ts` (the informers on the host), `views.ts` (pure: what each page
 * shows) and `object-detail.ts` (a row's detail: the sync workers' rendering for one cluster
 * beside the member copy read through the member's credentials, and where they differ). The
 * page itself is `assets/` (lit components and Chart.js, served from node_modules).
 */
export { startDashboard, isLoopback, type Dashboard, type DashboardOptions } from './dashboard-server.js';
export { FleetWatch, type FleetSnapshot, type FleetWatchOptions, type WatchedType } from './fleet-watch.js';
export {
  cellTone,
  clusterView,
  dashboardView,
  matrixRow,
  schedulingView,
  type ClusterView,
  type DashboardView,
  type MatrixCell,
  type MatrixRow,
  type ObjectSummary,
  type QueueCountsView,
  type QueueSourceView,
  type SchedulingView,
  type SummarizeObject,
  type Tone,
} from './views.js';
export { objectDetail, type DetailRequest, type ObjectDetail } from './object-detail.js';
export {
  queueCountsFromMetrics,
  MetricsQueueCountsPoller,
  SYNC_QUEUE_JOBS,
  type MetricsQueueCountsPollerOptions,
} from './metrics-queue-counts.js';
export { QueueCountsPoller, type QueueCountsSource, type QueueCountsPollerOptions } from './queue-counts.js';
export { renderedDifferences, type RenderedDifference } from './rendered-differences.js';
