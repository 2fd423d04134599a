/** An opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/**
 * The source of time for everything that waits (request rate limiting, discovery refresh, queue
 * delays, backoff, resync, lease renewal). Production code uses {@link systemClock}; unit tests
 * inject a manual one (`FakeClock` of @kubefed/runtime's testing helpers).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a pending timer; a no-op for a timer that already fired. */
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now` and Node timers (unref'd so that they never keep a process alive). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Resolves after `ms` on `clock`, or as soon as `signal` aborts (never rejects).
 * @returns true when the full time elapsed, false when the signal aborted first.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted === true) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      resolve(false);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
