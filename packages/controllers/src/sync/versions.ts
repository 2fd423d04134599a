/**
 * Version tracking (docs/kubefed-compatibility.md §1.6, §4.4.8): hashes of the template and overrides, the
 * version of a member object, and the decision whether a member write is needed.
 */
import { createHash } from 'node:crypto';
import {
  type ClusterOverride,
  type GenericOverrideItem,
  MEMBER_UIDS_ANNOTATION,
  memberObjectVersion,
  type PropagatedVersion,
} from '@kubefed/api';
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
 * The version string of a member object, exactly as KubeFed records it
 * (pkg/controller/sync/version/): `gen:<generation>` when generation ≠ 0, else
 * `rv:<resourceVersion>`. The uid of the copy is recorded beside it, in the record's
 * `MEMBER_UIDS_ANNOTATION` (see {@link recordedCopy}).
 */
export function memberVersion(obj: Pick<KubeObject, 'metadata'>): string {
  return memberObjectVersion(obj.metadata);
}

/**
 * The uid recorded for a copy written with {@link memberVersion} `version`: the object's uid for a
 * `gen:` version, undefined for an `rv:` version (a resourceVersion is new on every write, so a
 * recreated copy shows anyway) or an object without a uid.
 */
export function memberUid(obj: Pick<KubeObject, 'metadata'>): string | undefined {
  const uid = obj.metadata.uid;
  return memberVersion(obj).startsWith('gen:') && uid !== undefined && uid !== '' ? uid : undefined;
}

/**
 * The version recorded for `cluster` in a (Cluster)PropagatedVersion, trusted only when its
 * template and overrides versions equal `current`; `""` when unknown or untrusted. The string as
 * stored: KubeFed's `gen:<n>` / `rv:<rv>`, or `gen:<n>/<uid>` in a record an older version of ours wrote.
 */
export function recordedVersion(propagatedVersion: PropagatedVersion | undefined, current: ObjectVersions, cluster: string): string {
  const status = propagatedVersion?.status;
  if (status === undefined) return '';
  if (status.templateVersion !== current.templateVersion || status.overridesVersion !== current.overridesVersion) return '';
  return status.clusterVersions?.find((v) => v.clusterName === cluster)?.version ?? '';
}

/** What a version record says of the copy in one cluster (see {@link recordedCopy}). */
export interface RecordedCopy {
  /** KubeFed's version string (`gen:<n>` or `rv:<rv>`); `""` when unknown or untrusted. */
  readonly version: string;
  /** The uid of the copy written, when known (only for `gen:` versions). */
  readonly uid?: string | undefined;
  /** The record holds the older `gen:<n>/<uid>` form for this cluster: rewriting it in KubeFed's form is due. */
  readonly legacy: boolean;
}

/**
 * Splits an older record's `gen:<n>/<uid>` into its version and uid; other strings pass unchanged.
 * (KubeFed's own strings never hold a `/`.)
 */
export function splitLegacyVersion(version: string): { version: string; uid?: string } {
  const slash = version.indexOf('/');
  if (!version.startsWith('gen:') || slash < 0) return { version };
  return { version: version.slice(0, slash), uid: version.slice(slash + 1) };
}

const parsedUids = new WeakMap<object, ReadonlyMap<string, string>>();

/**
 * The uids of `MEMBER_UIDS_ANNOTATION` by cluster; empty when absent or malformed (the record is
 * then read as KubeFed's, by generation alone). Parsed once per record object.
 */
export function recordedUids(propagatedVersion: Pick<PropagatedVersion, 'metadata'> | undefined): ReadonlyMap<string, string> {
  if (propagatedVersion === undefined) return new Map();
  const known = parsedUids.get(propagatedVersion);
  if (known !== undefined) return known;
  const uids = new Map<string, string>();
  const text = propagatedVersion.metadata.annotations?.[MEMBER_UIDS_ANNOTATION];
  if (text !== undefined) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        for (const [cluster, uid] of Object.entries(parsed)) if (typeof uid === 'string' && uid !== '') uids.set(cluster, uid);
      }
    } catch {
      // Someone else's edit: ignored, as KubeFed ignores the whole annotation.
    }
  }
  parsedUids.set(propagatedVersion, uids);
  return uids;
}

/**
 * What the record says of the copy in `cluster` ({@link recordedVersion}, split into KubeFed's
 * version string and the uid of the copy written): the uid comes from an older record's
 * `gen:<n>/<uid>`, else from `MEMBER_UIDS_ANNOTATION` (for `gen:` versions). A record KubeFed
 * wrote has no uid: its `gen:<n>` matches any copy at generation n, as in KubeFed.
 */
export function recordedCopy(propagatedVersion: PropagatedVersion | undefined, current: ObjectVersions, cluster: string): RecordedCopy {
  const stored = recordedVersion(propagatedVersion, current, cluster);
  const split = splitLegacyVersion(stored);
  if (split.uid !== undefined) return { version: split.version, uid: split.uid, legacy: true };
  const uid = stored.startsWith('gen:') ? recordedUids(propagatedVersion).get(cluster) : undefined;
  return { version: stored, uid, legacy: false };
}

/**
 * Whether `copy` is the copy the record describes: the same version string and, when the record
 * knows the uid of the copy written, the same uid (a copy deleted and recreated by someone else
 * with the same generation is not). An unknown version (`""`) matches nothing.
 */
export function copyMatchesRecord(recorded: RecordedCopy, copy: Pick<KubeObject, 'metadata'>): boolean {
  if (recorded.version === '' || recorded.version !== memberVersion(copy)) return false;
  return recorded.uid === undefined || recorded.uid === copy.metadata.uid;
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
 * version (see {@link recordedCopy}) differs from the member's current version — which is how
 * drift in the member is detected — or names another copy (uid) than the member's, or, only for
 * `gen:` versions (whose metadata changes do not bump the generation), when name, namespace,
 * labels or annotations of desired and member differ (absent and empty maps are equal).
 */
export function needsUpdate(input: NeedsUpdateInput): boolean {
  const versions = input.versions ?? objectVersions(input.fedObject);
  const recorded = recordedCopy(input.propagatedVersion, versions, input.cluster);
  if (!copyMatchesRecord(recorded, input.memberObject)) return true;
  if (!recorded.version.startsWith('gen:')) return false;
  const d = input.desired.metadata;
  const m = input.memberObject.metadata;
  return !(
    (d.name ?? '') === (m.name ?? '') &&
    (d.namespace ?? '') === (m.namespace ?? '') &&
    sameMap(d.labels, m.labels) &&
    sameMap(d.annotations, m.annotations)
  );
}
