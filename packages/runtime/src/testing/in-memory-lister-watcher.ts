import { RuntimeError } from '../errors.js';
import { objectKey, type KubeObject, type WatchEvent } from '../kube-types.js';
import type { ListerWatcher, ListerWatcherListOptions, ListerWatcherWatchOptions } from '../list-watcher.js';

/** An error with an HTTP `code`, as the client's ApiError carries. */
export class FakeApiError extends RuntimeError {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An in-memory {@link ListerWatcher} for unit tests (an allowed double of our own interface):
 * a versioned object set with a watch history that can be compacted (410) and watches that
 * can be cut.
 */
export class InMemoryListerWatcher implements ListerWatcher {
  #rv = 0;
  #objects = new Map<string, KubeObject>();
  #history: { rv: number; event: WatchEvent }[] = [];
  #oldestRv = 0;
  #streams = new Set<{ push: (e: WatchEvent | Error | null) => void }>();
  /** Errors thrown by the next calls to `list`/`watch`, in order. */
  readonly failures: { list: Error[]; watch: Error[] } = { list: [], watch: [] };
  /** Number of list and watch calls. */
  readonly calls = { list: 0, watch: 0 };

  /** Creates or replaces an object (ADDED / MODIFIED). */
  upsert(obj: KubeObject): KubeObject {
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.#rv);
    const key = objectKey(stored);
    const type = this.#objects.has(key) ? 'MODIFIED' : 'ADDED';
    this.#objects.set(key, stored);
    this.#record({ type, object: stored });
    return stored;
  }

  /** Deletes an object (DELETED). */
  remove(key: string): void {
    const obj = this.#objects.get(key);
    if (obj === undefined) return;
    this.#objects.delete(key);
    const gone = structuredClone(obj);
    gone.metadata.resourceVersion = String(++this.#rv);
    this.#record({ type: 'DELETED', object: gone });
  }

  /** Drops the history: watches from an older resourceVersion get 410. */
  compact(): void {
    this.#history = [];
    this.#oldestRv = this.#rv;
  }

  /** Ends every open watch stream (like a server closing it). */
  closeWatches(): void {
    for (const s of this.#streams) s.push(null);
  }

  /** Advances the resourceVersion without an event (a change the watch's selector excludes). */
  advanceVersion(): void {
    this.#rv++;
  }

  /** Sends a BOOKMARK at the current resourceVersion to every open watch. */
  bookmark(): void {
    for (const s of this.#streams) s.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(this.#rv) } } });
  }

  get openWatches(): number {
    return this.#streams.size;
  }

  /** Honours `limit`/`continue` (the token is `<resourceVersion>:<offset>` of a snapshot). */
  list(opts: ListerWatcherListOptions): Promise<{ items: KubeObject[]; resourceVersion: string; continue?: string }> {
    this.calls.list++;
    const failure = this.failures.list.shift();
    if (failure !== undefined) return Promise.reject(failure);
    const [rv, offsetText] = (opts.continue ?? `${this.#rv}:0`).split(':');
    const offset = Number(offsetText);
    const all = [...this.#objects.values()].sort((a, b) => objectKey(a).localeCompare(objectKey(b)));
    const end = opts.limit === undefined || opts.limit <= 0 ? all.length : offset + opts.limit;
    const page = { items: all.slice(offset, end).map((o) => structuredClone(o)), resourceVersion: rv ?? '' };
    return Promise.resolve(end < all.length ? { ...page, continue: `${rv}:${end}` } : page);
  }

  async *watch(opts: ListerWatcherWatchOptions): AsyncIterable<WatchEvent> {
    this.calls.watch++;
    const failure = this.failures.watch.shift();
    if (failure !== undefined) throw failure;
    const from = Number(opts.resourceVersion ?? '0');
    if (from < this.#oldestRv) throw new FakeApiError(410, 'too old resource version');
    const buffer: (WatchEvent | Error | null)[] = this.#history.filter((h) => h.rv > from).map((h) => structuredClone(h.event));
    let wake: (() => void) | undefined;
    const stream = {
      push: (e: WatchEvent | Error | null) => {
        buffer.push(e === null || e instanceof Error ? e : structuredClone(e));
        wake?.();
      },
    };
    const onAbort = (): void => stream.push(null);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.#streams.add(stream);
    try {
      for (;;) {
        const next = buffer.shift();
        if (next === undefined) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        if (next === null) return;
        if (next instanceof Error) throw next;
        yield next;
      }
    } finally {
      this.#streams.delete(stream);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  #record(event: WatchEvent): void {
    this.#history.push({ rv: this.#rv, event });
    for (const s of this.#streams) s.push(event);
  }
}
