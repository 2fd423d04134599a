/**
 * The retry delay of sync jobs: exponential from the producer's first delay, capped by the
 * worker host (default 60 s, KubeFed's maximum per-key backoff in
 * `pkg/controller/util/worker.go`), with jitter. Retries have no attempt limit: a recoverable
 * failure is retried until it succeeds, at most once a minute.
 */

/** The BullMQ backoff type name of sync jobs (resolved by the worker host). */
export const SYNC_BACKOFF_TYPE = 'kubefed-capped-exponential';

/** Default cap of the retry delay. */
export const DEFAULT_MAX_BACKOFF_MS = 60_000;

/** Inputs of {@link syncBackoffDelayMs}. */
export interface SyncBackoff {
  /** Delay before the 2nd attempt, doubling each time. */
  readonly delayMs: number;
  /** Upper bound of every delay. */
  readonly maxDelayMs: number;
  /** Fraction (0..1) of each delay that is randomised. */
  readonly jitter: number;
}

/** The delay after the `attemptsMade`-th failed attempt (1-based); `random` in [0, 1). */
export function syncBackoffDelayMs(attemptsMade: number, backoff: SyncBackoff, random: () => number = Math.random): number {
  // 2^(n-1) overflows to Infinity after ~1,000 attempts: cap the exponent first.
  const exponent = Math.min(Math.max(attemptsMade - 1, 0), 52);
  const full = Math.min(backoff.delayMs * 2 ** exponent, backoff.maxDelayMs);
  const jitter = Math.min(Math.max(backoff.jitter, 0), 1);
  return Math.floor(full * (1 - jitter) + random() * full * jitter);
}
