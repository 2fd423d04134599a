import type { ServerResponse } from 'node:http';
import type { Scope, Selectors, RestOps } from '../resources/rest-ops.js';
import { groupVersion } from '../resources/resource-def.js';
import type { StoreEvent, WatchSubscriber } from '../store/watch-hub.js';
import type { KObject } from '../util/json.js';
import { buildTable, type IncludeObject } from '../table/table.js';
import { badRequest, expired } from '../util/status-error.js';
import { typedJson } from './object-json.js';

/** Options of one watch request. */
export interface WatchRequest {
  scope: Scope;
  /** Namespace filter ('' = all namespaces). */
  namespace: string;
  selectors: Selectors;
  resourceVersion: string | undefined;
  timeoutSeconds: number | undefined;
  bookmarks: boolean;
  /** Bookmark period in ms. */
  bookmarkIntervalMs: number;
  table: { version: string; include: IncludeObject } | undefined;
  /** `sendInitialEvents=true` (watch-list): current state, then a bookmark marking its end. */
  sendInitialEvents: boolean;
  /** Receives the function that ends the watch (used by restart/stop). */
  onClose: (close: () => void) => void;
}

/**
 * Serves one watch: a chunked stream of JSON events (one per line). Events are filtered by
 * namespace and selectors; an object that starts or stops matching is sent as ADDED / DELETED,
 * as the real watch cache does. Hands a close function to `w.onClose` (used by restart/stop).
 */
export function serveWatch(ops: RestOps, res: ServerResponse, w: WatchRequest): void {
  const rvParam = w.resourceVersion;
  if (rvParam !== undefined && rvParam !== '' && !/^\d+$/.test(rvParam))
    throw badRequest(`invalid resource version: ${JSON.stringify(rvParam)}`);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  new WatchStream(ops, res, w).start();
}

/** One open watch: its subscription to the store, its timers and the lines it writes. */
class WatchStream {
  readonly #grKey: string;
  readonly #apiVersion: string;
  /** A Table watch sends the column definitions with its first row only. */
  #first = true;
  #closed = false;
  #timeout: NodeJS.Timeout | undefined;
  #bookmarkTimer: NodeJS.Timeout | undefined;
  readonly #sub: WatchSubscriber;

  constructor(
    private readonly ops: RestOps,
    private readonly res: ServerResponse,
    private readonly w: WatchRequest,
  ) {
    this.#grKey = ops.grKey(w.scope.def);
    this.#apiVersion = groupVersion(w.scope.def.group, w.scope.version.name);
    this.#sub = { grKey: this.#grKey, deliver: (e) => this.#deliver(e) };
  }

  start(): void {
    const { w, res } = this;
    w.onClose(this.#close);
    res.on('close', this.#close);
    res.on('error', this.#close);
    if (!this.#sendStart()) return;
    this.ops.store.hub.subscribe(this.#sub);
    const timeoutMs =
      w.timeoutSeconds !== undefined && w.timeoutSeconds > 0 ? w.timeoutSeconds * 1000 : (1800 + Math.random() * 1800) * 1000;
    this.#timeout = setTimeout(this.#close, timeoutMs);
    if (w.bookmarks) {
      const tick = (): void => {
        if (this.#closed) return;
        res.write(this.#bookmark(''));
        this.#bookmarkTimer = setTimeout(tick, w.bookmarkIntervalMs);
      };
      this.#bookmarkTimer = setTimeout(tick, w.bookmarkIntervalMs);
    }
  }

  /**
   * Sends the current state (no resourceVersion, 0, or watch-list) or the events since the
   * resourceVersion asked for; false after an ERROR event for a compacted one (the watch is closed).
   */
  #sendStart(): boolean {
    const { ops, w, res } = this;
    const rv = w.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0' || w.sendInitialEvents) {
      for (const o of ops.store.list(this.#grKey, w.scope.def.namespaced && w.namespace !== '' ? w.namespace : undefined))
        if (this.#inScope(o)) res.write(this.#line('ADDED', o));
      if (w.sendInitialEvents && w.bookmarks) res.write(this.#bookmark(',"annotations":{"k8s.io/initial-events-end":"true"}'));
      return true;
    }
    const n = Number(rv);
    const events = Number.isInteger(n) ? ops.store.hub.since(n, this.#grKey) : undefined;
    if (events === undefined) {
      const err = expired(`too old resource version: ${rv} (${ops.store.hub.compactedRv})`);
      res.write(`{"type":"ERROR","object":${JSON.stringify(err.toStatus())}}\n`);
      this.#close();
      return false;
    }
    for (const e of events) this.#deliver(e);
    return true;
  }

  #deliver(e: StoreEvent): void {
    if (this.#closed) return;
    const res = this.res;
    const now = this.#inScope(e.object);
    if (e.type === 'DELETED') {
      if (this.#inScope(e.prev) || now) res.write(this.#line('DELETED', e.object));
      return;
    }
    const before = e.type === 'MODIFIED' && this.#inScope(e.prev);
    if (now && before) res.write(this.#line('MODIFIED', e.object));
    else if (now) res.write(this.#line('ADDED', e.object));
    // An object that stops matching is sent as its last matching state, with the
    // resourceVersion of the change (the watch cache's convertToWatchEvent).
    else if (before && e.prev !== undefined)
      res.write(this.#line('DELETED', { ...e.prev, metadata: { ...e.prev.metadata, resourceVersion: String(e.rv) } }));
  }

  readonly #close = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    this.ops.store.hub.unsubscribe(this.#sub);
    clearTimeout(this.#timeout);
    clearTimeout(this.#bookmarkTimer);
    this.res.end();
  };

  #inScope(o: KObject | undefined): boolean {
    const w = this.w;
    return o !== undefined && (w.namespace === '' || o.metadata.namespace === w.namespace) && this.ops.matches(w.selectors, o);
  }

  #line(type: string, obj: KObject): string {
    const { scope, table } = this.w;
    if (table !== undefined) {
      const rows = buildTable(scope.def, scope.version, [obj], {
        tableVersion: table.version,
        include: table.include,
        withColumns: this.#first,
        withTypeMeta: (o) => this.ops.withTypeMeta(scope, o),
      });
      this.#first = false;
      return `{"type":"${type}","object":${JSON.stringify(rows)}}\n`;
    }
    return `{"type":"${type}","object":${typedJson(scope.def.kind, this.#apiVersion, obj)}}\n`;
  }

  #bookmark(annotations: string): string {
    const kind = JSON.stringify(this.w.scope.def.kind);
    return `{"type":"BOOKMARK","object":{"kind":${kind},"apiVersion":${JSON.stringify(this.#apiVersion)},"metadata":{"resourceVersion":"${this.ops.store.currentRv}","creationTimestamp":null${annotations}}}}\n`;
  }
}
