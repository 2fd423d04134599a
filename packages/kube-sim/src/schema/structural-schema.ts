import type { StatusCause } from '../util/status-error.js';
import { isObject, jsonEqual, type JsonObject } from '../util/json.js';

/** Outcome of {@link validateAgainstSchema}: the pruned/defaulted value plus errors and pruned paths. */
export interface SchemaResult {
  value: unknown;
  causes: StatusCause[];
  pruned: string[];
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return `"${typeName(v)}"`;
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Validates a value against a structural OpenAPI v3 schema as the apiextensions server does:
 * applies `default`s, drops `null`s of non-nullable fields, prunes fields the schema does not
 * declare (unless `x-kubernetes-preserve-unknown-fields`), and reports type, required, enum,
 * minimum/maximum, pattern, length and item-count violations as Status causes.
 */
export function validateAgainstSchema(schema: JsonObject, value: unknown, path = ''): SchemaResult {
  const result: SchemaResult = { value: undefined, causes: [], pruned: [] };
  result.value = walk(schema, value, path, result);
  return result;
}

function walk(schema: JsonObject, value: unknown, path: string, r: SchemaResult): unknown {
  const type = typeof schema['type'] === 'string' ? schema['type'] : undefined;
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (!(typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))))
      r.causes.push({
        reason: 'FieldValueTypeInvalid',
        message: `Invalid value: ${show(value)}: ${path} in body must be of type int-or-string: "${typeName(value)}"`,
        field: path,
      });
    return value;
  }
  if (type !== undefined && !typeMatches(type, value)) {
    r.causes.push({
      reason: 'FieldValueTypeInvalid',
      message: `Invalid value: ${show(value)}: ${path} in body must be of type ${type}: "${typeName(value)}"`,
      field: path,
    });
    return value;
  }
  const en = schema['enum'];
  if (Array.isArray(en) && !en.some((e) => jsonEqual(e, value)))
    r.causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${show(value)}: supported values: ${en.map((e) => JSON.stringify(e)).join(', ')}`,
      field: path,
    });
  if (typeof value === 'number') numberChecks(schema, value, path, r);
  if (typeof value === 'string') stringChecks(schema, value, path, r);
  if (Array.isArray(value)) {
    if (typeof schema['maxItems'] === 'number' && value.length > schema['maxItems'])
      r.causes.push({
        reason: 'FieldValueTooMany',
        message: `Too many: ${value.length}: must have at most ${schema['maxItems']} items`,
        field: path,
      });
    if (typeof schema['minItems'] === 'number' && value.length < schema['minItems'])
      r.causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${value.length}: ${path} in body should have at least ${schema['minItems']} items`,
        field: path,
      });
    const items = schema['items'];
    if (isObject(items)) return value.map((v, i) => walk(items, v, `${path}[${i}]`, r));
    return value;
  }
  if (isObject(value)) return walkObject(schema, value, path, r);
  return value;
}

function numberChecks(schema: JsonObject, v: number, path: string, r: SchemaResult): void {
  const min = schema['minimum'];
  const max = schema['maximum'];
  if (typeof min === 'number') {
    if (schema['exclusiveMinimum'] === true ? v <= min : v < min)
      r.causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${v}: ${path} in body should be greater than ${schema['exclusiveMinimum'] === true ? '' : 'or equal to '}${min}`,
        field: path,
      });
  }
  if (typeof max === 'number') {
    if (schema['exclusiveMaximum'] === true ? v >= max : v > max)
      r.causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${v}: ${path} in body should be less than ${schema['exclusiveMaximum'] === true ? '' : 'or equal to '}${max}`,
        field: path,
      });
  }
  const mult = schema['multipleOf'];
  if (typeof mult === 'number' && mult > 0 && Math.abs(v / mult - Math.round(v / mult)) > 1e-9)
    r.causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${v}: ${path} in body should be a multiple of ${mult}`,
      field: path,
    });
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function stringChecks(schema: JsonObject, v: string, path: string, r: SchemaResult): void {
  if (schema['format'] === 'byte' && !BASE64.test(v))
    r.causes.push({
      reason: 'FieldValueTypeInvalid',
      message: `Invalid value: ${JSON.stringify(v)}: ${path} in body must be of type byte: ${JSON.stringify(v)}`,
      field: path,
    });
  const len = [...v].length;
  if (typeof schema['maxLength'] === 'number' && len > schema['maxLength'])
    r.causes.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${schema['maxLength']} bytes`, field: path });
  if (typeof schema['minLength'] === 'number' && len < schema['minLength'])
    r.causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(v)}: ${path} in body should be at least ${schema['minLength']} chars long`,
      field: path,
    });
  if (typeof schema['pattern'] === 'string') {
    let re: RegExp | undefined;
    try {
      re = new RegExp(schema['pattern'], 'u');
    } catch {
      re = undefined;
    }
    if (re !== undefined && !re.test(v))
      r.causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(v)}: ${path} in body should match '${schema['pattern']}'`,
        field: path,
      });
  }
}

function walkObject(schema: JsonObject, value: JsonObject, path: string, r: SchemaResult): JsonObject {
  const props = isObject(schema['properties']) ? schema['properties'] : undefined;
  const additional = schema['additionalProperties'];
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const p = props?.[k];
    const sub = isObject(p) ? p : isObject(additional) ? additional : undefined;
    if (v === null && sub !== undefined && sub['nullable'] !== true) {
      // nulls of non-nullable fields are pruned (before defaulting), as apiextensions does.
      continue;
    }
    if (sub === undefined) {
      if (preserve || additional === true || (props === undefined && additional === undefined && schema['type'] === undefined)) out[k] = v;
      else r.pruned.push(child(path, k));
      continue;
    }
    out[k] = v === null ? null : walk(sub, v, child(path, k), r);
  }
  if (props !== undefined)
    for (const [k, p] of Object.entries(props)) {
      // A default is itself walked, so that the defaults of its fields apply too (`default: {}`).
      if (out[k] === undefined && isObject(p) && p['default'] !== undefined)
        out[k] = walk(p, structuredClone(p['default']), child(path, k), r);
    }
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  for (const k of required) {
    if (typeof k === 'string' && out[k] === undefined)
      r.causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: child(path, k) });
  }
  if (typeof schema['maxProperties'] === 'number' && Object.keys(out).length > schema['maxProperties'])
    r.causes.push({
      reason: 'FieldValueTooMany',
      message: `Too many: ${Object.keys(out).length}: must have at most ${schema['maxProperties']} items`,
      field: path,
    });
  return out;
}

type Level = 'root' | 'items' | 'field';

const EMPTY_TYPE: Record<Level, string> = {
  root: 'must not be empty at the root',
  items: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

/**
 * Why a CRD's openAPIV3Schema is not structural, as kube-apiserver reports it at `fieldPath`
 * (e.g. `spec.versions[0].schema.openAPIV3Schema`): a node without a type (unless it preserves
 * unknown fields or is int-or-string), an array without items, `properties` beside
 * `additionalProperties`, `$ref`, a root that is not an object. Empty when structural.
 */
export function structuralSchemaCauses(schema: JsonObject, fieldPath: string): StatusCause[] {
  const causes: StatusCause[] = [];
  visitNode(schema, 'root', fieldPath, causes);
  return causes;
}

function visitNode(s: JsonObject, level: Level, path: string, causes: StatusCause[]): void {
  const type = typeof s['type'] === 'string' && s['type'] !== '' ? s['type'] : undefined;
  if (s['$ref'] !== undefined)
    causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: $ref is not supported', field: `${path}.$ref` });
  if (type === undefined && s['x-kubernetes-int-or-string'] !== true && s['x-kubernetes-preserve-unknown-fields'] !== true)
    causes.push({ reason: 'FieldValueRequired', message: `Required value: ${EMPTY_TYPE[level]}`, field: `${path}.type` });
  if (level === 'root' && type !== undefined && type !== 'object')
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(type)}: must be object at the root`,
      field: `${path}.type`,
    });
  if (type === 'array' && s['items'] === undefined)
    causes.push({ reason: 'FieldValueRequired', message: 'Required value: must be specified', field: `${path}.items` });
  const props = isObject(s['properties']) ? s['properties'] : undefined;
  if (props !== undefined && s['additionalProperties'] !== undefined)
    causes.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: additionalProperties and properties are mutual exclusive',
      field: `${path}.additionalProperties`,
    });
  if (isObject(s['items'])) visitNode(s['items'], 'items', `${path}.items`, causes);
  for (const [k, v] of Object.entries(props ?? {})) if (isObject(v)) visitNode(v, 'field', `${path}.properties[${k}]`, causes);
  if (isObject(s['additionalProperties'])) visitNode(s['additionalProperties'], 'field', `${path}.additionalProperties`, causes);
}
