import { systemClock, type Clock, type TimerHandle } from '@kubefed/client';
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

/** Options of {@link WorkQueue.add}. */
export interface AddOptions {
  /**
   * `low`: handed out only when no key of normal priority waits (controller-runtime's priority
   * queue gives the same to resyncs and fan-outs). For work that re-checks many keys at once
   * (a resync, a change of the set of ready clusters), so that a key added for an event of its
   * own never waits behind it. Adding a waiting low-priority key at normal priority promotes it.
   * Default `normal`.
   */
  priority?: 'normal' | 'low';
}

/** Keys of one priority, first in first out. */
class Lane {
  #items: string[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(key: string): void {
    this.#items.push(key);
  }

  shift(): string | undefined {
    if (this.length === 0) return undefined;
    const key = this.#items[this.#head];
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return key;
  }

  /** Removes `key` if it waits here; true when it did. */
  remove(key: string): boolean {
    const i = this.#items.indexOf(key, this.#head);
    if (i < 0) return false;
    this.#items.splice(i, 1);
    return true;
  }
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
  readonly #normal = new Lane();
  readonly #low = new Lane();
  /** Keys that need processing (queued or to be re-queued after done): time first added, and whether only at low priority. */
  readonly #dirty = new Map<string, { at: number; low: boolean }>();
  /** Keys handed out and not yet done. Value: time handed out. */
  readonly #processing = new Map<string, { at: number; low: boolean }>();
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
    return this.#normal.length + this.#low.length;
  }

  /** Keys handed out and not yet done. */
  get processing(): number {
    return this.#processing.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Queues `key` unless it is already pending; if it is being processed, re-queues it after `done`. */
  add(key: string, options: AddOptions = {}): void {
    if (this.#shuttingDown) return;
    this.#metrics?.add();
    const low = options.priority === 'low';
    const pending = this.#dirty.get(key);
    if (pending !== undefined) {
      if (low || !pending.low) return;
      pending.low = false;
      if (!this.#processing.has(key) && this.#low.remove(key)) this.#normal.push(key);
      return;
    }
    this.#dirty.set(key, { at: this.#clock.now(), low });
    if (this.#processing.has(key)) return;
    this.#push(key, low);
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

  /** The priority `key` was handed out at; undefined when it is not being processed. */
  priorityOf(key: string): 'normal' | 'low' | undefined {
    const processing = this.#processing.get(key);
    return processing === undefined ? undefined : processing.low ? 'low' : 'normal';
  }

  /** Marks `key` processed; re-queues it if it was added while being processed. */
  done(key: string): void {
    const started = this.#processing.get(key)?.at;
    if (started === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.workDuration((this.#clock.now() - started) / 1000);
    const pending = this.#dirty.get(key);
    if (pending !== undefined && !this.#shuttingDown) this.#push(key, pending.low);
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

  #push(key: string, low: boolean): void {
    (low ? this.#low : this.#normal).push(key);
    const getter = this.#getters.shift();
    if (getter !== undefined) {
      getter(this.#take());
      return;
    }
    this.#metrics?.depth(this.length);
  }

  #take(): string {
    const key = (this.#normal.shift() ?? this.#low.shift()) as string;
    const now = this.#clock.now();
    const pending = this.#dirty.get(key);
    this.#dirty.delete(key);
    this.#processing.set(key, { at: now, low: pending?.low ?? false });
    const queuedAt = pending?.at ?? now;
    this.#metrics?.queueLatency((now - queuedAt) / 1000);
    this.#metrics?.depth(this.length);
    return key;
  }
}
