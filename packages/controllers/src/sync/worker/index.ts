/**
 * The sync path's writing side: `SyncWorker` runs one (type, object, cluster) job inside
 * `SyncWorkerHost` (reads, renders, writes one member); `VanishingCopies` refuses to recreate a
 * copy that keeps disappearing. What it shares with the other roles is in `../shared/`.
 */
export { SyncWorker, MemberWriteError, type SyncWorkerOptions } from './sync-worker.js';
export { VanishingCopies, VanishingCopyError, type VanishingCopiesOptions, type VanishingCopyRefusal } from './vanishing-copies.js';
export { syncRetryDelayMs, UNREACHABLE_RETRY_DELAY_MS } from './retry-delay.js';
