import type { PrinterColumn, ResourceDef, VersionDef } from '../resources/resource-def.js';
import { isObject, type JsonObject, type KObject } from '../util/json.js';
import { builtinColumns } from './builtin-columns.js';
import { evalJsonPath, humanAge } from './cell-values.js';

/** What a Table row's `object` holds (`includeObject` query parameter). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

function columnsFor(def: ResourceDef, version: VersionDef): PrinterColumn[] {
  if (!def.builtin) {
    if (version.printerColumns.length > 0) return version.printerColumns;
    return [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  }
  return [...version.printerColumns, { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
}

function cell(col: PrinterColumn, obj: KObject, now: number, builtin: boolean): unknown {
  if (!builtin) return customResourceCell(col, evalJsonPath(obj, col.jsonPath), now);
  if (col.jsonPath === '.status.readyReplicas' && col.type === 'string') {
    // READY of deployments and statefulsets: "<ready>/<desired>".
    return `${Number(evalJsonPath(obj, '.status.readyReplicas') ?? 0)}/${Number(evalJsonPath(obj, '.spec.replicas') ?? 0)}`;
  }
  const v = evalJsonPath(obj, col.jsonPath);
  if (v === undefined || v === null) {
    if (col.type === 'date') return '<unknown>';
    if (col.type === 'integer' || col.type === 'number') return 0;
    return '<none>';
  }
  if (col.type === 'date') return humanAge(typeof v === 'string' ? v : undefined, now);
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(',');
  if (isObject(v)) return JSON.stringify(v);
  return v;
}

/**
 * A cell of an additionalPrinterColumn, as apiextensions-apiserver's tableconvertor makes it:
 * `null` when the path finds nothing or the value does not fit the column type (kubectl prints
 * an empty cell), the first match of a `[*]` path, a string column's other values as text (JSON
 * for a list or object), `<invalid>` for a date column that is not a timestamp.
 */
export function customResourceCell(col: Pick<PrinterColumn, 'type' | 'jsonPath'>, found: unknown, now: number): unknown {
  const v: unknown = Array.isArray(found) && /\[\*\]\}?$/.test(col.jsonPath) ? (found as unknown[])[0] : found;
  if (v === undefined || v === null) return null;
  switch (col.type) {
    case 'string':
      if (typeof v === 'string') return v;
      return typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      return typeof v === 'string' ? humanAge(v, now) : null;
    default:
      return null;
  }
}

/**
 * A `meta.k8s.io` Table for objects, as kubectl asks with `Accept: ...;as=Table`:
 * NAME, the kind's printer columns (CRD additionalPrinterColumns for custom resources) and AGE.
 */
export function buildTable(
  def: ResourceDef,
  version: VersionDef,
  objects: readonly KObject[],
  opts: {
    tableVersion: string;
    include: IncludeObject;
    withColumns: boolean;
    resourceVersion?: string;
    continue?: string;
    remainingItemCount?: number;
    withTypeMeta: (o: KObject) => KObject;
  },
): JsonObject {
  const now = Date.now();
  const builtin = def.builtin ? builtinColumns(`${def.group}/${def.resource}`) : undefined;
  const cols = columnsFor(def, version);
  const columnDefinitions =
    builtin !== undefined
      ? builtin.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority ?? 0 }))
      : [
          { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
          ...cols.map((c) => ({
            name: c.name,
            type: c.type,
            format: c.format ?? '',
            description: c.description ?? c.name,
            priority: c.priority ?? 0,
          })),
        ];
  const rows = objects.map((o) => {
    const cells =
      builtin !== undefined
        ? builtin.map((c) => c.cell(o, now))
        : [o.metadata.name ?? '', ...cols.map((c) => cell(c, o, now, def.builtin))];
    const row: JsonObject = { cells };
    if (opts.include === 'Metadata') row['object'] = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
    else if (opts.include === 'Object') row['object'] = opts.withTypeMeta(o);
    return row;
  });
  const metadata: JsonObject = {};
  if (opts.resourceVersion !== undefined) metadata['resourceVersion'] = opts.resourceVersion;
  if (opts.continue !== undefined) metadata['continue'] = opts.continue;
  if (opts.remainingItemCount !== undefined) metadata['remainingItemCount'] = opts.remainingItemCount;
  const table: JsonObject = { kind: 'Table', apiVersion: `meta.k8s.io/${opts.tableVersion}`, metadata };
  table['columnDefinitions'] = opts.withColumns ? columnDefinitions : null;
  table['rows'] = rows;
  return table;
}
