import { isNetworkError, isTimeout } from '@kubefed/client';

/**
 * KubeFed's initial per-key backoff (5 s, `pkg/controller/util/worker.go`): the first retry delay
 * of a sync job that failed because a cluster could not be reached.
 */
export const UNREACHABLE_RETRY_DELAY_MS = 5000;

/**
 * The first retry delay of a sync job that failed with `err` (for `SyncWorkerHost`'s
 * `firstRetryDelayMs`): {@link UNREACHABLE_RETRY_DELAY_MS} when a request failed to reach its
 * cluster (a refused or reset connection, a timeout: anywhere in the `cause` chain), so that a
 * member that stopped answering costs each key a few attempts, not dozens, until its health
 * check finds it NotReady; `undefined` (the producer's 200 ms) for every other failure, such as
 * a conflict, which a quick retry heals.
 */
export function syncRetryDelayMs(err: Error): number | undefined {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (isNetworkError(e) || isTimeout(e)) return UNREACHABLE_RETRY_DELAY_MS;
  }
  return undefined;
}
