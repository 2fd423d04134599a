import type { KubeObject, ListWatchClient, WatchEvent } from './kube-types.js';

/** Options of {@link ListerWatcher.list}. */
export interface ListerWatcherListOptions {
  limit?: number;
  continue?: string;
  signal?: AbortSignal;
}

/** Options of {@link ListerWatcher.watch}. */
export interface ListerWatcherWatchOptions {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

/**
 * The source of an informer: a consistent list (with the resourceVersion to watch from) and a
 * watch stream. `watch` throws an error with `code` 410 when the resourceVersion is too old
 * (and may instead deliver an ERROR event whose object is a Status with `code: 410`).
 */
export interface ListerWatcher {
  list(opts: ListerWatcherListOptions): Promise<{ items: KubeObject[]; resourceVersion: string; continue?: string }>;
  watch(opts: ListerWatcherWatchOptions): AsyncIterable<WatchEvent>;
}

/** Options of {@link listerWatcherFor}: server-side filters applied to both list and watch. */
export interface ListWatchFilter {
  labelSelector?: string;
  fieldSelector?: string;
}

/** Adapts a client `ResourceClient` (e.g. `dynamic.resource(gvr, ns)`) to a {@link ListerWatcher}. */
export function listerWatcherFor(client: ListWatchClient, filter: ListWatchFilter = {}): ListerWatcher {
  return {
    async list(opts) {
      const list = await client.list({ ...filter, ...opts });
      const result: { items: KubeObject[]; resourceVersion: string; continue?: string } = {
        items: list.items,
        resourceVersion: list.metadata.resourceVersion ?? '',
      };
      if (list.metadata.continue !== undefined && list.metadata.continue !== '') result.continue = list.metadata.continue;
      return result;
    },
    watch(opts) {
      return client.watch({ ...filter, ...opts });
    },
  };
}
