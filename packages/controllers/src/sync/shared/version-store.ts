import { type PropagatedVersion, propagatedVersionName, RESOURCES } from '@kubefed/api';
import {
  type DynamicClient,
  getOrUndefined,
  type GroupVersionResource,
  isAlreadyExists,
  isConflict,
  type KubeObject,
  type ResourceClient,
} from '@kubefed/client';
import { federatedObjectId } from '@kubefed/queue';
import {
  type Clock,
  deletedObject,
  type Informer,
  listerWatcherFor,
  type Manager,
  objectKey,
  systemClock,
  withoutManagedFields,
} from '@kubefed/runtime';
import { buildPropagatedVersion } from '../build-propagated-version.js';
import { objectVersions, type VersionSource } from '../versions.js';
import type { SyncType } from '../sync-type.js';

const PROPAGATED_VERSIONS: GroupVersionResource = RESOURCES.propagatedVersions;
const CLUSTER_PROPAGATED_VERSIONS: GroupVersionResource = RESOURCES.clusterPropagatedVersions;

/** Where a member write is recorded: which object, which cluster, the version the API returned and the placement. */
export interface VersionWrite {
  readonly type: SyncType;
  readonly fedObject: KubeObject;
  readonly cluster: string;
  /** `memberVersion` of the object the API returned (`""`: the copy is gone). */
  readonly version: string;
  /** `memberUid` of the object the API returned (kept in `MEMBER_UIDS_ANNOTATION`); default none. */
  readonly uid?: string | undefined;
  /** The effective placement (versions of other clusters are dropped). */
  readonly selectedClusters: readonly string[];
}

/**
 * Watch-fed caches of the version records, read instead of a host GET once synced. Without them
 * (or before they sync) every read is a GET.
 */
export interface VersionCaches {
  /** PropagatedVersions (every namespace, or the control plane's in a Namespaced plane). */
  readonly namespaced?: Informer | undefined;
  /** ClusterPropagatedVersions (a Cluster-scoped plane only). */
  readonly cluster?: Informer | undefined;
}

/**
 * Adds the informers of {@link VersionCaches} to `manager` (they run on every replica: a standby
 * that takes over finds its cache warm). With `namespace` (a Namespaced control plane) only the
 * PropagatedVersions of that namespace are watched, as its permissions allow. The caches keep
 * the records without their managedFields.
 */
export function watchPropagatedVersions(
  manager: Pick<Manager, 'informer'>,
  options: { host: DynamicClient; namespace?: string | undefined },
): VersionCaches {
  const namespaced = manager.informer({
    name: 'propagatedversions',
    listerWatcher: listerWatcherFor(options.host.resource(PROPAGATED_VERSIONS, options.namespace)),
    transform: withoutManagedFields.transform,
  });
  if (options.namespace !== undefined) return { namespaced };
  return {
    namespaced,
    cluster: manager.informer({
      name: 'clusterpropagatedversions',
      listerWatcher: listerWatcherFor(options.host.resource(CLUSTER_PROPAGATED_VERSIONS)),
      transform: withoutManagedFields.transform,
    }),
  };
}

/** Options of {@link VersionStore}. */
export interface VersionStoreOptions {
  /** Where records are read from; default none (a GET per read). */
  readonly caches?: VersionCaches | undefined;
  /** Default the system clock. */
  readonly clock?: Clock | undefined;
}

/** A record this process wrote, served until the cache shows it (or for {@link OWN_WRITE_TTL_MS} at most). */
interface OwnRecord {
  readonly record: PropagatedVersion;
  readonly at: number;
}

/** How long a record this process wrote is preferred to the cache when no watch event confirms it. */
const OWN_WRITE_TTL_MS = 30_000;

interface Batch {
  /** The newest write per cluster. */
  readonly writes: Map<string, VersionWrite>;
  readonly waiters: { resolve: () => void; reject: (err: unknown) => void }[];
}

/**
 * The version records of federated objects in the host (docs/kubefed-compatibility.md §1.6, §4.4.8):
 * `PropagatedVersion` `<lowercase target kind>-<name>` in the object's namespace, or a
 * `ClusterPropagatedVersion` for cluster-scoped objects. Workers of different clusters update
 * the same record: within this process their writes are coalesced (one write in flight per
 * record; writes arriving meanwhile go together in the next one), and writes are conditional
 * and retried on conflict with other processes.
 *
 * Reads come from the watch-fed {@link VersionCaches} once synced, so a job that finds its
 * member copy up to date makes no host request. A record this process wrote is served from
 * memory until the watch delivers that very version: the cache may lag behind a write, and a
 * stale record would cost a needless member write.
 */
export class VersionStore {
  readonly #host: DynamicClient;
  readonly #caches: VersionCaches;
  readonly #clock: Clock;
  /** Writes waiting, and records being written, by `federatedObjectId` of the federated object. */
  readonly #pending = new Map<string, Batch>();
  readonly #inflight = new Set<string>();
  /** Records written by this process that the cache may not show yet, by cache key (`namespace/name` or `name`). */
  readonly #own = new Map<string, OwnRecord>();

  constructor(host: DynamicClient, options: VersionStoreOptions = {}) {
    this.#host = host;
    this.#caches = options.caches ?? {};
    this.#clock = options.clock ?? systemClock;
    for (const cache of [this.#caches.namespaced, this.#caches.cluster]) {
      cache?.addEventHandler({
        onAdd: (obj) => this.#confirm(obj),
        onUpdate: (_, obj) => this.#confirm(obj),
        onDelete: (obj) => this.#own.delete(objectKey(deletedObject(obj))),
      });
    }
  }

  /** The stored record of `fedObject`, if any: from the cache once synced, else from the host. */
  async get(type: SyncType, fedObject: KubeObject): Promise<PropagatedVersion | undefined> {
    const known = this.peek(type, fedObject);
    return known === undefined ? this.#read(fedObject, recordKey(type, fedObject).name) : known.record;
  }

  /**
   * The stored record of `fedObject` as far as this process knows it without a request (a record
   * it wrote, or the synced cache): `{ record }` (`record` undefined when there is none), or
   * `undefined` when only a host read could tell.
   */
  peek(type: SyncType, fedObject: KubeObject): { readonly record: PropagatedVersion | undefined } | undefined {
    const { key, namespaced } = recordKey(type, fedObject);
    const own = this.#own.get(key);
    if (own !== undefined && this.#clock.now() - own.at < OWN_WRITE_TTL_MS) return { record: own.record };
    const cache = namespaced ? this.#caches.namespaced : this.#caches.cluster;
    return cache?.hasSynced() === true ? { record: cache.store.get(key) } : undefined;
  }

  #read(fedObject: KubeObject, name: string): Promise<PropagatedVersion | undefined> {
    return getOrUndefined(this.#client(fedObject), name);
  }

  /** The watch delivered a record: a record of ours with that resourceVersion is now in the cache. */
  #confirm(obj: KubeObject): void {
    const key = objectKey(obj);
    const own = this.#own.get(key);
    if (own !== undefined && own.record.metadata.resourceVersion === obj.metadata.resourceVersion) this.#own.delete(key);
  }

  /**
   * Records the version written to one cluster (creating the record when absent). Resolves
   * once it is stored, or superseded by a write of a newer template or overrides version
   * (which drops older cluster versions anyway).
   *
   * @throws the last API error after 10 conflicting attempts; other API errors as is.
   */
  record(write: VersionWrite): Promise<void> {
    const { namespace, name = '' } = write.fedObject.metadata;
    const key = federatedObjectId({ federatedType: write.type.name, namespace: namespace === '' ? undefined : namespace, name });
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
    this.#write([...batch.writes.values()])
      .then(
        () => batch.waiters.forEach((w) => w.resolve()),
        (err: unknown) => batch.waiters.forEach((w) => w.reject(err)),
      )
      .finally(() => {
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
    const name = propagatedVersionName(newest.type.targetType.kind, newest.fedObject.metadata.name ?? '');
    for (let attempt = 1; ; attempt++) {
      try {
        // The cache first; after a conflict the host's current record.
        const existing = attempt === 1 ? await this.get(newest.type, newest.fedObject) : await this.#read(newest.fedObject, name);
        const built = buildPropagatedVersion({
          fedObject: newest.fedObject,
          targetKind: newest.type.targetType.kind,
          versions,
          existing,
          selectedClusters: newest.selectedClusters,
          updatedVersions: new Map(current.map((w) => [w.cluster, w.version])),
          updatedUids: new Map(current.flatMap((w) => (w.uid === undefined ? [] : [[w.cluster, w.uid] as const]))),
        });
        if (!built.changed) return;
        const obj = built.object as unknown as KubeObject;
        // The status subresource ignores status on create and on a write of the object, and a
        // status write ignores metadata: create (or write the uids annotation), then the status.
        // The annotation first: a status ahead of it would pair the new copy's version with the
        // uid of the copy it replaced, and cost a needless member write.
        let target = obj;
        if (existing === undefined) target = { ...(await client.create(obj)), status: obj.status };
        else if (built.metadataChanged) target = { ...(await client.update(obj)), status: obj.status };
        const stored = await client.updateStatus(target);
        this.#own.set(objectKey(stored), { record: stored, at: this.#clock.now() });
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

/** The name of `fedObject`'s version record, its cache key (`namespace/name` or `name`), and whether it is a namespaced PropagatedVersion. */
function recordKey(type: SyncType, fedObject: KubeObject): { name: string; key: string; namespaced: boolean } {
  const name = propagatedVersionName(type.targetType.kind, fedObject.metadata.name ?? '');
  const ns = fedObject.metadata.namespace;
  const namespaced = ns !== undefined && ns !== '';
  return { name, key: namespaced ? `${ns}/${name}` : name, namespaced };
}
