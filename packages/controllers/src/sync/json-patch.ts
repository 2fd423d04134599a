/**
 * RFC 6902 JSON Patch (add, remove, replace) over RFC 6901 JSON pointers, with the semantics of
 * the patch library KubeFed uses for overrides (evanphx/json-patch v4.12, docs/kubefed-compatibility.md
 * §4.4.7, §9.8):
 * - `replace` on a missing object key succeeds and sets it; only a missing parent or an invalid
 *   array index fails.
 * - `add` needs the parent to exist; on arrays the index may be ≤ length, or `-` to append.
 * - `remove` of a missing key fails.
 * - negative array indices count from the end (`add` at `-1` appends).
 * - a missing `value` is `null`.
 */
import { boundText } from '@kubefed/api';
import { SyncError } from './errors.js';

/** One JSON Patch operation. */
export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace';
  /** JSON pointer starting with `/`; `~1` is `/` and `~0` is `~` inside a segment. */
  readonly path: string;
  /** The value for add/replace (deep-copied); ignored for remove; absent means `null`. */
  readonly value?: unknown;
}

/** A patch operation did not apply; `index` is its position in the patch. */
export class JsonPatchError extends SyncError {
  readonly index: number;
  readonly path: string;

  constructor(index: number, path: string, message: string) {
    super(message);
    this.index = index;
    this.path = boundText(path);
  }
}

const OPS = ['add', 'remove', 'replace'] as const;

/** A path or key as quoted in an error message: JSON-quoted and bounded (a tenant's path can be megabytes long). */
const quoted = (text: string): string => JSON.stringify(boundText(text));
type Json = unknown;
type Container = Record<string, Json> | Json[];

/** Decodes one pointer segment (`~1` → `/` first, then `~0` → `~`). */
export function decodePointerSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Encodes one key as a pointer segment (`~` → `~0`, `/` → `~1`). */
export function encodePointerSegment(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Splits a pointer (`/a/b~1c` → `['a', 'b/c']`). `""` is the whole document (no segments). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new SyncError(`invalid JSON pointer ${quoted(pointer)}: must start with "/"`);
  return pointer.slice(1).split('/').map(decodePointerSegment);
}

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's strconv.Atoi-accepted integers; undefined when the key is not one. */
function arrayIndex(key: string): number | undefined {
  if (!/^[+-]?\d+$/.test(key)) return undefined;
  const n = Number(key);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Index of an existing element, negative counting from the end; undefined when out of range. */
function existingIndex(arr: readonly Json[], key: string): number | undefined {
  let idx = arrayIndex(key);
  if (idx === undefined) return undefined;
  if (idx < 0) idx += arr.length;
  return idx >= 0 && idx < arr.length ? idx : undefined;
}

function child(container: Container, key: string): Json {
  if (Array.isArray(container)) {
    const idx = existingIndex(container, key);
    return idx === undefined ? undefined : container[idx];
  }
  return Object.prototype.hasOwnProperty.call(container, key) ? container[key] : undefined;
}

function parentOf(doc: Json, segments: readonly string[]): Container | undefined {
  let cur: Json = doc;
  for (const seg of segments.slice(0, -1)) {
    if (!isObject(cur) && !Array.isArray(cur)) return undefined;
    cur = child(cur, seg);
  }
  return isObject(cur) || Array.isArray(cur) ? cur : undefined;
}

function applyOne(doc: Json, op: JsonPatchOperation, index: number): void {
  const fail = (problem: string): never => {
    throw new JsonPatchError(index, op.path, `${op.op} ${quoted(op.path)}: ${problem}`);
  };
  if (!(OPS as readonly string[]).includes(op.op)) fail('unsupported operation (expected add, remove or replace)');
  if (!op.path.startsWith('/')) fail('the path must be a JSON pointer starting with "/"');
  const segments = parsePointer(op.path);
  const key = segments[segments.length - 1] ?? '';
  const parent = parentOf(doc, segments);
  if (parent === undefined) return fail('the parent does not exist');
  const value = (): Json => (op.value === undefined ? null : structuredClone(op.value));

  if (!Array.isArray(parent)) {
    switch (op.op) {
      case 'add':
      case 'replace':
        parent[key] = value();
        return;
      case 'remove':
        if (!Object.prototype.hasOwnProperty.call(parent, key)) fail(`the key ${quoted(key)} does not exist`);
        delete parent[key];
        return;
    }
  }
  switch (op.op) {
    case 'add': {
      if (key === '-') {
        parent.push(value());
        return;
      }
      let idx = arrayIndex(key);
      if (idx === undefined) return fail(`${quoted(key)} is not an array index`);
      if (idx < 0) idx += parent.length + 1;
      if (idx < 0 || idx > parent.length) fail(`index ${key} is out of range for an array of length ${parent.length}`);
      parent.splice(idx, 0, value());
      return;
    }
    case 'remove':
    case 'replace': {
      const idx = existingIndex(parent, key);
      if (idx === undefined) return fail(`index ${quoted(key)} is not an element of an array of length ${parent.length}`);
      if (op.op === 'remove') parent.splice(idx, 1);
      else parent[idx] = value();
      return;
    }
  }
}

/**
 * Applies `ops` in order to a deep copy of `doc` and returns the copy; `doc` is not modified.
 *
 * @throws JsonPatchError naming the failing operation's index and path; nothing is applied.
 */
export function applyJsonPatch<T>(doc: T, ops: readonly JsonPatchOperation[]): T {
  const out = structuredClone(doc);
  ops.forEach((op, i) => applyOne(out, op, i));
  return out;
}
