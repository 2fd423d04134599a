/**
 * @kubefed/controllers: the controllers of the control plane, one folder each. Every folder
 * exports a reconciler (converges one key, decisions as pure functions) and a
 * `register<Name>Controller(manager, options)` that wires informers and the controller into a
 * `@kubefed/runtime` Manager. Controllers never import each other; they cooperate through API
 * objects (and, in one process, through the runtime's `Fleet` of member clusters).
 *
 * Start reading at the sync reconciler, `sync/reconcile/sync-reconciler.ts`: one federated
 * object's key in, one job per member cluster out. Then `sync/worker/sync-worker.ts` (one job
 * against one member) and `sync/status/status-writer.ts` (the federated object's status): the
 * three roles of the sync path, which never import each other; what they share is in
 * `sync/shared/` (the placement reader, own writes, versions, the status recorder), and
 * `sync/register-sync-path.ts` is the one place that puts them together for every `--mode`.
 * The decisions they call are pure functions in `sync/` (rendering, retention, overrides,
 * version tracking, dispatch, status) and `placement/` (where a federated object goes, shared
 * with replica scheduling). `federated-type-config/` decides which federated types run;
 * `kubefed-cluster/` probes the member clusters and engages them in the Fleet;
 * `kubefed-config/` reads the KubeFedConfig; `replica-scheduling/` divides replicas across
 * clusters; `service-status/` is KubeFed's legacy status controller of the `services` FTC
 * (FederatedServiceStatus).
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
export * from './sync/shared/index.js';
export * from './service-status/index.js';
