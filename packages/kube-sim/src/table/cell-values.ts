/**
 * The values of Table cells: ages as kubectl prints them and the JSONPath subset printer columns
 * use. Shared by the Table builder (`table.ts`) and the built-in kinds' columns
 * (`builtin-columns.ts`), which both import this module and not each other's.
 */
import { isObject } from '../util/json.js';

/** Human-readable age as kubectl prints it (`45s`, `5m12s`, `3h`, `2d5h`). */
export function humanAge(from: string | undefined, now: number): string {
  if (from === undefined) return '<unknown>';
  const t = Date.parse(from);
  if (Number.isNaN(t)) return '<invalid>';
  let s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 120) return `${s}s`;
  let m = Math.floor(s / 60);
  s %= 60;
  if (m < 10) return s === 0 ? `${m}m` : `${m}m${s}s`;
  if (m < 180) return `${m}m`;
  let h = Math.floor(m / 60);
  m %= 60;
  if (h < 8) return m === 0 ? `${h}h` : `${h}h${m}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  h %= 24;
  if (d < 8) return h === 0 ? `${d}d` : `${d}d${h}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

/** Splits a JSONPath on the dots that are not inside `[...]` (filters contain `@.field`). */
function splitPath(p: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of p) {
    if (ch === '[') depth++;
    else if (ch === ']') depth--;
    if (ch === '.' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

/**
 * Evaluates the JSONPath subset printer columns use: `.spec.replicas`, `.status.conditions[0].type`,
 * `.metadata.labels.x`, `[*]`, and equality filters `[?(@.type=="Ready")]` / `[?(@.type=='Ready')]`.
 */
export function evalJsonPath(obj: unknown, path: string): unknown {
  const p = path.replace(/^\{?\.?/, '').replace(/\}$/, '');
  if (p === '') return obj;
  let cur: unknown = obj;
  for (const raw of splitPath(p)) {
    const m = /^([^[\]]*)((?:\[[^\]]*\])*)$/.exec(raw);
    if (m === null) return undefined;
    if (m[1] !== '') cur = isObject(cur) ? cur[m[1]!] : undefined;
    for (const idx of m[2]!.match(/\[[^\]]*\]/g) ?? []) {
      const inner = idx.slice(1, -1);
      if (Array.isArray(cur)) {
        if (/^-?\d+$/.test(inner)) {
          const n = Number(inner);
          cur = cur[n < 0 ? cur.length + n : n];
        } else if (inner === '*') {
          // keep the array
        } else {
          const f = /^\?\(@\.(\w+)\s*==\s*(?:"([^"]*)"|'([^']*)'|([^'"\s)]*))\s*\)$/.exec(inner);
          const want = f === null ? undefined : (f[2] ?? f[3] ?? f[4]);
          cur = f === null ? undefined : cur.find((x) => isObject(x) && String(x[f[1]!]) === want);
        }
      } else cur = undefined;
    }
  }
  return cur;
}
