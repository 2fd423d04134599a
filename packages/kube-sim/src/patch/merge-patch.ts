import { isObject } from '../util/json.js';

/**
 * RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a key, anything else
 * (arrays included) replaces. Returns a new value; inputs are not mutated.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}
