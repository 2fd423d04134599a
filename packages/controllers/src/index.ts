/**
 * @kubefed/controllers: the controllers of the control plane, one folder each. Every folder
 * exports a reconciler (converges one key, decisions as pure functions) and a
 * `register<Name>Controller(manager, options)` that wires informers and the controller into a
 * `@kubefed/runtime` Manager. Controllers never import each other; they cooperate through API
 * objects (and, in one process, through the runtime's `Fleet` of member clusters).
 *
 * Start reading at `kubefed-cluster/cluster-health.ts` (KubeFed's health-check decisions),
 * then `kubefed-cluster/kubefed-cluster-reconciler.ts` (the probe), and `kubefed-config/`
 * (the KubeFedConfig the process runs with). `placement/` decides where a federated object
 * goes (shared by sync and replica scheduling). `sync/` holds the sync controller's decisions as pure
 * functions: rendering, retention, overrides, version tracking, dispatch and status, and
 * `sync/sync-type.ts` (one federated type as the sync path sees it); `sync/reconcile/`,
 * `sync/worker/` and `sync/status/` run them (the per-type sync controllers, the worker of the
 * per-cluster queues, the status writer), started by `federated-type-config/`. `service-status/` is
 * KubeFed's legacy status controller of the `services` FTC (FederatedServiceStatus).
 */
export * from './kubefed-cluster/index.js';
export * from './kubefed-config/index.js';
export * from './placement/index.js';
export * from './sync/index.js';
export * from './replica-scheduling/index.js';
export * from './federated-type-config/index.js';
export * from './sync/reconcile/index.js';
export * from './sync/worker/index.js';
export * from './sync/status/index.js';
export * from './service-status/index.js';
