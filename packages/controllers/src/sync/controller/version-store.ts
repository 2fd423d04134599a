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

interface Batch {
  /** The newest write per cluster. */
  readonly writes: Map<string, VersionWrite>;
  readonly waiters: { resolve: () => void; reject: (err: unknown) => void }[];
}

/**
 * The version records of federated objects in the host (KUBEFED-REFERENCE §1.6, §4.4.8):
 * `PropagatedVersion` `<lowercase target kind>-<name>` in the object's namespace, or a
 * `ClusterPropagatedVersion` for cluster-scoped objects. Workers of different clusters update
 * the same record: within this process their writes are coalesced (one write in flight per
 * record; writes arriving meanwhile go together in the next one), and writes are conditional
 * and retried on conflict with other processes.
 */
export class VersionStore {
  readonly #host: DynamicClient;
  readonly #pending = new Map<string, Batch>();
  readonly #inflight = new Set<string>();

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
   * Records the version written to one cluster (creating the record when absent). Resolves
   * once it is stored, or superseded by a write of a newer template or overrides version
   * (which drops older cluster versions anyway).
   *
   * @throws the last API error after 10 conflicting attempts; other API errors as is.
   */
  record(write: VersionWrite): Promise<void> {
    const key = `${write.type.name}|${write.fedObject.metadata.namespace ?? ''}/${write.fedObject.metadata.name ?? ''}`;
    let batch = this.#pending.get(key);
    if (batch === undefined) this.#pending.set(key, (batch = { writes: new Map(), waiters: [] }));
    batch.writes.delete(write.cluster);
    batch.writes.set(write.cluster, write);
    const done = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    this.#next(key);
    return done;
  }

  #next(key: string): void {
    if (this.#inflight.has(key)) return;
    const batch = this.#pending.get(key);
    if (batch === undefined) return;
    this.#pending.delete(key);
    this.#inflight.add(key);
    this.#write([...batch.writes.values()]).then(
      () => batch.waiters.forEach((w) => w.resolve()),
      (err: unknown) => batch.waiters.forEach((w) => w.reject(err)),
    ).finally(() => {
      this.#inflight.delete(key);
      this.#next(key);
    });
  }

  /** Writes the versions of `writes` that share the newest write's template and overrides versions. */
  async #write(writes: readonly VersionWrite[]): Promise<void> {
    const newest = writes[writes.length - 1];
    if (newest === undefined) return;
    const versions = objectVersions(newest.fedObject as unknown as VersionSource);
    const current = writes.filter((w) => {
      const v = objectVersions(w.fedObject as unknown as VersionSource);
      return v.templateVersion === versions.templateVersion && v.overridesVersion === versions.overridesVersion;
    });
    const client = this.#client(newest.fedObject);
    for (let attempt = 1; ; attempt++) {
      try {
        const existing = await this.get(newest.type, newest.fedObject);
        const built = buildPropagatedVersion({
          fedObject: newest.fedObject,
          targetKind: newest.type.targetType.kind,
          versions,
          existing,
          selectedClusters: newest.selectedClusters,
          updatedVersions: new Map(current.map((w) => [w.cluster, w.version])),
        });
        if (!built.changed) return;
        const obj = built.object as unknown as KubeObject;
        // The status subresource ignores status on create: create, then write the status.
        const target = existing === undefined ? { ...(await client.create(obj)), status: obj.status } : obj;
        await client.updateStatus(target);
        return;
      } catch (err) {
        if (attempt >= 10 || !(isConflict(err) || isAlreadyExists(err))) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  }

  #client(fedObject: KubeObject): ResourceClient {
    const ns = fedObject.metadata.namespace;
    return ns === undefined || ns === '' ? this.#host.resource(CLUSTER_PROPAGATED_VERSIONS) : this.#host.resource(PROPAGATED_VERSIONS, ns);
  }
}
