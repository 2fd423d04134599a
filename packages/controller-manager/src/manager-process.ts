import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { KubeFedError, LEADER_ELECTION_LOCK_NAME, RESOURCES } from '@kubefed/api';
import { type ClusterConnection, DynamicClient, jsonEqual, Kubeconfig, type KubeObject } from '@kubefed/client';
import {
  ClusterStatusProvider,
  createMemberFleet,
  type HealthCheckSettingsSource,
  type KubeFedConfigSettings,
  KubeFedConfigSource,
  type MemberFleet,
  readKubeFedSettings,
  readKubeFedSettingsFile,
  registerFederatedTypeConfigController,
  registerKubeFedClusterController,
  registerKubeFedConfigController,
  registerSyncPath,
  type StatusRecorder,
  type SyncPath,
  type SyncPathOptions,
  syncRetryDelayMs,
  type SyncSettings,
} from '@kubefed/controllers';
import {
  BullMqJobProducer,
  createRedisConnection,
  pingRedis,
  SyncOutcomePublisher,
  SyncOutcomeSubscriber,
  SyncWorkerHost,
  type RedisConnection,
  type SyncJobTiming,
  type SyncProcessor,
} from '@kubefed/queue';
import {
  BackgroundEventSink,
  deletedObject,
  EventRecorder,
  KubeMetricsAuthorizer,
  listerWatcherFor,
  describeLock,
  Manager,
  newResourceLock,
  RuntimeMetrics,
  untilAborted,
  type CounterMetric,
  type Informer,
  type Logger,
  type ManagerAddresses,
  type ResourceLock,
  type ResourceLockType,
  type Runnable,
} from '@kubefed/runtime';
import { ConfigError, rateLimiter, redactUrl, type ControllerManagerConfig } from './config.js';
import { defaultQueuePrefix, OUTCOME_SIGNING_SECRET, outcomeSigningKey } from './federation-identity.js';
import { leaderElectionTiming, type LeaderElectionTiming } from './leader-election-timing.js';
import { leaderLockAnnouncement } from './leader-lock-announcement.js';
import { replicaSchedulingRunnable } from './replica-scheduling-runnable.js';
import { StartupHealthServer } from './startup-health-server.js';
import { StartupRetry, type StartupRetryOptions, type StartupStep } from './startup-retry.js';
import { kubeFedMetrics } from './kubefed-metrics.js';
import { registerSyncQueueMetrics } from './sync-queue-metrics.js';

/**
 * The leader-election lock of `resourceLock` (client-go's `resourcelock.New`): lock
 * `kubefed-controller-manager` in the kubefed namespace for every kind, as KubeFed's
 * cmd/controller-manager/app/leaderelection/leaderelection.go names it, so that KubeFed's
 * controller manager and ours contend for the same object.
 */
function leaderElectionLock(
  client: DynamicClient,
  o: { readonly namespace: string; readonly identity: string; readonly resourceLock: ResourceLockType },
): ResourceLock {
  return newResourceLock(o.resourceLock, {
    name: LEADER_ELECTION_LOCK_NAME,
    namespace: o.namespace,
    identity: o.identity,
    clients: {
      leases: client.resource(RESOURCES.leases, o.namespace),
      configMaps: client.resource(RESOURCES.configMaps, o.namespace),
      endpoints: client.resource(RESOURCES.endpoints, o.namespace),
    },
  });
}

/** Options of {@link runControllerManager}. */
export interface RunControllerManagerOptions {
  /** Aborting stops the controllers, releases the leader-election lock and resolves. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** Leader-election identity; default `<hostname>_<uuid>` (KubeFed's). */
  readonly identity?: string;
  /** Called once the health and metrics servers listen. */
  readonly onServing?: (addresses: ManagerAddresses) => void;
  /** Backoff of the host requests at start-up while the host API server is not available; defaults of {@link StartupRetry}. */
  readonly startupRetry?: Pick<StartupRetryOptions, 'initialDelayMs' | 'maxDelayMs'>;
}

/** Redis did not answer at start-up; the message names the (redacted) URL. */
export class RedisUnreachableError extends KubeFedError {}

/**
 * Opens a Redis connection and checks it answers PING within `timeoutMs`; closes it and throws
 * {@link RedisUnreachableError} otherwise, naming the (redacted) URL and what went wrong: the
 * connection error (refused, DNS, a TLS handshake or certificate failure), Redis' refusal
 * (`WRONGPASS`, `NOAUTH`, `NOPERM`) with a hint, or that nothing answered in time.
 */
async function connectRedis(url: string, role: 'worker' | 'producer', logger: Logger, timeoutMs = 5000): Promise<RedisConnection> {
  const connection = createRedisConnection(url, { role, connectionName: `kubefed-controller-manager-${role}`, logger });
  try {
    await pingRedis(connection, timeoutMs);
    return connection;
  } catch (err) {
    connection.disconnect();
    // The cause is the connection or Redis error itself (pingRedis' own wrapper only repeats the URL).
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : undefined;
    throw new RedisUnreachableError(`Redis at ${redactUrl(url)} (--redis-url) is unreachable: ${redisFailure(cause, url, timeoutMs)}`, {
      cause,
    });
  }
}

const TLS_HINT = 'TLS: a rediss:// URL needs a TLS port of Redis, and ?tlsCaFile= when its certificate is not signed by a public CA';

/** Why PING failed, in one line: the connection or Redis error (`cause`; none when nothing answered), with a hint for credentials and TLS. */
function redisFailure(cause: Error | undefined, url: string, timeoutMs: number): string {
  // A TLS client talking to a port without TLS waits for a handshake answer that never comes.
  if (cause === undefined) return `no answer within ${timeoutMs}ms${url.startsWith('rediss://') ? ` (${TLS_HINT})` : ''}`;
  if (/\b(WRONGPASS|NOAUTH|NOPERM)\b/.test(cause.message))
    return `${cause.message} (check the user name and password of --redis-url, and the ACL of that user)`;
  const code = (cause as { code?: unknown }).code;
  if (/SSL|TLS|certificate|self[- ]signed|wrong version number|EPROTO/i.test(`${cause.message} ${typeof code === 'string' ? code : ''}`)) {
    return `${cause.message} (${TLS_HINT})`;
  }
  return cause.message;
}

const labelsDiffer = (a: KubeObject, b: KubeObject): boolean => !jsonEqual(a.metadata.labels ?? {}, b.metadata.labels ?? {});

/** A workers-only process got a job for a cluster it has no Ready client for (yet); the job is retried. */
export { MemberNotReadyError } from '@kubefed/controllers';

/** The leader-election identity KubeFed uses: `<hostname>_<uuid>`. */
export function leaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** The host cluster client from the configured kubeconfig (or in-cluster service account), with `--master` as its server when given. */
export function hostClient(config: ControllerManagerConfig, metrics?: RuntimeMetrics): DynamicClient {
  return new DynamicClient(hostConnection(config), {
    userAgent: 'kubefed-controller-manager',
    ...config.hostRateLimit,
    onRequestDone: metrics?.restClient('host', 'sync'),
  });
}

/**
 * The host client of leader election alone, with its own connections and rate budget (as
 * client-go's leader election has its own client): Lease renewals never queue behind the bulk
 * host requests of the controllers, which would cost the leadership under load.
 */
function leaderElectionClient(config: ControllerManagerConfig, metrics?: RuntimeMetrics): DynamicClient {
  return new DynamicClient(hostConnection(config), {
    userAgent: 'kubefed-controller-manager/leader-election',
    qps: 10,
    burst: 20,
    onRequestDone: metrics?.restClient('host', 'leader-election'),
  });
}

/**
 * The host client of the writes that only report (the status of federated objects, events), with
 * its own connections and a rate budget of the host client's size: the thousands of status
 * writes that follow a cluster's readiness change never queue ahead of the host requests of
 * event-driven work (finalizers, PropagatedVersion writes a sync job waits for).
 */
function reportingClient(config: ControllerManagerConfig, metrics?: RuntimeMetrics): DynamicClient {
  return new DynamicClient(hostConnection(config), {
    userAgent: 'kubefed-controller-manager/reporting',
    ...config.hostRateLimit,
    onRequestDone: metrics?.restClient('host', 'reporting'),
  });
}

/**
 * The host client of the cluster health controller (token Secrets, KubeFedCluster status, its
 * events), with its own connections and budget: a member's readiness is reported within its
 * probe periods however busy the other host clients are.
 */
function clusterHealthClient(config: ControllerManagerConfig, metrics?: RuntimeMetrics): DynamicClient {
  return new DynamicClient(hostConnection(config), {
    userAgent: 'kubefed-controller-manager/cluster-health',
    qps: 50,
    burst: 100,
    onRequestDone: metrics?.restClient('host', 'cluster-health'),
  });
}

function hostConnection(config: ControllerManagerConfig): ClusterConnection {
  const master = config.master;
  if (config.host.kind === 'masterOnly' && master !== undefined)
    return { name: 'host', server: master, tls: {}, authHeaders: () => Promise.resolve({}) };
  const kubeconfig =
    config.host.kind === 'inCluster'
      ? Kubeconfig.inCluster({ host: config.host.host, port: config.host.port })
      : Kubeconfig.fromFiles(config.host.kind === 'kubeconfig' ? config.host.paths : []);
  const connection = kubeconfig.connection({ context: config.context });
  return master === undefined ? connection : { ...connection, server: master };
}

/**
 * Runs the controller manager until `options.signal` aborts (resolves after a graceful stop:
 * controllers stopped, leader-election lock released, servers closed) or something fails (rejects: a runnable
 * failed, caches did not sync, leadership was lost).
 *
 * Modes: `all` and `controllers` run the KubeFedConfig handling, the cluster health controller
 * and the FederatedTypeConfig controller (its sync controllers enqueue jobs on Redis under
 * `--queue-prefix`); `all` and `workers` run a `SyncWorkerHost` serving one queue per
 * KubeFedCluster (added/removed with the KubeFedClusters). A workers-only process runs no
 * leader election; it reads FTCs and KubeFedClusters from its own informers.
 *
 * At start-up it waits for the host API server: its first host requests are retried with a
 * capped backoff while they fail in a way that may pass (refused, reset, timeouts, 5xx, 429),
 * each retry logged; aborting the signal meanwhile resolves.
 *
 * @throws RedisUnreachableError (before anything starts) when Redis does not answer.
 * @throws HostStartupError when the host refuses a start-up request for good (401, 403 naming
 * the permission, a missing CRD, an untrusted certificate).
 */
export async function runControllerManager(given: ControllerManagerConfig, options: RunControllerManagerOptions): Promise<void> {
  const logger = options.logger;
  const metrics = new RuntimeMetrics({ processMetrics: true });
  using host = hostClient(given, metrics);
  using leases = leaderElectionClient(given, metrics);
  using reporting = reportingClient(given, metrics);
  using health = clusterHealthClient(given, metrics);
  const identity = options.identity ?? leaderIdentity();
  const redis = await connectRedisOfMode(given, logger);
  const retry = new StartupRetry({ signal: options.signal, logger, server: host.server, ...options.startupRetry });
  const start = await waitForStartSettings(given, { host, retry, redis, signal: options.signal });
  if (start === undefined) return;
  const { config, started } = start;
  const lock = leaderElectionLock(leases, { namespace: config.kubefedNamespace, identity, resourceLock: started.leaderElect.resourceLock });
  const manager = await createManager({ config, started, timing: start.timing, host, lock, identity, logger, metrics });
  // Without Redis no job is enqueued or run: not ready (a liveness failure would only restart us).
  manager.addReadyCheck('redis', async () => {
    await Promise.all(redis.connections.map((c) => pingRedis(c, 2000)));
    return true;
  });
  const producer =
    redis.producer === undefined
      ? undefined
      : new BullMqJobProducer({
          connection: redis.producer,
          prefix: config.queuePrefix,
          logger,
          onAdded: jobsEnqueuedCounter(manager.metrics),
        });
  logStart(logger, { config, host, scope: started.scope, timing: start.timing, identity, lock });
  const parts = processParts({ config, started, manager, clients: { host, reporting, health }, producer, logger });
  if (config.leaderElect && config.mode !== 'workers')
    manager.add(
      leaderLockAnnouncement({
        lock,
        resourceLock: started.leaderElect.resourceLock,
        identity,
        host,
        namespace: config.kubefedNamespace,
        events: parts.events,
        logger,
      }),
    );
  const controllers = registerControllers(parts, redis.worker);
  try {
    await registerWorkers(parts, { controllers, connection: redis.worker, retry });
    void manager.serving().then((addresses) => options.onServing?.(addresses));
    await manager.start(options.signal);
  } catch (err) {
    // A workers-only process stopped while it waited for the host API server.
    if (err !== options.signal.reason) throw err;
  } finally {
    await producer?.close().catch((err: unknown) => logger.warn({ err }, 'closing the sync job producer failed'));
    await Promise.allSettled(redis.connections.map((c) => c.quit()));
    for (const c of redis.connections) c.disconnect();
  }
}

/** Counts the sync jobs the controllers enqueue, by member and priority (`normal` for changes, `low` for fan-outs and resyncs). */
function jobsEnqueuedCounter(metrics: RuntimeMetrics): (cluster: string, priority: 'normal' | 'low', count: number) => void {
  const counter = metrics.counter(
    'kubefed_sync_jobs_enqueued_total',
    'Sync jobs enqueued by the controllers, by member cluster and priority (normal: changes; low: fan-outs and resyncs).',
    ['cluster', 'priority'],
  );
  return (cluster, priority, count) => counter.inc({ cluster, priority }, count);
}

/**
 * Times the sync jobs this process's workers run, by member cluster: how long a job waited in
 * its queue before its first attempt started, and how long each attempt ran (by result).
 */
function syncJobTimer(metrics: RuntimeMetrics): (timing: SyncJobTiming) => void {
  const queued = metrics.histogram(
    'kubefed_sync_job_queue_duration_seconds',
    'How long a sync job waited in the queue of its member cluster before its first attempt started.',
    ['cluster'],
  );
  const ran = metrics.histogram(
    'kubefed_sync_job_duration_seconds',
    'How long an attempt of a sync job ran in a worker of this process, by member cluster and result (success, error).',
    ['cluster', 'result'],
  );
  return ({ cluster, queuedMs, runMs, succeeded }) => {
    if (queuedMs !== undefined) queued.observe({ cluster }, queuedMs / 1000);
    ran.observe({ cluster, result: succeeded ? 'success' : 'error' }, runMs / 1000);
  };
}

/** The Redis connections of a mode: a producer for the controllers, a worker connection (or, controllers only, the outcome reader). */
interface ModeConnections {
  readonly connections: RedisConnection[];
  readonly producer: RedisConnection | undefined;
  readonly worker: RedisConnection | undefined;
}

async function connectRedisOfMode(given: ControllerManagerConfig, logger: Logger): Promise<ModeConnections> {
  const runControllers = given.mode === 'all' || given.mode === 'controllers';
  const connections: RedisConnection[] = [];
  try {
    if (runControllers) connections.push(await connectRedis(given.redisUrl, 'producer', logger));
    // Workers, or (controllers only) the blocking reader of the workers' outcomes.
    connections.push(await connectRedis(given.redisUrl, 'worker', logger));
  } catch (err) {
    for (const c of connections) c.disconnect();
    throw err;
  }
  return runControllers
    ? { connections, producer: connections[0], worker: connections[1] }
    : { connections, producer: undefined, worker: connections[0] };
}

/** What the process reads before it starts anything: the queue prefix, the KubeFedConfig, the leader election timing. */
interface StartSettings {
  readonly config: ResolvedConfig;
  readonly started: KubeFedConfigSettings;
  readonly timing: LeaderElectionTiming;
}

/**
 * The start settings, read while a stand-in health server tells probes that the process is alive
 * and waiting for the host API server; undefined when stopped meanwhile. The Redis connections
 * are closed when it does not return settings.
 */
async function waitForStartSettings(
  given: ControllerManagerConfig,
  o: { host: DynamicClient; retry: StartupRetry; redis: ModeConnections; signal: AbortSignal },
): Promise<StartSettings | undefined> {
  try {
    const health = await StartupHealthServer.listen(given.healthAddr);
    try {
      return await readStartSettings(given, o);
    } finally {
      await health.close();
    }
  } catch (err) {
    for (const c of o.redis.connections) c.disconnect();
    // Stopped while waiting for the host API server: a graceful stop, not a failure.
    if (err === o.signal.reason) return undefined;
    throw err;
  }
}

/** The start-up read of the host cluster's identity, when no --queue-prefix is given. */
const QUEUE_PREFIX_STEP: StartupStep = {
  name: 'reading the kube-system Namespace for the default queue prefix',
  hint: 'pass --queue-prefix to skip this read',
};

const KUBEFED_CONFIG_STEP: StartupStep = { name: 'reading the KubeFedConfig' };

const KUBEFED_CONFIG_CRD_STEP: StartupStep = { name: 'listing KubeFedConfigs' };

const SIGNING_KEY_STEP: StartupStep = { name: `reading the sync outcome signing key (Secret ${OUTCOME_SIGNING_SECRET})` };

/** The first host requests of the process, retried while the host API server is not available (see {@link StartupRetry}). */
async function readStartSettings(
  given: ControllerManagerConfig,
  from: { host: DynamicClient; retry: StartupRetry },
): Promise<StartSettings> {
  const { host, retry } = from;
  const namespace = given.kubefedNamespace;
  const queuePrefix = given.queuePrefix ?? (await retry.run(QUEUE_PREFIX_STEP, (signal) => defaultQueuePrefix(host, namespace, signal)));
  const create = given.mode === 'all' || given.mode === 'controllers';
  // A workers-only process waits for the leader to create the KubeFedConfig, which never comes
  // without its CRD: a list answers 404 for a resource the host does not serve.
  if (!create)
    await retry.run(KUBEFED_CONFIG_CRD_STEP, (signal) => host.resource(RESOURCES.kubeFedConfigs, namespace).list({ limit: 1, signal }));
  // The KubeFedConfig decides the scope; DEFAULT_KUBEFED_SCOPE only seeds a config created here.
  const started =
    given.kubefedConfigFile === undefined
      ? await retry.run(KUBEFED_CONFIG_STEP, (signal) =>
          readKubeFedSettings(host, namespace, { defaultScope: given.defaultScope, create, signal }),
        )
      : await readKubeFedSettingsFile(given.kubefedConfigFile, namespace);
  return { config: { ...given, queuePrefix }, started, timing: leaderElectionTiming(given, started.leaderElect) };
}

/**
 * The process's manager: health and metrics servers (metrics over TLS with authorization when
 * --secure-metrics), and the leader-election lock unless it runs workers only. One metrics registry for the
 * process: its controllers, the replica scheduling controller's own manager, and Node.js
 * process metrics (kubefed_process_*, kubefed_nodejs_*).
 */
async function createManager(
  o: StartSettings & { host: DynamicClient; lock: ResourceLock; identity: string; logger: Logger; metrics: RuntimeMetrics },
): Promise<Manager> {
  const { config, host } = o;
  return new Manager({
    logger: o.logger,
    metrics: o.metrics,
    healthAddress: config.healthAddr,
    metricsAddress: config.metricsAddr,
    ...(config.metricsSecure === undefined
      ? {}
      : {
          metricsAuth: new KubeMetricsAuthorizer(host),
          metricsTls: {
            cert: await readFlagFile('--metrics-cert-file', config.metricsSecure.certFile),
            key: await readFlagFile('--metrics-key-file', config.metricsSecure.keyFile),
          },
        }),
    cacheSyncTimeoutMs: o.started.controllerDuration.cacheSyncTimeoutMs,
    // A workers-only process needs no Lease: its workers run on every replica.
    ...(config.leaderElect && config.mode !== 'workers'
      ? {
          leaderElection: {
            lock: o.lock,
            identity: o.identity,
            ...o.timing,
          },
        }
      : {}),
  });
}

function logStart(
  logger: Logger,
  o: { config: ResolvedConfig; host: DynamicClient; scope: string; timing: LeaderElectionTiming; identity: string; lock: ResourceLock },
): void {
  const { config } = o;
  logger.info(
    {
      mode: config.mode,
      namespace: config.kubefedNamespace,
      scope: o.scope,
      server: o.host.server,
      leaderElect: config.leaderElect,
      ...o.timing,
      ...(config.leaderElect && config.mode !== 'workers' ? { lock: describeLock(o.lock) } : {}),
      identity: o.identity,
      redisUrl: redactUrl(config.redisUrl),
    },
    'starting kubefed-controller-manager',
  );
}

/** The host clients of the process, each with its own connections and rate budget. */
interface HostClients {
  /** Event-driven work: reads, finalizers, PropagatedVersions. */
  readonly host: DynamicClient;
  /** Status writes of federated objects and events. */
  readonly reporting: DynamicClient;
  /** The cluster health controller. */
  readonly health: DynamicClient;
}

/** What the controllers and the workers of the process are wired from. */
interface ProcessParts {
  readonly config: ResolvedConfig;
  readonly started: KubeFedConfigSettings;
  readonly manager: Manager;
  readonly clients: HostClients;
  readonly producer: BullMqJobProducer | undefined;
  readonly logger: Logger;
  /** Every mode follows the KubeFedConfig (workers read adoptResources and the status gate from it). */
  readonly source: KubeFedConfigSource;
  readonly syncSettings: () => SyncSettings;
  readonly events: BackgroundEventSink;
  /** The member clusters: engaged by the cluster health controller, or (workers only) from the KubeFedClusters' status. */
  readonly fleet: MemberFleet;
}

function processParts(o: Omit<ProcessParts, 'source' | 'syncSettings' | 'events' | 'fleet'>): ProcessParts {
  const { config, manager, clients, logger } = o;
  const namespace = config.kubefedNamespace;
  const source = new KubeFedConfigSource(namespace, o.started);
  // With --kubefed-config the file's settings stay in force; the object in the API is not followed.
  if (config.kubefedConfigFile === undefined)
    registerKubeFedConfigController(manager, {
      host: clients.host,
      namespace,
      source,
      defaultScope: config.defaultScope,
      createDefault: config.mode !== 'workers',
    });
  const syncSettings = (): SyncSettings => {
    const current = source.current();
    return {
      adoptResources: current.syncController.adoptResources ? 'Enabled' : 'Disabled',
      remoteStatusCollection: current.featureGates.RawResourceStatusCollection,
      podSecurityLabels: current.syncController.allowPodSecurityLabels === true,
    };
  };
  // Events are written behind the reconciles that record them, on the reporting budget.
  const events = new BackgroundEventSink(
    new EventRecorder({ events: (ns) => clients.reporting.resource(RESOURCES.events, ns), component: 'kubefed-sync', logger }),
    { logger },
  );
  // Added before the controllers and workers so that it stops after them: members are disengaged once nothing reads them.
  const fleet = createMemberFleet({
    rateLimit: config.memberRateLimit,
    maxMembers: config.maxMemberClusters,
    cacheBudget: config.memberCacheBudget,
    logger,
    requestCounter: (cluster) => manager.metrics.restClient(cluster, 'member'),
  });
  manager.add(fleet);
  return { ...o, source, syncSettings, events, fleet };
}

/**
 * The controllers (modes `all` and `controllers`): cluster health, the sync path's deciding side
 * (with, in `all`, its writing side: {@link registerSyncPath} builds both), FederatedTypeConfig,
 * sync queue metrics and replica scheduling; with `controllers` only, the subscriber of the
 * workers' outcomes. Returns the sync job processor of an `all` process and the KubeFedCluster
 * informer its workers follow.
 */
function registerControllers(p: ProcessParts, workerConnection: RedisConnection | undefined): ControllerParts {
  const { config, manager, source, producer } = p;
  if (config.mode === 'workers') return { processor: undefined, clusterInformer: undefined };
  const clusters = registerClusterHealth(p);
  if (producer === undefined) return { processor: undefined, clusterInformer: undefined };
  const path = registerSyncPath(manager, {
    ...syncPathOptions(p),
    clusters: () => clusters.informer.store.list(),
    // The workers of this process read versions from a watch cache (no host GET per job), and the
    // sync controllers read it to enqueue no job for a member copy that is current. Not in
    // `controllers` mode: its RBAC (deploy/, the Helm chart) does not list or watch version
    // records, so its sync controllers enqueue a job per target cluster as before.
    versions: config.mode === 'all' ? 'watched' : 'host',
    controllers: {
      producer,
      clustersKnown: clusters.clustersKnown,
      // Read at start, as KubeFed's controller manager does: a change takes a restart.
      maxConcurrentReconciles: p.started.syncController.maxConcurrentReconciles,
      onClusterLabelsChange: (listener) => clusters.informer.addEventHandler({ onUpdate: (a, b) => labelsDiffer(a, b) && listener() }),
    },
    ...(config.mode === 'all' ? { workers: { dispatched: kubeFedMetrics(manager.metrics).dispatched } } : {}),
  });
  const ftc = registerFederatedTypeConfigs(p, { clusters, path });
  registerSyncQueueMetrics(manager.metrics, {
    producer,
    clusters: () => clusters.informer.store.list().map((c) => c.metadata.name ?? ''),
    logger: p.logger,
  });
  manager.add(
    replicaSchedulingRunnable({
      host: p.clients.host,
      informers: manager.sharedInformers(p.clients.host),
      namespace: config.kubefedNamespace,
      scope: p.started.scope,
      clusters: p.fleet,
      clustersKnown: clusters.clustersKnown,
      ftcs: ftc.informer,
      enabled: () => source.current().featureGates.SchedulerPreferences,
      onConfigChange: (listener) => source.onChange(() => listener()),
      clusterChangeDelays: () => source.current().controllerDuration,
      logger: p.logger,
      metrics: manager.metrics,
    }),
  );
  if (config.mode === 'all') return { processor: path.processor, clusterInformer: clusters.informer };
  if (path.recorder !== undefined)
    manager.add(
      outcomeSubscriberRunnable({
        config,
        logger: p.logger,
        recorder: path.recorder,
        connection: workerConnection,
        dropped: manager.metrics.counter(
          'kubefed_sync_outcomes_dropped_total',
          'Sync outcome stream entries the leader dropped: forged (signature), malformed, a copy of one received (replayed), or too old (expired)',
          ['reason'],
        ),
        // Read once the Lease is held; the host may be unavailable for a while then too.
        signingKey: (signal) =>
          new StartupRetry({ signal, logger: p.logger, server: p.clients.host.server }).run(SIGNING_KEY_STEP, () =>
            outcomeSigningKey(p.clients.host, config.kubefedNamespace),
          ),
      }),
    );
  return { processor: undefined, clusterInformer: clusters.informer };
}

/** What the controllers of an `all` process hand its workers: the job processor and the KubeFedCluster informer. */
interface ControllerParts {
  readonly processor: SyncProcessor | undefined;
  readonly clusterInformer: Informer<KubeObject> | undefined;
}

/** The sync path options every mode shares: the host clients, the scope, the Fleet, the KubeFedConfig settings, the events, the timing. */
function syncPathOptions(p: ProcessParts): Omit<SyncPathOptions, 'clusters'> {
  return {
    host: p.clients.host,
    reporting: p.clients.reporting,
    scope: { kubefedNamespace: p.config.kubefedNamespace, scope: p.started.scope },
    fleet: p.fleet,
    settings: p.syncSettings,
    events: p.events,
    timing: { resyncPeriodMs: p.config.syncResyncPeriodMs },
  };
}

type ClusterHealth = ReturnType<typeof registerKubeFedClusterController>;

function registerClusterHealth(p: ProcessParts): ClusterHealth {
  const { source } = p;
  const healthSettings: HealthCheckSettingsSource = {
    current: () => source.current().clusterHealthCheck,
    onChange: (listener) => source.onChange(() => listener()),
  };
  // A member joined for another scope (kubefed.io/join-scope) is reported JoinScopeMismatch and not used.
  const clusters = registerKubeFedClusterController(p.manager, {
    host: p.clients.health,
    // Probes go through the health client; the watch is the process's shared one.
    informers: p.manager.sharedInformers(p.clients.host),
    namespace: p.config.kubefedNamespace,
    settings: healthSettings,
    fleet: p.fleet,
    scope: p.started.scope,
  });
  p.logger.info('Starting cluster controller');
  return clusters;
}

/** The FederatedTypeConfig controller: it decides which types the sync path runs. */
function registerFederatedTypeConfigs(
  p: ProcessParts,
  o: { clusters: ClusterHealth; path: SyncPath },
): ReturnType<typeof registerFederatedTypeConfigController> {
  const { config, started, source, clients } = p;
  const { syncController } = o.path;
  if (syncController === undefined) throw new ConfigError('the sync path of a controllers process has no sync controllers');
  return registerFederatedTypeConfigController(p.manager, {
    host: clients.host,
    reporting: clients.reporting,
    scope: { kubefedNamespace: config.kubefedNamespace, scope: started.scope },
    fleet: o.clusters.fleet,
    clustersKnown: o.clusters.clustersKnown,
    syncController,
    // Read at start, as KubeFed's controller manager does: a change takes a restart.
    maxConcurrentStatusReconciles: started.statusController.maxConcurrentReconciles,
    rawResourceStatusCollection: () => p.syncSettings().remoteStatusCollection,
    pushReconciler: () => source.current().featureGates.PushReconciler,
    onConfigChange: (listener) => source.onChange(() => listener()),
  });
}

/**
 * The sync workers (modes `all` and `workers`): in `all` they run the processor of the sync path
 * the controllers registered, only while this replica leads; a workers-only process registers a sync path of its own.
 */
async function registerWorkers(
  p: ProcessParts,
  o: { controllers: ControllerParts; connection: RedisConnection | undefined; retry: StartupRetry },
): Promise<void> {
  const { config } = p;
  if (config.mode === 'controllers' || o.connection === undefined) return;
  let { processor, clusterInformer: informer } = o.controllers;
  if (processor === undefined) ({ processor, informer } = await workersOnlySyncPath(p, { connection: o.connection, retry: o.retry }));
  // In `all` mode the processor only knows types and member clients while this replica leads
  // (FTC and health controllers are leader-only): its workers must not take jobs otherwise.
  const leaderOnly = config.mode === 'all';
  if (informer !== undefined)
    p.manager.add(
      syncWorkersRunnable({
        config,
        logger: p.logger,
        connection: o.connection,
        processor,
        informer,
        fleet: p.fleet,
        leaderOnly,
        onTimed: syncJobTimer(p.manager.metrics),
      }),
    );
}

/**
 * Workers only: the sync path's writing side ({@link registerSyncPath}, with the FTCs read from an
 * informer of its own), the Fleet fed from the KubeFedClusters' status (an informer of its own,
 * run on every replica), outcomes published to the leader over Redis.
 */
async function workersOnlySyncPath(
  p: ProcessParts,
  { connection, retry }: { connection: RedisConnection; retry: StartupRetry },
): Promise<{ processor: SyncProcessor; informer: Informer<KubeObject> }> {
  const { config, manager, logger, fleet } = p;
  const { host } = p.clients;
  const namespace = config.kubefedNamespace;
  const kfcs = manager.informer({
    name: 'kubefedclusters',
    listerWatcher: listerWatcherFor(host.resource(RESOURCES.kubeFedClusters, namespace)),
  });
  const members = new ClusterStatusProvider({ host, namespace, fleet, logger });
  kfcs.addEventHandler({
    onAdd: (c) => void members.update(c),
    onUpdate: (_, c) => void members.update(c),
    onDelete: (c) => void members.remove(deletedObject(c).metadata.name ?? ''),
  });
  const outcomes = new SyncOutcomePublisher({
    connection,
    prefix: config.queuePrefix,
    signingKey: await retry.run(SIGNING_KEY_STEP, () => outcomeSigningKey(host, namespace)),
  });
  const path = registerSyncPath(manager, {
    ...syncPathOptions(p),
    clusters: () => kfcs.store.list(),
    // Versions from a watch-fed cache, as in `all` mode: an unchanged object costs no host GET.
    versions: 'watched',
    workers: {
      outcomes: { report: (outcome) => outcomes.publish(outcome) },
      // Ready with a client that cannot be built: the cluster reports ClientRetrievalFailed.
      memberClient: (cluster) => {
        const error = members.clientError(cluster);
        if (error !== undefined) throw error;
        return fleet.readyClient(cluster);
      },
      notReady: 'retry',
      dispatched: kubeFedMetrics(manager.metrics).dispatched,
    },
  });
  if (path.processor === undefined) throw new ConfigError('the sync path of a workers process has no processor');
  return { processor: path.processor, informer: kfcs };
}

/** The configuration with the queue prefix resolved. */
type ResolvedConfig = ControllerManagerConfig & { readonly queuePrefix: string };

/**
 * The reader of the sync outcomes that workers in other processes publish (`--mode
 * controllers`), feeding the leader's status recorder. Leader only: the status writers run there.
 */
function outcomeSubscriberRunnable(options: {
  config: ResolvedConfig;
  logger: Logger;
  recorder: StatusRecorder;
  connection: RedisConnection | undefined;
  dropped: CounterMetric;
  signingKey: (signal: AbortSignal) => Promise<Buffer>;
}): Runnable {
  return {
    name: 'sync-outcomes',
    needLeaderElection: true,
    start: async (signal) => {
      if (options.connection === undefined) throw new RedisUnreachableError('no Redis connection for the sync outcome reader');
      const subscriber = new SyncOutcomeSubscriber({
        connection: options.connection,
        prefix: options.config.queuePrefix,
        signingKey: await options.signingKey(signal),
        logger: options.logger,
        onDropped: (reason) => options.dropped.inc({ reason }),
      });
      await subscriber.run(signal, (outcome) => options.recorder.report(outcome));
    },
  };
}

/**
 * The sync worker host as a runnable (of every replica, or of the leader only with `leaderOnly`):
 * serves the queue of each KubeFedCluster once `fleet` has engaged it (its client could be built:
 * a KubeFedCluster whose Secret is missing, unbound or malformed, or beyond
 * `--max-member-clusters`, costs no worker and no Redis connection), keeps serving it while the
 * cluster is disengaged or NotReady (its jobs wait in its queue), and removes it with its queue
 * drained when the KubeFedCluster in `informer` is deleted. Stopped, it closes gracefully
 * (running jobs finish or are handed back).
 */
function syncWorkersRunnable(options: {
  config: ResolvedConfig;
  logger: Logger;
  connection: RedisConnection;
  processor: SyncProcessor;
  informer: Informer<KubeObject>;
  fleet: MemberFleet;
  leaderOnly: boolean;
  onTimed: (timing: SyncJobTiming) => void;
}): Runnable {
  const { config, logger, informer } = options;
  return {
    name: 'sync-workers',
    needLeaderElection: options.leaderOnly,
    start: async (signal) => {
      const host = await SyncWorkerHost.start({
        connection: options.connection,
        prefix: config.queuePrefix,
        processor: options.processor,
        defaults: {
          concurrency: config.workerConcurrency,
          // BullMQ's limiter counts per queue across every worker: a rate per member cluster.
          ...(config.workerRateLimit > 0 ? { limiter: rateLimiter(config.workerRateLimit) } : {}),
        },
        perCluster: Object.fromEntries(Object.entries(config.clusterWorkerConcurrency).map(([c, concurrency]) => [c, { concurrency }])),
        onTimed: options.onTimed,
        // A member that cannot be reached: retries from KubeFed's 5 s, not the producer's 200 ms.
        firstRetryDelayMs: syncRetryDelayMs,
        logger,
      });
      const failed = (action: string, cluster: string) => (err: unknown) =>
        logger.error({ cluster, err }, `sync workers: ${action} cluster failed`);
      const add = (name: string): void => {
        // Engaged, then deleted before this ran: nothing to serve.
        if (informer.store.get(`${config.kubefedNamespace}/${name}`) !== undefined) host.addCluster(name).catch(failed('adding', name));
      };
      const unsubscribe = options.fleet.subscribe({ onEngaged: add });
      const off = informer.addEventHandler({
        onDelete: (c) => {
          const name = deletedObject(c).metadata.name ?? '';
          host.removeCluster(name, { drain: true }).catch(failed('removing', name));
        },
      });
      for (const m of options.fleet.members()) add(m.name);
      logger.info({ prefix: config.queuePrefix, concurrency: config.workerConcurrency }, 'sync workers started');
      await untilAborted(signal);
      unsubscribe();
      off();
      await host.close({ timeoutMs: 10_000 });
      logger.info('sync workers stopped');
    },
  };
}

/** The contents of the file a flag names; a ConfigError naming the flag when it cannot be read. */
async function readFlagFile(flag: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new ConfigError(`${flag}: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
