import { MANAGED_LABEL, MANAGED_LABEL_TRUE } from '@kubefed/api';
import type { DynamicClient, KubeObject } from '@kubefed/client';
import {
  type Clock,
  deletedObject,
  type EventHandler,
  type Fleet,
  type Informer,
  type Logger,
  type NamedTransform,
  sleep,
} from '@kubefed/runtime';
import { isNamespaceType } from '../../placement/index.js';
import { OwnWrites } from '../shared/own-writes.js';
import { memberCopyFingerprint, slimMemberCopy } from '../slim-member-copy.js';
import type { SyncType } from '../sync-type.js';

/** Options of {@link MemberWatches}. */
export interface MemberWatchesOptions {
  readonly type: SyncType;
  /**
   * Called with the cluster and the federated object's key (`namespace/name`, or `name` for
   * cluster-scoped types; `N/N` for the Namespace `N`) when a managed member copy was added,
   * changed or deleted. Changes of `.status` alone count only when `statusChanges()` is true.
   */
  readonly onChange: (cluster: string, key: string) => void;
  /** Whether a change of the member object's `.status` alone matters (remote status collection). */
  readonly statusChanges: () => boolean;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The member writes of this process's sync workers: their watch events are not reported. Default none (every event is reported). */
  readonly ownWrites?: OwnWrites | undefined;
  /** Watch only this namespace (a Namespaced control plane watches only its own); default every namespace. */
  readonly namespace?: string | undefined;
  /**
   * The member clusters: the watches take the Fleet's shared informer of each cluster (one per
   * cluster for every consumer of the same type), and end when the Fleet disengages it.
   */
  readonly fleet: Pick<Fleet, 'informer' | 'readyClusters' | 'subscribe'>;
  /**
   * Called once for a cluster engaged with a cache not synced yet, when the cache has synced,
   * its list has failed (a forbidden or missing resource: the jobs will say why), or
   * `settleLimitMs` has passed since the engagement, whichever comes first (the cluster is
   * {@link MemberWatches.settling} until then). Default none.
   */
  readonly onSettled?: ((cluster: string) => void) | undefined;
  /** See `onSettled`; default 20 000 ms, below the status writer's 30 s report timeout. */
  readonly settleLimitMs?: number | undefined;
}

interface Watch {
  readonly informer: Informer;
  /** Removes the handlers and releases the Fleet's informer. */
  readonly stop: () => void;
  /** See {@link MemberWatches.settling}. */
  settling: boolean;
}

const DEFAULT_SETTLE_LIMIT_MS = 20_000;

/**
 * What the watch caches keep of a member copy of `type` (slimMemberCopy): `.status` only when
 * the type collects it. Named by what it keeps, so that every consumer of the type shares one
 * informer per cluster.
 */
function slimTransform(type: SyncType): NamedTransform {
  const options = { targetKind: type.targetType.kind, keepStatus: type.statusCollection };
  return {
    name: `slim-member-copy:${options.targetKind}${options.keepStatus ? '+status' : ''}`,
    transform: (obj) => slimMemberCopy(obj, options),
  };
}

/**
 * Informers on the managed copies (label `kubefed.io/managed=true`, every namespace or the one given) of one
 * federated type in every Ready member cluster (docs/architecture.md "Drift watches"): engaged when a cluster
 * becomes Ready, disengaged when it stops being Ready or leaves. A member copy changed or
 * deleted by hand reports its owner, so the sync worker reverts it at once instead of at the
 * next resync. The caches keep slim copies ({@link slimMemberCopy}): the metadata and retained
 * fields the sync decisions read, `.status` when the type collects status (FTC
 * `statusCollection`), and a fingerprint of the rest, by which a change of any other field is
 * still told apart.
 */
export class MemberWatches {
  readonly #o: MemberWatchesOptions;
  readonly #watches = new Map<string, Watch>();
  readonly #transform: NamedTransform;
  /** The subscription to the Fleet's disengagements, from the first {@link sync} to {@link stop}. */
  #unsubscribe: (() => void) | undefined;

  constructor(options: MemberWatchesOptions) {
    this.#o = options;
    this.#transform = slimTransform(options.type);
  }

  /**
   * Watches the clusters of `ready` (default the Fleet's Ready clusters now) not watched yet and
   * stops watching the others; a cluster the Fleet disengages (it left, or its client changed) is
   * no longer watched from then on.
   */
  sync(ready: ReadonlyMap<string, DynamicClient> = this.#o.fleet.readyClusters()): void {
    this.#unsubscribe ??= this.#o.fleet.subscribe({ onDisengaged: (cluster) => this.#disengage(cluster) });
    for (const cluster of this.#watches.keys()) {
      if (!ready.has(cluster)) this.#disengage(cluster);
    }
    for (const cluster of ready.keys()) {
      if (!this.#watches.has(cluster)) this.#engage(cluster);
    }
  }

  /**
   * Whether `cluster` holds a managed copy of the federated object `key` (same key as
   * `onChange`), from the watch cache; `undefined` when the cluster is not watched or its cache
   * has not synced yet (ask the member instead).
   */
  hasManagedCopy(cluster: string, key: string): boolean | undefined {
    const copy = this.managedCopy(cluster, key);
    return copy === undefined ? undefined : copy !== null;
  }

  /**
   * The managed copy of the federated object `key` in `cluster` as the watch cache holds it: a
   * slim copy (see {@link slimMemberCopy} for what it keeps; deep-frozen: clone before changing
   * it), `null` when the synced cache has none, `undefined`
   * when the cluster is not watched or its cache has not synced yet. The cache may lag behind
   * the member by a watch event: writes based on it must expect Conflict and AlreadyExists.
   */
  managedCopy(cluster: string, key: string): KubeObject | null | undefined {
    const watch = this.#watches.get(cluster);
    if (watch === undefined || !watch.informer.hasSynced()) return undefined;
    const memberKey = isNamespaceType(this.#o.type.targetType) ? key.slice(key.indexOf('/') + 1) : key;
    return watch.informer.store.get(memberKey) ?? null;
  }

  /**
   * Whether `cluster` was engaged and its cache is still being listed (for at most the settle
   * limit): nothing can be told from it yet, and `onSettled` follows.
   */
  settling(cluster: string): boolean {
    return this.#watches.get(cluster)?.settling === true;
  }

  /** The clusters being watched. */
  clusters(): string[] {
    return [...this.#watches.keys()];
  }

  /** Stops watching every cluster (the Fleet stops an informer once nothing else holds it). */
  stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const cluster of [...this.#watches.keys()]) this.#disengage(cluster);
    return Promise.resolve();
  }

  #engage(cluster: string): void {
    const { type } = this.#o;
    const spec = {
      resource: type.targetGvr,
      namespace: this.#o.namespace,
      labelSelector: `${MANAGED_LABEL}=${MANAGED_LABEL_TRUE}`,
      transform: this.#transform,
    };
    const shared = this.#o.fleet.informer(cluster, spec);
    if (shared === undefined) return; // not engaged in the Fleet (any more)
    this.#o.logger.debug({ cluster, kind: type.targetType.kind }, 'watching managed member copies');
    const { informer } = shared;
    // A shared informer replays its cache to a new handler: those adds are no change.
    let replaying = true;
    const off = informer.addEventHandler(this.#handler(cluster, informer, () => replaying));
    replaying = false;
    const abort = new AbortController();
    const stop = (): void => {
      off();
      shared.release();
      abort.abort();
    };
    const watch: Watch = { informer, stop, settling: !informer.hasSynced() };
    this.#watches.set(cluster, watch);
    if (watch.settling) void this.#settle(cluster, watch, abort.signal);
  }

  /** Ends `watch`'s settling once its cache has synced or the settle limit has passed, and tells `onSettled` (unless it was disengaged). */
  async #settle(cluster: string, watch: Watch, signal: AbortSignal): Promise<void> {
    const ended = new AbortController();
    const limit = sleep(this.#o.clock, this.#o.settleLimitMs ?? DEFAULT_SETTLE_LIMIT_MS, AbortSignal.any([signal, ended.signal]));
    await Promise.race([watch.informer.waitForListAttempt(signal), limit]);
    ended.abort();
    if (this.#watches.get(cluster) !== watch) return;
    watch.settling = false;
    this.#o.onSettled?.(cluster);
  }

  #handler(cluster: string, informer: Informer, replaying: () => boolean): EventHandler {
    const { type } = this.#o;
    const namespaceType = isNamespaceType(type.targetType);
    const report = (obj: KubeObject): void => {
      const name = obj.metadata.name ?? '';
      const ns = obj.metadata.namespace;
      this.#o.onChange(cluster, namespaceType ? `${name}/${name}` : ns !== undefined && ns !== '' ? `${ns}/${name}` : name);
    };
    const own = this.#o.ownWrites;
    // The echo of a write by this process's workers needs no job: they converged the object already.
    const reportUnlessOwn = (obj: KubeObject): void => {
      if (own === undefined) report(obj);
      else own.observe(OwnWrites.key(cluster, type.name, obj), obj.metadata.resourceVersion, () => report(obj));
    };
    return {
      // The initial list repeats what the sync controller reconciles anyway when a cluster is engaged.
      onAdd: (obj) => !replaying() && informer.hasSynced() && reportUnlessOwn(obj),
      onUpdate: (o, n) => {
        if (o.metadata.resourceVersion === n.metadata.resourceVersion) return;
        if (this.#o.statusChanges() || memberCopyFingerprint(o) !== memberCopyFingerprint(n)) reportUnlessOwn(n);
      },
      onDelete: (obj) => report(deletedObject(obj)),
    };
  }

  #disengage(cluster: string): void {
    const watch = this.#watches.get(cluster);
    if (watch === undefined) return;
    this.#watches.delete(cluster);
    watch.stop();
  }
}
