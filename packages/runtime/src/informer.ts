import { inspect } from 'node:util';
import { systemClock, type Clock, type TimerHandle } from '@kubefed/client';
import { deepFreeze } from './deep-freeze.js';
import { objectKey, type KubeObject, type WatchEvent } from './kube-types.js';
import type { ListerWatcher } from './list-watcher.js';
import { silentLogger, type Logger } from './logger.js';
import { approximateJsonBytes, type BudgetAccount } from './cache-budget.js';
import type { InformerMetrics } from './metrics.js';
import { Reflector, type ReflectorBackoff } from './reflector.js';
import { Store, type IndexFunc, type Reader } from './store.js';

/**
 * Handed to `onDelete` when an object disappeared while the watch was down (found missing on
 * relist): its last known state, which may be stale.
 */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

/** The object of an `onDelete` argument, tombstone or not. */
export function deletedObject<T extends KubeObject>(obj: T | DeletedFinalStateUnknown<T>): T {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}

/**
 * Callbacks of an informer. They run synchronously in the informer's delivery path and should
 * only enqueue keys. Objects are deep-frozen. A throwing handler is logged and skipped.
 */
export interface EventHandler<T extends KubeObject = KubeObject> {
  onAdd?(obj: T): void;
  /** Also called by the periodic resync with `oldObj === newObj`. */
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

/** Options of {@link Informer}. */
export interface InformerOptions {
  /** Names the informer in logs and metrics (e.g. `deployments.apps@member1`). */
  name: string;
  listerWatcher: ListerWatcher;
  /** Re-deliver every cached object as an update this often; default 0 = never. */
  resyncPeriodMs?: number;
  /** Custom indexes besides `namespace` and `label`. */
  indexers?: Record<string, IndexFunc>;
  /**
   * Applied to every listed or watched object (deletions too) before it is stored and handed to
   * the handlers, as client-go's `SetTransform`: e.g. to keep only the fields the consumers read,
   * so that the cache's memory per object stays small. It gets a fresh object of its own and
   * must keep `metadata.name`, `metadata.namespace` and `metadata.resourceVersion` (the cache's
   * key and change detection). Default none: objects are stored whole.
   */
  transform?: (obj: KubeObject) => KubeObject;
  /** Page size of lists; default 500. */
  pageSize?: number;
  /** Watch `timeoutSeconds` range; default [300, 600]. */
  watchTimeoutSeconds?: readonly [number, number];
  backoff?: ReflectorBackoff;
  clock?: Clock;
  random?: () => number;
  logger?: Logger;
  metrics?: InformerMetrics;
  /**
   * This informer's share of its cluster's cache budget: what it lists and caches is counted
   * (objects, approximate bytes, pages per list) and a change past a limit is not applied (the
   * list or watch fails and is retried; the budget's owner is told once). Default none.
   */
  budget?: BudgetAccount;
}

/**
 * A shared informer: a reflector feeding an indexed read-only cache, and event handlers.
 * It is a runnable (`start(signal)` runs until the signal aborts and never stops on errors);
 * `waitForSync` resolves once the first list is in the cache.
 */
export class Informer<T extends KubeObject = KubeObject> {
  readonly name: string;
  /** Informers run on every replica, leader or not (their caches warm the standby). */
  readonly needLeaderElection = false;
  readonly #store: Store<T>;
  readonly #handlers = new Set<EventHandler<T>>();
  /** Handlers with a resync period of their own, and the stop of their timer while the informer runs. */
  readonly #handlerResyncs = new Map<EventHandler<T>, { periodMs: number; stop?: () => void }>();
  #running: AbortSignal | undefined;
  readonly #o: InformerOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #synced = false;
  readonly #syncWaiters: (() => void)[] = [];
  readonly #listAttemptWaiters: (() => void)[] = [];
  #listError: unknown = undefined;
  #resourceVersion = '';
  /** Approximate JSON bytes of the store, kept only with a budget. */
  #storeBytes = 0;

  constructor(options: InformerOptions) {
    this.name = options.name;
    this.#o = options;
    this.#store = new Store<T>(options.indexers);
    this.#clock = options.clock ?? systemClock;
    this.#logger = (options.logger ?? silentLogger()).child({ informer: options.name });
  }

  /** The read-only cache. */
  get store(): Reader<T> {
    return this.#store;
  }

  /** The resourceVersion of the last list or event applied. */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves true once synced, or false if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return Informer.#wait(this.#synced, this.#syncWaiters, signal);
  }

  /**
   * Resolves true once synced or once a list has failed (the reflector retries it with
   * backoff: see {@link listError}), or false if `signal` aborts first. For callers that hold
   * work while a cache is being listed and must not wait on one that cannot be.
   */
  waitForListAttempt(signal?: AbortSignal): Promise<boolean> {
    return Informer.#wait(this.#synced || this.#listError !== undefined, this.#listAttemptWaiters, signal);
  }

  /** `[]` once synced; else this informer, with its last list error when a list failed (see {@link CacheRunnable.unsynced}). */
  unsynced(): string[] {
    if (this.#synced) return [];
    const err = this.#listError;
    if (err === undefined) return [`informer ${this.name}: no list has answered yet`];
    return [`informer ${this.name}: its last list failed: ${err instanceof Error ? err.message : inspect(err)}`];
  }

  /** The error of the last failed list while not synced yet; undefined once synced. */
  get listError(): unknown {
    return this.#listError;
  }

  static #wait(done: boolean, waiters: (() => void)[], signal: AbortSignal | undefined): Promise<boolean> {
    if (done) return Promise.resolve(true);
    if (signal?.aborted === true) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #listFailed(err: unknown): void {
    if (this.#synced) return;
    this.#listError = err;
    for (const w of this.#listAttemptWaiters.splice(0)) w();
  }

  /**
   * Registers handlers; if the cache already holds objects, they are delivered as adds first.
   * With `resyncPeriodMs` (client-go's per-handler resync), this handler alone is re-delivered
   * every cached object as an update that often, whatever the informer's own period; default
   * none. Returns the removal of the handler.
   */
  addEventHandler(handler: EventHandler<T>, options: { resyncPeriodMs?: number } = {}): () => void {
    this.#handlers.add(handler);
    if (handler.onAdd !== undefined) for (const obj of this.#store.list()) this.#call('onAdd', () => handler.onAdd?.(obj));
    const periodMs = options.resyncPeriodMs ?? 0;
    if (periodMs > 0) {
      const resync: { periodMs: number; stop?: () => void } = { periodMs };
      this.#handlerResyncs.set(handler, resync);
      if (this.#running !== undefined) resync.stop = this.#startResync(this.#running, periodMs, handler);
    }
    return () => {
      this.#handlers.delete(handler);
      this.#handlerResyncs.get(handler)?.stop?.();
      this.#handlerResyncs.delete(handler);
    };
  }

  /** Runs list+watch (and resync) until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    const reflectorOptions: ConstructorParameters<typeof Reflector>[0] = {
      name: this.name,
      listerWatcher: this.#o.listerWatcher,
      sink: {
        replace: (items, rv, bytes) => this.#replace(items as T[], rv, bytes),
        apply: (e) => this.#apply(e),
        listFailed: (err) => this.#listFailed(err),
      },
      clock: this.#clock,
      logger: this.#logger,
    };
    if (this.#o.pageSize !== undefined) reflectorOptions.pageSize = this.#o.pageSize;
    if (this.#o.watchTimeoutSeconds !== undefined) reflectorOptions.watchTimeoutSeconds = this.#o.watchTimeoutSeconds;
    if (this.#o.backoff !== undefined) reflectorOptions.backoff = this.#o.backoff;
    if (this.#o.random !== undefined) reflectorOptions.random = this.#o.random;
    if (this.#o.metrics !== undefined) reflectorOptions.metrics = this.#o.metrics;
    if (this.#o.transform !== undefined) reflectorOptions.transform = this.#o.transform;
    if (this.#o.budget !== undefined) reflectorOptions.budget = this.#o.budget;
    const stopResync = this.#startResync(signal, this.#o.resyncPeriodMs ?? 0);
    this.#running = signal;
    for (const [handler, resync] of this.#handlerResyncs) resync.stop = this.#startResync(signal, resync.periodMs, handler);
    try {
      await new Reflector(reflectorOptions).run(signal);
    } finally {
      this.#running = undefined;
      stopResync();
      for (const resync of this.#handlerResyncs.values()) resync.stop?.();
    }
  }

  /** Re-delivers every cached object as an update every `period` ms, to `only` or to every handler; returns the stop. */
  #startResync(signal: AbortSignal, period: number, only?: EventHandler<T>): () => void {
    if (period <= 0) return () => {};
    let handle: TimerHandle;
    const tick = (): void => {
      if (signal.aborted) return;
      if (this.#synced) {
        this.#o.metrics?.event('RESYNC');
        for (const obj of this.#store.list())
          if (only === undefined) this.#emit('onUpdate', (h) => h.onUpdate?.(obj, obj));
          else this.#call('onUpdate', () => only.onUpdate?.(obj, obj));
      }
      handle = this.#clock.setTimeout(tick, period);
    };
    handle = this.#clock.setTimeout(tick, period);
    return () => this.#clock.clearTimeout(handle);
  }

  #replace(items: T[], resourceVersion: string, bytes: number): void {
    const budget = this.#o.budget;
    if (budget !== undefined) {
      // The listed objects become the store: counted once, as the store's.
      budget.hold('list', 0, 0);
      budget.hold('store', items.length, bytes);
      this.#storeBytes = bytes;
    }
    const result = this.#store.replace(items);
    this.#resourceVersion = resourceVersion;
    for (const obj of result.added) this.#emit('onAdd', (h) => h.onAdd?.(obj as T));
    for (const u of result.updated) this.#emit('onUpdate', (h) => h.onUpdate?.(u.old as T, u.new as T));
    for (const obj of result.deleted) {
      const tombstone = new DeletedFinalStateUnknown(objectKey(obj), obj as T);
      this.#emit('onDelete', (h) => h.onDelete?.(tombstone));
    }
    if (!this.#synced) {
      this.#synced = true;
      this.#logger.debug({ count: items.length }, 'informer synced');
      this.#listError = undefined;
      for (const w of [...this.#syncWaiters.splice(0), ...this.#listAttemptWaiters.splice(0)]) w();
    }
  }

  #apply(event: WatchEvent): void {
    const obj = (this.#o.transform?.(event.object) ?? event.object) as T;
    if (this.#o.budget !== undefined) this.#charge(event.type, obj);
    const rv = obj.metadata.resourceVersion;
    if (rv !== undefined) this.#resourceVersion = rv;
    if (event.type === 'DELETED') {
      this.#store.delete(objectKey(obj));
      deepFreeze(obj);
      this.#emit('onDelete', (h) => h.onDelete?.(obj));
      return;
    }
    const old = this.#store.upsert(obj);
    if (old === undefined) this.#emit('onAdd', (h) => h.onAdd?.(obj));
    else this.#emit('onUpdate', (h) => h.onUpdate?.(old, obj));
  }

  /** Counts the change `obj` makes to the store against the budget before it is applied (throws past a limit). */
  #charge(type: WatchEvent['type'], obj: T): void {
    const old = this.#store.get(objectKey(obj));
    const oldBytes = old === undefined ? 0 : approximateJsonBytes(old);
    const newBytes = type === 'DELETED' ? 0 : approximateJsonBytes(obj);
    const objects = this.#store.size + (type === 'DELETED' ? (old === undefined ? 0 : -1) : old === undefined ? 1 : 0);
    this.#o.budget?.hold('store', objects, this.#storeBytes - oldBytes + newBytes);
    this.#storeBytes += newBytes - oldBytes;
  }

  #emit(kind: keyof EventHandler<T>, fn: (h: EventHandler<T>) => void): void {
    for (const h of this.#handlers) this.#call(kind, () => fn(h));
  }

  #call(kind: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#logger.error({ err, handler: kind }, 'event handler failed');
    }
  }
}
