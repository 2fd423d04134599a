import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

/** Observations a work queue reports (implemented by `RuntimeMetrics.workQueue(name)`). */
export interface WorkQueueMetrics {
  /** A key was added (also counted when it collapses into a pending one). */
  add(): void;
  /** The number of keys waiting to be handed out changed. */
  depth(n: number): void;
  /** Seconds a key waited between being queued and handed out. */
  queueLatency(seconds: number): void;
  /** Seconds between a key being handed out and `done()`. */
  workDuration(seconds: number): void;
  /** A key was re-queued through the rate limiter. */
  retry(): void;
}

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** Name used in metrics (e.g. the controller name). Default `'queue'`. */
  name?: string;
  /** Delay policy of `addRateLimited`; default {@link defaultControllerRateLimiter} (5 ms→1000 s per key, 10 qps / burst 100 overall). */
  rateLimiter?: RateLimiter;
  /** Default {@link systemClock}. */
  clock?: Clock;
  metrics?: WorkQueueMetrics;
}

/** Options of {@link WorkQueue.shutdown}. */
export interface ShutdownOptions {
  /** Wait until every handed-out key is `done()` before resolving. Default false. */
  drain?: boolean;
}

/**
 * A deduplicating, delaying, rate-limited queue of string keys (client-go's workqueue).
 *
 * - A key waiting in the queue is held once: adding it again collapses into the pending entry.
 * - A key handed out by `get()` is not handed out again until `done(key)`; adding it meanwhile
 *   marks it dirty, and it is re-queued by `done()`. So one key is never processed concurrently.
 * - `addAfter` keeps the earliest requested time per key; `addRateLimited` asks the rate limiter.
 * - After `shutdown()`, `get()` resolves `undefined` at once and adds are ignored.
 */
export class WorkQueue {
  readonly name: string;
  readonly #clock: Clock;
  readonly #limiter: RateLimiter;
  readonly #metrics: WorkQueueMetrics | undefined;
  readonly #queue: string[] = [];
  #head = 0;
  /** Keys that need processing (queued or to be re-queued after done). Value: time first added. */
  readonly #dirty = new Map<string, number>();
  /** Keys handed out and not yet done. Value: time handed out. */
  readonly #processing = new Map<string, number>();
  readonly #waiting = new Map<string, { at: number; handle: TimerHandle }>();
  readonly #getters: ((key: string | undefined) => void)[] = [];
  #drainWaiters: (() => void)[] = [];
  #shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? 'queue';
    this.#clock = options.clock ?? systemClock;
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter({ clock: this.#clock });
    this.#metrics = options.metrics;
  }

  /** Keys waiting to be handed out. */
  get length(): number {
    return this.#queue.length - this.#head;
  }

  /** Keys handed out and not yet done. */
  get processing(): number {
    return this.#processing.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Queues `key` unless it is already pending; if it is being processed, re-queues it after `done`. */
  add(key: string): void {
    if (this.#shuttingDown) return;
    this.#metrics?.add();
    if (this.#dirty.has(key)) return;
    this.#dirty.set(key, this.#clock.now());
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  /** Adds `key` after `ms` (immediately when `ms <= 0`); of several delayed adds the earliest wins. */
  addAfter(key: string, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.#clock.now() + ms;
    const existing = this.#waiting.get(key);
    if (existing !== undefined) {
      if (existing.at <= at) return;
      this.#clock.clearTimeout(existing.handle);
    }
    const handle = this.#clock.setTimeout(() => {
      this.#waiting.delete(key);
      this.add(key);
    }, ms);
    this.#waiting.set(key, { at, handle });
  }

  /** Adds `key` after the rate limiter's delay (per-key backoff combined with the overall bucket). */
  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retry();
    this.addAfter(key, this.#limiter.when(key));
  }

  /** Resets the backoff of `key` (call after a successful reconcile). Does not remove a pending entry. */
  forget(key: string): void {
    this.#limiter.forget(key);
  }

  /** Failures currently counted for `key`. */
  numRequeues(key: string): number {
    return this.#limiter.numRequeues(key);
  }

  /**
   * The next key to process; waits until one is available.
   * @returns `undefined` once the queue shuts down (or `signal` aborts).
   */
  get(signal?: AbortSignal): Promise<string | undefined> {
    if (this.#shuttingDown || signal?.aborted === true) return Promise.resolve(undefined);
    if (this.length > 0) return Promise.resolve(this.#take());
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const i = this.#getters.indexOf(getter);
        if (i >= 0) this.#getters.splice(i, 1);
        resolve(undefined);
      };
      const getter = (key: string | undefined): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(key);
      };
      this.#getters.push(getter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Marks `key` processed; re-queues it if it was added while being processed. */
  done(key: string): void {
    const started = this.#processing.get(key);
    if (started === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.workDuration((this.#clock.now() - started) / 1000);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#push(key);
    if (this.#processing.size === 0 && this.#drainWaiters.length > 0) {
      const waiters = this.#drainWaiters;
      this.#drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * Stops handing out keys: pending `get()` calls resolve `undefined`, delayed adds are cancelled.
   * With `drain: true`, resolves once every handed-out key is done.
   */
  async shutdown(options: ShutdownOptions = {}): Promise<void> {
    if (!this.#shuttingDown) {
      this.#shuttingDown = true;
      for (const w of this.#waiting.values()) this.#clock.clearTimeout(w.handle);
      this.#waiting.clear();
      for (const g of this.#getters.splice(0)) g(undefined);
    }
    if (options.drain === true && this.#processing.size > 0) {
      await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    }
  }

  #push(key: string): void {
    const getter = this.#getters.shift();
    if (getter !== undefined) {
      this.#queue.push(key);
      getter(this.#take());
      return;
    }
    this.#queue.push(key);
    this.#metrics?.depth(this.length);
  }

  #take(): string {
    const key = this.#queue[this.#head] as string;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    const now = this.#clock.now();
    const queuedAt = this.#dirty.get(key) ?? now;
    this.#dirty.delete(key);
    this.#processing.set(key, now);
    this.#metrics?.queueLatency((now - queuedAt) / 1000);
    this.#metrics?.depth(this.length);
    return key;
  }
}
