/**
 * The sync path's deciding side (docs/architecture.md "The flow of one change"): `SyncController`
 * runs one federated type (its informer, the `SyncReconciler`, the `StatusWriter`); the reconciler
 * is the only way into the per-cluster queues, and member events reach it through `MemberWatches`,
 * mapped back to the federated object's key. `DispatchScopes` narrows a readiness change to the
 * clusters it concerns.
 */
export { SyncController, type StatusFlusher, type StatusWriterInput, type SyncControllerOptions } from './sync-controller.js';
export { SyncReconciler, type SyncReconcilerOptions } from './sync-reconciler.js';
export { MemberWatches, type MemberWatchesOptions } from './member-watches.js';
export { DispatchScopes, readinessChanges } from './dispatch-scopes.js';
