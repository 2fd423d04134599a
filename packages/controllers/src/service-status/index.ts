/**
 * The status controller of the `services` FTC (docs/kubefed-compatibility.md §4.5): KubeFed's
 * legacy FederatedServiceStatus, one per FederatedService, listing the Service status of every
 * Ready member. The FederatedTypeConfig controller runs it.
 */
export { clusterStatusOf, desiredStatusObject, updatedStatusObject } from './cluster-status.js';
export {
  assertStatusTypeServed,
  ServiceStatusController,
  type ServiceStatusControllerOptions,
  ServiceStatusTypeNotServedError,
} from './service-status-controller.js';
export { ServiceStatusReconciler, type ServiceStatusReconcilerOptions } from './service-status-reconciler.js';
export { StatusControllers, type StatusControllersOptions } from './status-controllers.js';
export { SERVICES_TYPE_NAME, serviceStatusTypeOf, type ServiceStatusType } from './service-status-type.js';
