/** A time source; tests inject a fake one. */
export interface Clock {
  /** Milliseconds (monotonic is fine; only differences are used). */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `performance.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

function abortReason(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** Options of {@link TokenBucketRateLimiter}. */
export interface RateLimiterOptions {
  /** Sustained requests per second; default 50. `<= 0` or `Infinity` disables limiting. */
  qps?: number;
  /** Bucket size (requests allowed at once after idling); default 100. */
  burst?: number;
  /** Default {@link systemClock}. */
  clock?: Clock;
}

/**
 * A token bucket like client-go's `flowcontrol.NewTokenBucketRateLimiter`: starts full with
 * `burst` tokens, refills at `qps` per second; `acquire()` takes one token, waiting when the bucket
 * is empty. Waiters are served in FIFO order because each reserves its token up front.
 */
export class TokenBucketRateLimiter {
  readonly qps: number;
  readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(options: RateLimiterOptions = {}) {
    this.qps = options.qps ?? 50;
    this.burst = Math.max(1, options.burst ?? 100);
    this.clock = options.clock ?? systemClock;
    this.tokens = this.burst;
    this.last = this.clock.now();
  }

  /** True when {@link acquire} never waits. */
  get unlimited(): boolean {
    return !(this.qps > 0) || this.qps === Infinity;
  }

  /**
   * Takes one token, waiting for it if necessary. Rejects with the signal's reason if it aborts
   * while waiting (the reserved token is given back).
   */
  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.unlimited) return;
    const waitMs = this.reserve();
    if (waitMs <= 0) return;
    try {
      await this.clock.sleep(waitMs, signal);
    } catch (e) {
      this.tokens += 1;
      throw e;
    }
  }

  /** Takes a token only if one is available now. */
  tryAcquire(): boolean {
    if (this.unlimited) return true;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Reserves a token (the balance may go negative) and returns how long to wait for it. */
  private reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
  }
}
