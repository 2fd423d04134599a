import {
  API_VERSIONS,
  ClusterEventReason,
  EventComponent,
  isClusterReady,
  kubeFedClusterSchema,
  kubeFedClusterStatusSchema,
  RESOURCES,
  type KubeFedCluster,
  type KubeFedClusterStatus,
} from '@kubefed/api';
import {
  ConfigError,
  isForbidden,
  isNotFound,
  memberClientFromSecret,
  SecretNotBoundError,
  type DynamicClient,
  type KubeObject,
} from '@kubefed/client';
import {
  done,
  FleetFullError,
  CacheBudgetExceededError,
  requeueAfter,
  systemClock,
  type Clock,
  type GaugeMetric,
  type Logger,
  type Reader,
  type ReconcileContext,
  type ReconcileOutcome,
  type Reconciler,
} from '@kubefed/runtime';
import {
  applyThresholds,
  firstHistory,
  formatKubeTime,
  JOIN_SCOPE_MISMATCH_REASON,
  joinScopeProblem,
  probedStatus,
  SECRET_NOT_BOUND_REASON,
  statusNeedsWrite,
  TOO_MANY_CLUSTERS_REASON,
  TOKEN_RENEWAL_FAILED_REASON,
  CACHE_BUDGET_EXCEEDED_REASON,
  topologyFromNodes,
  type ClusterTopology,
  type ControlPlaneScope,
  type HealthHistory,
  type ProbeResult,
} from './cluster-health.js';
import type { HealthCheckSettingsSource } from './health-check-settings.js';
import type { MemberFleet } from './member-fleet.js';
import { renewMemberTokenIfDue } from './member-token-renewal.js';

/** The KubeFedCluster resource. */
export const KUBEFED_CLUSTER_GVR = RESOURCES.kubeFedClusters;
const SECRETS = RESOURCES.secrets;
/**
 * Rate limit of the probe client of each member: a probe is `/healthz`, `/version` and a list of
 * Nodes once per period, so a small budget of its own is plenty.
 */
const PROBE_RATE_LIMIT = { qps: 5, burst: 10 } as const;

/** Options of {@link KubeFedClusterReconciler}. */
export interface KubeFedClusterReconcilerOptions {
  /** Client of the host cluster (reads Secrets, writes KubeFedCluster status). */
  host: DynamicClient;
  /** The informer cache of KubeFedClusters in the kubefed namespace. */
  clusters: Reader;
  settings: HealthCheckSettingsSource;
  /**
   * Where each cluster is engaged (with its KubeFedCluster and Secret, so the Fleet builds the
   * client sync workers and controllers share) and its readiness published. Probes use a client of their own.
   */
  fleet: MemberFleet;
  /** Gauge `{cluster, state}` set to 1 for the current state (ready / notready / offline / malformed). Default none. */
  stateGauge?: GaugeMetric;
  /**
   * The running control plane's scope: a cluster joined for another one (annotation
   * `kubefed.io/join-scope`) is not probed nor used, and reported `Ready=False`
   * `JoinScopeMismatch`. Default none: join scopes are not checked.
   */
  scope?: ControlPlaneScope;
  /** Default the system clock. */
  clock?: Clock;
}

interface ClusterRecord {
  /** spec + labels + annotations: a change drops the record (KubeFed §4.2.1). */
  readonly identity: string;
  /** resourceVersion of the Secret the client was built from. */
  secretVersion: string | undefined;
  /**
   * The client probes use: the same cluster and credentials as the one engaged in the Fleet
   * (sync workers and controllers), with connections and a rate budget of its own, so a probe
   * never waits behind the member's queued sync requests (a slow or saturated member would
   * otherwise look healthy for as long as its sync backlog lasts). Set while the cluster is engaged.
   */
  probe: DynamicClient | undefined;
  history: HealthHistory | undefined;
  /** Why no client could be built (for the MalformedClusterConfig event). */
  configError: string | undefined;
  /** The token Secret is not bound to this cluster: why (names Secret and cluster); no client exists. */
  notBound: string | undefined;
  /** The Fleet is full (`--max-member-clusters`): why; no client exists, the next reconcile tries again. */
  overLimit: string | undefined;
  /** The member passed its cache budget and the Fleet refuses it for a while: why; no client exists, the next reconcile tries again. */
  overBudget: string | undefined;
  /** The token Secret last read (its token may be renewed: {@link renewMemberTokenIfDue}). */
  secret: KubeObject | undefined;
  /** The message of the last failed token renewal, so that its Warning event is recorded once. */
  renewalFailure: string | undefined;
  /** Outcome of the previous probe: events are recorded when it changes, not on every probe. */
  lastProbe: ProbeResult['kind'] | undefined;
}

const STATES = ['ready', 'notready', 'offline', 'malformed'] as const;

/**
 * The cluster health controller's reconciler (docs/kubefed-compatibility.md §4.2): for one KubeFedCluster
 * key it builds (or reuses) a client from the cluster's spec and token Secret, probes
 * `/healthz` with the configured timeout, reads `/version` and Node topology when healthy,
 * applies KubeFed's thresholds and writes the status when it changed; then asks to be run
 * again after `clusterHealthCheck.period`. A deleted cluster is forgotten.
 *
 * Failure behaviour: a cluster joined for another control-plane scope than `options.scope`
 * (annotation `kubefed.io/join-scope`) → `Ready=False` `JoinScopeMismatch`, not probed, its token
 * never read; a token Secret not bound to the cluster (annotation `kubefed.io/cluster-name`)
 * → `Ready=False` `ClusterSecretNotBound`, and its token is never sent; a cluster beyond the
 * Fleet's maximum (`--max-member-clusters`) → `Ready=False` `TooManyMemberClusters`, not probed,
 * no client kept (engaged once another cluster leaves); a member whose informers passed its cache budget
 * (the Fleet disengaged it) → `Ready=False` `CacheBudgetExceeded`, engaged again after the Fleet's retry delay; a missing or malformed Secret/spec → `ConfigMalformed`; an unreachable
 * member → `Offline`; failing to read the Secret from the host → thrown (retried with backoff);
 * failing to write status → logged, the probe loop continues (as KubeFed).
 */
export class KubeFedClusterReconciler implements Reconciler {
  readonly #o: KubeFedClusterReconcilerOptions;
  readonly #clock: Clock;
  readonly #records = new Map<string, ClusterRecord>();
  /** Keys whose first reconcile in this process has applied a readiness ({@link whenDecided}). */
  readonly #decided = new Set<string>();
  readonly #decisionWaiters: (() => void)[] = [];

  constructor(options: KubeFedClusterReconcilerOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileOutcome> {
    const raw = this.#o.clusters.get(key);
    if (raw === undefined) {
      this.#forget(key);
      return done();
    }
    const settings = this.#o.settings.current();
    // Spec and status are parsed apart: a status someone else wrote badly must not make the spec malformed.
    const parsed = kubeFedClusterSchema.safeParse({ ...raw, status: undefined });
    const cluster = parsed.success ? parsed.data : undefined;
    const parsedStatus = kubeFedClusterStatusSchema.safeParse(raw.status);
    const stored = parsedStatus.success ? parsedStatus.data : undefined;
    const name = raw.metadata.name ?? key;
    const logger = ctx.logger.child({ cluster: name });
    const record = this.#record(key, raw);
    this.#noticeCutOff(record, name);
    // A cluster joined for another scope is refused before its token is read or sent.
    const scopeProblem = this.#o.scope === undefined ? undefined : joinScopeProblem(raw, this.#o.scope);
    try {
      if (cluster !== undefined && scopeProblem === undefined) await this.#ensureClient(record, cluster, logger, ctx.signal);
      else this.#setProbe(record, name, undefined);
    } finally {
      if (record.history === undefined) this.#applyStoredReadiness(key, name, record, stored);
    }

    const probeTime = formatKubeTime(this.#clock.now());
    const client = record.probe;
    const result: ProbeResult =
      scopeProblem !== undefined
        ? { kind: 'scopeMismatch', message: scopeProblem }
        : record.notBound !== undefined
          ? { kind: 'secretNotBound', message: record.notBound }
          : record.overLimit !== undefined
            ? { kind: 'tooManyClusters', message: record.overLimit }
            : record.overBudget !== undefined
              ? { kind: 'overCacheBudget', message: record.overBudget }
              : client === undefined
                ? { kind: 'malformed' }
                : await probeHealth(client, settings.timeoutMs, ctx.signal);
    if (ctx.signal.aborted) return done();
    if (result.kind !== record.lastProbe) await this.#recordEvent(raw, record, result, logger);
    record.lastProbe = result.kind;
    let version: string | undefined;
    // Topology is a fact about the member, not its health: kept from the last successful read.
    const known = record.history?.status ?? stored;
    let topology: ClusterTopology | undefined = known === undefined ? undefined : topologyOf(known);
    if (client !== undefined && result.kind === 'ready') {
      version = await readVersion(client, settings.timeoutMs, ctx.signal, logger);
      topology = await readTopology(client, settings.timeoutMs, ctx.signal, logger, topology);
      await this.#renewToken(raw, record, client, logger, ctx.signal);
    }
    if (ctx.signal.aborted) return done();

    const probed = probedStatus({ result, probeTime, kubernetesVersion: version, topology });
    const previous = record.history;
    // A refused token Secret or join scope is a fact about the configuration, not a flaky probe: shown at once.
    const refused =
      result.kind === 'secretNotBound' ||
      result.kind === 'scopeMismatch' ||
      result.kind === 'tooManyClusters' ||
      result.kind === 'overCacheBudget';
    const history = previous === undefined || refused ? firstHistory(stored, probed) : applyThresholds(previous, probed, settings);
    record.history = history;
    const ready = isClusterReady(history);
    if (previous === undefined) logger.info({ ready, probe: result.kind }, 'cluster readiness observed');
    else if (isClusterReady(previous) !== ready) logger.info({ ready, probe: result.kind }, 'cluster readiness changed');

    if (statusNeedsWrite(stored, history.status)) await this.#writeStatus(raw, history.status, logger);
    this.#o.fleet.setReady(name, ready);
    this.#setState(name, ready ? 'ready' : stateOf(result));
    return requeueAfter(settings.periodMs);
  }

  /** Disengages every member and closes the probe clients (call once the controller stopped). */
  close(): void {
    for (const key of [...this.#records.keys()]) this.#forget(key);
  }

  /**
   * Resolves once every key `keys()` returns has had its first reconcile in this process: the
   * cluster is engaged with the readiness its KubeFedCluster's status stores, or refused, or
   * its first attempt failed (it is then not Ready until a later one succeeds). Resolves
   * early when `signal` aborts.
   */
  async whenDecided(keys: () => readonly string[], signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !keys().every((key) => this.#decided.has(key))) {
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          signal.removeEventListener('abort', wake);
          resolve();
        };
        signal.addEventListener('abort', wake, { once: true });
        this.#decisionWaiters.push(wake);
      });
    }
  }

  /**
   * Until this process's first probe of a cluster decides, its readiness is the `Ready`
   * condition its status stores, as KubeFed reads it (`IsClusterReady` of the stored status).
   * Otherwise a restarted controller manager would see every member not Ready for as long as
   * the first probes take, and the sync controllers would report `ClusterNotReady` for every
   * placed object and then re-check them all.
   */
  #applyStoredReadiness(key: string, name: string, record: ClusterRecord, stored: KubeFedClusterStatus | undefined): void {
    if (record.probe !== undefined && stored !== undefined) this.#o.fleet.setReady(name, isClusterReady({ status: stored }));
    if (this.#decided.has(key)) return;
    this.#decided.add(key);
    this.#wakeDecisionWaiters();
  }

  #wakeDecisionWaiters(): void {
    for (const wake of this.#decisionWaiters.splice(0)) wake();
  }

  #record(key: string, raw: KubeObject): ClusterRecord {
    const identity = JSON.stringify([raw.spec, raw.metadata.labels ?? {}, raw.metadata.annotations ?? {}]);
    const existing = this.#records.get(key);
    if (existing !== undefined && existing.identity === identity) return existing;
    if (existing !== undefined) this.#forget(key);
    const record: ClusterRecord = {
      identity,
      secretVersion: undefined,
      probe: undefined,
      history: undefined,
      configError: undefined,
      notBound: undefined,
      overLimit: undefined,
      overBudget: undefined,
      secret: undefined,
      renewalFailure: undefined,
      lastProbe: undefined,
    };
    this.#records.set(key, record);
    return record;
  }

  async #ensureClient(record: ClusterRecord, cluster: KubeFedCluster, logger: Logger, signal: AbortSignal): Promise<void> {
    const name = cluster.metadata.name ?? '';
    const namespace = cluster.metadata.namespace ?? '';
    let secret: KubeObject;
    try {
      secret = await this.#o.host.resource(SECRETS, namespace).get(cluster.spec.secretRef.name, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      if (record.secretVersion !== '') logger.warn({ secret: cluster.spec.secretRef.name }, 'the secret of the cluster is missing');
      record.secretVersion = '';
      record.configError = errorText(err);
      record.notBound = undefined;
      record.overLimit = undefined;
      record.overBudget = undefined;
      this.#setProbe(record, name, undefined);
      return;
    }
    record.secret = secret;
    const version = secret.metadata.resourceVersion ?? '';
    // Same Secret (and the record is dropped on any spec change): the client, or the ConfigError, stands.
    if (record.secretVersion === version) return;
    record.secretVersion = version;
    record.configError = undefined;
    record.notBound = undefined;
    const wasOverLimit = record.overLimit !== undefined;
    const wasOverBudget = record.overBudget !== undefined;
    record.overLimit = undefined;
    record.overBudget = undefined;
    let probe: DynamicClient | undefined;
    try {
      // Probes pass the health-check timeout per request; other requests (sync workers) get the client's default.
      probe = memberClientFromSecret(cluster, secret, { ...PROBE_RATE_LIMIT, userAgent: 'kubefed-cluster-health' });
      this.#o.fleet.engage(name, { cluster, secret });
    } catch (err) {
      probe?.close();
      probe = undefined;
      if (err instanceof SecretNotBoundError) {
        logger.warn(
          { secret: cluster.spec.secretRef.name, reason: err.problem.kind },
          'the secret of the cluster is not bound to it; its token is not used',
        );
        record.notBound = err.problem.message;
      } else if (err instanceof FleetFullError) {
        // Not a fact about this Secret: engaging is tried again at every reconcile, until a place is free.
        record.secretVersion = undefined;
        if (!wasOverLimit) logger.warn({ limit: err.limit }, 'too many member clusters: the cluster is not used');
        record.overLimit = err.message;
      } else if (err instanceof CacheBudgetExceededError) {
        // Refused until the Fleet's retry delay has passed: tried again at every reconcile.
        record.secretVersion = undefined;
        if (!wasOverBudget) logger.warn({ err }, 'the cluster is over its cache budget: it is not used for now');
        record.overBudget = err.message;
      } else {
        if (!(err instanceof ConfigError)) throw err;
        logger.warn({ err }, 'the configuration of the cluster may be malformed');
        record.configError = err.message;
      }
    }
    this.#setProbe(record, name, probe);
  }

  /**
   * A member the Fleet cut off for its cache budget since the last reconcile: its probe client
   * goes too, and the Secret is read again at once so that the next engage is tried (and refused
   * until the retry delay has passed).
   */
  #noticeCutOff(record: ClusterRecord, name: string): void {
    const err = this.#o.fleet.overBudget(name);
    if (err === undefined || record.overBudget !== undefined) return;
    record.overBudget = err.message;
    record.secretVersion = undefined;
    this.#setProbe(record, name, undefined);
  }

  /** Renews a short-lived member token past half of its lifetime; a failure is a Warning event `TokenRenewalFailed` (once per message). */
  async #renewToken(raw: KubeObject, record: ClusterRecord, member: DynamicClient, logger: Logger, signal: AbortSignal): Promise<void> {
    if (record.secret === undefined) return;
    const name = raw.metadata.name ?? '';
    const renewal = await renewMemberTokenIfDue({
      cluster: name,
      secret: record.secret,
      member,
      host: this.#o.host,
      nowMs: this.#clock.now(),
      logger,
      signal,
    });
    if (renewal.kind !== 'failed') {
      record.renewalFailure = undefined;
      return;
    }
    if (record.renewalFailure === renewal.message) return;
    record.renewalFailure = renewal.message;
    await this.#writeEvent(raw, TOKEN_RENEWAL_FAILED_REASON, renewal.message, logger);
  }

  /** Replaces the probe client; without one, the cluster is disengaged from the Fleet too. */
  #setProbe(record: ClusterRecord, name: string, probe: DynamicClient | undefined): void {
    if (record.probe === probe) return;
    if (probe === undefined) void this.#o.fleet.disengage(name);
    record.probe?.close();
    record.probe = probe;
  }

  #forget(key: string): void {
    const record = this.#records.get(key);
    const name = key.slice(key.indexOf('/') + 1);
    this.#records.delete(key);
    this.#decided.delete(key);
    this.#wakeDecisionWaiters();
    void this.#o.fleet.disengage(name);
    record?.probe?.close();
    for (const state of STATES) this.#o.stateGauge?.set({ cluster: name, state }, 0);
  }

  #setState(name: string, current: (typeof STATES)[number]): void {
    for (const state of STATES) this.#o.stateGauge?.set({ cluster: name, state }, state === current ? 1 : 0);
  }

  /**
   * KubeFed's Warning events (`MalformedClusterConfig`, `RetrievingClusterHealthFailed`), and
   * `ClusterSecretNotBound` and `JoinScopeMismatch`, recorded when the probe outcome changes rather than on every probe
   * (KubeFed emits one per probe). Failing to record an event is only logged.
   */
  async #recordEvent(raw: KubeObject, record: ClusterRecord, result: ProbeResult, logger: Logger): Promise<void> {
    let reason: string;
    let message: string;
    if (result.kind === 'malformed') {
      reason = ClusterEventReason.MalformedClusterConfig;
      message = `The configuration for this cluster may be malformed: ${record.configError ?? 'the cluster spec does not match the KubeFedCluster schema'}`;
    } else if (result.kind === 'unreachable') {
      reason = ClusterEventReason.RetrievingClusterHealthFailed;
      message = `Failed to retrieve health of the cluster: ${result.error}`;
    } else if (result.kind === 'secretNotBound') {
      reason = SECRET_NOT_BOUND_REASON;
      message = result.message;
    } else if (result.kind === 'tooManyClusters') {
      reason = TOO_MANY_CLUSTERS_REASON;
      message = result.message;
    } else if (result.kind === 'overCacheBudget') {
      reason = CACHE_BUDGET_EXCEEDED_REASON;
      message = result.message;
    } else if (result.kind === 'scopeMismatch') {
      reason = JOIN_SCOPE_MISMATCH_REASON;
      message = result.message;
      logger.warn({ reason, scope: this.#o.scope }, 'the cluster was joined for another control-plane scope; it is not used');
    } else {
      return;
    }
    await this.#writeEvent(raw, reason, message, logger);
  }

  /** Records a Warning event about the KubeFedCluster `raw`; a failure is only logged. */
  async #writeEvent(raw: KubeObject, reason: string, message: string, logger: Logger): Promise<void> {
    const namespace = raw.metadata.namespace ?? '';
    const now = new Date(this.#clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${raw.metadata.name ?? ''}.`, namespace },
      involvedObject: {
        apiVersion: raw.apiVersion ?? API_VERSIONS.core,
        kind: raw.kind ?? 'KubeFedCluster',
        name: raw.metadata.name,
        namespace,
        uid: raw.metadata.uid,
        resourceVersion: raw.metadata.resourceVersion,
      },
      reason,
      message,
      type: 'Warning',
      source: { component: EventComponent.kubeFedCluster },
      reportingComponent: EventComponent.kubeFedCluster,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    try {
      await this.#o.host.resource(RESOURCES.events, namespace).create(event);
    } catch (err) {
      logger.debug({ err, reason }, 'recording an event failed');
    }
  }

  async #writeStatus(raw: KubeObject, status: KubeFedClusterStatus, logger: Logger): Promise<void> {
    // A merge patch of the status subresource: no resourceVersion race with spec edits, and
    // `null` removes fields the probe cleared (kubernetesVersion when not healthy).
    const patch = {
      status: {
        conditions: status.conditions,
        kubernetesVersion: status.kubernetesVersion ?? null,
        region: status.region ?? null,
        zones: status.zones ?? null,
      },
    };
    try {
      await this.#o.host
        .resource(KUBEFED_CLUSTER_GVR, raw.metadata.namespace)
        .patch(raw.metadata.name ?? '', patch, 'merge', { subresource: 'status' });
    } catch (err) {
      if (isNotFound(err)) return;
      logger.error({ err }, 'writing the cluster status failed');
    }
  }
}

function topologyOf(status: KubeFedClusterStatus): ClusterTopology | undefined {
  return {
    ...(status.region === undefined ? {} : { region: status.region }),
    ...(status.zones === undefined ? {} : { zones: status.zones }),
  };
}

/** The state gauge's label for a cluster that is not ready. */
function stateOf(result: ProbeResult): (typeof STATES)[number] {
  switch (result.kind) {
    case 'malformed':
    case 'secretNotBound':
    case 'scopeMismatch':
    case 'tooManyClusters':
    case 'overCacheBudget':
      return 'malformed';
    case 'notReady':
      return 'notready';
    case 'unreachable':
    case 'ready':
      return 'offline';
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * GET /healthz with the member's credentials: 2xx `ok` → ready, other 2xx → notReady, anything
 * else → unreachable. What the server answered never goes into the result beyond its status
 * code: conditions and events are readable by many more people than the member is, and an
 * endpoint could otherwise reflect anything into them.
 */
async function probeHealth(client: DynamicClient, timeoutMs: number, signal: AbortSignal): Promise<ProbeResult> {
  try {
    const res = await client.raw('/healthz', { timeoutMs, signal, accept: 'text/plain, */*' });
    if (res.status < 200 || res.status > 299) return { kind: 'unreachable', error: `GET /healthz returned HTTP ${res.status}` };
    return res.body.toLowerCase() === 'ok' ? { kind: 'ready' } : { kind: 'notReady' };
  } catch (err) {
    return { kind: 'unreachable', error: errorText(err) };
  }
}

const GIT_VERSION = /^v?\d{1,4}\.\d{1,4}(\.\d{1,6})?([-+.][0-9A-Za-z.+-]{1,60})?$/;

/** `/version` gitVersion; undefined (logged) on failure or when it does not look like a version, as KubeFed leaves the field empty then. */
async function readVersion(client: DynamicClient, timeoutMs: number, signal: AbortSignal, logger: Logger): Promise<string | undefined> {
  try {
    const res = await client.raw('/version', { timeoutMs, signal });
    if (res.status === 200) {
      const gitVersion = (JSON.parse(res.body) as { gitVersion?: unknown }).gitVersion;
      // Only something shaped like a version reaches the status (e.g. v1.34.1, v1.28.3-gke.1286000, v1.27.4+k3s1).
      if (typeof gitVersion === 'string' && GIT_VERSION.test(gitVersion)) return gitVersion;
    }
    logger.warn({ status: res.status }, 'reading the kubernetes version of the cluster failed');
  } catch (err) {
    if (!signal.aborted) logger.warn({ err }, 'reading the kubernetes version of the cluster failed');
  }
  return undefined;
}

/**
 * Region/zones from the member's Nodes. Forbidden (no `list nodes` grant) → unset; any other
 * failure → the previously known topology (logged at debug; the probe does not fail).
 */
async function readTopology(
  client: DynamicClient,
  timeoutMs: number,
  signal: AbortSignal,
  logger: Logger,
  previous: ClusterTopology | undefined,
): Promise<ClusterTopology | undefined> {
  try {
    const nodes = await client.resource(RESOURCES.nodes).listAll({ signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
    return topologyFromNodes(nodes.items);
  } catch (err) {
    if (isForbidden(err)) return undefined;
    if (!signal.aborted) logger.debug({ err }, 'listing the nodes of the cluster failed');
    return previous;
  }
}
