/**
 * What the member watches keep of a managed member copy (docs/architecture.md "Drift watches"):
 * the metadata the sync decisions read, the fields retention copies from the member
 * (`retain-fields.ts`), `.status` when the type collects it, and a fingerprint of the rest, so
 * that the cache's memory per member copy stays small whatever the object holds.
 */
import { createHash } from 'node:crypto';
import { MANAGED_LABEL, MANAGED_LABEL_TRUE } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { boundedCopyStatus } from './bounded-remote-status.js';

/** Options of {@link slimMemberCopy}. */
export interface SlimCopyOptions {
  /** Kind of the target type: Service and ServiceAccount keep their own retained fields (`retain-fields.ts`). */
  readonly targetKind: string;
  /** Keep `.status` (the type collects remote status, or a status controller reads it). */
  readonly keepStatus: boolean;
}

/**
 * The metadata the decisions read: the object's identity and version (`needsUpdate`,
 * `memberVersion`, the cache key), the managed label and deletion (`planClusterSync`), and what
 * retention copies (annotations, finalizers). The uid only where it is read: for an object with a
 * generation, compared with the uid the version record names (`copyMatchesRecord`), and in the
 * host-namespace check of a Namespace. Not kept: managedFields, ownerReferences, creationTimestamp and the like.
 */
const KEPT_METADATA = [
  'name',
  'namespace',
  'resourceVersion',
  'generation',
  'labels',
  'annotations',
  'finalizers',
  'deletionTimestamp',
] as const;

/** The labels of nearly every managed copy, shared by the copies that carry exactly these (the cache is frozen). */
const MANAGED_ONLY: Readonly<Record<string, string>> = Object.freeze({ [MANAGED_LABEL]: MANAGED_LABEL_TRUE });

function slimMetadata(metadata: KubeObject['metadata'], targetKind: string): KubeObject['metadata'] {
  const kept: KubeObject['metadata'] = pick(metadata, KEPT_METADATA);
  const { uid, generation, labels } = metadata;
  if (uid !== undefined && ((generation !== undefined && generation !== 0) || targetKind === 'Namespace')) kept.uid = uid;
  if (labels !== undefined && Object.keys(labels).length === 1 && labels[MANAGED_LABEL] === MANAGED_LABEL_TRUE) kept.labels = MANAGED_ONLY;
  return kept;
}

/** The `spec` fields retention reads, by target kind; every other kind: `spec.replicas` (kept whether or not `retainReplicas` is set). */
const KEPT_SPEC: Readonly<Record<string, readonly string[]>> = {
  Service: ['clusterIP', 'clusterIPs', 'healthCheckNodePort', 'ports'],
  ServiceAccount: [],
};
const DEFAULT_KEPT_SPEC = ['replicas'];

const FINGERPRINT = Symbol('kubefed.memberCopyFingerprint');

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function pick(from: Obj, keys: readonly string[]): Obj {
  const out: Obj = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

/**
 * Everything of `obj` that a write or a hand edit can change, as a number: the first 48 bits of
 * the MD5 of the whole object without `metadata.resourceVersion`, `metadata.managedFields` and
 * `.status` (which change on every write, or with status alone). A number, not a string, as it
 * takes no heap of its own in the cached copy.
 */
function fingerprintOf(obj: KubeObject): number {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj.metadata;
  const text = JSON.stringify({ ...obj, metadata, status: undefined });
  return createHash('md5').update(text, 'utf8').digest().readUIntBE(0, 6);
}

/**
 * The slim copy of the member object `obj` that the watch cache keeps: `apiVersion`, `kind`, the
 * metadata of {@link KEPT_METADATA} (and the uid where it is read), the retained fields of the kind (Service: `spec.clusterIP`,
 * `spec.clusterIPs`, `spec.healthCheckNodePort`, `spec.ports`; ServiceAccount: `secrets`;
 * any other kind: `spec.replicas`), `.status` when `keepStatus` (bounded: {@link boundedCopyStatus}), and the fingerprint of the
 * whole object ({@link memberCopyFingerprint}). A `spec` that is not an object is kept as it is
 * (retention then reports it). Pure; `obj` is not modified and shares its kept values.
 */
export function slimMemberCopy(obj: KubeObject, options: SlimCopyOptions): KubeObject {
  const slim: KubeObject = { metadata: slimMetadata(obj.metadata, options.targetKind) };
  if (obj.apiVersion !== undefined) slim.apiVersion = obj.apiVersion;
  if (obj.kind !== undefined) slim.kind = obj.kind;
  const spec = obj.spec;
  if (isObject(spec)) {
    const kept = pick(spec, KEPT_SPEC[options.targetKind] ?? DEFAULT_KEPT_SPEC);
    if (Object.keys(kept).length > 0) slim.spec = kept;
  } else if (spec !== undefined) {
    slim.spec = spec;
  }
  if (options.targetKind === 'ServiceAccount' && obj.secrets !== undefined) slim.secrets = obj.secrets;
  if (options.keepStatus && obj.status !== undefined) slim.status = boundedCopyStatus(obj.status);
  (slim as { [FINGERPRINT]?: number })[FINGERPRINT] = fingerprintOf(obj);
  return slim;
}

/**
 * The fingerprint of a member object: a hash of everything but `metadata.resourceVersion`,
 * `metadata.managedFields` and `.status`. Two versions of an object with different
 * fingerprints differ in something a hand edit (or a write) changed. For a {@link slimMemberCopy},
 * the fingerprint of the object it was made from; for any other object, computed from it.
 */
export function memberCopyFingerprint(obj: KubeObject): number {
  const stored: unknown = (obj as { [FINGERPRINT]?: unknown })[FINGERPRINT];
  return typeof stored === 'number' ? stored : fingerprintOf(obj);
}
