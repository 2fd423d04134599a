/**
 * The sync path's writing side: `SyncWorker` runs one (type, object, cluster) job inside
 * `SyncWorkerHost` (reads, renders, writes one member), `OwnWrites` remembers this process's member
 * writes so their watch echo is skipped, and `VersionStore` keeps the (Cluster)PropagatedVersions.
 */
export { SyncWorker, MemberWriteError, type SyncWorkerOptions, type SyncSettings } from './sync-worker.js';
export { VersionStore, watchPropagatedVersions, type VersionCaches, type VersionStoreOptions, type VersionWrite } from './version-store.js';
export { OwnWrites, type OwnWritesOptions } from './own-writes.js';
export { VanishingCopies, VanishingCopyError, type VanishingCopiesOptions, type VanishingCopyRefusal } from './vanishing-copies.js';
export { syncRetryDelayMs, UNREACHABLE_RETRY_DELAY_MS } from './retry-delay.js';
