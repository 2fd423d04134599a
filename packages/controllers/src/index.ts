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
 * functions: rendering, retention, overrides, version tracking, dispatch and status;
 * `sync/controller/` and `federated-type-config/` run them: per-type sync controllers, the
 * worker processor for the per-cluster queues, and the status writer. `service-status/` is
 * KubeFed's legacy status controller of the `services` FTC (FederatedServiceStatus).
 */
export * from './kubefed-cluster/index.js';
export * from './kubefed-config/index.js';
export * from './placement/index.js';
export * from './sync/index.js';
export * from './replica-scheduling/index.js';
export * from './federated-type-config/index.js';
export * from './sync/controller/index.js';
export * from './service-status/index.js';
