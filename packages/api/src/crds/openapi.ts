/**
 * OpenAPI v3 schema nodes for CRDs (apiextensions.k8s.io/v1 JSONSchemaProps), small builders
 * that keep the hand-written schemas short, and a structural-schema checker.
 */

/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps our CRDs use. */
export interface JsonSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  enum?: readonly (string | number | boolean)[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchemaProps>;
  required?: readonly string[];
  additionalProperties?: JsonSchemaProps;
  items?: JsonSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: readonly string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
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

/**
 * Problems that make a schema non-structural (Kubernetes' rules, simplified to what our
 * generators can produce): every node needs a `type` unless it preserves unknown fields or is
 * int-or-string; objects may not have both `properties` and `additionalProperties`; arrays need
 * `items`; `required` names must exist in `properties`; metadata at the root may only be
 * `type: object`. Empty array when structural.
 */
export function structuralProblems(schema: JsonSchemaProps, path = ''): string[] {
  const problems: string[] = [];
  const at = path === '' ? '<root>' : path;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (schema.type === undefined && !preserve && schema['x-kubernetes-int-or-string'] !== true)
    problems.push(`${at}: must have a type`);
  if (schema.properties !== undefined && schema.additionalProperties !== undefined)
    problems.push(`${at}: properties and additionalProperties are mutually exclusive`);
  if (schema.type === 'array' && schema.items === undefined) problems.push(`${at}: an array must have items`);
  if ((schema.properties !== undefined || schema.additionalProperties !== undefined) && schema.type !== 'object')
    problems.push(`${at}: properties need type object`);
  for (const r of schema.required ?? [])
    if (schema.properties?.[r] === undefined) problems.push(`${at}: required field ${r} is not in properties`);
  if (path === '') {
    const meta = schema.properties?.metadata;
    if (meta !== undefined && (meta.type !== 'object' || Object.keys(meta).length !== 1))
      problems.push('metadata: must be exactly {type: object}');
  }
  for (const [k, v] of Object.entries(schema.properties ?? {})) problems.push(...structuralProblems(v, path === '' ? k : `${path}.${k}`));
  if (schema.items !== undefined) problems.push(...structuralProblems(schema.items, `${path}[*]`));
  if (schema.additionalProperties !== undefined)
    problems.push(...structuralProblems(schema.additionalProperties, `${path}{*}`));
  return problems;
}
