/**
 * The per-process state the roles of the sync path read (docs/architecture.md "Who builds what"):
 * `readPlacement` (the one placement reader and its error policy), `RunningSyncTypes` (the types
 * whose sync controller runs here, with their informer caches), `OwnWrites` (this process's member
 * writes, whose watch echo needs no job), `VersionStore` (the (Cluster)PropagatedVersions),
 * `StatusRecorder` with `lastReport` (the workers' outcomes), and the settings objects. Built by
 * `../register-sync-path.ts` alone; `reconcile/`, `worker/` and `status/` never import each other.
 */
export { readPlacement, type PlacementFailure, type PlacementRead } from './placement-reader.js';
export { RunningSyncTypes } from './running-types.js';
export { OwnWrites, type OwnWritesOptions } from './own-writes.js';
export { VersionStore, watchPropagatedVersions, type VersionCaches, type VersionStoreOptions, type VersionWrite } from './version-store.js';
export {
  type RecordedOutcome,
  type StaleOutcomeReason,
  type StatusPriority,
  StatusRecorder,
  type StatusRecorderOptions,
  type SyncOutcomeSink,
} from './status-recorder.js';
export { lastReport } from './last-report.js';
export { DEFAULT_SYNC_SETTINGS, type SyncScope, type SyncSettings, type SyncTiming } from './sync-settings.js';
