/** Base class of every error the runtime raises; carries the underlying `cause`. */
export class RuntimeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Thrown by a reconciler (or returned via `terminal(err)`) for a failure that retrying cannot
 * fix (invalid spec, missing permission that needs a human): logged and counted, not retried.
 */
export class TerminalError extends RuntimeError {}

/** Caches did not report synced within the manager's `cacheSyncTimeoutMs`. */
export class CacheSyncTimeoutError extends RuntimeError {}

/** This process was the leader and lost the Lease (renewal failed for longer than the renew deadline). */
export class LeadershipLostError extends RuntimeError {}

/** A runnable owned by the manager failed; `cause` is its error. */
export class RunnableFailedError extends RuntimeError {}

/** An address option (e.g. `:8080`, `127.0.0.1:0`) could not be parsed. */
export class AddressError extends RuntimeError {}

/** A member was engaged in a Fleet that has stopped (the process is shutting down). */
export class FleetStoppedError extends RuntimeError {}

/**
 * A member was engaged in a Fleet that already holds its `maxMembers` (`--max-member-clusters`):
 * it gets no client, informers or worker. `limit` is that maximum.
 */
export class FleetFullError extends RuntimeError {
  readonly limit: number;

  constructor(message: string, options: { limit: number; cause?: unknown }) {
    super(message, options);
    this.limit = options.limit;
  }
}

/** An informer was asked of a `SharedInformers` that has stopped (the process or member is shutting down). */
export class InformersStoppedError extends RuntimeError {}
