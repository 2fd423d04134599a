import { systemClock, TokenBucketRateLimiter, type Clock } from '@kubefed/client';

/** Decides how long a key waits before it is re-queued after a failure (client-go's RateLimiter). */
export interface RateLimiter {
  /** The delay in ms for the next retry of `key`; counts one more failure. */
  when(key: string): number;
  /** Forgets the failure history of `key` (call after a success). */
  forget(key: string): void;
  /** How many failures are currently counted for `key`. */
  numRequeues(key: string): number;
}

/**
 * Per-key exponential backoff: `baseMs * 2^failures`, capped at `maxMs`
 * (client-go's ItemExponentialFailureRateLimiter; defaults 5 ms and 1000 s).
 */
export class ExponentialFailureRateLimiter implements RateLimiter {
  readonly #failures = new Map<string, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;

  constructor(options: { baseMs?: number; maxMs?: number } = {}) {
    this.#baseMs = options.baseMs ?? 5;
    this.#maxMs = options.maxMs ?? 1_000_000;
  }

  when(key: string): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    // 2^n overflows to Infinity long after the cap, so the min is safe.
    return Math.min(this.#baseMs * 2 ** n, this.#maxMs);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/**
 * An overall token bucket shared by all keys (client-go's BucketRateLimiter; defaults 10 qps,
 * burst 100): the client's {@link TokenBucketRateLimiter}, asked for a delay instead of waited
 * on. Each call reserves one token; when the bucket is empty the delay is the time until the
 * reserved token is refilled, so a burst of retries is spread out.
 */
export class BucketRateLimiter implements RateLimiter {
  readonly #bucket: TokenBucketRateLimiter;

  constructor(options: { qps?: number; burst?: number; clock?: Clock } = {}) {
    this.#bucket = new TokenBucketRateLimiter({ qps: options.qps ?? 10, burst: options.burst ?? 100, clock: options.clock ?? systemClock });
  }

  when(): number {
    return this.#bucket.reserve();
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }

  when(key: string): number {
    let max = 0;
    for (const l of this.#limiters) max = Math.max(max, l.when(key));
    return max;
  }

  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    let max = 0;
    for (const l of this.#limiters) max = Math.max(max, l.numRequeues(key));
    return max;
  }
}

/** Options of {@link defaultControllerRateLimiter}. */
export interface DefaultRateLimiterOptions {
  /** First per-key retry delay; default 5 ms. */
  baseMs?: number;
  /** Cap of the per-key delay; default 1000 s. */
  maxMs?: number;
  /** Overall retry rate; default 10 per second. */
  qps?: number;
  /** Overall burst; default 100. */
  burst?: number;
  clock?: Clock;
}

/** client-go's DefaultControllerRateLimiter: max(per-key exponential backoff, overall token bucket). */
export function defaultControllerRateLimiter(options: DefaultRateLimiterOptions = {}): RateLimiter {
  const exp: { baseMs?: number; maxMs?: number } = {};
  if (options.baseMs !== undefined) exp.baseMs = options.baseMs;
  if (options.maxMs !== undefined) exp.maxMs = options.maxMs;
  const bucket: { qps?: number; burst?: number; clock?: Clock } = {};
  if (options.qps !== undefined) bucket.qps = options.qps;
  if (options.burst !== undefined) bucket.burst = options.burst;
  if (options.clock !== undefined) bucket.clock = options.clock;
  return new MaxOfRateLimiter(new ExponentialFailureRateLimiter(exp), new BucketRateLimiter(bucket));
}
