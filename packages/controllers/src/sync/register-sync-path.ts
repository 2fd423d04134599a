import { RESOURCES } from '@kubefed/api';
import type { DynamicClient, KubeObject } from '@kubefed/client';
import type { JobProducer, SyncProcessor } from '@kubefed/queue';
import { type EventSink, type Fleet, type Informer, listerWatcherFor, type Manager, systemClock } from '@kubefed/runtime';
import type { PlacementCluster } from '../placement/index.js';
import { MemberNotReadyError } from './errors.js';
import { SyncController } from './reconcile/sync-controller.js';
import { OwnWrites } from './shared/own-writes.js';
import { RunningSyncTypes } from './shared/running-types.js';
import { type StaleOutcomeReason, StatusRecorder, type SyncOutcomeSink } from './shared/status-recorder.js';
import type { SyncScope, SyncSettings, SyncTiming } from './shared/sync-settings.js';
import { VersionStore, watchPropagatedVersions } from './shared/version-store.js';
import { StatusWriter } from './status/status-writer.js';
import { syncTypeLookup, type SyncType } from './sync-type.js';
import { SyncWorker, type SyncWorkerOptions } from './worker/sync-worker.js';

/** The member clusters as the sync path reads them (a `MemberFleet` fits). */
export type SyncFleet = Pick<Fleet, 'readyClusters' | 'readyClient' | 'isReady' | 'onChange' | 'subscribe' | 'informer'>;

/**
 * Where the workers of this process find the (Cluster)PropagatedVersions: `memory` (none are
 * written: after a restart every object is written once more), `host` (KubeFed's records, a GET
 * per read), `watched` (KubeFed's records, read from a watch-fed cache: a job finding its copy
 * current makes no host request, and the reconciler enqueues no job for a copy the caches show
 * current; it needs RBAC to list and watch them).
 */
export type SyncVersions = 'memory' | 'host' | 'watched';

/** The deciding side (modes `all` and `controllers`): one sync controller per type the FTC controller runs. */
export interface SyncControllersOptions {
  /** Where sync jobs go. */
  readonly producer: JobProducer;
  /**
   * Resolves once the readiness of every registered member cluster is known (the cluster health
   * controller's `clustersKnown`): the first reconciles wait for it, so that a restart does not
   * report every placed cluster `ClusterNotReady`. Default none.
   */
  readonly clustersKnown?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /** Subscribes to KubeFedCluster label changes (clusterSelector placement); returns the unsubscribe function. Default none (placement follows labels at the next resync). */
  readonly onClusterLabelsChange?: ((listener: () => void) => () => void) | undefined;
  /** Watch managed member copies to revert drift at once; default true. */
  readonly watchMembers?: boolean | undefined;
  /** Federated objects of one type reconciled in parallel (KubeFedConfig `spec.syncController.maxConcurrentReconciles`); default 4. */
  readonly maxConcurrentReconciles?: number | undefined;
  /** The outcomes the status writers read; default a new recorder (fed by this process's workers, or by an outcome subscriber). */
  readonly recorder?: StatusRecorder | undefined;
}

/** The writing side (modes `all` and `workers`): the job processor. */
export interface SyncWorkersOptions {
  /** Where outcomes go; default the recorder of this process's sync controllers (mode `all`). A workers-only process publishes them to the leader. */
  readonly outcomes?: SyncOutcomeSink | undefined;
  /**
   * The client of a Ready member cluster; `undefined` when not Ready. Throws when the cluster is
   * Ready but its client cannot be had (the cluster reports `ClientRetrievalFailed`). Default `fleet.readyClient`.
   */
  readonly memberClient?: ((cluster: string) => DynamicClient | undefined) | undefined;
  /**
   * A job for a cluster that is not Ready here: `drop` it (the leader's readiness is this
   * process's), or `retry` it with MemberNotReadyError (a workers-only process learns readiness
   * later than the leader that enqueued the job). Default `drop`.
   */
  readonly notReady?: 'drop' | 'retry' | undefined;
  /** Told the duration of every member write (`SyncWorkerOptions.dispatched`); default none. */
  readonly dispatched?: SyncWorkerOptions['dispatched'];
}

/** Options of {@link registerSyncPath}. */
export interface SyncPathOptions {
  /** Client of the host cluster (reads, finalizers, PropagatedVersions). */
  readonly host: DynamicClient;
  /** Client of the host for the status writes of federated objects, with a rate budget of its own; default `host`. */
  readonly reporting?: DynamicClient | undefined;
  readonly scope: SyncScope;
  readonly fleet: SyncFleet;
  /** Every registered KubeFedCluster, e.g. the KubeFedCluster informer's `store.list()`. */
  readonly clusters: () => readonly PlacementCluster[];
  /** The KubeFedConfig settings in force (read on every job and reconcile); default adoption Enabled, remote status collected. */
  readonly settings?: (() => SyncSettings) | undefined;
  /** Where Warning and Normal events about federated objects go; default none. */
  readonly events?: EventSink | undefined;
  readonly timing?: SyncTiming | undefined;
  /** Default `host`. */
  readonly versions?: SyncVersions | undefined;
  /** Runs the deciding side; default none (a workers-only process). */
  readonly controllers?: SyncControllersOptions | undefined;
  /** Runs the writing side; default none (a controllers-only process). */
  readonly workers?: SyncWorkersOptions | undefined;
}

/** What {@link registerSyncPath} built. */
export interface SyncPath {
  /** With `controllers`: the outcomes the status writers read (feed it from an outcome subscriber when the workers run elsewhere). */
  readonly recorder: StatusRecorder | undefined;
  /** With `controllers`: builds the sync controller of a type, for the FederatedTypeConfig controller to run while the type is enabled. */
  readonly syncController: ((type: SyncType) => SyncController) | undefined;
  /** With `workers`: the job processor, to run in a `SyncWorkerHost`. */
  readonly processor: SyncProcessor | undefined;
}

/**
 * The composition root of the sync path (docs/architecture.md "Who builds what"), for every
 * `--mode`: the only place that builds the per-process state the roles share (`shared/`: the
 * status recorder, own writes, the version store, the running types), the sync controllers with
 * their status writers (`reconcile/`, `status/`) and the sync worker (`worker/`). The roles never
 * import each other; what one role reads of another's state goes through `shared/`.
 *
 * | mode          | `controllers` | `workers` | types of the worker            | outcomes         |
 * |---------------|---------------|-----------|--------------------------------|------------------|
 * | `all`         | yes           | yes       | the running sync controllers   | the recorder     |
 * | `controllers` | yes           | no        | —                              | a subscriber     |
 * | `workers`     | no            | yes       | the FTCs (an informer of its own) | a publisher   |
 *
 * The FederatedTypeConfig controller decides which types run, with `syncController`.
 */
export function registerSyncPath(manager: Manager, options: SyncPathOptions): SyncPath {
  const running = new RunningSyncTypes();
  // Member writes of the workers below, so that the member watches of the sync controllers skip their echo.
  const ownWrites = options.controllers !== undefined && options.workers !== undefined ? new OwnWrites() : undefined;
  const versions = versionStore(manager, options);
  const recorder =
    options.controllers === undefined
      ? undefined
      : (options.controllers.recorder ?? new StatusRecorder({ logger: manager.logger, onStale: staleOutcomeCounter(manager) }));
  const syncController =
    options.controllers === undefined || recorder === undefined
      ? undefined
      : syncControllerFactory(manager, { ...options, controllers: options.controllers }, { running, ownWrites, versions, recorder });
  const { workers } = options;
  if (workers === undefined) return { recorder, syncController, processor: undefined };
  const types = options.controllers === undefined ? ftcLookup(manager, options) : (name: string) => running.type(name);
  const outcomes = workers.outcomes ?? recorder;
  return { recorder, syncController, processor: syncProcessor(options, { workers, types, running, ownWrites, versions, outcomes }) };
}

/** What the roles of one process share, built once by {@link registerSyncPath}. */
interface SharedState {
  readonly running: RunningSyncTypes;
  readonly ownWrites: OwnWrites | undefined;
  readonly versions: VersionStore | undefined;
}

function syncControllerFactory(
  manager: Manager,
  options: SyncPathOptions & { readonly controllers: SyncControllersOptions },
  shared: SharedState & { readonly recorder: StatusRecorder },
): (type: SyncType) => SyncController {
  const { controllers, scope } = options;
  const env = { host: options.host, clusters: options.clusters, ...scope };
  const remoteStatusCollection = options.settings === undefined ? undefined : () => options.settings?.().remoteStatusCollection ?? true;
  return (type) =>
    new SyncController({
      ...env,
      type,
      fleet: options.fleet,
      clustersKnown: controllers.clustersKnown,
      informers: manager.sharedInformers(options.host),
      producer: controllers.producer,
      recorder: shared.recorder,
      events: options.events,
      timing: options.timing,
      onClusterLabelsChange: controllers.onClusterLabelsChange,
      remoteStatusCollection,
      watchMembers: controllers.watchMembers,
      maxConcurrentReconciles: controllers.maxConcurrentReconciles,
      ownWrites: shared.ownWrites,
      versions: shared.versions,
      running: shared.running,
      logger: manager.logger,
      metrics: manager.metrics,
      statusWriter: (run) =>
        new StatusWriter({
          ...env,
          host: options.reporting ?? options.host,
          type,
          objects: run.objects,
          federatedNamespaceCache: run.federatedNamespaces,
          recorder: shared.recorder,
          isReady: (c) => options.fleet.isReady(c),
          remoteStatusCollection: run.remoteStatusCollection,
          reportTimeoutMs: options.timing?.reportTimeoutMs,
          clock: systemClock,
        }),
    });
}

function syncProcessor(
  options: SyncPathOptions,
  o: SharedState & {
    readonly workers: SyncWorkersOptions;
    readonly types: (name: string) => SyncType | undefined;
    readonly outcomes: SyncOutcomeSink | undefined;
  },
): SyncProcessor {
  const { workers } = o;
  const memberClient = workers.memberClient ?? ((cluster: string) => options.fleet.readyClient(cluster));
  const worker = new SyncWorker({
    host: options.host,
    clusters: options.clusters,
    ...options.scope,
    types: o.types,
    caches: (name) => o.running.caches(name),
    memberClient,
    recorder: o.outcomes ?? { report: () => Promise.resolve() },
    settings: options.settings,
    events: options.events,
    versionStore: o.versions,
    ownWrites: o.ownWrites,
    dispatched: workers.dispatched,
  });
  if (workers.notReady !== 'retry') return (job, ctx) => worker.process(job, ctx);
  // The controllers only enqueue jobs for Ready clusters: when this process has not seen the
  // Ready status or built the client yet, the attempt fails so that the job is retried (a client
  // that failed to build throws from `memberClient`: the worker's ClientRetrievalFailed).
  const ready = (cluster: string): boolean => {
    try {
      return memberClient(cluster) !== undefined;
    } catch {
      return true;
    }
  };
  return async (job, ctx) => {
    if (!ready(job.cluster)) throw new MemberNotReadyError(`member cluster "${job.cluster}" has no Ready client in this worker yet`);
    await worker.process(job, ctx);
  };
}

/** The (Cluster)PropagatedVersion store of this process (see {@link SyncVersions}). */
function versionStore(manager: Manager, options: SyncPathOptions): VersionStore | undefined {
  const versions = options.versions ?? 'host';
  if (versions === 'memory') return undefined;
  if (versions === 'host') return new VersionStore(options.host);
  const namespace = (options.scope.scope ?? 'Cluster') === 'Namespaced' ? options.scope.kubefedNamespace : undefined;
  return new VersionStore(options.host, { caches: watchPropagatedVersions(manager, { host: options.host, namespace }) });
}

/** Workers without sync controllers: the sync types from an FTC informer of their own (run on every replica). */
function ftcLookup(manager: Manager, options: SyncPathOptions): (name: string) => SyncType | undefined {
  const namespace = options.scope.kubefedNamespace;
  const ftcs: Informer<KubeObject> = manager.informer({
    name: 'federatedtypeconfigs',
    listerWatcher: listerWatcherFor(options.host.resource(RESOURCES.federatedTypeConfigs, namespace)),
  });
  return syncTypeLookup(ftcs.store, namespace);
}

/** `kubefed_sync_stale_outcomes_total{reason}`: outcomes the status recorder dropped (another object's UID, an older generation). */
function staleOutcomeCounter(manager: Manager): (reason: StaleOutcomeReason) => void {
  const counter = manager.metrics.counter(
    'kubefed_sync_stale_outcomes_total',
    'Sync outcomes dropped by the status writer: about another object of the same name (uid) or older than one applied (generation)',
    ['reason'],
  );
  return (reason) => counter.inc({ reason });
}
