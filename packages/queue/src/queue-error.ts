import { KubeFedError } from '@kubefed/api';

/** Base class of the errors of `@kubefed/queue` (bad queue names, Redis connection setup, closed producers and hosts). */
export class QueueError extends KubeFedError {}

/** A Redis URL or connection option is unusable, or Redis did not answer. */
export class RedisConnectionError extends QueueError {}

/**
 * Thrown by a sync processor when retrying cannot help (the federated type is not enabled, the
 * template is rejected by the member's API server as invalid, ...). The job fails at once with
 * no retry and `onFailed` is called with `final: true` and this error, so the caller can report
 * it in the federated object's status.
 */
export class PermanentSyncError extends KubeFedError {}
