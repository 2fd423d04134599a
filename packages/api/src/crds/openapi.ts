/**
 * OpenAPI v3 schema nodes for CRDs (apiextensions.k8s.io/v1 JSONSchemaProps), small builders
 * that keep the hand-written schemas short, and a structural-schema checker.
 */

/**
 * One `x-kubernetes-validations` rule: a CEL expression over `self` (and `oldSelf` for a
 * transition rule, evaluated on updates only) that must be true.
 */
export interface ValidationRule {
  rule: string;
  /** Shown after the field path when the rule is false. Default: `failed rule: <rule>`. */
  message?: string;
  /** Error reason. Default: `FieldValueInvalid`. */
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  /** Path (from the node carrying the rule, e.g. `.leaseDuration`) the error is reported at. Default: the node. */
  fieldPath?: string;
}

/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps our CRDs use. */
export interface JsonSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  enum?: readonly (string | number | boolean)[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  /** Applied by the API server when the field is absent (structural defaulting). */
  default?: unknown;
  properties?: Record<string, JsonSchemaProps>;
  required?: readonly string[];
  additionalProperties?: JsonSchemaProps;
  items?: JsonSchemaProps;
  /** `null` is a valid value (else the API server drops a `null` field before validating). */
  nullable?: true;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: readonly string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: readonly ValidationRule[];
}

/** A string node. */
export const str = (extra: Omit<JsonSchemaProps, 'type'> = {}): JsonSchemaProps => ({ type: 'string', ...extra });
/** A string node restricted to `values`. */
export const strEnum = (values: readonly string[]): JsonSchemaProps => ({ type: 'string', enum: values });
/** An int64 node. */
export const int64 = (): JsonSchemaProps => ({ type: 'integer', format: 'int64' });
/** An int32 node. */
export const int32 = (): JsonSchemaProps => ({ type: 'integer', format: 'int32' });
/** `node` with `minimum: 0` (a count or weight). */
export const nonNegative = (node: JsonSchemaProps): JsonSchemaProps => ({ ...node, minimum: 0 });
/** A boolean node. */
export const bool = (): JsonSchemaProps => ({ type: 'boolean' });
/** An RFC 3339 timestamp. */
export const dateTime = (): JsonSchemaProps => ({ type: 'string', format: 'date-time' });
/** `node` with `minimum: min`. */
export const atLeast = (node: JsonSchemaProps, min: number): JsonSchemaProps => ({ ...node, minimum: min });
/** `node` with `default: value`. */
export const withDefault = (node: JsonSchemaProps, value: unknown): JsonSchemaProps => ({ ...node, default: value });
/** `node` with CEL `x-kubernetes-validations` rules appended. */
export const withRules = (node: JsonSchemaProps, ...rules: readonly ValidationRule[]): JsonSchemaProps => ({
  ...node,
  'x-kubernetes-validations': [...(node['x-kubernetes-validations'] ?? []), ...rules],
});
/** An array of `items`. */
export const arr = (items: JsonSchemaProps): JsonSchemaProps => ({ type: 'array', items });
/** An object with `properties`; `required` only when non-empty. */
export const obj = (properties: Record<string, JsonSchemaProps>, required: readonly string[] = []): JsonSchemaProps =>
  required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
/** A map of string keys to `values`. */
export const map = (values: JsonSchemaProps): JsonSchemaProps => ({ type: 'object', additionalProperties: values });
/** An object whose content is kept as is. */
export const preservedObject = (): JsonSchemaProps => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
/** Any JSON value (object, array, scalar), kept as is. */
export const anyValue = (): JsonSchemaProps => ({ 'x-kubernetes-preserve-unknown-fields': true });

/** The standard top of a CRD schema: apiVersion, kind, metadata (as `type: object`) and `rest`. */
export function topLevel(rest: Record<string, JsonSchemaProps>, required: readonly string[] = []): JsonSchemaProps {
  return obj({ apiVersion: str(), kind: str(), metadata: { type: 'object' }, ...rest }, required);
}

/** metav1.LabelSelector. */
export const labelSelectorSchemaProps = (): JsonSchemaProps =>
  obj({
    matchExpressions: arr(obj({ key: str(), operator: str(), values: arr(str()) }, ['key', 'operator'])),
    matchLabels: map(str()),
  });

/** `metadata` at the root of a CRD schema: `{type: object}`, optionally declaring `name` / `generateName` strings (for CEL rules). */
function isRootMetadata(meta: JsonSchemaProps): boolean {
  const { type, properties, ...rest } = meta;
  if (type !== 'object' || Object.keys(rest).length > 0) return false;
  return Object.entries(properties ?? {}).every(
    ([k, v]) => (k === 'name' || k === 'generateName') && v.type === 'string' && Object.keys(v).length === 1,
  );
}

/** Root `metadata` declaring `name`, so that a CEL rule can report its errors at `metadata.name`. */
export const metadataWithName = (): JsonSchemaProps => ({ type: 'object', properties: { name: { type: 'string' } } });

/**
 * Problems that make a schema non-structural (Kubernetes' rules, simplified to what our
 * generators can produce): every node needs a `type` unless it preserves unknown fields or is
 * int-or-string; objects may not have both `properties` and `additionalProperties`; arrays need
 * `items`; `required` names must exist in `properties`; metadata at the root may only be
 * `type: object` (declaring at most `name` and `generateName`). Empty array when structural.
 */
export function structuralProblems(schema: JsonSchemaProps, path = ''): string[] {
  const problems: string[] = [];
  const at = path === '' ? '<root>' : path;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (schema.type === undefined && !preserve && schema['x-kubernetes-int-or-string'] !== true) problems.push(`${at}: must have a type`);
  if (schema.properties !== undefined && schema.additionalProperties !== undefined)
    problems.push(`${at}: properties and additionalProperties are mutually exclusive`);
  if (schema.type === 'array' && schema.items === undefined) problems.push(`${at}: an array must have items`);
  if ((schema.properties !== undefined || schema.additionalProperties !== undefined) && schema.type !== 'object')
    problems.push(`${at}: properties need type object`);
  for (const r of schema.required ?? [])
    if (schema.properties?.[r] === undefined) problems.push(`${at}: required field ${r} is not in properties`);
  if (path === '') {
    const meta = schema.properties?.metadata;
    if (meta !== undefined && !isRootMetadata(meta))
      problems.push('metadata: must be {type: object}, with at most name and generateName as string properties');
  }
  for (const [k, v] of Object.entries(schema.properties ?? {})) problems.push(...structuralProblems(v, path === '' ? k : `${path}.${k}`));
  if (schema.items !== undefined) problems.push(...structuralProblems(schema.items, `${path}[*]`));
  if (schema.additionalProperties !== undefined) problems.push(...structuralProblems(schema.additionalProperties, `${path}{*}`));
  return problems;
}
