import { type DynamicClient, jsonEqual, type KubeObject } from '@kubefed/client';
import {
  InformerHolds,
  listerWatcherFor,
  type Clock,
  type Controller,
  deletedObject,
  type Informer,
  type Manager,
  objectKey,
  type Runnable,
  type SharedInformers,
  untilAborted,
  withoutManagedFields,
} from '@kubefed/runtime';
import {
  DEFAULT_FEDERATED_NAMESPACES,
  DEFAULT_SCHEDULING_TARGETS,
  KUBEFED_CLUSTERS,
  ReplicaSchedulingPreferenceReconciler,
  RSP_GVR,
  type ReadyClusterSource,
  type SchedulingTarget,
} from './replica-scheduling-preference-reconciler.js';

/** Options of {@link registerReplicaSchedulingController}. */
export interface ReplicaSchedulingControllerOptions {
  /** Client of the host cluster. */
  host: DynamicClient;
  /**
   * The host's shared informers, where the informers on KubeFedClusters, FederatedNamespaces and
   * the targets' federated types are held (shared with the sync controllers reading them too);
   * default `manager.sharedInformers(host)`. A controller in a manager of its own passes the
   * process's.
   */
  informers?: SharedInformers;
  /** The kubefed namespace (KubeFedClusters). */
  kubefedNamespace: string;
  /**
   * Namespace whose RSPs and federated objects are watched; default all namespaces (`''`, a
   * cluster-scoped control plane). A namespace-scoped control plane passes its kubefed namespace.
   */
  targetNamespace?: string;
  /** Ready member clusters and their clients: the Fleet the cluster health controller engages them in. */
  clusters: ReadyClusterSource;
  /**
   * Schedulable kinds by `targetKind`; default FederatedDeployment and FederatedReplicaSet. The
   * federated type's CRD must be installed: its informer must sync before the controller starts.
   */
  targets?: Readonly<Record<string, SchedulingTarget>>;
  /** The FederatedNamespace resource (the `namespaces` FTC's federated type); default `types.kubefed.io/v1beta1 federatednamespaces`. */
  federatedNamespaces?: SchedulingTarget['federated'];
  /** How often member workloads are looked at again; default 10 s. */
  resyncPeriodMs?: number;
  /**
   * `KubeFedConfig.spec.controllerDuration`, read at every change of the ready clusters: every RSP
   * is reconciled again `availableDelayMs` after a cluster became Ready (or its client changed)
   * and `unavailableDelayMs` after one stopped being Ready (KubeFed's cluster available /
   * unavailable delays). Default none: at once.
   */
  clusterChangeDelays?: () => ClusterChangeDelays;
  /**
   * Whether the RSP CRD has a status subresource; default true (deploy/crds defines one). False for
   * KubeFed's own CRD, whose status has no subresource and no schema.
   */
  statusSubresource?: boolean;
  /** RSPs reconciled in parallel; default 2. */
  maxConcurrentReconciles?: number;
  /**
   * Resolves once the readiness of every registered member cluster is known (the cluster health
   * controller's `clustersKnown`): the first reconcile waits for it, so that a restart never plans
   * replicas over the few clusters probed first (with rebalance, moving replicas away from the
   * others). Default none.
   */
  clustersKnown?: (signal: AbortSignal) => Promise<void>;
  clock?: Clock;
}

/** Delays of the re-reconcile of every RSP after a change of the ready clusters. */
export interface ClusterChangeDelays {
  readonly availableDelayMs: number;
  readonly unavailableDelayMs: number;
}

/**
 * How long after a change of the ready clusters from `previous` to `ready` every RSP is
 * reconciled again: `unavailableDelayMs` when a cluster left the set, else (a cluster joined the
 * set, or a ready cluster's client changed) `availableDelayMs`; with both, the shorter. Pure.
 */
export function clusterChangeDelay(previous: ReadonlySet<string>, ready: readonly string[], delays: ClusterChangeDelays): number {
  const left = [...previous].some((c) => !ready.includes(c));
  const joined = ready.some((c) => !previous.has(c));
  if (left && joined) return Math.min(delays.availableDelayMs, delays.unavailableDelayMs);
  return left ? delays.unavailableDelayMs : delays.availableDelayMs;
}

/** What {@link registerReplicaSchedulingController} added to the manager. */
export interface ReplicaSchedulingControllerHandle {
  readonly controller: Controller;
  readonly preferences: Informer<KubeObject>;
}

const specChanged = (o: KubeObject, n: KubeObject): boolean => !jsonEqual(o.spec ?? null, n.spec ?? null);
const generationChanged = (o: KubeObject, n: KubeObject): boolean => o.metadata.generation !== n.metadata.generation;
const labelsChanged = (o: KubeObject, n: KubeObject): boolean => !jsonEqual(o.metadata.labels ?? {}, n.metadata.labels ?? {});

/**
 * Adds the ReplicaSchedulingPreference controller to `manager` (docs/kubefed-compatibility.md §4.6.2;
 * leader only): an informer on RSPs, and held from the shared host informers (`informers`) those
 * on each target's federated type (an event enqueues the RSP of the same namespace/name), on
 * FederatedNamespaces (a change enqueues the RSPs of its namespace) and on KubeFedClusters (an
 * add, delete or label change enqueues every RSP), which the reconciler reads instead of the
 * API; {@link ReplicaSchedulingPreferenceReconciler}, and a runnable that
 * enqueues every RSP when the set of ready clusters changes, after the cluster available /
 * unavailable delay ({@link clusterChangeDelay}). Member workloads are polled by the
 * reconciler's periodic requeue.
 *
 * Only spec changes of an RSP trigger it (its own status writes do not), and only generation
 * changes of a federated object (not the sync controller's status writes).
 */
export function registerReplicaSchedulingController(
  manager: Manager,
  options: ReplicaSchedulingControllerOptions,
): ReplicaSchedulingControllerHandle {
  const namespace = options.targetNamespace ?? '';
  const targets = options.targets ?? DEFAULT_SCHEDULING_TARGETS;
  const preferences = manager.informer({
    name: 'replicaschedulingpreferences',
    listerWatcher: listerWatcherFor(options.host.resource(RSP_GVR, namespace)),
  });
  // Added before the controller so that the holds are released after it stopped.
  const holds = new InformerHolds(options.informers ?? manager.sharedInformers(options.host), 'replicaschedulingpreference-informers');
  manager.add(holds);
  const registered = holds.acquire({ resource: KUBEFED_CLUSTERS, namespace: options.kubefedNamespace });
  // Not awaited: its type may not be served (no namespaces FTC); only intersecting RSPs read it.
  const federatedNamespaces = holds.acquire(
    { resource: options.federatedNamespaces ?? DEFAULT_FEDERATED_NAMESPACES, namespace, transform: withoutManagedFields },
    { awaitSync: false },
  );
  const reconciler = new ReplicaSchedulingPreferenceReconciler({
    host: options.host,
    preferences: preferences.store,
    registeredClusters: registered.store,
    federatedNamespaceCache: federatedNamespaces,
    clusters: options.clusters,
    targets,
    ...(options.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: options.resyncPeriodMs }),
    ...(options.statusSubresource === undefined ? {} : { statusSubresource: options.statusSubresource }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const controller = manager
    .controller({
      name: 'replicaschedulingpreference',
      reconciler,
      maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2,
      ...(options.clustersKnown === undefined ? {} : { startAfter: options.clustersKnown }),
    })
    .watch(preferences, { updatePredicate: specChanged })
    .watch(registered, { updatePredicate: labelsChanged, map: () => preferences.store.keys() });
  const seen = new Set<string>();
  for (const target of Object.values(targets)) {
    const id = `${target.federated.resource}.${target.federated.group}`;
    if (seen.has(id)) continue;
    seen.add(id);
    controller.watch(holds.acquire({ resource: target.federated, namespace, transform: withoutManagedFields }), {
      updatePredicate: generationChanged,
    });
  }
  manager.add(federatedNamespaceChanges(federatedNamespaces, preferences, controller));
  manager.add(readyClusterChanges(options, preferences, controller));
  return { controller, preferences };
}

/** Enqueues the RSPs of namespace N when the FederatedNamespace N/N (whose placement an RSP may intersect with) changes. */
function federatedNamespaceChanges(federatedNamespaces: Informer, preferences: Informer, controller: Controller): Runnable {
  return {
    name: 'replicaschedulingpreference-federatednamespaces',
    start: async (signal) => {
      const enqueue = (fns: KubeObject): void => {
        for (const rsp of preferences.store.listByNamespace(fns.metadata.namespace ?? '')) controller.queue.add(objectKey(rsp));
      };
      const off = federatedNamespaces.addEventHandler({
        onAdd: enqueue,
        onUpdate: (o, n) => generationChanged(o, n) && enqueue(n),
        onDelete: (fns) => enqueue(deletedObject(fns)),
      });
      await untilAborted(signal);
      off();
    },
  };
}

/** Enqueues every RSP after the cluster available / unavailable delay when the set of ready clusters changes. */
function readyClusterChanges(options: ReplicaSchedulingControllerOptions, preferences: Informer, controller: Controller): Runnable {
  return {
    name: 'replicaschedulingpreference-clusters',
    start: async (signal) => {
      let previous = new Set(options.clusters.readyClusters().keys());
      const off = options.clusters.onChange((ready) => {
        const delayMs = clusterChangeDelay(
          previous,
          ready,
          options.clusterChangeDelays?.() ?? { availableDelayMs: 0, unavailableDelayMs: 0 },
        );
        previous = new Set(ready);
        for (const key of preferences.store.keys()) controller.queue.addAfter(key, delayMs);
      });
      await untilAborted(signal);
      off();
    },
  };
}
