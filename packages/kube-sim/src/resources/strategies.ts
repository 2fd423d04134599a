import { isObject, jsonEqual, type JsonObject, type KObject } from '../util/json.js';
import { badRequest, type StatusCause } from '../util/status-error.js';
import { dataKeyCauses } from './metadata-validation.js';
import type { ResourceDef } from './resource-def.js';

/**
 * Per-kind defaulting the real API server applies on create/update (a small, documented subset:
 * only what clients commonly read back).
 */
export function defaultOnCreate(def: ResourceDef, obj: KObject, allocateIp: () => string): void {
  if (!def.builtin) return;
  defaultKindOnCreate(def, obj, allocateIp);
  dropEmptyOptionalFields(obj);
}

function defaultKindOnCreate(def: ResourceDef, obj: KObject, allocateIp: () => string): void {
  const spec = isObject(obj['spec']) ? obj['spec'] : undefined;
  switch (`${def.group}/${def.resource}`) {
    case '/namespaces': {
      const s: JsonObject = spec ?? {};
      if (!Array.isArray(s['finalizers'])) s['finalizers'] = ['kubernetes'];
      obj['spec'] = s;
      obj['status'] = { phase: 'Active' };
      namespaceLabel(obj);
      break;
    }
    case '/secrets':
      secretStringData(obj);
      if (typeof obj['type'] !== 'string' || obj['type'] === '') obj['type'] = 'Opaque';
      break;
    case '/services':
      obj['spec'] = defaultServiceSpec(spec ?? {}, allocateIp);
      obj['status'] = { loadBalancer: {} };
      break;
    case '/pods': {
      const s: JsonObject = spec ?? {};
      if (s['restartPolicy'] === undefined) s['restartPolicy'] = 'Always';
      if (s['dnsPolicy'] === undefined) s['dnsPolicy'] = 'ClusterFirst';
      if (s['schedulerName'] === undefined) s['schedulerName'] = 'default-scheduler';
      if (s['serviceAccountName'] === undefined) s['serviceAccountName'] = 'default';
      if (s['terminationGracePeriodSeconds'] === undefined) s['terminationGracePeriodSeconds'] = 30;
      obj['spec'] = s;
      obj['status'] = { phase: 'Pending', qosClass: 'BestEffort' };
      break;
    }
    case 'apps/deployments':
    case 'apps/replicasets':
    case 'apps/statefulsets': {
      const s: JsonObject = spec ?? {};
      if (s['replicas'] === undefined) s['replicas'] = 1;
      if (s['revisionHistoryLimit'] === undefined) s['revisionHistoryLimit'] = 10;
      if (def.resource === 'deployments') {
        if (s['progressDeadlineSeconds'] === undefined) s['progressDeadlineSeconds'] = 600;
        if (s['strategy'] === undefined)
          s['strategy'] = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
      }
      if (def.resource === 'replicasets') delete s['revisionHistoryLimit'];
      obj['spec'] = s;
      break;
    }
    default:
      break;
  }
}

/** A new Service's spec defaults: type ClusterIP with an allocated IP, single-stack IPv4, TCP ports, node ports. */
function defaultServiceSpec(s: JsonObject, allocateIp: () => string): JsonObject {
  if (typeof s['type'] !== 'string') s['type'] = 'ClusterIP';
  if (s['type'] !== 'ExternalName') {
    if (typeof s['clusterIP'] !== 'string' || s['clusterIP'] === '') s['clusterIP'] = allocateIp();
    if (!Array.isArray(s['clusterIPs'])) s['clusterIPs'] = [s['clusterIP']];
    if (!Array.isArray(s['ipFamilies'])) s['ipFamilies'] = ['IPv4'];
    if (typeof s['ipFamilyPolicy'] !== 'string') s['ipFamilyPolicy'] = 'SingleStack';
    if (typeof s['internalTrafficPolicy'] !== 'string') s['internalTrafficPolicy'] = 'Cluster';
  }
  if (typeof s['sessionAffinity'] !== 'string') s['sessionAffinity'] = 'None';
  if (Array.isArray(s['ports']))
    for (const p of s['ports']) {
      if (!isObject(p)) continue;
      if (p['protocol'] === undefined) p['protocol'] = 'TCP';
      if (p['targetPort'] === undefined) p['targetPort'] = p['port'];
    }
  allocateNodePorts(s, undefined);
  return s;
}

/** Defaulting that also applies on update (kept idempotent). */
export function defaultOnUpdate(def: ResourceDef, obj: KObject, old: KObject): void {
  if (!def.builtin) return;
  defaultKindOnUpdate(def, obj, old);
  dropEmptyOptionalFields(obj);
}

function defaultKindOnUpdate(def: ResourceDef, obj: KObject, old: KObject): void {
  switch (`${def.group}/${def.resource}`) {
    case '/namespaces': {
      // spec.finalizers only changes through /finalize.
      obj['spec'] = old['spec'];
      namespaceLabel(obj);
      break;
    }
    case '/secrets':
      secretStringData(obj);
      if (typeof obj['type'] !== 'string' || obj['type'] === '') obj['type'] = old['type'] ?? 'Opaque';
      break;
    case '/services': {
      const s = isObject(obj['spec']) ? obj['spec'] : {};
      const o = isObject(old['spec']) ? old['spec'] : {};
      for (const f of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy', 'internalTrafficPolicy', 'type', 'sessionAffinity'])
        if (s[f] === undefined && o[f] !== undefined) s[f] = o[f];
      if (Array.isArray(s['ports']))
        for (const p of s['ports']) {
          if (!isObject(p)) continue;
          if (p['protocol'] === undefined) p['protocol'] = 'TCP';
          if (p['targetPort'] === undefined) p['targetPort'] = p['port'];
        }
      allocateNodePorts(s, o);
      obj['spec'] = s;
      break;
    }
    default:
      break;
  }
}

/** Map fields (`map[string]string` and ResourceList, all `omitempty`) of the built-in kinds kube-sim serves. */
const omittedEmptyMaps = new Set(['labels', 'annotations', 'data', 'binaryData', 'nodeSelector', 'matchLabels', 'limits', 'requests']);
/** Slice fields with `omitempty` of those kinds. */
const omittedEmptyLists = new Set([
  'finalizers',
  'ownerReferences',
  'env',
  'envFrom',
  'args',
  'command',
  'volumes',
  'volumeMounts',
  'ports',
  'tolerations',
  'imagePullSecrets',
  'initContainers',
  'ephemeralContainers',
  'hostAliases',
  'topologySpreadConstraints',
  'matchExpressions',
  'conditions',
  'secrets',
  'externalIPs',
]);

/**
 * Drops what the typed JSON encoding of kube-apiserver omits: empty or null maps and lists of the
 * fields above, wherever they occur (ObjectMeta of pod templates, containers ...). Empty structs
 * (`resources: {}`, `securityContext: {}`, `emptyDir: {}`) are kept, as Go keeps them.
 */
function dropEmptyOptionalFields(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) dropEmptyOptionalFields(item);
    return;
  }
  if (!isObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (omittedEmptyMaps.has(k) && (v === null || (isObject(v) && Object.keys(v).length === 0))) delete value[k];
    else if (omittedEmptyLists.has(k) && (v === null || (Array.isArray(v) && v.length === 0))) delete value[k];
    else dropEmptyOptionalFields(v);
  }
}

function namespaceLabel(obj: KObject): void {
  const labels = { ...(obj.metadata.labels ?? {}) };
  labels['kubernetes.io/metadata.name'] = obj.metadata.name ?? '';
  obj.metadata.labels = labels;
}

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Secret data must be base64 (the typed decoder of the real server fails with 400 otherwise). */
function checkSecretData(obj: KObject): void {
  const data = obj['data'];
  if (!isObject(data)) return;
  for (const [k, v] of Object.entries(data)) {
    if (typeof v !== 'string' || v.length % 4 !== 0 || !base64.test(v)) {
      const at =
        typeof v === 'string'
          ? Math.max(
              0,
              [...v].findIndex((ch) => !/[A-Za-z0-9+/=]/.test(ch)),
            )
          : 0;
      throw badRequest(
        `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${at} (key ${JSON.stringify(k)})`,
      );
    }
  }
}

let nodePortCounter = 0;

/** Allocates nodePorts (30000–32767) for NodePort/LoadBalancer services, keeping given ones. */
function allocateNodePorts(spec: JsonObject, old: JsonObject | undefined): void {
  const type = spec['type'];
  if (type !== 'NodePort' && type !== 'LoadBalancer') return;
  const oldPorts = old !== undefined && Array.isArray(old['ports']) ? old['ports'].filter(isObject) : [];
  if (!Array.isArray(spec['ports'])) return;
  for (const p of spec['ports']) {
    if (!isObject(p) || p['nodePort'] !== undefined) continue;
    const prev = oldPorts.find((o) => o['port'] === p['port'] && (o['protocol'] ?? 'TCP') === (p['protocol'] ?? 'TCP'));
    if (prev?.['nodePort'] !== undefined) p['nodePort'] = prev['nodePort'];
    else {
      nodePortCounter = (nodePortCounter + 7919) % 2768;
      p['nodePort'] = 30000 + nodePortCounter;
    }
  }
}

function secretStringData(obj: KObject): void {
  checkSecretData(obj);
  const sd = obj['stringData'];
  if (isObject(sd)) {
    const data: JsonObject = isObject(obj['data']) ? { ...obj['data'] } : {};
    for (const [k, v] of Object.entries(sd)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    obj['data'] = data;
  }
  delete obj['stringData'];
}

const workloads = new Set(['apps/deployments', 'apps/replicasets', 'apps/statefulsets', 'apps/daemonsets']);

function selectorMatches(selector: JsonObject, labels: Record<string, unknown>): boolean {
  const ml = isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  for (const [k, v] of Object.entries(ml)) if (labels[k] !== v) return false;
  const exprs = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'].filter(isObject) : [];
  for (const e of exprs) {
    const key = String(e['key']);
    const values = Array.isArray(e['values']) ? e['values'].map(String) : [];
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    const v = has ? String(labels[key]) : undefined;
    switch (e['operator']) {
      case 'In':
        if (v === undefined || !values.includes(v)) return false;
        break;
      case 'NotIn':
        if (v !== undefined && values.includes(v)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function goMap(v: unknown): string {
  if (!isObject(v)) return 'map[string]string(nil)';
  return `map[string]string{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}:${JSON.stringify(x)}`)
    .join(', ')}}`;
}

/** core.MaxSecretSize: the limit of a Secret's data and of a ConfigMap's data plus binaryData (1 MiB). */
const maxDataBytes = 1024 * 1024;

/** Bytes of a Secret's decoded `data`, or of a ConfigMap's `data` values (UTF-8) plus decoded `binaryData`. */
function dataSize(obj: KObject, configMap: boolean): number {
  let total = 0;
  const data = obj['data'];
  if (isObject(data))
    for (const v of Object.values(data))
      if (typeof v === 'string') total += configMap ? Buffer.byteLength(v, 'utf8') : Buffer.from(v, 'base64').length;
  const binary = obj['binaryData'];
  if (configMap && isObject(binary))
    for (const v of Object.values(binary)) if (typeof v === 'string') total += Buffer.from(v, 'base64').length;
  return total;
}

/** Validation kube-apiserver applies to built-in kinds (the rules clients commonly trip over). */
export function validateBuiltin(def: ResourceDef, obj: KObject, old: KObject | undefined): StatusCause[] {
  const key = `${def.group}/${def.resource}`;
  if (workloads.has(key)) return workloadCauses(obj, old);
  if (key === '/services') return old === undefined ? [] : serviceUpdateCauses(obj, old);
  if (key === '/configmaps' || key === '/secrets') return dataObjectCauses(obj, old, key === '/configmaps');
  return [];
}

/** Deployments, ReplicaSets and the like: a selector that matches the template's labels and never changes, replicas >= 0. */
function workloadCauses(obj: KObject, old: KObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const selector = spec['selector'];
  const template = isObject(spec['template']) ? spec['template'] : {};
  const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
  const labels = isObject(tmeta['labels']) ? tmeta['labels'] : {};
  if (!isObject(selector)) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  else {
    const empty = !isObject(selector['matchLabels']) && !Array.isArray(selector['matchExpressions']);
    if (empty)
      causes.push({
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "{}": empty selector is invalid for deployment',
        field: 'spec.selector',
      });
    else if (!selectorMatches(selector, labels))
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${goMap(labels)}: \`selector\` does not match template \`labels\``,
        field: 'spec.template.metadata.labels',
      });
    if (old !== undefined) {
      const oldSpec = isObject(old['spec']) ? old['spec'] : {};
      if (!jsonEqual(oldSpec['selector'], selector))
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(selector)}: field is immutable`,
          field: 'spec.selector',
        });
    }
  }
  const replicas = spec['replicas'];
  if (replicas !== undefined && (typeof replicas !== 'number' || replicas < 0))
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
      field: 'spec.replicas',
    });
  return causes;
}

/** A Service keeps the clusterIP it was given (unless it becomes ExternalName). */
function serviceUpdateCauses(obj: KObject, old: KObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const s = isObject(obj['spec']) ? obj['spec'] : {};
  const o = isObject(old['spec']) ? old['spec'] : {};
  if (typeof o['clusterIP'] !== 'string' || o['clusterIP'] === '' || o['clusterIP'] === 'None' || s['type'] === 'ExternalName')
    return causes;
  if (s['clusterIP'] !== o['clusterIP'])
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(s['clusterIP'] ?? '')}: field is immutable`,
      field: 'spec.clusterIP',
    });
  const ips = Array.isArray(s['clusterIPs']) ? s['clusterIPs'] : [];
  if (ips[0] !== undefined && ips[0] !== o['clusterIP'])
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(ips)}: may not change once set`,
      field: 'spec.clusterIPs[0]',
    });
  return causes;
}

/** ConfigMaps and Secrets: valid data keys, a size limit, an immutable Secret type and `immutable: true`. */
function dataObjectCauses(obj: KObject, old: KObject | undefined, configMap: boolean): StatusCause[] {
  const causes = dataKeyCauses(obj, configMap);
  if (!configMap && old !== undefined && (old['type'] ?? 'Opaque') !== (obj['type'] ?? 'Opaque'))
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(obj['type'] ?? '')}: field is immutable`,
      field: 'type',
    });
  const size = dataSize(obj, configMap);
  // The real messages: the whole object (field `[]`) for ConfigMaps, `data` for Secrets.
  if (size > maxDataBytes)
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${maxDataBytes} bytes`,
      field: configMap ? '[]' : 'data',
    });
  if (old !== undefined && old['immutable'] === true) {
    for (const f of ['data', 'binaryData', 'stringData'])
      if (!jsonEqual(old[f], obj[f]) && !(f === 'stringData'))
        causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set', field: f });
    if (obj['immutable'] !== true)
      causes.push({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: field is immutable when `immutable` is set',
        field: 'immutable',
      });
  }
  return causes;
}
