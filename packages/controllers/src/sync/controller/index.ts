/**
 * The sync controller's IO layer (docs/architecture.md "The flow of one change"): `SyncController`
 * (one federated type: informer → `SyncReconciler` → key-only jobs per member cluster, plus the
 * `StatusWriter`), the worker (`SyncWorker`, run inside `SyncWorkerHost`), the
 * in-process `StatusRecorder` between them and the `VersionStore` ((Cluster)PropagatedVersions).
 */
export { StatusRecorder, type SyncOutcomeSink } from './status-recorder.js';
export { StatusWriter, type StatusWriterOptions } from './status-writer.js';
export { SyncController, type SyncControllerOptions } from './sync-controller.js';
export { SyncReconciler, type SyncReconcilerOptions } from './sync-reconciler.js';
export { SyncWorker, MemberWriteError, type SyncWorkerOptions, type SyncSettings } from './sync-worker.js';
export { MemberWatches, type MemberWatchesOptions } from './member-watches.js';
export { FEDERATED_NAMESPACE_GVR, placementOf, syncTypeLookup, syncTypeOf, type PlacementEnvironment, type SyncType } from './sync-type.js';
export { VersionStore, watchPropagatedVersions, type VersionCaches, type VersionStoreOptions, type VersionWrite } from './version-store.js';
export { OwnWrites, type OwnWritesOptions } from './own-writes.js';
