import type { ResourceDef, VersionDef } from '../resources/resource-def.js';
import { StatusError } from '../util/status-error.js';
import { builtinListType, type ListType } from './builtin-list-types.js';
import { isObject, jsonEqual, type JsonObject, type KObject } from '../util/json.js';

/**
 * Field ownership for server-side apply, after structured-merge-diff as kube-apiserver uses it:
 * every write through the API records which manager set which fields in `metadata.managedFields`
 * (FieldsV1); an apply removes the fields its manager applied before and applies no longer (unless
 * another manager owns them too), and refuses with 409 to change a field another manager owns
 * unless forced.
 *
 * A field path is a list of elements as FieldsV1 spells them: `f:<field>`, `k:<json of the key
 * fields>` for an item of an associative list, `v:<json>` for a member of a set. Leaves (scalars,
 * atomic lists and maps, empty objects) and list items are owned; plain maps and structs are not.
 * Simplified: list types come from the field name for built-in kinds and from the CRD schema
 * (`x-kubernetes-list-type`) for custom resources; writes of kube-sim's own controllers are not
 * recorded.
 */

/** One `metadata.managedFields` entry. */
interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  /** Absent in entries a client wrote without one. */
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

/** Field names on the path from the root (list items skipped) → how the list there merges. */
type ListTypes = (fields: readonly string[], item: unknown) => ListType;

/** Paths a manager may never own: identity and system-maintained metadata. */
const untracked = new Set([
  'f:apiVersion',
  'f:kind',
  'f:metadata\u0000f:name',
  'f:metadata\u0000f:namespace',
  'f:metadata\u0000f:uid',
  'f:metadata\u0000f:resourceVersion',
  'f:metadata\u0000f:generation',
  'f:metadata\u0000f:creationTimestamp',
  'f:metadata\u0000f:deletionTimestamp',
  'f:metadata\u0000f:deletionGracePeriodSeconds',
  'f:metadata\u0000f:managedFields',
  'f:metadata\u0000f:selfLink',
]);

const sep = '\u0000';

/** Built-in fields whose whole value is one leaf (`+structType=atomic`, `+mapType=atomic`). */
function builtinAtomicMap(fields: readonly string[]): boolean {
  return fields[fields.length - 1] === 'selector';
}

/** List types of a custom resource, from its schema (`x-kubernetes-list-type`, default atomic). */
function schemaListTypes(schema: JsonObject | undefined): ListTypes {
  return (fields) => {
    let node: unknown = schema;
    for (const f of fields) {
      if (!isObject(node)) return { type: 'atomic' };
      if (node['type'] === 'array') node = node['items'];
      const props = isObject(node) ? node['properties'] : undefined;
      node = isObject(props) ? props[f] : undefined;
    }
    if (!isObject(node)) return { type: 'atomic' };
    const listType = node['x-kubernetes-list-type'];
    if (listType === 'set') return { type: 'set' };
    const keys = node['x-kubernetes-list-map-keys'];
    if (listType === 'map' && Array.isArray(keys)) return { type: 'map', keys: keys.map(String) };
    return { type: 'atomic' };
  };
}

/** How the lists of a resource merge. */
export function listTypesFor(
  def: ResourceDef,
  version: VersionDef,
): { listTypes: ListTypes; atomicMap: (fields: readonly string[]) => boolean; isMap: (fields: readonly string[]) => boolean } {
  if (def.builtin)
    return { listTypes: builtinListType, atomicMap: builtinAtomicMap, isMap: (fields) => builtinMaps.has(fields[fields.length - 1] ?? '') };
  return { listTypes: schemaListTypes(version.schema), atomicMap: () => false, isMap: () => false };
}

/** Built-in fields that are maps (`map[string]...`), not structs: an Update that creates one owns it. */
const builtinMaps = new Set([
  'labels',
  'annotations',
  'data',
  'binaryData',
  'stringData',
  'nodeSelector',
  'matchLabels',
  'limits',
  'requests',
]);

type Shape = ReturnType<typeof listTypesFor>;

/** The key element of a list item: `k:{"name":"app"}` (ports default their protocol to TCP, as before keying). */
function itemElement(item: unknown, lt: ListType): string | undefined {
  if (lt.type === 'set') return `v:${JSON.stringify(item)}`;
  if (lt.type !== 'map' || !isObject(item)) return undefined;
  const key: JsonObject = {};
  for (const k of lt.keys) {
    const v = item[k] ?? (k === 'protocol' ? 'TCP' : undefined);
    if (v === undefined) return undefined;
    key[k] = v;
  }
  return `k:${JSON.stringify(key)}`;
}

/** The value recorded for a map or list node: such a node changes only by appearing. */
const node = Symbol('node');

/**
 * Leaves and list items of a value, with their values: the fields it sets. With `nodes`, also
 * the maps (of the kind's map fields) and associative lists themselves, which an Update owns
 * when it creates them (FieldsV1 marks them `.`); an applied configuration has none.
 */
function collect(value: unknown, shape: Shape, at: { path: string[]; fields: string[]; nodes: boolean }, out: Map<string, unknown>): void {
  if (!isObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const p = [...at.path, `f:${k}`];
    const key = p.join(sep);
    if (untracked.has(key)) continue;
    const f = [...at.fields, k];
    if (isObject(v) && Object.keys(v).length > 0 && !shape.atomicMap(f)) {
      if (at.nodes && shape.isMap(f)) out.set(key, node);
      collect(v, shape, { ...at, path: p, fields: f }, out);
      continue;
    }
    if (Array.isArray(v) && v.length > 0) {
      const lt = shape.listTypes(f, v[0]);
      const elements = v.map((item) => itemElement(item, lt));
      if (lt.type !== 'atomic' && elements.every((e) => e !== undefined)) {
        if (at.nodes) out.set(key, node);
        v.forEach((item, i) => {
          const ip = [...p, elements[i]!];
          out.set(ip.join(sep), lt.type === 'set' ? item : node);
          if (lt.type === 'map') collect(item, shape, { ...at, path: ip, fields: f }, out);
        });
        continue;
      }
    }
    out.set(key, v);
  }
}

/** The fields a value sets, keyed by path, with the value at each leaf. */
export function fieldsOf(value: unknown, shape: Shape, nodes = false): Map<string, unknown> {
  const out = new Map<string, unknown>();
  collect(value, shape, { path: [], fields: [], nodes }, out);
  return out;
}

/**
 * Reorders the associative lists of `merged` as structured-merge-diff merges them: the live items
 * the configuration does not name first, then the configuration's items in its order.
 */
export function orderAppliedLists(merged: unknown, config: unknown, shape: Shape, fields: string[] = []): void {
  if (!isObject(merged) || !isObject(config)) return;
  for (const [k, c] of Object.entries(config)) {
    const m = merged[k];
    const f = [...fields, k];
    if (Array.isArray(c) && Array.isArray(m) && c.length > 0) {
      const lt = shape.listTypes(f, c[0]);
      if (lt.type === 'atomic') continue;
      const items: unknown[] = m;
      const wanted = (c as unknown[]).map((item) => itemElement(item, lt));
      const byKey = new Map<string | undefined, unknown>(items.map((item) => [itemElement(item, lt), item]));
      const rest = items.filter((item) => !wanted.includes(itemElement(item, lt)));
      const ordered = wanted.map((w) => byKey.get(w)).filter((item) => item !== undefined);
      merged[k] = [...rest, ...ordered];
      if (lt.type === 'map') (c as unknown[]).forEach((item, i) => orderAppliedLists(byKey.get(wanted[i]), item, shape, f));
    } else if (isObject(c)) orderAppliedLists(m, c, shape, f);
  }
}

/** FieldsV1 JSON of a set of paths. */
export function toFieldsV1(paths: Iterable<string>): JsonObject {
  const root: JsonObject = {};
  const sorted = [...paths].sort();
  for (const p of sorted) {
    let node = root;
    for (const el of p.split(sep)) {
      if (!isObject(node[el])) node[el] = {};
      node = node[el] as JsonObject;
    }
  }
  // An owned node with children (a list item, a map or list an Update created) is marked `.`.
  for (const p of sorted) {
    let at = root;
    for (const el of p.split(sep)) at = at[el] as JsonObject;
    if (Object.keys(at).length > 0) at['.'] = {};
  }
  return root;
}

/** The paths of a FieldsV1 object. */
export function fromFieldsV1(fields: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (at: unknown, path: string[]): void => {
    if (!isObject(at)) return;
    const children = Object.keys(at).filter((k) => k !== '.');
    const last = path[path.length - 1];
    if (last !== undefined && (children.length === 0 || '.' in at || last.startsWith('k:'))) out.add(path.join(sep));
    for (const k of children) walk(at[k], [...path, k]);
  };
  walk(fields, []);
  return out;
}

/** `.data.a`, `.spec.containers[name="app"].image`, `.metadata.finalizers[="x"]`: a path as conflicts name it. */
export function pathString(path: string): string {
  return path
    .split(sep)
    .map((el) => {
      if (el.startsWith('f:')) return `.${el.slice(2)}`;
      if (el.startsWith('v:')) return `[=${el.slice(2)}]`;
      const key = JSON.parse(el.slice(2)) as JsonObject;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}

function readEntries(managedFields: unknown): ManagedFieldsEntry[] {
  if (!Array.isArray(managedFields)) return [];
  return managedFields.filter(
    (m): m is ManagedFieldsEntry =>
      isObject(m) && typeof m['manager'] === 'string' && (m['operation'] === 'Apply' || m['operation'] === 'Update'),
  );
}

function sameEntry(e: ManagedFieldsEntry, manager: string, operation: string, subresource: string | undefined): boolean {
  return e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '');
}

function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** kube-apiserver's order of managedFields: Apply before Update, then by time (none first), manager, subresource. */
function entryOrder(a: ManagedFieldsEntry, b: ManagedFieldsEntry): number {
  if (a.operation !== b.operation) return a.operation < b.operation ? -1 : 1;
  const seconds = (e: ManagedFieldsEntry): number => (typeof e.time === 'string' ? Math.floor(Date.parse(e.time) / 1000) : 0);
  if (seconds(a) !== seconds(b)) return seconds(a) - seconds(b);
  if (a.manager !== b.manager) return a.manager < b.manager ? -1 : 1;
  return (a.subresource ?? '') < (b.subresource ?? '') ? -1 : (a.subresource ?? '') > (b.subresource ?? '') ? 1 : 0;
}

/** Entries with each owned set replaced by `sets`, empty ones dropped, in kube-apiserver's order. */
function withSets(entries: ManagedFieldsEntry[], sets: Map<ManagedFieldsEntry, Set<string>>): JsonObject[] {
  const out: JsonObject[] = [];
  for (const e of [...entries].sort(entryOrder)) {
    const set = sets.get(e) ?? fromFieldsV1(e.fieldsV1);
    if (set.size === 0) continue;
    const entry: JsonObject = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (typeof e.time === 'string') entry['time'] = e.time;
    entry['fieldsType'] = 'FieldsV1';
    entry['fieldsV1'] = toFieldsV1(set);
    if (e.subresource !== undefined && e.subresource !== '') entry['subresource'] = e.subresource;
    out.push(entry);
  }
  return out;
}

/** What a write is: who, with which operation, through which subresource, in which apiVersion. */
export interface FieldManagerContext {
  manager: string;
  apiVersion: string;
  subresource?: string;
  shape: Shape;
  now: Date;
}

/**
 * The managedFields after an update (PUT, PATCH other than apply, create, /status): the manager
 * takes the fields whose value it set or changed from everyone else; fields that disappeared are
 * nobody's.
 */
export function trackUpdate(old: KObject | undefined, next: KObject, ctx: FieldManagerContext): JsonObject[] {
  // managedFields sent with the write replace the live ones (how kubectl migrates client-side
  // apply to server-side apply), except through a subresource.
  const sent = readEntries(next.metadata.managedFields);
  const entries =
    sent.length > 0 && ctx.subresource === undefined && !jsonEqual(next.metadata.managedFields, old?.metadata.managedFields)
      ? sent
      : readEntries(old?.metadata.managedFields);
  const before = old === undefined ? new Map<string, unknown>() : fieldsOf(old, ctx.shape, true);
  const after = fieldsOf(next, ctx.shape, true);
  const changed = new Set<string>();
  for (const [p, v] of after) if (!before.has(p) || !jsonEqual(before.get(p), v)) changed.add(p);
  const sets = new Map<ManagedFieldsEntry, Set<string>>();
  for (const e of entries) {
    const set = new Set([...fromFieldsV1(e.fieldsV1)].filter((p) => after.has(p) && !changed.has(p)));
    sets.set(e, set);
  }
  let mine = entries.find((e) => sameEntry(e, ctx.manager, 'Update', ctx.subresource));
  const previous = mine === undefined ? new Set<string>() : fromFieldsV1(mine.fieldsV1);
  const owned = new Set([...(mine === undefined ? [] : (sets.get(mine) ?? [])), ...changed]);
  if (mine === undefined) {
    if (owned.size === 0) return withSets(entries, sets);
    mine = {
      manager: ctx.manager,
      operation: 'Update',
      apiVersion: ctx.apiVersion,
      time: timestamp(ctx.now),
      fieldsType: 'FieldsV1',
      fieldsV1: {},
      ...(ctx.subresource !== undefined ? { subresource: ctx.subresource } : {}),
    };
    entries.push(mine);
  } else if (changed.size > 0 || owned.size !== previous.size) {
    mine = { ...mine, apiVersion: ctx.apiVersion, time: timestamp(ctx.now) };
    entries[entries.findIndex((e) => sameEntry(e, ctx.manager, 'Update', ctx.subresource))] = mine;
  }
  sets.set(mine, owned);
  return withSets(entries, sets);
}

/** A field another manager owns with a different value than the applied one. */
interface Conflict {
  entry: ManagedFieldsEntry;
  path: string;
}

function managerName(e: ManagedFieldsEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource !== undefined && e.subresource !== '') s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

/** 409 Conflict as kube-apiserver words it (`Apply failed with 1 conflict: conflict with "alice": .data.a`). */
function conflictError(conflicts: Conflict[]): StatusError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${managerName(c.entry)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1)
    message = `Apply failed with 1 conflict: conflict with ${managerName(conflicts[0]!.entry)}: ${pathString(conflicts[0]!.path)}`;
  else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) byManager.set(managerName(c.entry), [...(byManager.get(managerName(c.entry)) ?? []), pathString(c.path)]);
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort()) lines.push(`conflicts with ${m}:`, ...byManager.get(m)!.map((p) => `- ${p}`));
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}

/**
 * kube-apiserver's lastAppliedManager: `kubectl apply --server-side` (manager `kubectl`) of an
 * object last applied client-side may take the fields of its last-applied-configuration
 * annotation whose value is still the live one, without a conflict.
 */
function upgradesClientSideApply(live: KObject | undefined, conflicts: Conflict[], ctx: FieldManagerContext): boolean {
  const annotation = live?.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
  if (ctx.manager !== 'kubectl' || live === undefined || annotation === undefined) return false;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(annotation);
  } catch {
    return false;
  }
  const current = fieldsOf(live, ctx.shape);
  const allowed = fieldsOf(lastApplied, ctx.shape);
  return conflicts.every((c) => allowed.has(c.path) && current.has(c.path) && jsonEqual(allowed.get(c.path), current.get(c.path)));
}

/** Removes the value at a path (a field, a list item or a set member); no-op when absent. */
function removePath(obj: JsonObject, path: string, shape: Shape): void {
  const els = path.split(sep);
  let node: unknown = obj;
  const fields: string[] = [];
  for (let i = 0; i < els.length; i++) {
    const el = els[i]!;
    const last = i === els.length - 1;
    if (el.startsWith('f:')) {
      if (!isObject(node)) return;
      const f = el.slice(2);
      fields.push(f);
      const next = els[i + 1];
      if (last) {
        delete node[f];
        return;
      }
      if (next !== undefined && (next.startsWith('k:') || next.startsWith('v:'))) {
        const list = node[f];
        if (!Array.isArray(list)) return;
        const lt = shape.listTypes(fields, list[0]);
        const idx = list.findIndex((item) => itemElement(item, lt) === next);
        if (idx < 0) return;
        if (i + 1 === els.length - 1) {
          list.splice(idx, 1);
          if (list.length === 0) delete node[f];
          return;
        }
        node = list[idx];
        i++;
        continue;
      }
      node = node[f];
    }
  }
}

/**
 * Server-side apply of `config` (already merged into `merged`, the live object plus the applied
 * configuration) by `ctx.manager`: checks conflicts with the other managers (409 unless `force`),
 * removes what the manager applied before and applies no longer where nobody else owns it, and
 * returns the object with its new managedFields.
 */
export function trackApply(
  live: KObject | undefined,
  merged: KObject,
  config: unknown,
  ctx: FieldManagerContext & { force: boolean },
): KObject {
  const entries = readEntries(live?.metadata.managedFields);
  const applied = fieldsOf(config, ctx.shape);
  const current = live === undefined ? new Map<string, unknown>() : fieldsOf(live, ctx.shape);
  const sets = new Map<ManagedFieldsEntry, Set<string>>(entries.map((e) => [e, fromFieldsV1(e.fieldsV1)]));
  const mineIndex = entries.findIndex((e) => sameEntry(e, ctx.manager, 'Apply', ctx.subresource));
  const previous = mineIndex < 0 ? new Set<string>() : sets.get(entries[mineIndex]!)!;

  const conflicts: Conflict[] = [];
  for (const [p, v] of applied) {
    if (!current.has(p) || jsonEqual(current.get(p), v)) continue;
    for (const e of entries)
      if (!sameEntry(e, ctx.manager, 'Apply', ctx.subresource) && sets.get(e)!.has(p)) conflicts.push({ entry: e, path: p });
  }
  if (conflicts.length > 0 && !ctx.force && !upgradesClientSideApply(live, conflicts, ctx)) throw conflictError(conflicts);
  for (const c of conflicts) sets.get(c.entry)!.delete(c.path);

  const object = structuredClone(merged);
  orderAppliedLists(object, config, ctx.shape);
  const ownedByOthers = new Set<string>();
  for (const e of entries) if (!sameEntry(e, ctx.manager, 'Apply', ctx.subresource)) for (const p of sets.get(e)!) ownedByOthers.add(p);
  // Only leaves and list items go: a map or list node (from an Update entry kubectl migrated)
  // would take the fields in it along.
  const isNode = (p: string): boolean => [...previous].some((q) => q.startsWith(p + sep)) && !p.split(sep).pop()!.startsWith('k:');
  // Shallowest first: a list item goes as a whole (its key fields go with it).
  const dropped = [...previous].filter((p) => !applied.has(p) && !ownedByOthers.has(p) && !isNode(p)).sort((a, b) => a.length - b.length);
  for (const p of dropped) removePath(object, p, ctx.shape);

  // The time moves only when the apply changed the object (managedFieldsUpdater): a no-op apply
  // by a new manager records an entry without one.
  const comparable = (o: KObject): JsonObject => ({
    ...o,
    kind: undefined,
    apiVersion: undefined,
    metadata: { ...o.metadata, managedFields: undefined },
  });
  const changed = live === undefined || !jsonEqual(comparable(object), comparable(live));
  const time = changed ? timestamp(ctx.now) : mineIndex < 0 ? undefined : entries[mineIndex]!.time;
  const mine: ManagedFieldsEntry = {
    manager: ctx.manager,
    operation: 'Apply',
    apiVersion: ctx.apiVersion,
    ...(time !== undefined ? { time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: {},
    ...(ctx.subresource !== undefined ? { subresource: ctx.subresource } : {}),
  };
  if (mineIndex < 0) entries.push(mine);
  else entries[mineIndex] = mine;
  sets.set(mine, new Set(applied.keys()));
  object.metadata = { ...object.metadata, managedFields: withSets(entries, sets) };
  syncLastApplied(object, config, ctx.manager);
  return object;
}

const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * kube-apiserver's lastAppliedUpdater: an apply by `kubectl` to an object that carries a
 * client-side last-applied-configuration annotation rewrites it to the applied configuration
 * (Go's JSON encoding: sorted keys, a trailing newline), so a later client-side apply diffs
 * against it.
 */
function syncLastApplied(object: KObject, config: unknown, manager: string): void {
  const annotations = object.metadata.annotations;
  if (manager !== 'kubectl' || annotations?.[lastAppliedAnnotation] === undefined || !isObject(config)) return;
  const copy = structuredClone(config);
  const meta = isObject(copy['metadata']) ? copy['metadata'] : undefined;
  if (meta !== undefined && isObject(meta['annotations'])) {
    delete meta['annotations'][lastAppliedAnnotation];
    if (Object.keys(meta['annotations']).length === 0) delete meta['annotations'];
  }
  object.metadata.annotations = { ...annotations, [lastAppliedAnnotation]: `${sortedJson(copy)}\n` };
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
