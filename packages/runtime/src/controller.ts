import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '@kubefed/client';
import { TerminalError } from './errors.js';
import { eventLoopTurns } from './event-loop-turns.js';
import { deletedObject, type EventHandler, type Informer } from './informer.js';
import { objectKey, splitKey, statusCodeOf, type KubeObject } from './kube-types.js';
import { silentLogger, type LogFields, type Logger } from './logger.js';
import type { ControllerMetrics, ReconcileResult } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';
import { WorkQueue, type WorkQueueMetrics } from './work-queue.js';

/** What a reconcile asks for next. Build with {@link done}, {@link retry}, {@link requeueAfter}, {@link terminal}. */
export type ReconcileOutcome =
  | { readonly type: 'done' }
  | { readonly type: 'retry'; readonly reason?: string }
  | { readonly type: 'requeueAfter'; readonly ms: number }
  | { readonly type: 'terminal'; readonly error: unknown };

/** Converged: the key's backoff is forgotten. */
export function done(): ReconcileOutcome {
  return { type: 'done' };
}
/** Retry with per-key exponential backoff (same as throwing, without an error to log). */
export function retry(reason?: string): ReconcileOutcome {
  return reason === undefined ? { type: 'retry' } : { type: 'retry', reason };
}
/** Converged for now; look again after `ms` (only to poll the outside world). Backoff is forgotten. */
export function requeueAfter(ms: number): ReconcileOutcome {
  return { type: 'requeueAfter', ms };
}
/** A failure retrying cannot fix: logged and counted, not retried. Throwing a `TerminalError` is the same. */
export function terminal(error: unknown): ReconcileOutcome {
  return { type: 'terminal', error };
}

/** What a reconcile is given besides its key. */
export interface ReconcileContext {
  /** Carries `controller`, `namespace`, `name` (from the key) and `reconcileId`. */
  logger: Logger;
  /** Aborts when the controller stops; pass it to API calls. */
  signal: AbortSignal;
  /** Failures counted for this key so far (0 on a first attempt). */
  attempt: number;
  /**
   * The priority the key was queued at: `low` when only a fan-out or a resync asked for it (see
   * `WorkQueue.add`). Work it hands on (jobs) may go after work of normal priority too.
   * Absent means `normal`.
   */
  priority?: 'normal' | 'low';
}

/**
 * Converges one key. It reads current state itself (it is never told which event fired).
 * Throwing = retry with backoff (or terminal for a `TerminalError`); returning nothing = done.
 */
export interface Reconciler {
  reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileOutcome | undefined | void>;
}

/** Options of {@link Controller}. */
export interface ControllerOptions {
  /** Controller name: logs (`controller`), metrics and queue name. */
  name: string;
  reconciler: Reconciler;
  /** Keys reconciled in parallel (one key never twice at once); default 1. */
  maxConcurrentReconciles?: number;
  /** Retry policy; default client-go's (5 ms→1000 s per key, max with 10 qps / burst 100). */
  rateLimiter?: RateLimiter;
  /** Whether the controller only runs on the leader; default true. */
  needLeaderElection?: boolean;
  /** Log fields derived from a key; default `namespace`/`name` from `namespace/name`. */
  keyFields?: (key: string) => LogFields;
  logger?: Logger;
  metrics?: { controller: ControllerMetrics; queue: WorkQueueMetrics };
  clock?: Clock;
  /**
   * What must hold before the first reconcile besides the informers' caches (e.g. the readiness
   * of every member cluster being known); awaited after them. Keys queued meanwhile wait. Default none.
   */
  startAfter?: (signal: AbortSignal) => Promise<unknown>;
}

/** Maps an object seen by an informer to the keys to reconcile (e.g. its owner's key). */
export type MapToKeys<T extends KubeObject> = (obj: T) => readonly string[];

/** Options of {@link Controller.watch}. */
export interface WatchOptions<T extends KubeObject> {
  /** Keys for an object; default its own `namespace/name`. */
  map?: MapToKeys<T>;
  /** Enqueue an update only when this returns true; default: the resourceVersion changed or it is a resync. */
  updatePredicate?: (oldObj: T, newObj: T) => boolean;
  /**
   * Every cached object is enqueued again this often (at low priority) for this controller alone,
   * whatever the informer's own resync (the informer may be shared); default none.
   */
  resyncPeriodMs?: number;
}

/**
 * A controller: informer events enqueue keys into a rate-limited deduplicating work queue,
 * and up to `maxConcurrentReconciles` workers hand each key to the reconciler, acting on its
 * outcome. A runnable: `start(signal)` waits for its informers' caches (and `startAfter`), works until the
 * signal aborts, then lets running reconciles finish (their `ctx.signal` is aborted).
 */
export class Controller {
  readonly name: string;
  readonly needLeaderElection: boolean;
  readonly queue: WorkQueue;
  readonly #o: ControllerOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #informers: Informer<KubeObject>[] = [];
  readonly #handlerRemovals: (() => void)[] = [];
  #active = 0;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.needLeaderElection = options.needLeaderElection ?? true;
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = (options.logger ?? silentLogger()).child({ controller: options.name });
    const queueOptions: ConstructorParameters<typeof WorkQueue>[0] = { name: options.name, clock: this.#clock };
    if (options.rateLimiter !== undefined) queueOptions.rateLimiter = options.rateLimiter;
    if (options.metrics !== undefined) queueOptions.metrics = options.metrics.queue;
    this.queue = new WorkQueue(queueOptions);
  }

  /**
   * Enqueues keys for every add, update (per predicate) and delete the informer delivers; the
   * keys of a periodic resync at low priority (see {@link WorkQueue.add}).
   */
  watch<T extends KubeObject>(informer: Informer<T>, options: WatchOptions<T> = {}): this {
    this.#informers.push(informer);
    const map = options.map ?? ((obj: T) => [objectKey(obj)]);
    const predicate = options.updatePredicate ?? ((o: T, n: T) => o === n || o.metadata.resourceVersion !== n.metadata.resourceVersion);
    const enqueue = (obj: T, priority: 'normal' | 'low' = 'normal'): void => {
      for (const key of map(obj)) this.queue.add(key, { priority });
    };
    const handler: EventHandler<T> = {
      onAdd: (obj) => enqueue(obj),
      // A periodic resync (the same object twice) re-checks everything: after any key added for a change.
      onUpdate: (o, n) => {
        if (predicate(o, n)) enqueue(n, o === n ? 'low' : 'normal');
      },
      onDelete: (obj) => enqueue(deletedObject(obj)),
    };
    this.#handlerRemovals.push(
      informer.addEventHandler(handler, options.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: options.resyncPeriodMs }),
    );
    return this;
  }

  /**
   * Runs workers until `signal` aborts; resolves when the running reconciles have finished. Its
   * handlers are then removed from the informers it watched (they may be shared and run on).
   */
  async start(signal: AbortSignal): Promise<void> {
    for (const informer of this.#informers) {
      if (!(await informer.waitForSync(signal))) break;
    }
    if (this.#o.startAfter !== undefined && !signal.aborted) await this.#o.startAfter(signal);
    const workers = Math.max(1, this.#o.maxConcurrentReconciles ?? 1);
    const stop = (): void => void this.queue.shutdown();
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    this.#logger.info({ workers }, 'controller started');
    await Promise.all(Array.from({ length: workers }, () => this.#worker(signal)));
    await this.queue.shutdown({ drain: true });
    for (const remove of this.#handlerRemovals.splice(0)) remove();
    signal.removeEventListener('abort', stop);
    this.#logger.info('controller stopped');
  }

  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const priority = this.queue.priorityOf(key) ?? 'normal';
      try {
        await this.#process(key, priority, signal);
      } finally {
        this.queue.done(key);
      }
      // Reconciles that read caches alone never give the event loop a turn by themselves. A
      // background key (a resync, a member's readiness fan-out) gives one after each, so a change
      // that arrives on a watch meanwhile is read and queued ahead of the rest of them.
      await (priority === 'low' ? eventLoopTurns.next() : eventLoopTurns.yieldIfLong());
    }
  }

  async #process(key: string, priority: 'normal' | 'low', signal: AbortSignal): Promise<void> {
    const fields = this.#o.keyFields?.(key) ?? splitKey(key);
    const logger = this.#logger.child({ ...fields, reconcileId: randomUUID() });
    const attempt = this.queue.numRequeues(key);
    const started = this.#clock.now();
    this.#o.metrics?.controller.activeWorkers(++this.#active);
    let outcome: ReconcileOutcome;
    try {
      outcome = (await this.#o.reconciler.reconcile(key, { logger, signal, attempt, priority })) ?? done();
    } catch (err) {
      outcome = err instanceof TerminalError ? terminal(err) : { type: 'retry' };
      if (outcome.type === 'retry') {
        // A conflict is optimistic concurrency at work (the cache lagged a write): routine, not an error.
        if (statusCodeOf(err) === 409) logger.debug({ attempt, reason: 'Conflict' }, 'reconcile met a newer version; retrying');
        else logger.error({ err, attempt, durationMs: this.#clock.now() - started }, 'reconcile failed; retrying');
      }
    } finally {
      this.#o.metrics?.controller.activeWorkers(--this.#active);
    }
    const durationMs = this.#clock.now() - started;
    let result: ReconcileResult;
    switch (outcome.type) {
      case 'done':
        this.queue.forget(key);
        result = 'success';
        logger.debug({ durationMs }, 'reconciled');
        break;
      case 'retry':
        this.queue.addRateLimited(key);
        result = 'error';
        if (outcome.reason !== undefined) logger.info({ attempt, durationMs, reason: outcome.reason }, 'reconcile asked for a retry');
        break;
      case 'requeueAfter':
        this.queue.forget(key);
        this.queue.addAfter(key, outcome.ms);
        result = 'requeue_after';
        logger.debug({ durationMs, requeueAfterMs: outcome.ms }, 'reconciled; requeue scheduled');
        break;
      case 'terminal':
        this.queue.forget(key);
        result = 'terminal';
        logger.error({ err: outcome.error, durationMs }, 'reconcile failed terminally; not retrying');
        break;
    }
    this.#o.metrics?.controller.reconciled(result, durationMs / 1000);
  }
}
