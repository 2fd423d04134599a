import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net, { type Socket } from 'node:net';
import { stringify as toYaml } from 'yaml';
import { RbacAuthorizer } from './auth/rbac-authorizer.js';
import { TokenAuthenticator } from './auth/token-authenticator.js';
import { registerCrdController } from './controllers/crd-controller.js';
import { registerGarbageCollector } from './controllers/garbage-collector.js';
import { ensureDefaultServiceAccount, registerNamespaceController } from './controllers/namespace-controller.js';
import { registerServiceAccountTokenController, tokenRequest } from './controllers/service-account-token-controller.js';
import { WorkScheduler } from './controllers/scheduler.js';
import { isValidPodCapacity, registerWorkloadControllers, type WorkloadControllers } from './controllers/workloads/workload-controller.js';
import { FaultState } from './faults.js';
import { OpenApiServer } from './openapi/openapi.js';
import { type ClusterPki, generateClusterPki } from './pki.js';
import { builtinResources } from './resources/builtin-resources.js';
import { ResourceRegistry } from './resources/resource-registry.js';
import { RestOps } from './resources/rest-ops.js';
import { scaleHandlers } from './resources/scale.js';
import { ObjectStore } from './store/object-store.js';
import { ApiHandler } from './server/api-handler.js';
import { sendStatus } from './server/http-util.js';
import { KubeSimError, StatusError, badRequest } from './util/status-error.js';
import { isObject } from './util/json.js';

/** Options of {@link startCluster}. */
export interface StartClusterOptions {
  /** Cluster name; also the kubeconfig cluster/context/user name. Required. */
  name: string;
  /** Loopback port; default 0 (a free port). */
  port?: number;
  /**
   * Serve HTTPS with a per-cluster generated CA (default true); false = plain HTTP. Because
   * kubectl/client-go never send credentials to an http:// server, a plain-HTTP cluster treats a
   * request WITHOUT an Authorization header as the admin (like kube-apiserver's old insecure
   * port); a wrong or revoked bearer token is still refused with 401.
   */
  tls?: boolean;
  /** Region label value for the simulated Nodes (topology.kubernetes.io/region); default 'region-<name>'. */
  region?: string;
  /** Zones for the simulated Nodes (topology.kubernetes.io/zone), one Node per zone; default ['<region>-a','<region>-b']. */
  zones?: string[];
  /** How many watch events are retained for resuming watches; older resourceVersions get 410 Gone. Default 10_000. */
  watchHistory?: number;
  /** gitVersion served at /version; default 'v1.31.0'. */
  version?: string;
  /**
   * How many pods can be scheduled (bound to a Node and Running) in the whole cluster at once;
   * pods beyond it stay Pending with `PodScheduled` False (Unschedulable) until capacity frees up.
   * A non-negative integer or Infinity; default Infinity (unlimited). Change it at run time with
   * {@link SimCluster.setPodCapacity}. Lowering it never evicts running pods.
   */
  podCapacity?: number;
}

/** A running simulated cluster. */
export interface SimCluster extends AsyncDisposable {
  readonly name: string;
  /** e.g. https://127.0.0.1:43123 */
  readonly url: string;
  /** PEM of the cluster CA (undefined with tls: false). */
  readonly caPem: string | undefined;
  /** Bearer token of the admin identity (may do everything). */
  readonly adminToken: string;
  /** A complete kubeconfig (YAML) with one cluster, user and context, all named `name`, current-context set. */
  kubeconfigYaml(): string;
  /** The three kubeconfig entries for merging several clusters into one file. */
  kubeconfigEntries(): { cluster: object; user: object; context: object };
  /** Fault injection. */
  readonly faults: {
    /** Refuse all new connections and destroy open ones (incl. watches) until restore(). */
    unreachable(): void;
    /**
     * Hang like a stopped (SIGSTOP) kube-apiserver until restore(): new connections are accepted
     * and never served (not even the TLS handshake), requests on open connections get no answer;
     * open watch streams stay open. restore() then serves what was held, in arrival order.
     */
    hang(): void;
    /** Add this many ms of latency before every response. */
    latency(ms: number): void;
    /** Fail this fraction (0..1) of API requests with the given code (500 or 429, with Status body; 429 sets Retry-After: 1). */
    failRate(fraction: number, code: 500 | 429): void;
    /** Undo every fault. */
    restore(): void;
  };
  /** The current pod capacity (Infinity = unlimited); see {@link StartClusterOptions.podCapacity}. */
  readonly podCapacity: number;
  /**
   * Changes the pod capacity at run time: raising it schedules Pending pods (oldest first) on the
   * next event-loop turn; lowering it evicts nothing. Throws {@link SimControlError} unless `capacity`
   * is a non-negative integer or Infinity.
   */
  setPodCapacity(capacity: number): void;
  /** Drop retained watch history so any older resourceVersion gets 410 Gone on watch. */
  compactHistory(): void;
  /** Close the listener and all connections, keep the stored state, listen again on the same port. */
  restart(): Promise<void>;
  /** Stop serving and free everything. Idempotent. */
  stop(): Promise<void>;
}

/** Thrown when a cluster cannot start (bad options, port in use). */
export class ClusterStartError extends KubeSimError {}

/** Thrown when a run-time control call on a {@link SimCluster} gets an invalid argument. */
export class SimControlError extends KubeSimError {}

const bookmarkIntervalMs = 1000;

/**
 * Starts one simulated cluster on 127.0.0.1: default namespaces (default, kube-system,
 * kube-public, kube-node-lease) each with a `default` ServiceAccount, one Node per zone, the
 * `cluster-admin` ClusterRole, and the controllers (namespace lifecycle, garbage collector,
 * service-account tokens, CRD establishment, and the workload controllers: deployments,
 * replicasets, scheduler, kubelet). Rejects with {@link ClusterStartError}.
 */
export async function startCluster(options: StartClusterOptions): Promise<SimCluster> {
  const cluster = new RunningCluster(clusterSettings(options), options.port ?? 0);
  await cluster.listen();
  return cluster;
}

/** {@link StartClusterOptions} checked, with their defaults. */
interface ClusterSettings {
  readonly name: string;
  readonly tls: boolean;
  readonly region: string;
  readonly zones: string[];
  readonly gitVersion: string;
  readonly podCapacity: number;
  readonly watchHistory: number;
}

function clusterSettings(options: StartClusterOptions): ClusterSettings {
  if (typeof options.name !== 'string' || options.name === '') throw new ClusterStartError('startCluster: options.name is required');
  const name = options.name;
  const region = options.region ?? `region-${name}`;
  const podCapacity = options.podCapacity ?? Infinity;
  if (!isValidPodCapacity(podCapacity))
    throw new ClusterStartError(
      `cluster ${name}: options.podCapacity must be a non-negative integer or Infinity, got ${String(podCapacity)}`,
    );
  return {
    name,
    tls: options.tls ?? true,
    region,
    zones: options.zones ?? [`${region}-a`, `${region}-b`],
    gitVersion: options.version ?? 'v1.31.0',
    podCapacity,
    watchHistory: options.watchHistory ?? 10_000,
  };
}

/**
 * One simulated cluster: its storage and controllers, the HTTP(S) server of its API, and a
 * listener of its own in front that hands connections to that server, so that a hung cluster
 * can accept a connection and leave it unserved (paused: not even the TLS handshake is read).
 */
class RunningCluster implements SimCluster {
  readonly name: string;
  readonly caPem: string | undefined;
  readonly adminToken = randomBytes(32).toString('hex');
  readonly faults: SimCluster['faults'];
  readonly #ops: RestOps;
  readonly #pki: ClusterPki | undefined;
  readonly #work = new WorkScheduler();
  readonly #workloads: WorkloadControllers;
  readonly #faultState = new FaultState();
  readonly #sockets = new Set<Socket>();
  readonly #watchClosers = new Set<() => void>();
  readonly #handler: ApiHandler;
  readonly #server: http.Server;
  readonly #front: net.Server;
  #port: number;
  #stopped = false;
  #listening: Promise<void> = Promise.resolve();

  constructor(settings: ClusterSettings, port: number) {
    this.name = settings.name;
    this.#port = port;
    const registry = new ResourceRegistry(builtinResources());
    this.#ops = new RestOps(new ObjectStore(settings.watchHistory, 1), registry);
    const authn = new TokenAuthenticator(this.#ops.store, this.adminToken, 'https://kubernetes.default.svc.cluster.local');
    this.#pki = settings.tls ? generateClusterPki(settings.name) : undefined;
    this.caPem = this.#pki?.caCertPem;
    this.#workloads = this.#registerControllers(authn, settings.podCapacity);
    bootstrap(this.#ops, settings.region, settings.zones);
    // kube-apiserver's watch cache starts at the revision it listed when the server started, so a
    // watch from an older resourceVersion (such as 1) is 410 Expired: history starts here too.
    this.#ops.store.compactHistory();
    this.#handler = this.#apiHandler(authn, settings.gitVersion);
    const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => this.#onRequest(req, res);
    const pki = this.#pki;
    this.#server = pki !== undefined ? https.createServer({ key: pki.keyPem, cert: pki.certPem }, onRequest) : http.createServer(onRequest);
    this.#server.keepAliveTimeout = 65_000;
    this.#server.on('tlsClientError', () => undefined);
    this.#front = net.createServer({ pauseOnConnect: true }, (s: Socket) => this.#accept(s));
    this.faults = this.#faultControls();
  }

  /** e.g. https://127.0.0.1:43123 */
  get url(): string {
    return `${this.#pki !== undefined ? 'https' : 'http'}://127.0.0.1:${this.#port}`;
  }

  kubeconfigYaml(): string {
    return buildKubeconfig([this]);
  }

  kubeconfigEntries(): { cluster: object; user: object; context: object } {
    const { name, url } = this;
    const cluster =
      this.#pki !== undefined
        ? { server: url, 'certificate-authority-data': Buffer.from(this.#pki.caCertPem).toString('base64') }
        : { server: url, 'insecure-skip-tls-verify': true };
    return {
      cluster: { name, cluster },
      user: { name, user: { token: this.adminToken } },
      context: { name, context: { cluster: name, user: name } },
    };
  }

  get podCapacity(): number {
    return this.#workloads.podCapacity;
  }

  setPodCapacity(capacity: number): void {
    if (!isValidPodCapacity(capacity))
      throw new SimControlError(
        `cluster ${this.name}: setPodCapacity: capacity must be a non-negative integer or Infinity, got ${String(capacity)}`,
      );
    this.#workloads.setPodCapacity(capacity);
  }

  compactHistory(): void {
    this.#ops.store.compactHistory();
  }

  async restart(): Promise<void> {
    if (this.#stopped) throw new ClusterStartError(`cluster ${this.name}: restart after stop`);
    await this.#listening;
    await this.#closeListener();
    await this.listen();
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#faultState.dropHeld();
    this.#work.stop();
    this.#workloads.stop();
    await this.#listening.catch(() => undefined);
    await this.#closeListener();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /** Listens on the cluster's port (a free one the first time when it is 0). */
  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void =>
        reject(new ClusterStartError(`cluster ${this.name}: cannot listen on 127.0.0.1:${this.#port}`, { cause: e }));
      this.#front.once('error', onError);
      this.#front.listen(this.#port, '127.0.0.1', () => {
        this.#front.off('error', onError);
        const addr = this.#front.address();
        if (addr !== null && typeof addr === 'object') this.#port = addr.port;
        resolve();
      });
    });
  }

  #registerControllers(authn: TokenAuthenticator, podCapacity: number): WorkloadControllers {
    const ops = this.#ops;
    registerCrdController(ops, this.#work);
    registerNamespaceController(ops, this.#work);
    registerGarbageCollector(ops, this.#work);
    registerServiceAccountTokenController(ops, this.#work, { authn, caPem: this.#pki?.caCertPem ?? '' });
    return registerWorkloadControllers(ops, { podCapacity });
  }

  #apiHandler(authn: TokenAuthenticator, gitVersion: string): ApiHandler {
    const ops = this.#ops;
    const openapi = new OpenApiServer(ops.registry, gitVersion);
    return new ApiHandler({
      ops,
      registry: ops.registry,
      authn,
      authz: new RbacAuthorizer(ops.store),
      ext: {
        openapi: (path, query) => openapi.serve(path, query),
        faults: (body) => applyFaultRequest(body, this),
        tokenRequest: (ns, sa, body) => tokenRequest(ops, authn, { namespace: ns, name: sa, body }),
        scale: scaleHandlers(ops),
      },
      info: {
        version: { gitVersion },
        serverAddress: () => `127.0.0.1:${this.#port}`,
        bookmarkIntervalMs,
        watchClosers: this.#watchClosers,
        anonymousIsAdmin: this.#pki === undefined,
      },
    });
  }

  #onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const faults = this.#faultState;
    if (faults.hung) {
      faults.hold(() => {
        if (!req.socket.destroyed) this.#onRequest(req, res);
      });
      return;
    }
    const run = (): void => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (faults.failFraction > 0 && path !== '/kube-sim/faults' && Math.random() < faults.failFraction) {
        req.resume();
        sendInjectedFailure(res, faults.failCode);
        return;
      }
      void this.#handler.handle(req, res);
    };
    if (faults.latencyMs > 0) setTimeout(run, faults.latencyMs);
    else run();
  }

  #accept(s: Socket): void {
    if (this.#faultState.unreachable) {
      s.destroy();
      return;
    }
    // The HTTP server turns Nagle's algorithm off only on connections it accepts itself; these
    // are handed to it. With Nagle on, a watch event written while an earlier one waits for its
    // ACK is held until the peer's delayed ACK (up to 40 ms on Linux): under a burst of writes
    // every watcher got its events late. kube-apiserver (Go) sets TCP_NODELAY on every connection.
    s.setNoDelay(true);
    this.#sockets.add(s);
    s.on('close', () => this.#sockets.delete(s));
    if (this.#faultState.hung) this.#faultState.hold(() => this.#serve(s));
    else this.#serve(s);
  }

  #serve(s: Socket): void {
    if (s.destroyed) return;
    this.#server.emit('connection', s);
    if (this.#pki === undefined) s.resume();
  }

  #dropConnections(): void {
    for (const c of [...this.#watchClosers]) c();
    this.#watchClosers.clear();
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  #closeListener(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.#front.listening) {
        resolve();
        return;
      }
      this.#front.close(() => resolve());
      this.#dropConnections();
    });
  }

  #faultControls(): SimCluster['faults'] {
    const faults = this.#faultState;
    return {
      unreachable: () => {
        faults.unreachable = true;
        this.#dropConnections();
        this.#listening = this.#closeListener();
      },
      hang: () => {
        faults.hung = true;
      },
      latency: (ms: number) => {
        faults.latencyMs = Math.max(0, ms);
      },
      failRate: (fraction: number, code: 500 | 429) => {
        faults.failFraction = Math.min(1, Math.max(0, fraction));
        faults.failCode = code;
      },
      restore: () => {
        const wasUnreachable = faults.unreachable;
        faults.restore();
        if (wasUnreachable && !this.#stopped)
          this.#listening = this.#listening.then(() => (this.#front.listening ? undefined : this.listen())).catch(() => undefined);
      },
    };
  }
}

/** The reply to a request that an injected failure rate fails: 429 with Retry-After, or 500. */
function sendInjectedFailure(res: http.ServerResponse, code: 500 | 429): void {
  if (code === 429)
    sendStatus(res, new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 }), {
      'Retry-After': '1',
    });
  else
    sendStatus(
      res,
      new StatusError(500, 'InternalError', 'Internal error occurred: injected fault', {
        causes: [{ reason: '', message: 'injected fault' }],
      }),
    );
}

/** Applies a fault request of the control endpoint; cutting connections waits for the reply (returned). */
function applyFaultRequest(body: unknown, cluster: SimCluster): (() => void) | undefined {
  const f = cluster.faults;
  if (!isObject(body)) throw badRequest('fault request must be a JSON object');
  if (body['unreachable'] === true) return () => f.unreachable();
  if (body['hang'] === true) return () => f.hang();
  if (body['restore'] === true) f.restore();
  else if (typeof body['latencyMs'] === 'number') f.latency(body['latencyMs']);
  else if (typeof body['failRate'] === 'number' && (body['code'] === 500 || body['code'] === 429))
    f.failRate(body['failRate'], body['code']);
  else if ('podCapacity' in body && (body['podCapacity'] === null || isValidPodCapacity(body['podCapacity'])))
    cluster.setPodCapacity(body['podCapacity'] ?? Infinity);
  else
    throw badRequest(
      'fault request: expected {"unreachable":true} | {"hang":true} | {"latencyMs":N} | {"failRate":F,"code":500|429} | {"podCapacity":N|null} | {"restore":true}',
    );
  return undefined;
}

/** What a new cluster holds before anyone writes to it, as a kubeadm cluster does. */
function bootstrap(ops: RestOps, region: string, zones: string[]): void {
  const nsDef = ops.registry.byResource('', 'namespaces')!;
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    ops.create({ def: nsDef, version: nsDef.versions[0]!, namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    ensureDefaultServiceAccount(ops, ns);
  }
  const svcDef = ops.registry.byResource('', 'services')!;
  ops.create(
    { def: svcDef, version: svcDef.versions[0]!, namespace: 'default' },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] },
    },
  );
  zones.forEach((zone, i) => bootstrapNode(ops, { region, zone, index: i }));
  bootstrapRbac(ops);
}

/** One Ready Node in `zone`, labelled with its region and zone. */
function bootstrapNode(ops: RestOps, node: { region: string; zone: string; index: number }): void {
  const { region, zone, index: i } = node;
  const nodeDef = ops.registry.byResource('', 'nodes')!;
  const nodeName = `${region}-node-${i + 1}`;
  ops.create(
    { def: nodeDef, version: nodeDef.versions[0]!, namespace: '' },
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: nodeName,
        labels: {
          'kubernetes.io/hostname': nodeName,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'topology.kubernetes.io/region': region,
          'topology.kubernetes.io/zone': zone,
          'failure-domain.beta.kubernetes.io/region': region,
          'failure-domain.beta.kubernetes.io/zone': zone,
        },
      },
      spec: {},
    },
  );
  const stored = ops.store.get('/nodes', '', nodeName)!;
  ops.store.put(
    '/nodes',
    {
      ...stored,
      metadata: { ...stored.metadata },
      status: {
        capacity: { cpu: '4', memory: '16Gi', pods: '110' },
        allocatable: { cpu: '4', memory: '16Gi', pods: '110' },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
            lastHeartbeatTime: stored.metadata.creationTimestamp,
            lastTransitionTime: stored.metadata.creationTimestamp,
          },
        ],
        nodeInfo: {
          kubeletVersion: 'v1.31.0',
          operatingSystem: 'linux',
          architecture: 'amd64',
          containerRuntimeVersion: 'containerd://1.7.0',
        },
        addresses: [
          { type: 'InternalIP', address: `10.0.0.${i + 10}` },
          { type: 'Hostname', address: nodeName },
        ],
      },
    },
    'MODIFIED',
  );
}

/** The bootstrap RBAC objects kube-apiserver creates: cluster-admin, system:auth-delegator, and system:masters' binding. */
function bootstrapRbac(ops: RestOps): void {
  const crDef = ops.registry.byResource('rbac.authorization.k8s.io', 'clusterroles')!;
  const scope = { def: crDef, version: crDef.versions[0]!, namespace: '' };
  ops.create(scope, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'cluster-admin', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ],
  });
  // kube-apiserver's bootstrap role for servers that delegate authentication and authorization.
  ops.create(scope, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'system:auth-delegator', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
    rules: [
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ],
  });
  const crbDef = ops.registry.byResource('rbac.authorization.k8s.io', 'clusterrolebindings')!;
  ops.create(
    { def: crbDef, version: crbDef.versions[0]!, namespace: '' },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'cluster-admin', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }],
    },
  );
}

/** One kubeconfig YAML holding all given clusters (contexts named after clusters); current-context = first. */
export function buildKubeconfig(clusters: readonly SimCluster[]): string {
  const entries = clusters.map((c) => c.kubeconfigEntries());
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: entries.map((e) => e.cluster),
    users: entries.map((e) => e.user),
    contexts: entries.map((e) => e.context),
    'current-context': clusters[0]?.name ?? '',
  });
}
