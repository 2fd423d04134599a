import { sleep, systemClock, type Clock } from '@kubefed/client';
import { approximateJsonBytes, type BudgetAccount } from './cache-budget.js';
import { RuntimeError } from './errors.js';
import { statusCodeOf, type KubeObject, type WatchEvent } from './kube-types.js';
import type { ListerWatcher } from './list-watcher.js';
import { silentLogger, type Logger } from './logger.js';
import type { InformerMetrics } from './metrics.js';

/** Where a reflector delivers what it lists and watches (the informer's store + handlers). */
export interface ReflectorSink {
  /**
   * The complete current set of objects after a (re)list, transformed; `bytes` is their
   * approximate JSON size when the reflector has a budget, else 0.
   */
  replace(items: KubeObject[], resourceVersion: string, bytes: number): void;
  /** One ADDED / MODIFIED / DELETED watch event. */
  apply(event: WatchEvent): void;
  /** A (re)list failed (it is retried with backoff); not called when the signal aborted it. */
  listFailed?(err: unknown): void;
}

/** Reconnect backoff of a reflector. */
export interface ReflectorBackoff {
  /** First delay after a failure; default 200 ms. */
  initialMs?: number;
  /** Cap of the delay; default 30 s. */
  maxMs?: number;
  /** A connection that lasted this long (or delivered events) resets the backoff; default 10 s. */
  resetAfterMs?: number;
}

/** Options of {@link Reflector}. */
export interface ReflectorOptions {
  /** Names the source in logs and metrics (e.g. `deployments.apps@member1`). */
  name: string;
  listerWatcher: ListerWatcher;
  sink: ReflectorSink;
  /** Page size of the initial list; default 500 (0 = one unpaged request). */
  pageSize?: number;
  /** Applied to every listed object as its page arrives, so that a list holds transformed objects only; default none. */
  transform?: (obj: KubeObject) => KubeObject;
  /** Where a list's pages, objects and bytes are counted as they arrive (a member's cache budget); default none. */
  budget?: BudgetAccount;
  /** Range of `timeoutSeconds` asked of the server per watch, randomised; default [300, 600]. */
  watchTimeoutSeconds?: readonly [number, number];
  backoff?: ReflectorBackoff;
  clock?: Clock;
  /** Randomness for jitter and the watch timeout, in [0, 1); default Math.random. */
  random?: () => number;
  logger?: Logger;
  metrics?: InformerMetrics;
}

/** A watch ERROR event that is not "resourceVersion too old". */
export class WatchError extends RuntimeError {}

type WatchEnd = 'closed' | 'gone';

/**
 * Keeps a sink equal to the server's state: lists, then watches from the list's
 * resourceVersion (with bookmarks), resumes from the last seen resourceVersion, relists on
 * 410 Gone, and after ANY failure (network, non-200, stream end) reconnects with exponential
 * backoff and jitter. It only stops when its signal aborts.
 */
export class Reflector {
  readonly #o: ReflectorOptions;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: Logger;
  #resourceVersion = '';

  constructor(options: ReflectorOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? silentLogger();
  }

  /** The resourceVersion the next watch resumes from ('' before the first list). */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Runs until `signal` aborts; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const initialMs = this.#o.backoff?.initialMs ?? 200;
    const maxMs = this.#o.backoff?.maxMs ?? 30_000;
    const resetAfterMs = this.#o.backoff?.resetAfterMs ?? 10_000;
    let needList = true;
    let attempt = 0;
    while (!signal.aborted) {
      const started = this.#clock.now();
      let healthy = false;
      let reason: string;
      try {
        if (needList) {
          await this.#list(signal).catch((err: unknown) => {
            if (!signal.aborted) this.#o.sink.listFailed?.(err);
            throw err;
          });
          needList = false;
        }
        const end = await this.#watch(signal, () => (healthy = true));
        if (end === 'gone') {
          needList = true;
          reason = 'gone';
        } else {
          reason = 'closed';
        }
      } catch (err) {
        if (signal.aborted) break;
        if (statusCodeOf(err) === 410) {
          needList = true;
          reason = 'gone';
        } else {
          reason = 'error';
          this.#logger.warn({ err, attempt }, 'list/watch failed; reconnecting');
        }
      }
      if (signal.aborted) break;
      if (healthy || this.#clock.now() - started >= resetAfterMs) attempt = 0;
      this.#o.metrics?.watchRestart(reason);
      const base = Math.min(maxMs, initialMs * 2 ** attempt);
      const delay = Math.min(maxMs, base * (1 + this.#random()));
      attempt++;
      this.#logger.debug({ reason, attempt, durationMs: Math.round(delay) }, 'watch restarting');
      await sleep(this.#clock, delay, signal);
    }
  }

  async #list(signal: AbortSignal): Promise<void> {
    const pageSize = this.#o.pageSize ?? 500;
    const lw = this.#o.listerWatcher;
    const held = new ListHold(this.#o.transform, this.#o.budget);
    let resourceVersion = '';
    let cont: string | undefined;
    try {
      do {
        const opts: { limit?: number; continue?: string; signal: AbortSignal } = { signal };
        if (pageSize > 0) opts.limit = pageSize;
        if (cont !== undefined) opts.continue = cont;
        const page = await lw.list(opts);
        held.add(page.items);
        if (cont === undefined) resourceVersion = page.resourceVersion;
        cont = page.continue;
      } while (cont !== undefined);
    } catch (err) {
      // An expired continue token: fall back to one unpaged list.
      if (cont === undefined || statusCodeOf(err) !== 410) {
        held.clear();
        throw err;
      }
      held.clear();
      const all = await lw.list({ signal });
      held.add(all.items);
      resourceVersion = all.resourceVersion;
    }
    if (signal.aborted) {
      held.clear();
      return;
    }
    this.#o.metrics?.list();
    this.#o.sink.replace(held.items, resourceVersion, held.bytes);
    this.#resourceVersion = resourceVersion;
  }

  async #watch(signal: AbortSignal, onEvent: () => void): Promise<WatchEnd> {
    const [min, max] = this.#o.watchTimeoutSeconds ?? [300, 600];
    const timeoutSeconds = Math.round(min + (max - min) * this.#random());
    const ac = new AbortController();
    const abort = (): void => ac.abort();
    signal.addEventListener('abort', abort, { once: true });
    // A watchdog for half-open connections: the server should have ended the watch by now.
    const watchdog = this.#clock.setTimeout(abort, (timeoutSeconds + 30) * 1000);
    try {
      const stream = this.#o.listerWatcher.watch({
        resourceVersion: this.#resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        signal: ac.signal,
      });
      for await (const event of stream) {
        if (ac.signal.aborted) break;
        this.#o.metrics?.event(event.type);
        switch (event.type) {
          case 'ERROR': {
            const status = event.object as { code?: unknown; reason?: unknown; message?: unknown };
            const detail =
              typeof status.message === 'string' ? status.message : typeof status.reason === 'string' ? status.reason : 'unknown';
            if (status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone') return 'gone';
            throw new WatchError(`watch of ${this.#o.name} returned an error: ${detail}`);
          }
          case 'BOOKMARK':
            break;
          case 'ADDED':
          case 'MODIFIED':
          case 'DELETED':
            this.#o.sink.apply(event);
            break;
        }
        const rv = event.object.metadata.resourceVersion;
        if (rv !== undefined && rv !== '') this.#resourceVersion = rv;
        onEvent();
      }
      return 'closed';
    } catch (err) {
      if (ac.signal.aborted && !signal.aborted) return 'closed';
      throw err;
    } finally {
      this.#clock.clearTimeout(watchdog);
      signal.removeEventListener('abort', abort);
    }
  }
}

/**
 * The objects of one list in progress: transformed as each page arrives and, with a budget,
 * counted (pages, objects, approximate bytes) before the next page is asked for.
 */
class ListHold {
  readonly items: KubeObject[] = [];
  bytes = 0;
  #pages = 0;

  constructor(
    private readonly transform: ((obj: KubeObject) => KubeObject) | undefined,
    private readonly budget: BudgetAccount | undefined,
  ) {}

  add(page: readonly KubeObject[]): void {
    this.#pages += 1;
    const budget = this.budget;
    if (budget !== undefined && this.#pages > budget.maxListPages) {
      this.clear();
      budget.tooManyPages(this.#pages);
    }
    for (const item of page) {
      const obj = this.transform === undefined ? item : this.transform(item);
      this.items.push(obj);
      if (budget !== undefined) this.bytes += approximateJsonBytes(obj);
    }
    try {
      budget?.hold('list', this.items.length, this.bytes);
    } catch (err) {
      this.clear();
      throw err;
    }
  }

  /** Drops the objects (the list failed or was replaced) and their share of the budget. */
  clear(): void {
    this.items.length = 0;
    this.bytes = 0;
    this.budget?.hold('list', 0, 0);
  }
}
