import { type DynamicClient, jsonEqual, type KubeObject } from '@kubefed/client';
import type { JobProducer } from '@kubefed/queue';
import {
  type Clock,
  Controller,
  type EventSink,
  deletedObject,
  type Fleet,
  type Informer,
  InformerHolds,
  type Logger,
  objectKey,
  type Reader,
  type Runnable,
  type RuntimeMetrics,
  type SharedInformers,
  silentLogger,
  systemClock,
  withoutManagedFields,
} from '@kubefed/runtime';
import { isNamespaceType } from '../../placement/index.js';
import type { OwnWrites } from '../shared/own-writes.js';
import type { RunningSyncTypes } from '../shared/running-types.js';
import type { StatusRecorder } from '../shared/status-recorder.js';
import type { SyncTiming } from '../shared/sync-settings.js';
import type { VersionStore } from '../shared/version-store.js';
import { DispatchScopes, readinessChanges } from './dispatch-scopes.js';
import { MemberWatches } from './member-watches.js';
import { SyncReconciler } from './sync-reconciler.js';
import { federatedNamespaceGvrOf, type PlacementEnvironment, type SyncCaches, type SyncType } from '../sync-type.js';

/** What a run of a sync controller hands the status writer of its type: its informer caches and the status collection switch. */
export interface StatusWriterInput {
  /** The federated objects of the type (the shared informer's cache). */
  readonly objects: Reader<KubeObject>;
  /** The FederatedNamespaces, for namespaced targets. */
  readonly federatedNamespaces: Informer | undefined;
  /** Whether remote status is collected now (the FTC's `statusCollection` and the `RawResourceStatusCollection` gate). */
  readonly remoteStatusCollection: () => boolean;
}

/** The status writer of one run, flushed every `SyncTiming.statusFlushMs` (`status/status-writer.ts` fits). */
export interface StatusFlusher {
  flush(): Promise<void>;
}

/** Options of {@link SyncController}. */
export interface SyncControllerOptions extends PlacementEnvironment {
  readonly type: SyncType;
  /** The member clusters: Ready ones with their clients, readiness changes, and the shared member informers. */
  readonly fleet: Pick<Fleet, 'readyClusters' | 'isReady' | 'onChange' | 'subscribe' | 'informer'>;
  /**
   * Resolves once the readiness of every registered member cluster is known (the cluster health
   * controller's `clustersKnown`): the first reconcile waits for it. Default none.
   */
  readonly clustersKnown?: ((signal: AbortSignal) => Promise<void>) | undefined;
  readonly producer: JobProducer;
  readonly recorder: StatusRecorder;
  /**
   * The host's shared informers (`Manager.sharedInformers(host)`), where this controller takes its
   * informers on the federated type and on FederatedNamespaces, shared with every other reader of
   * them in the process; default a set of this controller's own over `host`.
   */
  readonly informers?: SharedInformers | undefined;
  /** Where Warning events about federated objects go; default none. */
  readonly events?: EventSink | undefined;
  /** Subscribes to changes of KubeFedCluster labels (clusterSelector placement); returns the unsubscribe function. Default none (placement then follows labels at the next resync). */
  readonly onClusterLabelsChange?: ((listener: () => void) => () => void) | undefined;
  /** The periods of the sync path (status flush, removal poll, resync); defaults of {@link SyncTiming}. */
  readonly timing?: SyncTiming | undefined;
  /** Builds the status writer of each run (`register-sync-path.ts` builds a `StatusWriter`). */
  readonly statusWriter: (input: StatusWriterInput) => StatusFlusher;
  /** Where this controller records that its type runs here, with its caches, for the workers of this process; default none. */
  readonly running?: RunningSyncTypes | undefined;
  /** Whether remote status is collected (the KubeFedConfig `RawResourceStatusCollection` gate); default true. With the FTC's `statusCollection`, member status changes are watched and reported. */
  readonly remoteStatusCollection?: (() => boolean) | undefined;
  /** Watch managed member copies to revert changes at once (docs/architecture.md "Drift watches"); default true. */
  readonly watchMembers?: boolean | undefined;
  /** The member writes of the sync workers in this process, whose watch events need no job; default none. */
  readonly ownWrites?: OwnWrites | undefined;
  /**
   * The version records of the sync workers in this process, read without a request: with the
   * member watches, a target cluster whose copy is current gets no job. Default none (a job per target cluster).
   */
  readonly versions?: Pick<VersionStore, 'peek'> | undefined;
  /** Parallel reconciles; default 4. */
  readonly maxConcurrentReconciles?: number | undefined;
  readonly logger?: Logger | undefined;
  readonly clock?: Clock | undefined;
  /** Where the controller, its work queue and its informers report (`kubefed_controller_*`, ...); default none. Pass the manager's. */
  readonly metrics?: RuntimeMetrics | undefined;
}

const changed = (o: KubeObject, n: KubeObject): boolean =>
  o === n || // a periodic resync
  o.metadata.generation !== n.metadata.generation ||
  o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp ||
  !jsonEqual(o.metadata.labels ?? {}, n.metadata.labels ?? {}) ||
  !jsonEqual(o.metadata.annotations ?? {}, n.metadata.annotations ?? {}) ||
  !jsonEqual(o.metadata.finalizers ?? [], n.metadata.finalizers ?? []);

/**
 * The sync controller of one federated type (docs/kubefed-compatibility.md §4.4), as one runnable: a
 * shared informer on the federated type in the host, a controller running {@link SyncReconciler}
 * (jobs to the per-cluster queues), and the status writer it is given, flushed every `statusFlushMs`.
 * Every object is reconciled again when the set of Ready clusters (with jobs for the clusters whose
 * readiness changed alone, {@link DispatchScopes}) or a cluster's labels change, and every object in
 * namespace N when the FederatedNamespace N/N changes (namespaced targets). Status-only
 * updates of the federated object do not trigger a reconcile. {@link MemberWatches} on the
 * managed copies in Ready members map a changed copy back to its federated object's key, which is
 * reconciled for that cluster (as controller-runtime's map handlers do): a copy changed or
 * deleted by hand (or whose status changes, with status collection) gets its job from the
 * reconciler, like any other change.
 */
export class SyncController implements Runnable {
  readonly name: string;
  readonly needLeaderElection = true;
  readonly #o: SyncControllerOptions;

  constructor(options: SyncControllerOptions) {
    this.#o = options;
    this.name = `sync-${options.type.name}`;
  }

  async start(signal: AbortSignal): Promise<void> {
    const run = new SyncRun(this.#o, this.name);
    // The workers of this process stop taking this type's jobs as soon as it is being stopped.
    const ended = this.#o.running?.add(this.#o.type, run.caches);
    if (ended !== undefined) signal.addEventListener('abort', ended, { once: true });
    try {
      await run.run(signal);
    } finally {
      ended?.();
      if (ended !== undefined) signal.removeEventListener('abort', ended);
    }
  }
}

/**
 * One run of a {@link SyncController}, from `start` until its signal aborts: the informers, the
 * controller with its reconciler, the member watches, the fan-outs of readiness, label and
 * FederatedNamespace changes, and the periodic status flush.
 */
class SyncRun {
  readonly caches: SyncCaches;
  readonly #o: SyncControllerOptions;
  readonly #name: string;
  readonly #logger: Logger;
  readonly #scopes = new DispatchScopes();
  /** This run's holds on the host informers (`informers`, or without a set of its own), released when it stops. */
  readonly #holds: InformerHolds;
  readonly #informer: Informer;
  readonly #namespaces: Informer | undefined;
  readonly #members: MemberWatches | undefined;
  readonly #controller: Controller;
  readonly #writer: StatusFlusher;
  #ready: ReadonlyMap<string, DynamicClient>;
  #flushing = Promise.resolve();

  constructor(o: SyncControllerOptions, name: string) {
    this.#o = o;
    this.#name = name;
    this.#logger = o.logger ?? silentLogger();
    // A Namespaced control plane sees only its own namespace, in the host and in the members.
    const watched = o.scope === 'Namespaced' ? o.kubefedNamespace : undefined;
    this.#holds = InformerHolds.onGivenOrOwn(o.informers, `${name}-informers`, {
      cluster: 'host',
      client: o.host,
      logger: this.#logger,
      metrics: o.metrics,
      clock: o.clock,
    });
    this.#informer = this.#holds.acquire({ resource: o.type.federatedGvr, namespace: watched, transform: withoutManagedFields });
    this.#members = o.watchMembers === false ? undefined : this.#memberWatches(watched);
    // §4.4.1: namespaced targets are placed only where their FederatedNamespace N/N is.
    this.#namespaces =
      o.type.targetType.scope === 'Namespaced' && !isNamespaceType(o.type.targetType)
        ? this.#holds.acquire({ resource: federatedNamespaceGvrOf(o, o.type), namespace: watched, transform: withoutManagedFields })
        : undefined;
    const env = { ...o, federatedNamespaceCache: this.#namespaces };
    this.#controller = this.#newController(env);
    this.#writer = o.statusWriter({
      objects: this.#informer.store,
      federatedNamespaces: this.#namespaces,
      remoteStatusCollection: () => this.#collect(),
    });
    this.caches = { objects: this.#informer, federatedNamespaces: this.#namespaces, memberCopies: this.#members };
    this.#ready = o.fleet.readyClusters();
  }

  async run(signal: AbortSignal): Promise<void> {
    const o = this.#o;
    const holds = this.#holds.start(signal);
    const offNamespaces = this.#namespaces === undefined ? undefined : this.#watchNamespaces(this.#namespaces);
    this.#members?.sync(this.#ready);
    const offReady = o.fleet.onChange(() => this.#onReadinessChange());
    const offLabels = o.onClusterLabelsChange?.(() => this.#fanOutAll());
    const timer = setInterval(() => this.#flush(), o.timing?.statusFlushMs ?? 200);
    try {
      await this.#controller.start(signal);
    } finally {
      clearInterval(timer);
      offReady();
      offLabels?.();
      offNamespaces?.();
      await holds;
      await this.#members?.stop();
      await this.#flushing;
    }
  }

  /** Whether remote status is collected now (the FTC's statusCollection and the feature gate). */
  #collect(): boolean {
    return this.#o.type.statusCollection && (this.#o.remoteStatusCollection?.() ?? true);
  }

  /** Drift (and remote status): a changed member copy has its federated object reconciled for its cluster. */
  #memberWatches(namespace: string | undefined): MemberWatches {
    const o = this.#o;
    return new MemberWatches({
      type: o.type,
      statusChanges: () => this.#collect(),
      ownWrites: o.ownWrites,
      namespace,
      fleet: o.fleet,
      logger: this.#logger,
      clock: o.clock ?? systemClock,
      onChange: (cluster, key) => this.#onMemberChange(cluster, key),
      onSettled: (cluster) => this.#onSettled(cluster),
    });
  }

  /**
   * A member event mapped back to the federated key: reconciled with a job to `cluster` (a
   * removal of a possible orphan when the federated object is gone), at the priority of a change.
   */
  #onMemberChange(cluster: string, key: string): void {
    this.#scopes.memberChanged(key, cluster);
    this.#controller.queue.add(key);
  }

  #newController(env: SyncControllerOptions & PlacementEnvironment): Controller {
    const o = this.#o;
    const reconciler = new SyncReconciler({
      ...env,
      removalPollMs: o.timing?.removalPollMs,
      objects: this.#informer.store,
      readyClusters: () => o.fleet.readyClusters(),
      memberCopies: this.#members,
      scopes: this.#scopes,
    });
    const maxConcurrentReconciles = o.maxConcurrentReconciles ?? 4;
    return new Controller({
      name: this.#name,
      reconciler,
      maxConcurrentReconciles,
      ...(o.metrics === undefined
        ? {}
        : {
            metrics: {
              controller: o.metrics.controller(this.#name, { maxConcurrentReconciles }),
              queue: o.metrics.workQueue(this.#name),
            },
          }),
      logger: this.#logger,
      clock: o.clock ?? systemClock,
      ...(o.clustersKnown === undefined ? {} : { startAfter: o.clustersKnown }),
    }).watch(this.#informer, {
      updatePredicate: changed,
      // This controller's alone: the informer is shared with readers that need no resync.
      resyncPeriodMs: o.timing?.resyncPeriodMs ?? 300_000,
      // A change of the object (or a periodic resync) is dispatched to every cluster.
      map: (obj) => {
        const key = objectKey(obj);
        this.#scopes.all(key);
        return [key];
      },
    });
  }

  /**
   * A change to the FederatedNamespace of N (created, deleted, or changed by the same test as a
   * federated object: its spec, labels, annotations, finalizers, deletion) re-enqueues every
   * object of this type in N; its status writes do not (a member's readiness change rewrites
   * that status too, which used to re-check every object of N in every cluster). Returns the
   * handler's removal.
   */
  #watchNamespaces(namespaces: Informer): () => void {
    const enqueueNamespace = (obj: KubeObject): void => {
      for (const fedObj of this.#informer.store.listByNamespace(obj.metadata.namespace ?? '')) this.#fanOut(objectKey(fedObj));
    };
    return namespaces.addEventHandler({
      onAdd: enqueueNamespace,
      onUpdate: (o, n) => changed(o, n) && enqueueNamespace(n),
      onDelete: (obj) => enqueueNamespace(deletedObject(obj)),
    });
  }

  /**
   * Fan-outs go after keys added for a change of their own: a readiness or label change of one
   * cluster must not make a user's change wait behind every object (each is re-checked anyway).
   * `clusters`: dispatch to these alone; default every cluster.
   */
  #fanOut(key: string, clusters?: ReadonlySet<string>): void {
    if (clusters === undefined) this.#scopes.all(key);
    else this.#scopes.only(key, clusters);
    this.#controller.queue.add(key, { priority: 'low' });
  }

  /** {@link #fanOut} of every federated object of this type. */
  #fanOutAll(clusters?: ReadonlySet<string>): void {
    for (const key of this.#informer.store.keys()) this.#fanOut(key, clusters);
  }

  /**
   * A readiness change concerns the clusters whose readiness changed: their status entries,
   * and jobs to them alone (a healthy member's copy does not depend on another's readiness).
   */
  #onReadinessChange(): void {
    const now = this.#o.fleet.readyClusters();
    const clusters = readinessChanges(this.#ready, now);
    this.#ready = now;
    this.#members?.sync(now);
    if (clusters.size > 0) this.#fanOutAll(clusters);
  }

  /** A member cache has been listed: its cluster's jobs, held while it was being listed, go out now. */
  #onSettled(cluster: string): void {
    this.#fanOutAll(new Set([cluster]));
  }

  #flush(): void {
    this.#flushing = this.#flushing
      .then(() => this.#writer.flush())
      .catch((err: unknown) => this.#logger.error({ controller: this.#name, err }, 'status write failed'));
  }
}
