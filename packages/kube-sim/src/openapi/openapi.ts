import { createHash } from 'node:crypto';
import type { ResourceDef, VersionDef } from '../resources/resource-def.js';
import type { ResourceRegistry } from '../resources/resource-registry.js';
import type { JsonObject } from '../util/json.js';
import { BuiltinSchemas, OBJECT_META } from './builtin-schemas.js';

function param(name: string, description: string): JsonObject {
  return { name, in: 'query', description, schema: { type: 'string', uniqueItems: true } };
}

const writeParams = [
  param('dryRun', 'When present, indicates that modifications should not be persisted.'),
  param('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  param(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict.',
  ),
];

function schemaName(def: ResourceDef, version: string): string {
  const gvPath = def.group === '' ? `api/${version}` : `apis/${def.group}/${version}`;
  const published = def.builtin ? BuiltinSchemas.load().nameOf(gvPath, { group: def.group, version, kind: def.kind }) : undefined;
  if (published !== undefined) return published;
  if (def.builtin) {
    const pkg = def.group === '' ? 'core' : def.group.split('.')[0]!;
    return `io.k8s.api.${pkg}.${version}.${def.kind}`;
  }
  return `${def.group.split('.').reverse().join('.')}.${version}.${def.kind}`;
}

/** One OpenAPI operation of a resource at a version; a request body is described when `contentTypes` are given. */
interface OperationSpec {
  action: string;
  def: ResourceDef;
  version: string;
  params: JsonObject[];
  contentTypes: string[];
}

function op(spec: OperationSpec): JsonObject {
  const { action, def, version, contentTypes } = spec;
  const ref = { $ref: `#/components/schemas/${schemaName(def, version)}` };
  const o: JsonObject = {
    description: `${action} ${def.kind}`,
    operationId: `${action}${def.kind}`,
    parameters: spec.params,
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: def.group, version, kind: def.kind },
  };
  if (contentTypes.length > 0)
    o['requestBody'] = { required: true, content: Object.fromEntries(contentTypes.map((c) => [c, { schema: ref }])) };
  return o;
}

const patchContentTypes = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

/**
 * Serves `/openapi/v3` (an index with a `serverRelativeURL` per group-version) and one document
 * per group-version listing every resource path with its operations, the
 * `x-kubernetes-group-version-kind` extension and the `fieldValidation` parameter, which is what
 * `kubectl apply` checks before relying on server-side field validation. Built-in kinds carry
 * the schemas Kubernetes publishes for them ({@link BuiltinSchemas}); custom resources carry
 * their CRD schema, with ObjectMeta in full as kube-apiserver serves it.
 */
export class OpenApiServer {
  private cacheGeneration = -1;
  private docs = new Map<string, JsonObject>();
  private index: JsonObject = {};

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly gitVersion: string,
  ) {}

  /** The document at a path, or undefined (404). */
  serve(path: string, _query: URLSearchParams): JsonObject | undefined {
    if (!path.startsWith('/openapi/v3')) return undefined;
    this.refresh();
    if (path === '/openapi/v3') return this.index;
    return this.docs.get(path.slice('/openapi/v3/'.length));
  }

  private refresh(): void {
    if (this.cacheGeneration === this.registry.generation) return;
    this.cacheGeneration = this.registry.generation;
    this.docs = new Map();
    for (const g of this.registry.groups()) {
      for (const v of g.versions) {
        const key = g.name === '' ? `api/${v}` : `apis/${g.name}/${v}`;
        this.docs.set(key, this.document(g.name, v));
      }
    }
    const paths: JsonObject = {};
    for (const [key, doc] of this.docs) {
      const hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase();
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
    }
    this.index = { paths };
  }

  private document(group: string, version: string): JsonObject {
    const paths: JsonObject = {};
    const builtins = BuiltinSchemas.load();
    const schemas: JsonObject = { ...builtins.objectMeta() };
    const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    const gvPath = prefix.slice(1);
    for (const { def, version: vd } of this.registry.inGroupVersion(group, version)) {
      if (def.virtual === true) continue;
      Object.assign(paths, resourcePaths(prefix, def, vd));
      const name = schemaName(def, version);
      if (def.builtin && builtins.components(gvPath)[name] !== undefined) Object.assign(schemas, builtins.components(gvPath));
      else schemas[name] = this.schemaFor(def, vd, version);
    }
    return {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: this.gitVersion },
      paths,
      components: { schemas },
    };
  }

  private schemaFor(def: ResourceDef, vd: VersionDef, version: string): JsonObject {
    const gvk = [{ group: def.group, version, kind: def.kind }];
    // No x-kubernetes-group-version-kind on an open schema: kubectl apply would compute its
    // strategic merge patch from it, fail ("unable to find api field") and print a warning; not
    // finding the kind, it uses its compiled-in types, which know the merge keys.
    if (def.builtin || vd.schema === undefined)
      return {
        description: `${def.kind} (schema not published by kube-sim: any fields are accepted by the client).`,
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      };
    const props = { ...((vd.schema['properties'] as JsonObject | undefined) ?? {}) };
    props['apiVersion'] = { type: 'string' };
    props['kind'] = { type: 'string' };
    props['metadata'] = { allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }] };
    return {
      ...vd.schema,
      properties: props,
      'x-kubernetes-group-version-kind': gvk,
    };
  }
}

/** The media type kubectl (client-go's discovery `OpenAPISchema`) asks `/openapi/v2` for. */
export const openApiV2ProtobufAccept = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** The media type kube-apiserver answers that request with. */
export const openApiV2ProtobufType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/**
 * `/openapi/v2` as JSON: a Swagger 2.0 document with no paths and no definitions. kube-sim
 * publishes its schemas through OpenAPI v3 only; what v2 clients need is a document that parses:
 * `kubectl apply -f` of a `kind: List` validates the list's items against v2, and finding no
 * schema for them it leaves their validation to the server (fieldValidation=Strict).
 */
export function openApiV2Document(gitVersion: string): JsonObject {
  return { swagger: '2.0', info: { title: 'Kubernetes', version: openApiVersion(gitVersion) }, paths: {}, definitions: {} };
}

/**
 * The same document in the protobuf encoding of gnostic's `openapi_v2.Document`, which is the
 * only encoding client-go's discovery client reads: field 1 `swagger`, field 2 `info` (title 1,
 * version 2); empty paths and definitions are absent fields.
 */
export function openApiV2Protobuf(gitVersion: string): Buffer {
  const info = Buffer.concat([protoString(1, 'Kubernetes'), protoString(2, openApiVersion(gitVersion))]);
  return Buffer.concat([protoString(1, '2.0'), protoBytes(2, info)]);
}

/** `v1.34.12` → `1.34`, as kube-apiserver's OpenAPI info.version. */
function openApiVersion(gitVersion: string): string {
  const m = /^v?(\d+)\.(\d+)/.exec(gitVersion);
  return m === null ? gitVersion : `${m[1]!}.${m[2]!}`;
}

function protoString(field: number, value: string): Buffer {
  return protoBytes(field, Buffer.from(value, 'utf8'));
}

/** A length-delimited protobuf field (wire type 2). */
function protoBytes(field: number, value: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(value.length), value]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

/** The paths of one resource at a version: the collection, an object and (when served) its status. */
function resourcePaths(prefix: string, def: ResourceDef, vd: VersionDef): JsonObject {
  const version = vd.name;
  const operation = (action: string, params: JsonObject[] = [], contentTypes: string[] = []): JsonObject =>
    op({ action, def, version, params, contentTypes });
  const base = def.namespaced ? `${prefix}/namespaces/{namespace}/${def.resource}` : `${prefix}/${def.resource}`;
  const nsParam = def.namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } }] : [];
  const nameParam = [{ name: 'name', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } }];
  const paths: JsonObject = {};
  paths[base] = {
    get: operation('list', [
      param('labelSelector', ''),
      param('fieldSelector', ''),
      param('limit', ''),
      param('continue', ''),
      param('watch', ''),
    ]),
    post: operation('post', writeParams, ['application/json', 'application/yaml']),
    delete: operation('deletecollection', [param('labelSelector', '')]),
    parameters: nsParam,
  };
  // Custom resources take no strategic merge patch, on the object or its status. kubectl apply
  // reads the first PATCH operation of the kind it meets (Go map order) to choose a patch type.
  const patchTypes = def.builtin ? patchContentTypes : patchContentTypes.filter((c) => !c.includes('strategic'));
  paths[`${base}/{name}`] = {
    get: operation('get'),
    put: operation('put', writeParams, ['application/json', 'application/yaml']),
    patch: operation('patch', [...writeParams, param('force', '')], patchTypes),
    delete: operation('delete', [param('dryRun', ''), param('propagationPolicy', ''), param('gracePeriodSeconds', '')]),
    parameters: [...nameParam, ...nsParam],
  };
  if (vd.status)
    paths[`${base}/{name}/status`] = {
      get: operation('get'),
      put: operation('put', writeParams, ['application/json']),
      patch: operation('patch', [...writeParams, param('force', '')], patchTypes),
      parameters: [...nameParam, ...nsParam],
    };
  return paths;
}
