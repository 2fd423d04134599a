export * from './cluster-health.js';
export { ClusterStatusProvider, type ClusterStatusProviderOptions } from './cluster-status-provider.js';
export {
  DEFAULT_HEALTH_CHECK_SETTINGS,
  staticHealthCheckSettings,
  type HealthCheckSettings,
  type HealthCheckSettingsSource,
} from './health-check-settings.js';
export { KUBEFED_CLUSTER_GVR, KubeFedClusterReconciler, type KubeFedClusterReconcilerOptions } from './kubefed-cluster-reconciler.js';
export { createMemberFleet, type MemberConfig, type MemberFleet, type MemberFleetOptions } from './member-fleet.js';
export {
  registerKubeFedClusterController,
  type KubeFedClusterControllerHandle,
  type KubeFedClusterControllerOptions,
} from './register-kubefed-cluster-controller.js';
