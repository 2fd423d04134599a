/**
 * The (Cluster)PropagatedVersion written after a sync (docs/kubefed-compatibility.md §1.6, §4.4.8).
 */
import {
  API_VERSIONS,
  type ClusterObjectVersion,
  KINDS,
  type PropagatedVersion,
  type PropagatedVersionStatus,
  propagatedVersionName,
} from '@kubefed/api';
import type { ObjectVersions } from './versions.js';

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
  /** Version of the object the API returned, for each cluster where a create or update succeeded. */
  readonly updatedVersions: ReadonlyMap<string, string>;
}

/** Result of {@link buildPropagatedVersion}. */
export interface BuiltPropagatedVersion {
  /** The record to create (no `existing`) or whose status to update. */
  readonly object: PropagatedVersion;
  /** False when `existing` already has this status: nothing needs to be written. */
  readonly changed: boolean;
}

const byClusterName = (a: ClusterObjectVersion, b: ClusterObjectVersion): number =>
  a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0;

function sameStatus(a: PropagatedVersionStatus | undefined, b: PropagatedVersionStatus): boolean {
  if (a === undefined || a.templateVersion !== b.templateVersion || a.overridesVersion !== b.overridesVersion) return false;
  const x = a.clusterVersions ?? [];
  const y = b.clusterVersions ?? [];
  return x.length === y.length && x.every((v, i) => v.clusterName === y[i]?.clusterName && v.version === y[i]?.version);
}

/**
 * Builds the version record after a sync (§4.4.8): versions of `updatedVersions` win; when the
 * stored template and overrides versions equal the current ones, previously recorded versions
 * of still-selected clusters are kept; unselected clusters and empty versions are dropped;
 * `clusterVersions` is sorted by cluster name (omitted when empty). A new record is named
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
    for (const v of old.clusterVersions ?? []) if (selected.has(v.clusterName)) merged.set(v.clusterName, v.version);
  }
  for (const [cluster, version] of input.updatedVersions) if (selected.has(cluster)) merged.set(cluster, version);
  const clusterVersions = [...merged]
    .filter(([, version]) => version !== '')
    .map(([clusterName, version]) => ({ clusterName, version }))
    .sort(byClusterName);
  const status: PropagatedVersionStatus = { templateVersion: versions.templateVersion, overridesVersion: versions.overridesVersion };
  if (clusterVersions.length > 0) status.clusterVersions = clusterVersions;

  if (existing !== undefined) {
    return { object: { ...structuredClone(existing), status }, changed: !sameStatus(old, status) };
  }
  const name = fedObject.metadata.name ?? '';
  const namespace = fedObject.metadata.namespace ?? '';
  const object: PropagatedVersion = {
    apiVersion: API_VERSIONS.coreV1alpha1,
    kind: namespace === '' ? KINDS.clusterPropagatedVersion : KINDS.propagatedVersion,
    metadata: {
      name: propagatedVersionName(input.targetKind, name),
      ...(namespace === '' ? {} : { namespace }),
      ownerReferences: [{ apiVersion: fedObject.apiVersion ?? '', kind: fedObject.kind ?? '', name, uid: fedObject.metadata.uid ?? '' }],
    },
    status,
  };
  return { object, changed: true };
}
