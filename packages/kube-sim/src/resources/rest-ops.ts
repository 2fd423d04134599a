import { randomUUID } from 'node:crypto';
import { objectKey, type ObjectStore } from '../store/object-store.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  internalError,
  invalid,
  modifiedMessage,
  notFound,
  type StatusCause,
  StatusError,
} from '../util/status-error.js';
import { isObject, jsonEqual, type KObject, nowTimestamp, type ObjectMeta } from '../util/json.js';
import {
  type FieldRequirement,
  type LabelSelector,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  SelectorParseError,
} from '../util/label-selector.js';
import { groupResourceKey, groupVersion, type ResourceDef, type VersionDef } from './resource-def.js';
import type { ResourceRegistry } from './resource-registry.js';
import { metadataCauses } from './metadata-validation.js';
import { defaultOnCreate, defaultOnUpdate, validateBuiltin } from './strategies.js';
import { type FieldManagerContext, listTypesFor, trackUpdate } from '../patch/managed-fields.js';

/** What a request addresses: a resource type, the version asked for, and a namespace ('' = none). */
export interface Scope {
  def: ResourceDef;
  version: VersionDef;
  namespace: string;
}

/** Options common to writes. */
export interface WriteOptions {
  dryRun?: boolean;
  /** fieldValidation query parameter; default Warn for API requests. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /**
   * Who writes (the fieldManager parameter, else the User-Agent's product name): the write is
   * recorded in metadata.managedFields as an Update of this manager. Unset (kube-sim's own
   * controllers, server-side apply, which records itself) → managedFields are left alone.
   */
  fieldManager?: string;
  /** The subresource the managedFields entry names (`status`, `scale`). */
  managerSubresource?: string;
  /**
   * A check of the validated object before it is written, throwing to refuse it (the API
   * handler's RBAC escalation prevention for the writer of a request). Default none (kube-sim's
   * own controllers).
   */
  admit?: (scope: Scope, obj: KObject, old: KObject | undefined) => void;
}

/** A write's outcome plus `Warning` headers to send. */
export interface WriteResult {
  object: KObject;
  warnings: string[];
  /** The object was removed (finalizers emptied by an update, or an immediate delete). */
  deleted?: boolean;
}

/** Options of DELETE (a DeleteOptions body merged with query parameters). */
export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** Options of LIST. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

/** A page of LIST results. */
export interface ListResult {
  items: KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Parsed selectors of a list or watch. */
export interface Selectors {
  labels: LabelSelector;
  fields: FieldRequirement[];
}

/**
 * Validation of custom resources against their CRD schema (see `schema/`), plugged in so the
 * REST semantics stay independent of the schema engine. Returns the pruned/defaulted object.
 */
export type CustomValidator = (scope: Scope, obj: KObject, options: CustomValidationOptions) => { object: KObject; warnings: string[] };

/** Options of a {@link CustomValidator}. */
export interface CustomValidationOptions {
  /** fieldValidation=Strict: unknown fields are an error, not a warning. */
  strict: boolean;
  /** The stored object on an update (CEL transition rules compare with it); undefined on create. */
  old?: KObject;
}

/** Kind-specific validation/preparation hook (CRDs). Throws StatusError when invalid. */
export type KindHook = (def: ResourceDef, obj: KObject, old: KObject | undefined) => void;

const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** Namespaces the real server refuses to delete. */
const immortalNamespaces = new Set(['default', 'kube-system', 'kube-public']);

/**
 * The REST semantics of the Kubernetes API over the object store: create, get, list, update,
 * delete with the conventions of kube-apiserver (optimistic concurrency, generation, status
 * subresource, finalizers, namespace lifecycle checks, propagation finalizers, dry run).
 * Authorization and HTTP are the caller's business; controllers use this class directly.
 */
export class RestOps {
  private ipCounter = 10;
  /** Set by the CRD module; validates custom resources. */
  customValidator: CustomValidator | undefined;
  /** Set by the CRD module; validates and prepares CRD objects. */
  readonly kindHooks = new Map<string, KindHook>();

  constructor(
    readonly store: ObjectStore,
    readonly registry: ResourceRegistry,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Storage key of a def. */
  grKey(def: ResourceDef): string {
    return groupResourceKey(def.group, def.resource);
  }

  /** The object as served in a version: kind and apiVersion first. */
  withTypeMeta(scope: Pick<Scope, 'def' | 'version'>, obj: KObject): KObject {
    return { kind: scope.def.kind, apiVersion: groupVersion(scope.def.group, scope.version.name), ...obj };
  }

  /** GET one object; 404 when absent. */
  get(scope: Scope, name: string): KObject {
    const obj = this.store.get(this.grKey(scope.def), scope.def.namespaced ? scope.namespace : '', name);
    if (obj === undefined) throw notFound(scope.def, name);
    return obj;
  }

  /** Parses label and field selectors; 400 on bad syntax or unsupported field labels. */
  parseSelectors(def: ResourceDef, labelSelector: string | undefined, fieldSelector: string | undefined): Selectors {
    let labels: LabelSelector;
    let fields: FieldRequirement[];
    try {
      labels = parseLabelSelector(labelSelector ?? '');
    } catch (e) {
      if (e instanceof SelectorParseError) throw badRequest(`unable to parse requirement: ${e.message}`);
      throw e;
    }
    try {
      fields = parseFieldSelector(fieldSelector ?? '');
    } catch (e) {
      if (e instanceof SelectorParseError) throw badRequest(e.message);
      throw e;
    }
    for (const f of fields) {
      if (f.field === 'metadata.name' || f.field === 'metadata.namespace' || def.fieldLabels.includes(f.field)) continue;
      if (def.builtin) throw badRequest(`field label not supported: ${f.field}`);
      throw badRequest(`"${f.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    return { labels, fields };
  }

  /** True when an object matches parsed selectors. */
  matches(sel: Selectors, obj: KObject): boolean {
    if (sel.labels.length > 0 && !matchesLabels(sel.labels, obj.metadata.labels)) return false;
    for (const f of sel.fields) {
      const v = fieldValue(obj, f.field);
      if (f.negate ? v === f.value : v !== f.value) return false;
    }
    return true;
  }

  /** LIST with selectors and limit/continue pagination (continue reads current state, not a snapshot). */
  list(scope: Scope, opts: ListOptions): ListResult {
    const sel = this.parseSelectors(scope.def, opts.labelSelector, opts.fieldSelector);
    let rv = String(this.store.currentRv);
    let start = '';
    let all: KObject[] | undefined;
    const ns = scope.def.namespaced ? scope.namespace : undefined;
    if (opts.continue !== undefined && opts.continue !== '') {
      const token = decodeContinue(opts.continue);
      start = token.start;
      rv = String(token.rv);
      all = this.store.snapshot(this.grKey(scope.def), token.rv, ns);
      if (all === undefined)
        throw new StatusError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
    }
    all ??= this.store.list(this.grKey(scope.def), ns);
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
    const items: KObject[] = [];
    let lastKey = '';
    let more = false;
    let remaining = 0;
    for (const obj of all) {
      const key = objectKey(obj.metadata.namespace ?? '', obj.metadata.name ?? '');
      if (start !== '' && key < start) continue;
      if (!this.matches(sel, obj)) continue;
      if (items.length < limit) {
        items.push(obj);
        lastKey = key;
      } else {
        more = true;
        remaining++;
      }
    }
    const result: ListResult = { items, resourceVersion: rv };
    if (more) {
      result.continue = encodeContinue(rv, `${lastKey}\u0000`);
      if (sel.labels.length === 0 && sel.fields.length === 0) result.remainingItemCount = remaining;
    }
    return result;
  }

  /** Checks kind/apiVersion/namespace of a request body and strips the type meta. */
  checkTypeMeta(scope: Scope, body: unknown): KObject {
    if (!isObject(body)) throw badRequest('the request body must be a JSON object');
    // Missing type meta defaults to the endpoint's group/version/kind, as the real decoder does.
    const gv = groupVersion(scope.def.group, scope.version.name);
    const kind = typeof body['kind'] === 'string' && body['kind'] !== '' ? body['kind'] : scope.def.kind;
    const apiVersion = typeof body['apiVersion'] === 'string' && body['apiVersion'] !== '' ? body['apiVersion'] : gv;
    if (apiVersion !== gv) throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${gv})`);
    if (kind !== scope.def.kind) throw badRequest(`the kind in the data (${kind}) does not match the expected kind (${scope.def.kind})`);
    const metadata = body['metadata'];
    if (metadata !== undefined && !isObject(metadata)) throw badRequest('metadata must be an object');
    const obj = body as KObject;
    if (metadata === undefined) obj.metadata = {};
    delete obj['kind'];
    delete obj['apiVersion'];
    const ns = obj.metadata.namespace;
    if (scope.def.namespaced) {
      if (ns !== undefined && ns !== '' && ns !== scope.namespace)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      obj.metadata.namespace = scope.namespace;
    } else {
      delete obj.metadata.namespace;
    }
    return obj;
  }

  private validateName(scope: Scope, meta: ObjectMeta): void {
    const name = meta.name ?? '';
    const causes: StatusCause[] = [];
    const res = scope.def.resource;
    if (scope.def.builtin && scope.def.group === 'rbac.authorization.k8s.io') {
      // RBAC objects take any path-segment name (e.g. `system:controller:x`), as kube-apiserver's
      // ValidatePathSegmentName: not empty, not `.` or `..`, and no `/` or `%`.
      if (name === '' || name === '.' || name === '..' || /[/%]/.test(name))
        causes.push(invalidName(name, 'a path segment name', `may not be '.' or '..' and may not contain '/' or '%'`));
    } else if (res === 'namespaces' && !dns1123Label.test(name))
      causes.push(
        invalidName(
          name,
          'a lowercase RFC 1123 label',
          "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ),
      );
    else if (res === 'services' && scope.def.builtin && !dns1035Label.test(name))
      causes.push(
        invalidName(
          name,
          'a DNS-1035 label',
          "must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ),
      );
    else if (!dns1123Subdomain.test(name) || name.length > 253)
      causes.push(
        invalidName(
          name,
          'a lowercase RFC 1123 subdomain',
          "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
      );
    if (causes.length > 0) throw invalid(scope.def.kind, scope.def.group, name, causes);
  }

  private checkNamespaceForCreate(scope: Scope, name: string): void {
    if (!scope.def.namespaced) return;
    const ns = this.store.get('/namespaces', '', scope.namespace);
    if (ns === undefined) throw notFound({ group: '', resource: 'namespaces' }, scope.namespace);
    if (ns.metadata.deletionTimestamp !== undefined)
      throw forbidden(scope.def, name, `unable to create new content in namespace ${scope.namespace} because it is being terminated`);
  }

  /** Applies the CRD validator / kind hooks; returns warnings. */
  private validateContent(
    scope: Scope,
    obj: KObject,
    old: KObject | undefined,
    opts: WriteOptions,
  ): { object: KObject; warnings: string[] } {
    let result = { object: obj, warnings: [] as string[] };
    if (scope.def.topLevelFields !== undefined)
      result.warnings = dropUnknownFields(scope.def.topLevelFields, obj, opts.fieldValidation === 'Strict');
    const metaCauses = metadataCauses(obj.metadata);
    if (!scope.def.builtin && metaCauses.length > 0) throw invalid(scope.def.kind, scope.def.group, obj.metadata.name ?? '', metaCauses);
    if (!scope.def.builtin && this.customValidator !== undefined)
      result = this.customValidator(scope, obj, { strict: opts.fieldValidation === 'Strict', ...(old !== undefined ? { old } : {}) });
    if (opts.fieldValidation === 'Ignore') result.warnings = [];
    if (scope.def.builtin) {
      const causes = [...metaCauses, ...validateBuiltin(scope.def, result.object, old)];
      if (causes.length > 0) throw invalid(scope.def.kind, scope.def.group, obj.metadata.name ?? '', causes);
    }
    const hook = this.kindHooks.get(this.grKey(scope.def));
    if (hook !== undefined) hook(scope.def, result.object, old);
    opts.admit?.(scope, result.object, old);
    return result;
  }

  /** CREATE (POST). The body becomes the caller's: it is mutated and stored. */
  create(scope: Scope, body: unknown, opts: WriteOptions = {}): WriteResult {
    const obj = this.checkTypeMeta(scope, body);
    const meta = obj.metadata;
    if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== '') {
      meta.name = meta.generateName + randomSuffix();
    }
    if (meta.name === undefined || meta.name === '')
      throw invalid(scope.def.kind, scope.def.group, '', [
        { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
      ]);
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== '')
      throw internalError('resourceVersion should not be set on objects to be created');
    delete meta.resourceVersion;
    this.validateName(scope, meta);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    meta.uid = randomUUID();
    meta.creationTimestamp = nowTimestamp(this.now());
    if (scope.def.generation) meta.generation = 1;
    else delete meta.generation;
    // The status subresource owns status: a create starts from the empty status struct of a
    // built-in kind (kube-apiserver serializes it as {}), or from none for a custom resource.
    if (scope.version.status) {
      if (scope.def.builtin) obj['status'] = {};
      else delete obj['status'];
    }
    defaultOnCreate(scope.def, obj, () => this.allocateIp());
    const { object, warnings } = this.validateContent(scope, obj, undefined, opts);
    if (opts.fieldManager !== undefined) object.metadata.managedFields = trackUpdate(undefined, object, this.managerContext(scope, opts));
    const name = meta.name;
    this.checkNamespaceForCreate(scope, name);
    const grKey = this.grKey(scope.def);
    if (this.store.get(grKey, scope.def.namespaced ? scope.namespace : '', name) !== undefined) throw alreadyExists(scope.def, name);
    if (opts.dryRun === true) return { object, warnings };
    return { object: this.store.put(grKey, object, 'ADDED'), warnings };
  }

  /**
   * UPDATE (PUT) of the main resource or of `status`. A stale resourceVersion is a 409; an absent
   * resourceVersion updates unconditionally. A no-op update writes nothing (no new resourceVersion).
   */
  update(scope: Scope, name: string, body: unknown, opts: WriteOptions = {}, subresource?: 'status'): WriteResult {
    const incoming = this.checkTypeMeta(scope, body);
    if (incoming.metadata.name !== undefined && incoming.metadata.name !== name)
      throw badRequest(`the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`);
    const existing = this.get(scope, name);
    return this.updateFrom(scope, existing, incoming, opts, subresource);
  }

  /** Shared tail of PUT and PATCH: `incoming` is the full desired object (owned by the callee). */
  updateFrom(scope: Scope, existing: KObject, incoming: KObject, opts: WriteOptions, subresource?: 'status'): WriteResult {
    const name = existing.metadata.name ?? '';
    const inRv = incoming.metadata.resourceVersion;
    if (inRv !== undefined && inRv !== '' && inRv !== existing.metadata.resourceVersion) throw conflict(scope.def, name, modifiedMessage);
    if (incoming.metadata.uid !== undefined && incoming.metadata.uid !== '' && incoming.metadata.uid !== existing.metadata.uid)
      throw conflict(
        scope.def,
        name,
        // kube-apiserver wraps etcd3's storage error, which names the key (kube-sim: the default /registry prefix).
        `StorageError: invalid object, Code: 4, Key: ${storageKey(scope.def, existing)}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${incoming.metadata.uid}, UID in object meta: ${existing.metadata.uid ?? ''}`,
      );
    let obj = subresource === 'status' ? this.#statusUpdate(scope, existing, incoming) : this.#mainUpdate(scope, existing, incoming);
    obj.metadata.resourceVersion = existing.metadata.resourceVersion ?? '';
    if (existing.metadata.deletionTimestamp !== undefined) refuseNewFinalizers(scope, existing, obj);
    const validated = this.validateContent(scope, obj, existing, opts);
    obj = validated.object;
    if (scope.def.generation) {
      const gen = existing.metadata.generation ?? 1;
      const bump =
        specChanged(existing, obj, scope.version.status) ||
        (subresource !== 'status' &&
          annotationsBumpGeneration(scope.def) &&
          !sameMap(existing.metadata.annotations, obj.metadata.annotations));
      obj.metadata.generation = bump ? gen + 1 : gen;
    }
    if (jsonEqual(obj, existing)) return { object: existing, warnings: validated.warnings };
    if (opts.fieldManager !== undefined) obj.metadata.managedFields = trackUpdate(existing, obj, this.managerContext(scope, opts));
    if (opts.dryRun === true) return { object: obj, warnings: validated.warnings };
    const grKey = this.grKey(scope.def);
    if (obj.metadata.deletionTimestamp !== undefined && (obj.metadata.finalizers ?? []).length === 0) {
      const last = this.store.remove(grKey, obj.metadata.namespace ?? '', name, obj);
      return { object: last ?? obj, warnings: validated.warnings, deleted: true };
    }
    return { object: this.store.put(grKey, obj, 'MODIFIED'), warnings: validated.warnings };
  }

  /** The object a status update writes: `existing` with the incoming status (and, for built-in kinds, status-writable metadata). */
  #statusUpdate(scope: Scope, existing: KObject, incoming: KObject): KObject {
    const obj: KObject = { ...existing, metadata: { ...existing.metadata } };
    if (incoming['status'] === undefined) delete obj['status'];
    else obj['status'] = incoming['status'];
    if (scope.def.builtin) {
      statusMetadata(scope.def, obj.metadata, incoming.metadata);
      defaultOnUpdate(scope.def, obj, existing);
    }
    return obj;
  }

  /** The object an update of the main resource writes: `incoming` with the fields the server owns kept from `existing`. */
  #mainUpdate(scope: Scope, existing: KObject, incoming: KObject): KObject {
    const obj = incoming;
    const m = obj.metadata;
    const e = existing.metadata;
    m.name = e.name ?? '';
    if (scope.def.namespaced) m.namespace = e.namespace ?? scope.namespace;
    else delete m.namespace;
    m.uid = e.uid ?? '';
    m.creationTimestamp = e.creationTimestamp ?? '';
    setOrDelete(m, 'deletionTimestamp', e.deletionTimestamp);
    setOrDelete(m, 'deletionGracePeriodSeconds', e.deletionGracePeriodSeconds);
    if (m.managedFields === undefined && e.managedFields !== undefined) m.managedFields = e.managedFields;
    if (m.generateName === undefined && e.generateName !== undefined) m.generateName = e.generateName;
    if (scope.version.status) {
      if (existing['status'] === undefined) delete obj['status'];
      else obj['status'] = existing['status'];
    }
    defaultOnUpdate(scope.def, obj, existing);
    return obj;
  }

  /**
   * DELETE: immediate when no finalizers remain, else marks the object terminating
   * (deletionTimestamp, deletionGracePeriodSeconds 0) and adds the propagation finalizer.
   */
  delete(scope: Scope, name: string, opts: DeleteOptions = {}): WriteResult {
    const existing = this.get(scope, name);
    const pre = opts.preconditions;
    // kube-apiserver's rest.BeforeDelete: the conflict names the kind, not the resource.
    const byKind = { group: scope.def.group, resource: scope.def.kind };
    if (pre?.uid !== undefined && pre.uid !== existing.metadata.uid)
      throw conflict(
        byKind,
        name,
        `the UID in the precondition (${pre.uid}) does not match the UID in record (${existing.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
      );
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== existing.metadata.resourceVersion)
      throw conflict(
        byKind,
        name,
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${existing.metadata.resourceVersion ?? ''}). The object might have been modified`,
      );
    const isNamespace = scope.def.builtin && scope.def.resource === 'namespaces';
    if (isNamespace && immortalNamespaces.has(name)) throw forbidden(scope.def, name, 'this namespace may not be deleted');
    const policy = opts.propagationPolicy ?? scope.def.defaultPropagation;
    const finalizers = [...(existing.metadata.finalizers ?? [])];
    if (existing.metadata.deletionTimestamp === undefined) {
      if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
      if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
    } else {
      return { object: existing, warnings: [] };
    }
    const grKey = this.grKey(scope.def);
    const ns = existing.metadata.namespace ?? '';
    if (finalizers.length === 0 && !isNamespace) {
      if (opts.dryRun === true) return { object: existing, warnings: [], deleted: true };
      const last = this.store.remove(grKey, ns, name);
      return { object: last ?? existing, warnings: [], deleted: true };
    }
    const next: KObject = {
      ...existing,
      metadata: { ...existing.metadata, deletionTimestamp: nowTimestamp(this.now()), deletionGracePeriodSeconds: 0 },
    };
    if (finalizers.length > 0) next.metadata.finalizers = finalizers;
    if (isNamespace) next['status'] = { ...(isObject(existing['status']) ? existing['status'] : {}), phase: 'Terminating' };
    if (opts.dryRun === true) return { object: next, warnings: [] };
    return { object: this.store.put(grKey, next, 'MODIFIED'), warnings: [] };
  }

  /** Removes a namespace's `kubernetes` finalizer (what PUT .../finalize does) and deletes it when none remain. */
  finalizeNamespace(name: string, specFinalizers: string[]): KObject | undefined {
    const existing = this.store.get('/namespaces', '', name);
    if (existing === undefined) return undefined;
    const next: KObject = { ...existing, spec: { ...(isObject(existing['spec']) ? existing['spec'] : {}), finalizers: specFinalizers } };
    if (
      specFinalizers.length === 0 &&
      existing.metadata.deletionTimestamp !== undefined &&
      (existing.metadata.finalizers ?? []).length === 0
    )
      return this.store.remove('/namespaces', '', name, next);
    return this.store.put('/namespaces', next, 'MODIFIED');
  }

  /** Stores a controller-made change to an existing object unconditionally (no validation). */
  writeThrough(grKey: string, obj: KObject): KObject {
    if (
      obj.metadata.deletionTimestamp !== undefined &&
      (obj.metadata.finalizers ?? []).length === 0 &&
      !(grKey === '/namespaces' && namespaceHasSpecFinalizers(obj))
    ) {
      return this.store.remove(grKey, obj.metadata.namespace ?? '', obj.metadata.name ?? '', obj) ?? obj;
    }
    return this.store.put(grKey, obj, 'MODIFIED');
  }

  /** Who writes, for metadata.managedFields. */
  managerContext(scope: Pick<Scope, 'def' | 'version'>, opts: WriteOptions): FieldManagerContext {
    return {
      manager: opts.fieldManager ?? 'unknown',
      apiVersion: groupVersion(scope.def.group, scope.version.name),
      ...(opts.managerSubresource !== undefined ? { subresource: opts.managerSubresource } : {}),
      shape: listTypesFor(scope.def, scope.version),
      now: this.now(),
    };
  }

  private allocateIp(): string {
    this.ipCounter++;
    const n = this.ipCounter;
    return `10.96.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
  }
}

const metadataFields = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Drops top-level and metadata fields a built-in kind does not have; 400 under fieldValidation=Strict. */
function dropUnknownFields(known: readonly string[], obj: KObject, strict: boolean): string[] {
  const unknown: string[] = [];
  for (const k of Object.keys(obj)) if (k !== 'metadata' && !known.includes(k)) unknown.push(k);
  for (const k of Object.keys(obj.metadata)) if (!metadataFields.has(k)) unknown.push(`metadata.${k}`);
  if (unknown.length === 0) return [];
  if (strict) throw badRequest(`strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}`);
  for (const u of unknown) {
    if (u.startsWith('metadata.')) delete obj.metadata[u.slice('metadata.'.length)];
    else delete obj[u];
  }
  return unknown.map((u) => `unknown field "${u}"`);
}

function namespaceHasSpecFinalizers(obj: KObject): boolean {
  const spec = obj['spec'];
  return isObject(spec) && Array.isArray(spec['finalizers']) && spec['finalizers'].length > 0;
}

function setOrDelete<K extends keyof ObjectMeta>(m: ObjectMeta, key: K, value: ObjectMeta[K] | undefined): void {
  if (value === undefined) delete m[key];
  else m[key] = value;
}

/**
 * The metadata a `/status` write may change. Built-in status strategies copy the old spec but
 * keep the new labels, annotations, finalizers and owner references, except: Deployments keep
 * their labels, Pods their owner references, and CRDs all of it (ResetObjectMetaForStatus).
 * Custom resources change nothing but status (handled by the caller).
 */
function statusMetadata(def: ResourceDef, meta: ObjectMeta, incoming: ObjectMeta): void {
  const key = `${def.group}/${def.resource}`;
  if (key === 'apiextensions.k8s.io/customresourcedefinitions') return;
  if (key !== 'apps/deployments') setOrDelete(meta, 'labels', incoming.labels);
  setOrDelete(meta, 'annotations', incoming.annotations);
  setOrDelete(meta, 'finalizers', incoming.finalizers);
  if (key !== '/pods') setOrDelete(meta, 'ownerReferences', incoming.ownerReferences);
}

/**
 * Deployments bump their generation on annotation changes too (its update strategy: annotations
 * are copied to the ReplicaSets), other kinds only on spec changes.
 */
function annotationsBumpGeneration(def: ResourceDef): boolean {
  return def.builtin && def.group === 'apps' && def.resource === 'deployments';
}

/** Map equality where an absent map equals an empty one (apimachinery's semantic DeepEqual). */
function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return jsonEqual(a ?? {}, b ?? {});
}

/** True when anything outside metadata (and status, with a status subresource) differs. */
function specChanged(a: KObject, b: KObject, ignoreStatus: boolean): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (k === 'metadata' || (ignoreStatus && k === 'status') || k === 'kind' || k === 'apiVersion') continue;
    if (!jsonEqual(a[k], b[k])) return true;
  }
  return false;
}

/** The etcd key kube-apiserver would store an object under, with the default `/registry` prefix. */
function storageKey(def: ResourceDef, obj: KObject): string {
  const prefix = def.builtin || def.group === '' ? `/registry/${def.resource}` : `/registry/${def.group}/${def.resource}`;
  const ns = obj.metadata.namespace;
  return ns !== undefined && ns !== '' ? `${prefix}/${ns}/${obj.metadata.name ?? ''}` : `${prefix}/${obj.metadata.name ?? ''}`;
}

/** Value of a field label on an object (`metadata.name`, `spec.nodeName`, `source` for events ...). */
function fieldValue(obj: KObject, field: string): string {
  if (field === 'metadata.name') return obj.metadata.name ?? '';
  if (field === 'metadata.namespace') return obj.metadata.namespace ?? '';
  if (field === 'source') {
    const s = obj['source'];
    return isObject(s) && typeof s['component'] === 'string' ? s['component'] : '';
  }
  let cur: unknown = obj;
  for (const p of field.split('.')) cur = isObject(cur) ? cur[p] : undefined;
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'string' ? cur : JSON.stringify(cur);
}

function invalidName(name: string, what: string, rule: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: "${name}": ${what} ${rule}`, field: 'metadata.name' };
}

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += generateNameAlphabet[Math.floor(Math.random() * generateNameAlphabet.length)];
  return s;
}

function encodeContinue(rv: string, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: Number(rv), start })).toString('base64');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (
      isObject(parsed) &&
      parsed['v'] === 'meta.k8s.io/v1' &&
      typeof parsed['start'] === 'string' &&
      typeof parsed['rv'] === 'number' &&
      parsed['rv'] > 0
    )
      return { rv: parsed['rv'], start: parsed['start'] };
  } catch {
    // fall through
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

/** An object being deleted may lose finalizers but gain none. */
function refuseNewFinalizers(scope: Scope, existing: KObject, obj: KObject): void {
  const before = new Set(existing.metadata.finalizers ?? []);
  const added = (obj.metadata.finalizers ?? []).filter((f) => !before.has(f));
  if (added.length > 0)
    throw invalid(scope.def.kind, scope.def.group, existing.metadata.name ?? '', [
      {
        reason: 'FieldValueForbidden',
        message: 'Forbidden: no new finalizers can be added if the object is being deleted',
        field: 'metadata.finalizers',
      },
    ]);
}
