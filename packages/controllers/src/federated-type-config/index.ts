/** The FederatedTypeConfig controller (docs/kubefed-compatibility.md §4.3): decides which types run, one sync controller (built by the sync path) per FTC with propagation Enabled. */
export {
  FEDERATED_TYPE_CONFIG_GVR,
  FederatedTypeConfigReconciler,
  type FederatedTypeConfigReconcilerOptions,
} from './federated-type-config-reconciler.js';
export {
  registerFederatedTypeConfigController,
  type FederatedTypeConfigControllerHandle,
  type FederatedTypeConfigControllerOptions,
} from './register-federated-type-config-controller.js';
