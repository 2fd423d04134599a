import { type JsonSchemaProps, preservedObject, structuralProblems } from '@kubefed/api';

/** An OpenAPI v3 document as served at `/openapi/v3/apis/<group>/<version>` (the parts we read). */
export interface OpenApiV3Document {
  components?: { schemas?: Record<string, unknown> };
}

/** Result of {@link templateSchemaFromOpenApi}. */
export interface TemplateSchema {
  /** The structural schema for `spec.template`. */
  schema: JsonSchemaProps;
  /** True when the schema came from the server; false when it fell back to preserve-unknown-fields. */
  fromServer: boolean;
  /** Why the fallback was used (only when `fromServer` is false). */
  reason?: string;
  /** The target schema has `spec.replicas` of type integer (KubeFed's `retainReplicas` condition). */
  hasReplicas: boolean;
}

type Raw = Record<string, unknown>;

const isRecord = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);
const REF_PREFIX = '#/components/schemas/';
/** Nesting limit: deeper (or recursive) schemas become preserve-unknown-fields. */
const MAX_DEPTH = 40;

function refName(node: Raw): string | undefined {
  const ref = node['$ref'];
  return typeof ref === 'string' && ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : undefined;
}

/** The one `$ref` a node points at: directly, or through `allOf: [{$ref}]` (how v3 documents wrap refs). */
function singleRef(node: Raw): string | undefined {
  const direct = refName(node);
  if (direct !== undefined) return direct;
  const allOf = node['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1 && isRecord(allOf[0])) return refName(allOf[0]);
  return undefined;
}

/**
 * Converts one schema node (OpenAPI v3 of a built-in kind, or a CRD's openAPIV3Schema) into a
 * node of the template schema: types, formats and shape only. Every object with properties also
 * preserves unknown fields, so the host never prunes a field it does not know (see
 * {@link templateSchemaFromOpenApi}).
 */
class Converter {
  constructor(private readonly schemas: Record<string, unknown>) {}

  convert(node: unknown, stack: readonly string[]): JsonSchemaProps {
    if (!isRecord(node) || stack.length > MAX_DEPTH) return { 'x-kubernetes-preserve-unknown-fields': true };
    const ref = singleRef(node);
    if (ref !== undefined) {
      // ObjectMeta is huge and the server owns it; a recursive type cannot be written out.
      if (ref.endsWith('.ObjectMeta') || stack.includes(ref)) return preservedObject();
      const target = this.schemas[ref];
      return this.convert(target, [...stack, ref]);
    }
    if (node['format'] === 'int-or-string' || node['x-kubernetes-int-or-string'] === true) return { 'x-kubernetes-int-or-string': true };
    const type = node['type'];
    // A node without a type described by alternatives: int|string is int-or-string; anything
    // else (e.g. a Quantity's number|string) accepts any value. Beside a type they only validate.
    if (type === undefined) {
      for (const key of ['oneOf', 'anyOf'] as const) {
        const alts = node[key];
        if (Array.isArray(alts) && alts.length > 0) {
          const types = new Set(alts.map((a) => (isRecord(a) ? a['type'] : undefined)));
          if (types.has('string') && types.has('integer') && types.size === 2) return { 'x-kubernetes-int-or-string': true };
          return { 'x-kubernetes-preserve-unknown-fields': true };
        }
      }
    }
    const out: JsonSchemaProps = {};
    if (node['nullable'] === true) out.nullable = true;
    if (type === 'object' || (type === undefined && (isRecord(node['properties']) || node['additionalProperties'] !== undefined))) {
      out.type = 'object';
      const props = node['properties'];
      if (isRecord(props) && Object.keys(props).length > 0) {
        out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, this.convert(v, stack)]));
        out['x-kubernetes-preserve-unknown-fields'] = true;
      } else if (isRecord(node['additionalProperties'])) {
        out.additionalProperties = this.convert(node['additionalProperties'], stack);
      } else {
        out['x-kubernetes-preserve-unknown-fields'] = true;
      }
      if (node['x-kubernetes-map-type'] === 'atomic' || node['x-kubernetes-map-type'] === 'granular')
        out['x-kubernetes-map-type'] = node['x-kubernetes-map-type'];
      return out;
    }
    if (type === 'array') {
      out.type = 'array';
      out.items = this.convert(node['items'], stack);
      return out;
    }
    if (typeof type === 'string' && SCALAR_TYPES.has(type)) {
      out.type = type as NonNullable<JsonSchemaProps['type']>;
      const format = node['format'];
      if (typeof format === 'string' && format !== '') out.format = format;
      return out;
    }
    return { 'x-kubernetes-preserve-unknown-fields': true };
  }
}

/** The component schema of a kind: the one whose `x-kubernetes-group-version-kind` names it. */
function componentFor(doc: OpenApiV3Document, gvk: { group: string; version: string; kind: string }): [string, Raw] | undefined {
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    if (!isRecord(schema)) continue;
    const gvks = schema['x-kubernetes-group-version-kind'];
    if (!Array.isArray(gvks)) continue;
    if (gvks.some((g) => isRecord(g) && (g['group'] ?? '') === gvk.group && g['version'] === gvk.version && g['kind'] === gvk.kind))
      return [name, schema];
  }
  return undefined;
}

const fallback = (reason: string, hasReplicas: boolean): TemplateSchema => ({
  schema: preservedObject(),
  fromServer: false,
  reason,
  hasReplicas,
});

/**
 * The template schema from the converted schema of the whole kind: `apiVersion` and `kind`
 * strings, `metadata` and `status` objects preserving unknown fields, the rest as converted.
 */
function templateOf(converted: JsonSchemaProps, what: string, replicasHint: boolean): TemplateSchema {
  const props = converted.properties;
  if (props === undefined) return fallback(`${what} is open (no properties)`, replicasHint);
  const rest: Record<string, JsonSchemaProps> = { ...props, apiVersion: { type: 'string' }, kind: { type: 'string' } };
  rest['metadata'] = preservedObject();
  if (rest['status'] !== undefined) rest['status'] = preservedObject();
  const schema: JsonSchemaProps = { type: 'object', properties: rest, 'x-kubernetes-preserve-unknown-fields': true };
  const problems = structuralProblems(schema, 'spec.template');
  if (problems.length > 0) return fallback(`the converted schema is not structural: ${problems.slice(0, 3).join('; ')}`, replicasHint);
  const replicas = rest['spec']?.properties?.['replicas'];
  return { schema, fromServer: true, hasReplicas: replicas?.type === 'integer' };
}

/**
 * The `spec.template` schema of a federated type, made from the target's OpenAPI v3 schema as
 * the host serves it (`/openapi/v3/apis/<group>/<version>`): `$ref`s resolved (ObjectMeta and
 * recursive types become objects preserving unknown fields), int-or-string recognised, types
 * and formats kept. The result is typed but open: every object with properties also preserves
 * unknown fields, so a type error (`replicas: "two"`) is refused at apply while a field the
 * host's version does not know (but a member's does) is kept, not pruned; this is what
 * KubeFed's typed template schemas did before v0.1 (v1beta1 CRDs, which pruned nothing).
 * Deliberately dropped: `required` (overrides may add fields a template leaves out), `default`
 * (templates are not defaulted), enums and other value checks (the members validate values, in
 * their own versions), descriptions and list-type/patch extensions.
 *
 * Falls back to an object preserving unknown fields (with `reason`) when the document has no
 * schema for the kind, or its schema is open. `replicasHint` is used for `hasReplicas` in that
 * case (e.g. the target serves `/scale`).
 */
export function templateSchemaFromOpenApi(
  doc: OpenApiV3Document | undefined,
  gvk: { group: string; version: string; kind: string },
  replicasHint = false,
): TemplateSchema {
  const gv = gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
  if (doc === undefined) return fallback(`the host serves no OpenAPI v3 document for ${gv}`, replicasHint);
  const found = componentFor(doc, gvk);
  if (found === undefined) return fallback(`the OpenAPI v3 document of ${gv} has no schema for kind ${gvk.kind}`, replicasHint);
  const [name, raw] = found;
  const converted = new Converter(doc.components?.schemas ?? {}).convert(raw, [name]);
  return templateOf(converted, `the OpenAPI v3 schema of ${gv} ${gvk.kind}`, replicasHint);
}

/**
 * The `spec.template` schema of a federated type whose target is served by a CRD: the
 * `openAPIV3Schema` of the CRD's version `version` (else its first version, as KubeFed takes),
 * converted as {@link templateSchemaFromOpenApi} converts a built-in kind's.
 */
export function templateSchemaFromCrd(crd: Record<string, unknown>, version: string, replicasHint = false): TemplateSchema {
  const spec = isRecord(crd['spec']) ? crd['spec'] : {};
  const versions = (Array.isArray(spec['versions']) ? spec['versions'] : []).filter(isRecord);
  const v = versions.find((x) => x['name'] === version) ?? versions[0];
  const raw = v !== undefined && isRecord(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined;
  const name = isRecord(crd['metadata']) ? String(crd['metadata']['name']) : '';
  if (!isRecord(raw)) return fallback(`the CRD ${name} has no openAPIV3Schema for version ${version}`, replicasHint);
  return templateOf(new Converter({}).convert(raw, []), `the openAPIV3Schema of the CRD ${name}`, replicasHint);
}
