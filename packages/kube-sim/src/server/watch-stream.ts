import type { ServerResponse } from 'node:http';
import type { Scope, Selectors, RestOps } from '../resources/rest-ops.js';
import { groupVersion } from '../resources/resource-def.js';
import type { StoreEvent, WatchSubscriber } from '../store/watch-hub.js';
import type { KObject } from '../util/json.js';
import { buildTable } from '../table/table.js';
import type { IncludeObject } from '../table/table.js';
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
}

/**
 * Serves one watch: a chunked stream of JSON events (one per line). Events are filtered by
 * namespace and selectors; an object that starts or stops matching is sent as ADDED / DELETED,
 * as the real watch cache does. Hands a close function to `onClose` (used by restart/stop).
 */
export function serveWatch(ops: RestOps, res: ServerResponse, w: WatchRequest, onClose: (close: () => void) => void): void {
  const { scope } = w;
  const grKey = ops.grKey(scope.def);
  const apiVersion = groupVersion(scope.def.group, scope.version.name);
  let first = true;
  const line = (type: string, obj: KObject): string => {
    if (w.table !== undefined) {
      const table = buildTable(scope.def, scope.version, [obj], {
        tableVersion: w.table.version,
        include: w.table.include,
        withColumns: first,
        withTypeMeta: (o) => ops.withTypeMeta(scope, o),
      });
      first = false;
      return `{"type":"${type}","object":${JSON.stringify(table)}}\n`;
    }
    return `{"type":"${type}","object":${typedJson(scope.def.kind, apiVersion, obj)}}\n`;
  };
  const inScope = (o: KObject | undefined): boolean =>
    o !== undefined && (w.namespace === '' || o.metadata.namespace === w.namespace) && ops.matches(w.selectors, o);

  const rvParam = w.resourceVersion;
  if (rvParam !== undefined && rvParam !== '' && !/^\d+$/.test(rvParam))
    throw badRequest(`invalid resource version: ${JSON.stringify(rvParam)}`);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();

  let closed = false;
  const timers: { timeout?: NodeJS.Timeout; bookmark?: NodeJS.Timeout } = {};
  const sub: WatchSubscriber = {
    grKey,
    deliver: (e: StoreEvent) => {
      if (closed) return;
      const now = inScope(e.object);
      if (e.type === 'DELETED') {
        if (inScope(e.prev) || now) res.write(line('DELETED', e.object));
        return;
      }
      const before = e.type === 'MODIFIED' && inScope(e.prev);
      if (now && before) res.write(line('MODIFIED', e.object));
      else if (now) res.write(line('ADDED', e.object));
      // An object that stops matching is sent as its last matching state, with the
      // resourceVersion of the change (the watch cache's convertToWatchEvent).
      else if (before && e.prev !== undefined)
        res.write(line('DELETED', { ...e.prev, metadata: { ...e.prev.metadata, resourceVersion: String(e.rv) } }));
    },
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    ops.store.hub.unsubscribe(sub);
    clearTimeout(timers.timeout);
    clearTimeout(timers.bookmark);
    res.end();
  };
  onClose(close);
  res.on('close', close);
  res.on('error', close);

  const rv = w.resourceVersion;
  const bookmark = (annotations: string): string =>
    `{"type":"BOOKMARK","object":{"kind":${JSON.stringify(scope.def.kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${ops.store.currentRv}","creationTimestamp":null${annotations}}}}\n`;
  if (rv === undefined || rv === '' || rv === '0' || w.sendInitialEvents) {
    for (const o of ops.store.list(grKey, scope.def.namespaced && w.namespace !== '' ? w.namespace : undefined))
      if (inScope(o)) res.write(line('ADDED', o));
    if (w.sendInitialEvents && w.bookmarks) res.write(bookmark(',"annotations":{"k8s.io/initial-events-end":"true"}'));
  } else {
    const n = Number(rv);
    const events = Number.isInteger(n) ? ops.store.hub.since(n, grKey) : undefined;
    if (events === undefined) {
      const err = expired(`too old resource version: ${rv} (${ops.store.hub.compactedRv})`);
      res.write(`{"type":"ERROR","object":${JSON.stringify(err.toStatus())}}\n`);
      close();
      return;
    }
    for (const e of events) sub.deliver(e);
  }
  ops.store.hub.subscribe(sub);

  const timeoutMs = w.timeoutSeconds !== undefined && w.timeoutSeconds > 0 ? w.timeoutSeconds * 1000 : (1800 + Math.random() * 1800) * 1000;
  timers.timeout = setTimeout(close, timeoutMs);
  if (w.bookmarks) {
    const tick = (): void => {
      if (closed) return;
      res.write(bookmark(''));
      timers.bookmark = setTimeout(tick, w.bookmarkIntervalMs);
    };
    timers.bookmark = setTimeout(tick, w.bookmarkIntervalMs);
  }
}
