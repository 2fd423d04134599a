import { type PropagatedVersion, propagatedVersionName } from '@kubefed/api';
import { type DynamicClient, type GroupVersionResource, isAlreadyExists, isConflict, isNotFound, type KubeObject, type ResourceClient } from '@kubefed/client';
import { buildPropagatedVersion } from '../build-propagated-version.js';
import { objectVersions, type VersionSource } from '../versions.js';
import type { SyncType } from './sync-type.js';

const PROPAGATED_VERSIONS: GroupVersionResource = { group: 'core.kubefed.io', version: 'v1alpha1', resource: 'propagatedversions' };
const CLUSTER_PROPAGATED_VERSIONS: GroupVersionResource = { group: 'core.kubefed.io', version: 'v1alpha1', resource: 'clusterpropagatedversions' };

/** Where a member write is recorded: which object, which cluster, the version the API returned and the placement. */
export interface VersionWrite {
  readonly type: SyncType;
  readonly fedObject: KubeObject;
  readonly cluster: string;
  /** `memberVersion` of the object the API returned. */
  readonly version: string;
  /** The effective placement (versions of other clusters are dropped). */
  readonly selectedClusters: readonly string[];
}

/**
 * The version records of federated objects in the host (KUBEFED-REFERENCE §1.6, §4.4.8):
 * `PropagatedVersion` `<lowercase target kind>-<name>` in the object's namespace, or a
 * `ClusterPropagatedVersion` for cluster-scoped objects. Workers of different clusters update
 * the same record: writes are conditional and retried on conflict.
 */
export class VersionStore {
  readonly #host: DynamicClient;

  constructor(host: DynamicClient) {
    this.#host = host;
  }

  /** The stored record of `fedObject`, if any. */
  async get(type: SyncType, fedObject: KubeObject): Promise<PropagatedVersion | undefined> {
    try {
      return (await this.#client(fedObject).get(propagatedVersionName(type.targetType.kind, fedObject.metadata.name ?? '')));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * Records the version written to one cluster (creating the record when absent).
   *
   * @throws the last API error after 5 conflicting attempts; other API errors as is.
   */
  async record(write: VersionWrite): Promise<void> {
    const client = this.#client(write.fedObject);
    for (let attempt = 1; ; attempt++) {
      try {
        const existing = await this.get(write.type, write.fedObject);
        const built = buildPropagatedVersion({
          fedObject: write.fedObject,
          targetKind: write.type.targetType.kind,
          versions: objectVersions(write.fedObject as unknown as VersionSource),
          existing,
          selectedClusters: write.selectedClusters,
          updatedVersions: new Map([[write.cluster, write.version]]),
        });
        if (!built.changed) return;
        const obj = built.object as unknown as KubeObject;
        // The status subresource ignores status on create: create, then write the status.
        const target = existing === undefined ? { ...(await client.create(obj)), status: obj.status } : obj;
        await client.updateStatus(target);
        return;
      } catch (err) {
        if (attempt >= 5 || !(isConflict(err) || isAlreadyExists(err))) throw err;
      }
    }
  }

  #client(fedObject: KubeObject): ResourceClient {
    const ns = fedObject.metadata.namespace;
    return ns === undefined || ns === '' ? this.#host.resource(CLUSTER_PROPAGATED_VERSIONS) : this.#host.resource(PROPAGATED_VERSIONS, ns);
  }
}
