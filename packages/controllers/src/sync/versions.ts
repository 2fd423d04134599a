/**
 * Version tracking (docs/kubefed-compatibility.md §1.6, §4.4.8): hashes of the template and overrides, the
 * version of a member object, and the decision whether a member write is needed.
 */
import { createHash } from 'node:crypto';
import { type ClusterOverride, type GenericOverrideItem, memberObjectVersion, type PropagatedVersion } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { goJson } from './go-json.js';

/** The parts of a federated object that are hashed. */
export interface VersionSource {
  readonly spec?:
    | {
        readonly template?: Readonly<Record<string, unknown>> | null | undefined;
        readonly overrides?: readonly GenericOverrideItem[] | null | undefined;
      }
    | null
    | undefined;
}

/** The template and overrides hashes of a federated object. */
export interface ObjectVersions {
  readonly templateVersion: string;
  readonly overridesVersion: string;
}

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

/**
 * Lowercase hex MD5 of Go's JSON encoding of `spec.template` (sorted keys, HTML-safe escapes)
 * followed by a newline; `""` when there is no template.
 * Test vector: `{"spec":{"foo":null}}` → `a5b8d4352d5aed51c51b93900258ccf3`.
 */
export function templateVersion(fedObject: VersionSource): string {
  const template = fedObject.spec?.template;
  return template === undefined || template === null ? '' : md5(`${goJson(template)}\n`);
}

function encodeOverride(o: ClusterOverride): string {
  const parts: string[] = [];
  if (o.op !== undefined && o.op !== '') parts.push(`"op":${goJson(o.op)}`);
  // Missing strings encode as "" (Go's zero value), keeping the hash total on malformed input.
  parts.push(`"path":${goJson(o.path ?? '')}`);
  if (o.value !== undefined && o.value !== null) parts.push(`"value":${goJson(o.value)}`);
  return `{${parts.join(',')}}`;
}

function encodeOverrideItem(item: GenericOverrideItem): string {
  const list = item.clusterOverrides ?? [];
  const overrides = list.length > 0 ? `,"clusterOverrides":[${list.map(encodeOverride).join(',')}]` : '';
  return `{"clusterName":${goJson(item.clusterName ?? '')}${overrides}}`;
}

/**
 * Lowercase hex MD5 of `{"overrides": L}` + newline, L being `spec.overrides` re-encoded with
 * KubeFed's field order (`clusterName`, `clusterOverrides` omitted when empty; `op` omitted when
 * empty, `path`, `value` omitted when null or absent); `{"overrides":null}` when `spec` has no
 * overrides; `""` when the object has no `spec`.
 */
export function overridesVersion(fedObject: VersionSource): string {
  const spec = fedObject.spec;
  if (spec === undefined || spec === null) return '';
  const list = spec.overrides;
  const encoded = list === undefined || list === null ? 'null' : `[${list.map(encodeOverrideItem).join(',')}]`;
  return md5(`{"overrides":${encoded}}\n`);
}

/** Both hashes of a federated object. */
export function objectVersions(fedObject: VersionSource): ObjectVersions {
  return { templateVersion: templateVersion(fedObject), overridesVersion: overridesVersion(fedObject) };
}

/**
 * The version string of a member object: `gen:<generation>/<uid>` when generation ≠ 0 (`gen:<generation>`
 * without a uid), else `rv:<resourceVersion>`. KubeFed records `gen:<generation>` only, so a copy
 * deleted and recreated by someone else with the same generation passed as current; the uid
 * tells them apart (a resourceVersion is new on every write anyway).
 */
export function memberVersion(obj: Pick<KubeObject, 'metadata'>): string {
  const version = memberObjectVersion(obj.metadata);
  const uid = obj.metadata.uid;
  return version.startsWith('gen:') && uid !== undefined && uid !== '' ? `${version}/${uid}` : version;
}

/**
 * The version recorded for `cluster` in a (Cluster)PropagatedVersion, trusted only when its
 * template and overrides versions equal `current`; `""` when unknown or untrusted.
 */
export function recordedVersion(propagatedVersion: PropagatedVersion | undefined, current: ObjectVersions, cluster: string): string {
  const status = propagatedVersion?.status;
  if (status === undefined) return '';
  if (status.templateVersion !== current.templateVersion || status.overridesVersion !== current.overridesVersion) return '';
  return status.clusterVersions?.find((v) => v.clusterName === cluster)?.version ?? '';
}

/** Input of {@link needsUpdate}. */
export interface NeedsUpdateInput {
  /** The federated object (hashed), or its precomputed hashes. */
  readonly fedObject: VersionSource;
  /** Precomputed `objectVersions(fedObject)`; computed when absent. */
  readonly versions?: ObjectVersions | undefined;
  /** The stored version record; absent when none exists yet. */
  readonly propagatedVersion?: PropagatedVersion | undefined;
  /** The member cluster. */
  readonly cluster: string;
  /** The rendered desired object (§4.4.5). */
  readonly desired: Pick<KubeObject, 'metadata'>;
  /** The member object as observed (or as returned by the API). */
  readonly memberObject: Pick<KubeObject, 'metadata'>;
}

function sameMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.prototype.hasOwnProperty.call(y, k) && x[k] === y[k]);
}

/**
 * Whether the member object must be written (§4.4.8). An update is needed when the recorded
 * version (see {@link recordedVersion}) differs from the member's current version — which is
 * how drift in the member is detected — or, only for `gen:` versions (whose metadata changes do
 * not bump the generation), when name, namespace, labels or annotations of desired and member
 * differ (absent and empty maps are equal).
 */
export function needsUpdate(input: NeedsUpdateInput): boolean {
  const versions = input.versions ?? objectVersions(input.fedObject);
  const recorded = recordedVersion(input.propagatedVersion, versions, input.cluster);
  const current = memberVersion(input.memberObject);
  if (recorded !== current) return true;
  if (!current.startsWith('gen:')) return false;
  const d = input.desired.metadata;
  const m = input.memberObject.metadata;
  return !(
    (d.name ?? '') === (m.name ?? '') &&
    (d.namespace ?? '') === (m.namespace ?? '') &&
    sameMap(d.labels, m.labels) &&
    sameMap(d.annotations, m.annotations)
  );
}
