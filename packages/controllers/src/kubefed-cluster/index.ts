export * from './cluster-health.js';
export { ClusterHealthTracker, type ReadyClustersListener } from './cluster-health-tracker.js';
export {
  DEFAULT_HEALTH_CHECK_SETTINGS,
  staticHealthCheckSettings,
  type HealthCheckSettings,
  type HealthCheckSettingsSource,
} from './health-check-settings.js';
export { KUBEFED_CLUSTER_GVR, KubeFedClusterReconciler, type KubeFedClusterReconcilerOptions } from './kubefed-cluster-reconciler.js';
export {
  registerKubeFedClusterController,
  type KubeFedClusterControllerHandle,
  type KubeFedClusterControllerOptions,
} from './register-kubefed-cluster-controller.js';
