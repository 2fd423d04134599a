import { preservedObject, structuralProblems } from '@kubefed/api';
import type { JsonSchemaProps } from '@kubefed/api';

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
    for (const key of ['oneOf', 'anyOf'] as const) {
      const alts = node[key];
      if (Array.isArray(alts) && alts.length > 0) {
        const types = new Set(alts.map((a) => (isRecord(a) ? a['type'] : undefined)));
        // int|string is int-or-string; anything else (e.g. a Quantity's number|string) accepts any value.
        if (types.has('string') && types.has('integer') && types.size === 2) return { 'x-kubernetes-int-or-string': true };
        return { 'x-kubernetes-preserve-unknown-fields': true };
      }
    }
    const type = node['type'];
    const out: JsonSchemaProps = {};
    if (node['x-kubernetes-preserve-unknown-fields'] === true) out['x-kubernetes-preserve-unknown-fields'] = true;
    if (type === 'object' || (type === undefined && (isRecord(node['properties']) || node['additionalProperties'] !== undefined))) {
      out.type = 'object';
      const props = node['properties'];
      if (isRecord(props) && Object.keys(props).length > 0) {
        out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, this.convert(v, stack)]));
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
      const en = node['enum'];
      if (Array.isArray(en) && en.length > 0 && en.every((e) => ['string', 'number', 'boolean'].includes(typeof e))) {
        out.enum = en as (string | number | boolean)[];
      }
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
 * The `spec.template` schema of a federated type, made from the target's OpenAPI v3 schema:
 * `$ref`s resolved (ObjectMeta and recursive types become preserve-unknown-fields objects),
 * int-or-string recognised, and made structural. Deliberately dropped: `required` (overrides may
 * add fields a template leaves out), `default` (templates are not defaulted), descriptions and
 * list-type/patch extensions. `status` and `metadata` of the template preserve unknown fields.
 *
 * Falls back to an object preserving unknown fields (with `reason`) when the document has no
 * schema for the kind, or its schema is open (no properties, as for kube-sim's built-in kinds).
 * `replicasHint` is used for `hasReplicas` in that case (e.g. the target serves `/scale`).
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
  const props = converted.properties;
  if (props === undefined) return fallback(`the OpenAPI v3 schema of ${gv} ${gvk.kind} is open (no properties)`, replicasHint);
  const rest: Record<string, JsonSchemaProps> = { ...props };
  delete rest['apiVersion'];
  delete rest['kind'];
  rest['metadata'] = preservedObject();
  if (rest['status'] !== undefined) rest['status'] = preservedObject();
  const schema: JsonSchemaProps = { type: 'object', properties: rest };
  const problems = structuralProblems(schema, 'spec.template');
  if (problems.length > 0) return fallback(`the converted schema is not structural: ${problems.slice(0, 3).join('; ')}`, replicasHint);
  const replicas = rest['spec']?.properties?.['replicas'];
  return { schema, fromServer: true, hasReplicas: replicas?.type === 'integer' };
}
