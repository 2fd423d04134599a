import type { KObject } from '../util/json.js';

const cache = new WeakMap<KObject, string>();

/** JSON of a stored object without type meta, cached (stored objects are immutable). */
function bodyJson(obj: KObject): string {
  let s = cache.get(obj);
  if (s === undefined) {
    s = JSON.stringify(obj);
    cache.set(obj, s);
  }
  return s;
}

/** JSON of a stored object with `kind` and `apiVersion` first, without re-serialising the body. */
export function typedJson(kind: string, apiVersion: string, obj: KObject): string {
  const body = bodyJson(obj);
  const head = `{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)}`;
  return body === '{}' ? `${head}}` : `${head},${body.slice(1)}`;
}
