import { badRequest, invalid } from '../util/status-error.js';
import { isObject, type JsonObject, type KObject } from '../util/json.js';
import type { RestOps, Scope, WriteOptions } from './rest-ops.js';

/** The scale subresource of one kind, as the API handler serves it. */
export interface ScaleHandler {
  get(scope: Scope, name: string): JsonObject;
  update(scope: Scope, name: string, body: unknown, opts: WriteOptions): JsonObject;
}

function pathOf(jsonPath: string): string[] {
  return jsonPath
    .replace(/^\./, '')
    .split('.')
    .filter((p) => p !== '');
}

function read(obj: unknown, jsonPath: string): unknown {
  let cur = obj;
  for (const p of pathOf(jsonPath)) cur = isObject(cur) ? cur[p] : undefined;
  return cur;
}

function selectorString(obj: KObject, scope: Scope): string | undefined {
  const spec = scope.version.scale;
  if (spec === undefined) return undefined;
  if (scope.def.builtin) {
    const sel = read(obj, '.spec.selector');
    if (!isObject(sel)) return undefined;
    const parts: string[] = [];
    if (isObject(sel['matchLabels'])) for (const [k, v] of Object.entries(sel['matchLabels'])) parts.push(`${k}=${String(v)}`);
    if (Array.isArray(sel['matchExpressions']))
      for (const e of sel['matchExpressions']) {
        if (!isObject(e)) continue;
        const vals = Array.isArray(e['values']) ? e['values'].map(String).join(',') : '';
        const key = String(e['key']);
        if (e['operator'] === 'In') parts.push(`${key} in (${vals})`);
        else if (e['operator'] === 'NotIn') parts.push(`${key} notin (${vals})`);
        else if (e['operator'] === 'Exists') parts.push(key);
        else if (e['operator'] === 'DoesNotExist') parts.push(`!${key}`);
      }
    return parts.join(',');
  }
  if (spec.labelSelectorPath === undefined) return undefined;
  const v = read(obj, spec.labelSelectorPath);
  return typeof v === 'string' ? v : undefined;
}

function toScale(obj: KObject, scope: Scope): JsonObject {
  const spec = scope.version.scale!;
  const replicas = read(obj, spec.specReplicasPath);
  const status: JsonObject = { replicas: Number(read(obj, spec.statusReplicasPath) ?? 0) };
  const sel = selectorString(obj, scope);
  if (sel !== undefined) status['selector'] = sel;
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: typeof replicas === 'number' ? replicas : 0 },
    status,
  };
}

/** The scale subresource (autoscaling/v1 Scale) over the spec/status replicas paths of the kind. */
export function scaleHandlers(ops: RestOps): ScaleHandler {
  return {
    get: (scope, name) => toScale(ops.get(scope, name), scope),
    update: (scope, name, body, opts) => {
      const existing = ops.get(scope, name);
      if (!isObject(body)) throw badRequest('the request body must be a JSON object');
      const spec = isObject(body['spec']) ? body['spec'] : {};
      const replicas = spec['replicas'];
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
        throw invalid('Scale', 'autoscaling', name, [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
            field: 'spec.replicas',
          },
        ]);
      const meta = isObject(body['metadata']) ? body['metadata'] : {};
      const next = structuredClone(existing);
      const path = pathOf(scope.version.scale!.specReplicasPath);
      let cur: JsonObject = next;
      for (let i = 0; i < path.length - 1; i++) {
        const p = path[i]!;
        if (!isObject(cur[p])) cur[p] = {};
        cur = cur[p] as JsonObject;
      }
      cur[path[path.length - 1]!] = replicas;
      if (typeof meta['resourceVersion'] === 'string') next.metadata.resourceVersion = meta['resourceVersion'];
      const r = ops.updateFrom(scope, existing, next, opts);
      return toScale(r.object, scope);
    },
  };
}
