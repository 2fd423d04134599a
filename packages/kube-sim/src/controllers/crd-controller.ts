import { type PrinterColumn, type ResourceDef, type ScaleSpec, standardVerbs, type VersionDef } from '../resources/resource-def.js';
import type { RestOps } from '../resources/rest-ops.js';
import { invalid, type StatusCause, StatusError } from '../util/status-error.js';
import { structuralSchemaCauses } from '../schema/structural-schema.js';
import { validateCustomResource } from '../schema/validate.js';
import { isObject, type JsonObject, type KObject, nowTimestamp } from '../util/json.js';
import type { WorkScheduler } from './scheduler.js';

const crdGrKey = 'apiextensions.k8s.io/customresourcedefinitions';
const cleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

/**
 * CustomResourceDefinitions: validates a CRD, accepts its names and marks it Established at
 * once (status.acceptedNames, conditions NamesAccepted and Established), serves its versions
 * (discovery, REST, schema validation), and on deletion removes every custom resource before
 * the resource disappears from discovery.
 */
export function registerCrdController(ops: RestOps, work: WorkScheduler): void {
  ops.customValidator = validateCustomResource;
  ops.kindHooks.set(crdGrKey, (_def, obj, old) => prepareCrd(ops, obj, old));

  const cleanup = (name: string): void => {
    const crd = ops.store.get(crdGrKey, '', name);
    if (crd?.metadata.deletionTimestamp === undefined) return;
    const def = defFromCrd(crd);
    if (def !== undefined) {
      const grKey = ops.grKey(def);
      for (const o of ops.store.list(grKey)) ops.store.remove(grKey, o.metadata.namespace ?? '', o.metadata.name ?? '');
      ops.registry.remove(def.group, def.resource);
    }
    const fins = (crd.metadata.finalizers ?? []).filter((f) => f !== cleanupFinalizer);
    const meta = { ...crd.metadata };
    if (fins.length > 0) meta.finalizers = fins;
    else delete meta.finalizers;
    ops.writeThrough(crdGrKey, { ...crd, metadata: meta });
  };

  ops.store.onChange((e) => {
    if (e.grKey !== crdGrKey) return;
    const def = defFromCrd(e.object);
    if (e.type === 'DELETED') {
      if (def !== undefined) ops.registry.remove(def.group, def.resource);
      return;
    }
    if (e.object.metadata.deletionTimestamp !== undefined) {
      const name = e.object.metadata.name ?? '';
      work.enqueue(`crd/${name}`, () => cleanup(name));
      return;
    }
    if (def !== undefined) ops.registry.put(def);
  });
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

const required = (field: string): StatusCause => ({ reason: 'FieldValueRequired', message: 'Required value', field });

/** The spec fields of a CRD the checks and defaults read. */
interface CrdFields {
  spec: JsonObject;
  names: JsonObject;
  group: string;
  plural: string;
  kind: string;
  scope: string;
  versions: JsonObject[];
  name: string;
}

function crdFields(obj: KObject): CrdFields {
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const names = isObject(spec['names']) ? spec['names'] : {};
  return {
    spec,
    names,
    group: str(spec['group']),
    plural: str(names['plural']),
    kind: str(names['kind']),
    scope: str(spec['scope']),
    versions: Array.isArray(spec['versions']) ? spec['versions'].filter(isObject) : [],
    name: obj.metadata.name ?? '',
  };
}

/** Validates, defaults and sets the status of a CRD being written (the kind hook of the CRD resource). */
function prepareCrd(ops: RestOps, obj: KObject, old: KObject | undefined): void {
  const f = crdFields(obj);
  const causes = [...crdSpecCauses(f), ...crdVersionCauses(f.versions), ...(old === undefined ? [] : crdImmutableCauses(f, old))];
  if (causes.length > 0) throw invalid('CustomResourceDefinition', 'apiextensions.k8s.io', f.name, causes);
  // A different CRD must not serve the same group/plural (the name check makes that impossible) nor
  // clash with a built-in resource.
  const existing = ops.registry.byResource(f.group, f.plural);
  if (existing?.builtin === true) throw new StatusError(409, 'AlreadyExists', `${f.plural}.${f.group} is served by the API server`, {});
  const { names, spec } = f;
  if (names['singular'] === undefined) names['singular'] = f.kind.toLowerCase();
  if (names['listKind'] === undefined) names['listKind'] = `${f.kind}List`;
  spec['names'] = names;
  obj['spec'] = spec;
  if (old === undefined && obj.metadata.deletionTimestamp === undefined) {
    const fins = obj.metadata.finalizers ?? [];
    if (!fins.includes(cleanupFinalizer)) obj.metadata.finalizers = [...fins, cleanupFinalizer];
  }
  obj['status'] = crdStatus(obj, old, f);
}

function crdSpecCauses(f: CrdFields): StatusCause[] {
  const { group, plural, kind, scope, versions, name } = f;
  const causes: StatusCause[] = [];
  if (group === '') causes.push(required('spec.group'));
  else if (!group.includes('.'))
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${group}": should be a domain with at least one dot`,
      field: 'spec.group',
    });
  if (plural === '') causes.push(required('spec.names.plural'));
  if (kind === '') causes.push(required('spec.names.kind'));
  if (scope !== 'Namespaced' && scope !== 'Cluster')
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${scope}": supported values: "Cluster", "Namespaced"`,
      field: 'spec.scope',
    });
  if (versions.length === 0 || versions.filter((v) => v['storage'] === true).length !== 1)
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: must have exactly one version marked as storage version',
      field: 'spec.versions',
    });
  if (plural !== '' && group !== '' && name !== `${plural}.${group}`)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
      field: 'metadata.name',
    });
  return causes;
}

function crdVersionCauses(versions: JsonObject[]): StatusCause[] {
  const causes: StatusCause[] = [];
  versions.forEach((v, i) => {
    if (str(v['name']) === '') causes.push(required(`spec.versions[${i}].name`));
    if (typeof v['served'] !== 'boolean') causes.push(required(`spec.versions[${i}].served`));
    const schema = isObject(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined;
    if (!isObject(schema))
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value: schemas are required',
        field: `spec.versions[${i}].schema.openAPIV3Schema`,
      });
  });
  // kube-apiserver validates the internal form, where schemas equal in every version are one
  // `spec.validation`: its errors name that path, else the version's.
  const schemas = versions.map((v) => (isObject(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined));
  const shared = schemas.every((x) => JSON.stringify(x) === JSON.stringify(schemas[0]));
  schemas.forEach((schema, i) => {
    if (!isObject(schema) || (shared && i > 0)) return;
    causes.push(
      ...structuralSchemaCauses(schema, shared ? 'spec.validation.openAPIV3Schema' : `spec.versions[${i}].schema.openAPIV3Schema`),
    );
  });
  return causes;
}

function crdImmutableCauses(f: CrdFields, old: KObject): StatusCause[] {
  const oldSpec = isObject(old['spec']) ? old['spec'] : {};
  const causes: StatusCause[] = [];
  if (str(oldSpec['group']) !== f.group)
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: "${f.group}": field is immutable`, field: 'spec.group' });
  if (str(oldSpec['scope']) !== f.scope)
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: "${f.scope}": field is immutable`, field: 'spec.scope' });
  return causes;
}

/** The status of an accepted CRD: names accepted, Established at once, the storage version recorded. */
function crdStatus(obj: KObject, old: KObject | undefined, f: CrdFields): JsonObject {
  const now = nowTimestamp();
  const oldStatus = old !== undefined && isObject(old['status']) ? old['status'] : {};
  const oldConds = Array.isArray(oldStatus['conditions']) ? oldStatus['conditions'].filter(isObject) : [];
  const since = (type: string): string => str(oldConds.find((c) => c['type'] === type)?.['lastTransitionTime']) || now;
  const storage = str(f.versions.find((v) => v['storage'] === true)?.['name']);
  const stored = Array.isArray(oldStatus['storedVersions']) ? oldStatus['storedVersions'].map(String) : [];
  if (storage !== '' && !stored.includes(storage)) stored.push(storage);
  const conditions: JsonObject[] = [
    {
      type: 'NamesAccepted',
      status: 'True',
      lastTransitionTime: since('NamesAccepted'),
      reason: 'NoConflicts',
      message: 'no conflicts found',
    },
    {
      type: 'Established',
      status: 'True',
      lastTransitionTime: since('Established'),
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    },
  ];
  if (obj.metadata.deletionTimestamp !== undefined)
    conditions.push({
      type: 'Terminating',
      status: 'True',
      lastTransitionTime: now,
      reason: 'InstanceDeletionInProgress',
      message: 'CustomResource deletion is in progress',
    });
  return { conditions, acceptedNames: { ...f.names }, storedVersions: stored };
}

/** The resource def a CRD object serves (undefined when malformed). */
function defFromCrd(crd: KObject): ResourceDef | undefined {
  const spec = crd['spec'];
  if (!isObject(spec) || !isObject(spec['names'])) return undefined;
  const names = spec['names'];
  const group = str(spec['group']);
  const plural = str(names['plural']);
  const kind = str(names['kind']);
  if (group === '' || plural === '' || kind === '') return undefined;
  const versions: VersionDef[] = [];
  let storage: VersionDef | undefined;
  for (const v of Array.isArray(spec['versions']) ? spec['versions'] : []) {
    if (!isObject(v) || v['served'] !== true) continue;
    const subs = isObject(v['subresources']) ? v['subresources'] : {};
    const scaleRaw = isObject(subs['scale']) ? subs['scale'] : undefined;
    const schema = isObject(v['schema']) && isObject(v['schema']['openAPIV3Schema']) ? v['schema']['openAPIV3Schema'] : undefined;
    const cols: PrinterColumn[] = (Array.isArray(v['additionalPrinterColumns']) ? v['additionalPrinterColumns'] : [])
      .filter(isObject)
      .map((c) => ({
        name: str(c['name']),
        type: str(c['type']) || 'string',
        jsonPath: str(c['jsonPath']),
        ...(typeof c['description'] === 'string' ? { description: c['description'] } : {}),
        ...(typeof c['format'] === 'string' ? { format: c['format'] } : {}),
        ...(typeof c['priority'] === 'number' ? { priority: c['priority'] } : {}),
      }));
    const vd: VersionDef = { name: str(v['name']), printerColumns: cols, status: isObject(subs['status']) };
    if (schema !== undefined) vd.schema = schema;
    if (scaleRaw !== undefined) {
      const sc: ScaleSpec = {
        specReplicasPath: str(scaleRaw['specReplicasPath']),
        statusReplicasPath: str(scaleRaw['statusReplicasPath']),
      };
      if (typeof scaleRaw['labelSelectorPath'] === 'string') sc.labelSelectorPath = scaleRaw['labelSelectorPath'];
      vd.scale = sc;
    }
    if (v['storage'] === true) storage = vd;
    else versions.push(vd);
  }
  if (storage !== undefined) versions.unshift(storage);
  if (versions.length === 0) return undefined;
  return {
    group,
    resource: plural,
    kind,
    listKind: str(names['listKind']) || `${kind}List`,
    singular: str(names['singular']) || kind.toLowerCase(),
    namespaced: spec['scope'] !== 'Cluster',
    shortNames: Array.isArray(names['shortNames']) ? names['shortNames'].map(String) : [],
    categories: Array.isArray(names['categories']) ? names['categories'].map(String) : [],
    versions,
    builtin: false,
    generation: true,
    extraSubresources: [],
    fieldLabels: [],
    defaultPropagation: 'Background',
    verbs: standardVerbs,
    crdName: crd.metadata.name ?? `${plural}.${group}`,
  };
}
