import { isObject, type JsonObject } from '../util/json.js';
import { builtinListType } from './builtin-list-types.js';

/**
 * Strategic merge patch for built-in kinds (a pragmatic subset of the Go implementation):
 * maps merge recursively with `null` deleting; lists whose field has a known merge key merge
 * item by item (`$patch: delete` removes an item, `$patch: replace` replaces the list or map);
 * `metadata.finalizers` merges as a set; every other list is replaced.
 * Directive keys (`$setElementOrder/...`, `$retainKeys`, `$deleteFromPrimitiveList/...`) are
 * honoured where cheap (`$deleteFromPrimitiveList`) or dropped, never stored.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  return mergeValue(target, patch, []);
}

/** Merge key of a list field, from the field name and its parent path: `set` for a set of scalars, undefined for a list that is replaced. */
function mergeKeyFor(path: readonly string[], field: string): string | undefined {
  const list = builtinListType([...path, field]);
  if (list.type === 'set') return 'set';
  return list.type === 'map' ? list.keys[0] : undefined;
}

function mergeValue(target: unknown, patch: unknown, path: string[]): unknown {
  if (!isObject(patch)) return patch;
  if (patch['$patch'] === 'replace') {
    const copy = { ...patch };
    delete copy['$patch'];
    return stripDirectives(copy);
  }
  if (patch['$patch'] === 'delete') return undefined;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v)) out[field] = cur.filter((x) => !v.includes(x));
      continue;
    }
    if (k.startsWith('$')) continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    const childPath = [...path, k];
    if (Array.isArray(v)) {
      const mk = mergeKeyFor(path, k);
      out[k] = mk === undefined ? stripDirectives(v) : mergeList(out[k], v, mk, childPath);
      continue;
    }
    const merged = mergeValue(out[k], v, childPath);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  return out;
}

function mergeList(target: unknown, patch: unknown[], mergeKey: string, path: string[]): unknown[] {
  const base: unknown[] = Array.isArray(target) ? [...(target as unknown[])] : [];
  if (patch.some((p) => isObject(p) && p['$patch'] === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p['$patch'] === 'replace')).map(stripDirectives);
  }
  if (mergeKey === 'set') {
    for (const p of patch) if (!base.includes(p)) base.push(p);
    return base;
  }
  for (const p of patch) {
    if (!isObject(p)) {
      if (!base.includes(p)) base.push(p);
      continue;
    }
    const key = p[mergeKey];
    const idx = base.findIndex((b) => isObject(b) && b[mergeKey] === key);
    if (p['$patch'] === 'delete') {
      if (idx >= 0) base.splice(idx, 1);
      continue;
    }
    if (idx >= 0) base[idx] = mergeValue(base[idx], p, path);
    else base.push(stripDirectives(p));
  }
  return base;
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('$')) continue;
    out[k] = stripDirectives(v);
  }
  return out;
}
