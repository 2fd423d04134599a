import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { StatusCause } from '../util/status-error.js';
import { isObject, type JsonObject } from '../util/json.js';

/** One `x-kubernetes-validations` entry of a schema node. */
interface Rule {
  rule: string;
  message?: string;
  reason?: string;
  fieldPath?: string;
}

type Program = (bindings: Record<string, CelInput>) => unknown;

/** What the walk over one object needs: the causes found so far. */
interface Walk {
  causes: StatusCause[];
}

const env = celEnv({ funcs: strings });
const programs = new Map<string, Program | Error>();

/** Compiles (once) a CEL expression; an Error when it does not parse. */
function compile(expr: string): Program | Error {
  let p = programs.get(expr);
  if (p === undefined) {
    try {
      const run = plan(env, parse(expr));
      p = (bindings) => run(bindings);
    } catch (e) {
      p = e instanceof Error ? e : new Error(String(e));
    }
    programs.set(expr, p);
  }
  return p;
}

/** True when a rule reads `oldSelf` (a transition rule: evaluated on updates only). */
function isTransitionRule(rule: string): boolean {
  return /\boldSelf\b/.test(rule);
}

/** The schema type Kubernetes names in a CEL error (`Invalid value: "string": ...`). */
function schemaType(schema: JsonObject): string {
  return typeof schema['type'] === 'string' ? schema['type'] : 'object';
}

/**
 * A JSON value as a CEL input: objects become maps, integers of `integer` (or untyped) nodes
 * become CEL ints (bigint), as the API server's CEL types do.
 */
function toCel(schema: JsonObject | undefined, value: unknown): CelInput {
  if (Array.isArray(value)) {
    const items = schema !== undefined && isObject(schema['items']) ? schema['items'] : undefined;
    return value.map((v) => toCel(items, v));
  }
  if (isObject(value)) {
    const props = schema !== undefined && isObject(schema['properties']) ? schema['properties'] : undefined;
    const additional = schema !== undefined && isObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
    return new Map(Object.entries(value).map(([k, v]) => [k, toCel(isObject(props?.[k]) ? props[k] : additional, v)]));
  }
  if (typeof value === 'number' && Number.isInteger(value) && schema?.['type'] !== 'number') return BigInt(value);
  return value as CelInput;
}

/**
 * `path` + a rule's `fieldPath` (`.leaseDuration` → `spec.leaderElect.leaseDuration`); the root
 * is `<nil>`, as kube-apiserver prints a nil field path.
 */
function errorPath(path: string, fieldPath: string | undefined): string {
  const rel = fieldPath === undefined ? '' : fieldPath.replace(/^\./, '');
  const full = path === '' ? rel : rel === '' ? path : `${path}.${rel}`;
  return full === '' ? '<nil>' : full;
}

/** The cause of a rule that evaluated to false, worded as kube-apiserver words it. */
function failedRuleCause(schema: JsonObject, path: string, rule: Rule): StatusCause {
  const detail = rule.message !== undefined && rule.message !== '' ? rule.message : `failed rule: ${rule.rule}`;
  const field = errorPath(path, rule.fieldPath);
  switch (rule.reason) {
    case 'FieldValueRequired':
      return { reason: 'FieldValueRequired', message: `Required value: ${detail}`, field };
    case 'FieldValueForbidden':
      return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
    case 'FieldValueDuplicate':
      return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(schemaType(schema))}`, field };
    default:
      return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(schemaType(schema))}: ${detail}`, field };
  }
}

function rulesOf(schema: JsonObject): Rule[] {
  const raw = schema['x-kubernetes-validations'];
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObject).flatMap((r) => {
    if (typeof r['rule'] !== 'string') return [];
    const rule: Rule = { rule: r['rule'] };
    if (typeof r['message'] === 'string') rule.message = r['message'];
    if (typeof r['reason'] === 'string') rule.reason = r['reason'];
    if (typeof r['fieldPath'] === 'string') rule.fieldPath = r['fieldPath'];
    return [rule];
  });
}

/** Evaluates the rules of one node against `value` (and `old`, for transition rules). */
function evaluateNode(schema: JsonObject, value: unknown, old: unknown, path: string, w: Walk): void {
  for (const rule of rulesOf(schema)) {
    const transition = isTransitionRule(rule.rule);
    if (transition && old === undefined) continue;
    const program = compile(rule.rule);
    const field = errorPath(path, undefined);
    if (program instanceof Error) {
      w.causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(schemaType(schema))}: compilation failed: ${program.message}`,
        field,
      });
      continue;
    }
    const bindings: Record<string, CelInput> = { self: toCel(schema, value) };
    if (transition) bindings['oldSelf'] = toCel(schema, old);
    const result = program(bindings);
    if (isCelError(result)) {
      w.causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(schemaType(schema))}: ${result.message} evaluating rule: ${rule.rule}`,
        field,
      });
    } else if (result !== true) {
      w.causes.push(failedRuleCause(schema, path, rule));
    }
  }
}

function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Walks `value` and the schema top-down, evaluating the rules of every node whose value is
 * present. `old` is the same node in the stored object on an update: it is followed through
 * object properties and map keys (lists are not correlated, so transition rules under a list
 * do not run, as for atomic lists in kube-apiserver).
 */
function walk(schema: JsonObject, value: unknown, old: unknown, path: string, w: Walk): void {
  if (value === undefined || value === null) return;
  evaluateNode(schema, value, old, path, w);
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (isObject(items)) value.forEach((v, i) => walk(items, v, undefined, `${path}[${i}]`, w));
    return;
  }
  if (!isObject(value)) return;
  const props = isObject(schema['properties']) ? schema['properties'] : undefined;
  const additional = isObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
  const oldObj = isObject(old) ? old : undefined;
  for (const [k, v] of Object.entries(value)) {
    const sub = isObject(props?.[k]) ? props[k] : additional;
    if (sub !== undefined) walk(sub, v, oldObj?.[k], childPath(path, k), w);
  }
}

/** True when some node of the schema carries `x-kubernetes-validations`. */
export function hasValidationRules(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasValidationRules);
  if (!isObject(schema)) return false;
  if (Array.isArray(schema['x-kubernetes-validations']) && schema['x-kubernetes-validations'].length > 0) return true;
  return Object.values(schema).some(hasValidationRules);
}

/**
 * Evaluates the CEL `x-kubernetes-validations` rules of a CRD schema (structural, already
 * validated and defaulted) against an object, as kube-apiserver does: each rule must be true,
 * transition rules (those reading `oldSelf`) only run on updates where the old value exists,
 * and a false rule yields `<path>: Invalid value: "<type>": <message>` (or the rule's reason).
 * At the root, `self.metadata` holds only `name` and `generateName`.
 */
export function evaluateValidationRules(schema: JsonObject, object: JsonObject, old: JsonObject | undefined): StatusCause[] {
  const w: Walk = { causes: [] };
  walk(schema, rootView(object), old === undefined ? undefined : rootView(old), '', w);
  return w.causes;
}

function rootView(o: JsonObject): JsonObject {
  const meta = isObject(o['metadata']) ? o['metadata'] : {};
  const view: JsonObject = {};
  if (typeof meta['name'] === 'string') view['name'] = meta['name'];
  if (typeof meta['generateName'] === 'string') view['generateName'] = meta['generateName'];
  return { ...o, metadata: view };
}
