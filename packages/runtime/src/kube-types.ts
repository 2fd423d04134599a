import type { KubeObject, ResourceClient } from '@kubefed/client';

export type { KubeObject, WatchEvent } from '@kubefed/client';

/** The list/watch half of a client `ResourceClient` (what `listerWatcherFor` adapts). */
export type ListWatchClient = Pick<ResourceClient, 'list' | 'watch'>;

/** The get/create/update part of a client `ResourceClient` that leader election uses. */
export type LeaseResourceClient = Pick<ResourceClient, 'get' | 'create' | 'update'>;

/** HTTP status code of an API error (`code` of the client's ApiError), or undefined. */
export function statusCodeOf(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === 'number') return e.code;
  if (typeof e.statusCode === 'number') return e.statusCode;
  return undefined;
}

/** The key of an object in caches and queues: `namespace/name`, or `name` when cluster-scoped. */
export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata.namespace;
  const name = obj.metadata.name ?? '';
  return ns !== undefined && ns !== '' ? `${ns}/${name}` : name;
}

/** Splits a `namespace/name` key (a key without `/` is cluster-scoped). */
export function splitKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
