/**
 * The (Cluster)PropagatedVersion written after a sync (docs/kubefed-compatibility.md §1.6, §4.4.8).
 */
import {
  API_VERSIONS,
  type ClusterObjectVersion,
  KINDS,
  MEMBER_UIDS_ANNOTATION,
  type PropagatedVersion,
  type PropagatedVersionStatus,
  propagatedVersionName,
} from '@kubefed/api';
import { type ObjectVersions, recordedUids, splitLegacyVersion } from './versions.js';

/** Input of {@link buildPropagatedVersion}. */
export interface BuildPropagatedVersionInput {
  /** The federated object: owner of the record; a namespace makes it a PropagatedVersion. */
  readonly fedObject: {
    readonly apiVersion?: string | undefined;
    readonly kind?: string | undefined;
    readonly metadata: { readonly name?: string | undefined; readonly namespace?: string | undefined; readonly uid?: string | undefined };
  };
  /** Kind of the target type (the record is named `<lowercase kind>-<name>`). */
  readonly targetKind: string;
  /** Current template and overrides hashes (`objectVersions(fedObject)`). */
  readonly versions: ObjectVersions;
  /** The stored record, when one exists. */
  readonly existing?: PropagatedVersion | undefined;
  /** The effective placement of this sync (versions of other clusters are dropped). */
  readonly selectedClusters: Iterable<string>;
  /** Version of the object the API returned, for each cluster where a create or update succeeded (`""`: the copy is gone). */
  readonly updatedVersions: ReadonlyMap<string, string>;
  /** `memberUid` of the object the API returned, for the clusters of `updatedVersions` that have one; default none. */
  readonly updatedUids?: ReadonlyMap<string, string> | undefined;
}

/** Result of {@link buildPropagatedVersion}. */
export interface BuiltPropagatedVersion {
  /** The record to create (no `existing`) or whose status to update. */
  readonly object: PropagatedVersion;
  /** False when `existing` already has this status and annotation: nothing needs to be written. */
  readonly changed: boolean;
  /** True when `existing`'s metadata (the `MEMBER_UIDS_ANNOTATION`) changed too, which a status write leaves alone; false for a new record. */
  readonly metadataChanged: boolean;
}

const byClusterName = (a: ClusterObjectVersion, b: ClusterObjectVersion): number =>
  a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0;

function sameStatus(a: PropagatedVersionStatus | undefined, b: PropagatedVersionStatus): boolean {
  if (a === undefined || a.templateVersion !== b.templateVersion || a.overridesVersion !== b.overridesVersion) return false;
  const x = a.clusterVersions ?? [];
  const y = b.clusterVersions ?? [];
  return x.length === y.length && x.every((v, i) => v.clusterName === y[i]?.clusterName && v.version === y[i]?.version);
}

/** The value of `MEMBER_UIDS_ANNOTATION` for `uids` (keys sorted); undefined when empty. */
function uidsAnnotation(uids: ReadonlyMap<string, string>): string | undefined {
  if (uids.size === 0) return undefined;
  const sorted = [...uids].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(Object.fromEntries(sorted));
}

/**
 * The uids of the member copies after a sync: those recorded before (the annotation, or an
 * older record's `gen:<n>/<uid>` strings) for still-selected clusters, whatever the template (a
 * uid names the copy, which an update keeps), replaced by the uid of each copy just written and
 * dropped for a copy just written without one, or gone.
 */
function mergeUids(input: BuildPropagatedVersionInput, selected: ReadonlySet<string>): Map<string, string> {
  const uids = new Map<string, string>();
  for (const [cluster, uid] of recordedUids(input.existing)) if (selected.has(cluster)) uids.set(cluster, uid);
  for (const v of input.existing?.status?.clusterVersions ?? []) {
    const { uid } = splitLegacyVersion(v.version);
    if (uid !== undefined && selected.has(v.clusterName)) uids.set(v.clusterName, uid);
  }
  for (const [cluster, version] of input.updatedVersions) {
    const uid = input.updatedUids?.get(cluster);
    if (version === '' || uid === undefined) uids.delete(cluster);
    else if (selected.has(cluster)) uids.set(cluster, uid);
  }
  return uids;
}

/**
 * Builds the version record after a sync (§4.4.8): versions of `updatedVersions` win; when the
 * stored template and overrides versions equal the current ones, previously recorded versions
 * of still-selected clusters are kept (an older record's `gen:<n>/<uid>` as KubeFed's `gen:<n>`);
 * unselected clusters and empty versions are dropped; `clusterVersions` is sorted by cluster
 * name (omitted when empty). The uids of the copies go to `MEMBER_UIDS_ANNOTATION` (see
 * `mergeUids`), so the status holds exactly KubeFed's strings. A new record is named
 * `<lowercase target kind>-<name>`, lives in the federated object's namespace (a
 * ClusterPropagatedVersion when it has none) and has one ownerReference to the federated
 * object, so garbage collection removes it with its owner. `existing` is not modified.
 */
export function buildPropagatedVersion(input: BuildPropagatedVersionInput): BuiltPropagatedVersion {
  const { fedObject, versions, existing } = input;
  const selected = new Set(input.selectedClusters);
  const merged = new Map<string, string>();
  const old = existing?.status;
  if (old !== undefined && old.templateVersion === versions.templateVersion && old.overridesVersion === versions.overridesVersion) {
    for (const v of old.clusterVersions ?? [])
      if (selected.has(v.clusterName)) merged.set(v.clusterName, splitLegacyVersion(v.version).version);
  }
  for (const [cluster, version] of input.updatedVersions) if (selected.has(cluster)) merged.set(cluster, version);
  const clusterVersions = [...merged]
    .filter(([, version]) => version !== '')
    .map(([clusterName, version]) => ({ clusterName, version }))
    .sort(byClusterName);
  const status: PropagatedVersionStatus = { templateVersion: versions.templateVersion, overridesVersion: versions.overridesVersion };
  if (clusterVersions.length > 0) status.clusterVersions = clusterVersions;
  const uids = uidsAnnotation(mergeUids(input, selected));

  if (existing !== undefined) {
    const object: PropagatedVersion = { ...structuredClone(existing), status };
    const { [MEMBER_UIDS_ANNOTATION]: oldUids, ...others } = object.metadata.annotations ?? {};
    const metadataChanged = oldUids !== uids;
    if (metadataChanged) {
      const annotations = uids === undefined ? others : { ...others, [MEMBER_UIDS_ANNOTATION]: uids };
      if (Object.keys(annotations).length > 0) object.metadata.annotations = annotations;
      else delete object.metadata.annotations;
    }
    return { object, changed: metadataChanged || !sameStatus(old, status), metadataChanged };
  }
  const name = fedObject.metadata.name ?? '';
  const namespace = fedObject.metadata.namespace ?? '';
  const object: PropagatedVersion = {
    apiVersion: API_VERSIONS.coreV1alpha1,
    kind: namespace === '' ? KINDS.clusterPropagatedVersion : KINDS.propagatedVersion,
    metadata: {
      name: propagatedVersionName(input.targetKind, name),
      ...(namespace === '' ? {} : { namespace }),
      ...(uids === undefined ? {} : { annotations: { [MEMBER_UIDS_ANNOTATION]: uids } }),
      ownerReferences: [{ apiVersion: fedObject.apiVersion ?? '', kind: fedObject.kind ?? '', name, uid: fedObject.metadata.uid ?? '' }],
    },
    status,
  };
  return { object, changed: true, metadataChanged: false };
}
