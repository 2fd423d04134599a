import { type DynamicClient, jsonEqual, type KubeObject } from '@kubefed/client';
import { federatedObjectRef, type JobProducer, syncJob, syncRequest } from '@kubefed/queue';
import {
  type Clock,
  Controller,
  type EventSink,
  deletedObject,
  type Fleet,
  Informer,
  listerWatcherFor,
  type Logger,
  objectKey,
  type Runnable,
  type RuntimeMetrics,
  silentLogger,
  systemClock,
} from '@kubefed/runtime';
import { isNamespaceType } from '../../placement/index.js';
import type { StatusRecorder } from './status-recorder.js';
import { DispatchScopes, readinessChanges } from './dispatch-scopes.js';
import { MemberWatches } from './member-watches.js';
import type { OwnWrites } from './own-writes.js';
import { StatusWriter } from './status-writer.js';
import { SyncReconciler } from './sync-reconciler.js';
import { federatedNamespaceGvrOf, type PlacementEnvironment, type SyncedCache, type SyncType } from './sync-type.js';

/** The informer caches of a running {@link SyncController}. */
export interface SyncCaches {
  /** The federated objects of the type. */
  readonly objects: SyncedCache;
  /** FederatedNamespaces, for namespaced targets. */
  readonly federatedNamespaces?: SyncedCache | undefined;
  /** The managed member copies (absent when member watches are off). */
  readonly memberCopies?: Pick<MemberWatches, 'managedCopy'> | undefined;
}

/** Options of {@link SyncController}. */
export interface SyncControllerOptions extends PlacementEnvironment {
  readonly type: SyncType;
  /** The member clusters: Ready ones with their clients, readiness changes, and the shared member informers. */
  readonly fleet: Pick<Fleet, 'readyClusters' | 'isReady' | 'onChange' | 'informer'>;
  readonly producer: JobProducer;
  readonly recorder: StatusRecorder;
  /** The control plane's namespace (a FederatedNamespace there is never propagated). */
  readonly kubefedNamespace: string;
  /** Where Warning events about federated objects go; default none. */
  readonly events?: EventSink | undefined;
  /** Host client of the status writes (reporting only, on a rate budget of its own); default `host`. */
  readonly reporting?: DynamicClient | undefined;
  /** Subscribes to changes of KubeFedCluster labels (clusterSelector placement); returns the unsubscribe function. Default none (placement then follows labels at the next resync). */
  readonly onClusterLabelsChange?: ((listener: () => void) => () => void) | undefined;
  /** Status flush period; default 200 ms. */
  readonly statusFlushMs?: number | undefined;
  /** How long a Ready placed cluster may take to report before the status is written without it (see `StatusWriterOptions.reportTimeoutMs`); default 30 s. */
  readonly reportTimeoutMs?: number | undefined;
  /** Poll period while member copies are being removed; default 500 ms. */
  readonly removalPollMs?: number | undefined;
  /** Every object is reconciled again this often (repairs drift in members); default 5 min, 0 = never. */
  readonly resyncPeriodMs?: number | undefined;
  /** Whether remote status is collected (the KubeFedConfig `RawResourceStatusCollection` gate); default true. With the FTC's `statusCollection`, member status changes are watched and reported. */
  readonly remoteStatusCollection?: (() => boolean) | undefined;
  /** Watch managed member copies to revert changes at once (docs/architecture.md "Drift watches"); default true. */
  readonly watchMembers?: boolean | undefined;
  /** The member writes of the sync workers in this process, whose watch events need no job; default none. */
  readonly ownWrites?: OwnWrites | undefined;
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
 * The sync controller of one federated type (docs/kubefed-compatibility.md §4.4), as one runnable: an
 * informer on the federated type in the host, a controller running {@link SyncReconciler}
 * (jobs to the per-cluster queues), and a {@link StatusWriter} flushed every `statusFlushMs`.
 * Every object is reconciled again when the set of Ready clusters (with jobs for the clusters whose
 * readiness changed alone, {@link DispatchScopes}) or a cluster's labels change, and every object in
 * namespace N when the FederatedNamespace N/N changes (namespaced targets). Status-only
 * updates of the federated object do not trigger a reconcile. {@link MemberWatches} on the
 * managed copies in Ready members send a sync job for the changed cluster when a copy is
 * changed or deleted by hand (or its status changes, with status collection).
 */
export class SyncController implements Runnable {
  readonly name: string;
  readonly needLeaderElection = true;
  readonly #o: SyncControllerOptions;
  #caches: SyncCaches | undefined;

  /** The informer caches of the running controller (for a worker in the same process); undefined when not running. */
  get caches(): SyncCaches | undefined {
    return this.#caches;
  }

  constructor(options: SyncControllerOptions) {
    this.#o = options;
    this.name = `sync-${options.type.name}`;
  }

  async start(signal: AbortSignal): Promise<void> {
    const o = this.#o;
    const logger = o.logger ?? silentLogger();
    const clock = o.clock ?? systemClock;
    // A Namespaced control plane sees only its own namespace, in the host and in the members.
    const watched = o.scope === 'Namespaced' ? o.kubefedNamespace : undefined;
    const informer = new Informer({
      name: this.name,
      listerWatcher: listerWatcherFor(o.host.resource(o.type.federatedGvr, watched)),
      ...(o.metrics === undefined ? {} : { metrics: o.metrics.informer(this.name) }),
      resyncPeriodMs: o.resyncPeriodMs ?? 300_000,
      logger,
      clock,
    });
    const collect = (): boolean => o.type.statusCollection && (o.remoteStatusCollection?.() ?? true);
    // Drift (and remote status): a changed member copy gets a sync job for its cluster at once.
    const members =
      o.watchMembers === false
        ? undefined
        : new MemberWatches({
            type: o.type,
            statusChanges: collect,
            ownWrites: o.ownWrites,
            namespace: watched,
            fleet: o.fleet,
            logger,
            clock,
            onChange: (cluster, key) => {
              // A managed copy without a federated object is a possible orphan: the worker
              // confirms on the host that the object is gone and removes the managed label.
              const orphan = informer.store.get(key) === undefined;
              if (orphan && !informer.hasSynced()) return;
              const job = syncJob(syncRequest(federatedObjectRef(o.type.name, key), cluster), orphan ? 'remove' : 'sync');
              o.producer
                .enqueue(job)
                .catch((err: unknown) => logger.warn({ controller: this.name, cluster, err }, 'enqueueing a drift repair failed'));
            },
          });
    // §4.4.1: namespaced targets are placed only where their FederatedNamespace N/N is.
    const namespaces =
      o.type.targetType.scope === 'Namespaced' && !isNamespaceType(o.type.targetType)
        ? new Informer({
            name: `${this.name}-federatednamespaces`,
            listerWatcher: listerWatcherFor(o.host.resource(federatedNamespaceGvrOf(o, o.type), watched)),
            ...(o.metrics === undefined ? {} : { metrics: o.metrics.informer(`${this.name}-federatednamespaces`) }),
            logger,
            clock,
          })
        : undefined;
    const env = { ...o, federatedNamespaceCache: namespaces };
    const scopes = new DispatchScopes();
    const reconciler = new SyncReconciler({
      ...env,
      objects: informer.store,
      readyClusters: () => o.fleet.readyClusters(),
      memberCopies: members,
      scopes,
    });
    const controller = new Controller({
      name: this.name,
      reconciler,
      maxConcurrentReconciles: o.maxConcurrentReconciles ?? 4,
      ...(o.metrics === undefined
        ? {}
        : { metrics: { controller: o.metrics.controller(this.name), queue: o.metrics.workQueue(this.name) } }),
      logger,
      clock,
    }).watch(informer, {
      updatePredicate: changed,
      // A change of the object (or a periodic resync) is dispatched to every cluster.
      map: (obj) => {
        const key = objectKey(obj);
        scopes.all(key);
        return [key];
      },
    });
    const runs: Promise<void>[] = [informer.start(signal), controller.start(signal)];
    if (namespaces !== undefined) {
      // Any change to the FederatedNamespace of N re-enqueues every object of this type in N.
      const enqueueNamespace = (obj: KubeObject): void => {
        for (const fedObj of informer.store.listByNamespace(obj.metadata.namespace ?? '')) {
          const key = objectKey(fedObj);
          scopes.all(key);
          controller.queue.add(key, { priority: 'low' });
        }
      };
      namespaces.addEventHandler({
        onAdd: enqueueNamespace,
        onUpdate: (_, n) => enqueueNamespace(n),
        onDelete: (obj) => enqueueNamespace(deletedObject(obj)),
      });
      runs.push(namespaces.start(signal));
    }
    const writer = new StatusWriter({
      ...env,
      host: o.reporting ?? o.host,
      objects: informer.store,
      isReady: (c) => o.fleet.isReady(c),
      remoteStatusCollection: collect,
      clock,
    });
    this.#caches = { objects: informer, federatedNamespaces: namespaces, memberCopies: members };
    members?.sync(o.fleet.readyClusters());
    // Fan-outs go after keys added for a change of their own: a readiness or label change of one
    // cluster must not make a user's change wait behind every object (each is re-checked anyway).
    const reconcileAll = (): void => {
      for (const key of informer.store.keys()) {
        scopes.all(key);
        controller.queue.add(key, { priority: 'low' });
      }
    };
    // A readiness change concerns the clusters whose readiness changed: their status entries,
    // and jobs to them alone (a healthy member's copy does not depend on another's readiness).
    let ready = o.fleet.readyClusters();
    const offReady = o.fleet.onChange(() => {
      const now = o.fleet.readyClusters();
      const clusters = readinessChanges(ready, now);
      ready = now;
      members?.sync(now);
      if (clusters.size === 0) return;
      for (const key of informer.store.keys()) {
        scopes.only(key, clusters);
        controller.queue.add(key, { priority: 'low' });
      }
    });
    const offLabels = o.onClusterLabelsChange?.(reconcileAll);
    const flushMs = o.statusFlushMs ?? 200;
    let flushing = Promise.resolve();
    const timer = setInterval(() => {
      flushing = flushing
        .then(() => writer.flush())
        .catch((err: unknown) => logger.error({ controller: this.name, err }, 'status write failed'));
    }, flushMs);
    try {
      await Promise.all(runs);
    } finally {
      this.#caches = undefined;
      clearInterval(timer);
      offReady();
      offLabels?.();
      await members?.stop();
      await flushing;
    }
  }
}
