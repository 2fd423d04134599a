import { sleep, systemClock, type Clock } from './clock.js';

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
    // A wait for a token is part of a request in flight: it keeps the process alive as the
    // request's socket would (the system clock's timers do not).
    const hold = setInterval(() => undefined, 1 << 30);
    try {
      if (await sleep(this.clock, waitMs, signal)) return;
    } finally {
      clearInterval(hold);
    }
    this.tokens += 1;
    throw abortReason(signal);
  }

  /** Takes a token only if one is available now. */
  tryAcquire(): boolean {
    if (this.unlimited) return true;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Reserves a token (the balance may go negative) and returns how long to wait for it: 0 when
   * one was available. The work queue's retry limiter spreads retries with it.
   */
  reserve(): number {
    if (this.unlimited) return 0;
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

function abortReason(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}
