import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESOURCES } from '@kubefed/api';
import { DynamicClient, isNotFound, Kubeconfig, type KubeObject } from '@kubefed/client';
import { DEFAULT_REGIONS } from '../default-regions.js';
import { createClusterPki, type ClusterPki } from './cluster-pki.js';
import { ComponentProcess } from './component-process.js';
import { freePort } from './free-port.js';
import { httpStatus } from './http-status.js';
import { findKubeBinaries, type KubeBinaries } from './kube-binaries.js';
import { kubeconfigYaml, type JsonValue } from './kubeconfig-yaml.js';
import { RealClusterStartError } from './real-cluster-error.js';

/** Options of {@link startRealClusters}. */
export interface StartRealClustersOptions {
  /** Cluster names (also their kubeconfig contexts), e.g. `['host', 'member1']`; at least one. */
  readonly names: readonly string[];
  /** Fake (kwok) Nodes per cluster; default 2. */
  readonly nodes?: number;
  /** `status.allocatable.pods` of every Node, so pods beyond it stay Pending (Unschedulable); default 110. */
  readonly podsPerNode?: number;
  /**
   * `topology.kubernetes.io/region` of each cluster's Nodes; default {@link DEFAULT_REGIONS}, else
   * `region-<name>`. Node i is in zone `<region>` + `a`, `b`, `c` (round robin).
   */
  readonly regions?: Readonly<Record<string, string>>;
  /** Directory of the five binaries; default the cache `npm run kube:build` fills (see tools/kube/README.md). */
  readonly binDir?: string;
  /** How long the whole start may take; default 180 000 ms. */
  readonly timeoutMs?: number;
  /** Called with a line per step (`etcd ready (0.4s)`, `member1: nodes Ready (3.1s)`). */
  readonly onProgress?: (message: string) => void;
}

/** One running cluster. */
export interface RealCluster {
  readonly name: string;
  /** e.g. https://127.0.0.1:43123 */
  readonly url: string;
  /** PEM of the cluster CA (serving and client certificates, service-account `ca.crt`). */
  readonly caPem: string;
  /** Bearer token of the admin identity (`system:masters`), from kube-apiserver's `--token-auth-file`. */
  readonly adminToken: string;
  /** Region of its Nodes. */
  readonly region: string;
  readonly nodeNames: readonly string[];
  /** Its temporary directory: certificates, kubeconfigs and one `<component>.log` per process. */
  readonly dir: string;
  /** A kubeconfig (YAML) with this cluster alone: cluster, user and context named after it, admin client certificate. */
  kubeconfigYaml(): string;
}

/** A process of the control plane, e.g. for measuring memory. */
export interface RealClusterProcess {
  /** e.g. `etcd`, `kube-apiserver[member1]`. */
  readonly name: string;
  readonly pid: number | undefined;
  readonly logFile: string;
}

/** Real clusters (one etcd, a control plane and kwok each) plus one kubeconfig holding them all. */
export interface RealClusters extends AsyncDisposable {
  /** The clusters, in the order of the names given. */
  readonly clusters: readonly RealCluster[];
  /** The Kubernetes version of the binaries, e.g. `v1.34.12`. */
  readonly version: string;
  /** Path of the kubeconfig (one context per cluster, named after it; admin client certificates; current-context = first). */
  readonly kubeconfigPath: string;
  /** The same kubeconfig as YAML. */
  readonly kubeconfigYaml: string;
  /** The cluster called `name`. @throws RealClusterStartError for an unknown name. */
  get(name: string): RealCluster;
  /** Every process started, etcd first. */
  processes(): readonly RealClusterProcess[];
  /** Stops every process (by pid: SIGTERM, SIGKILL after 5 s) and removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
}

const SERVICE_CIDR = '10.96.0.0/16';
const SERVICE_IP = '10.96.0.1';
const POLL_MS = 200;
/** kwok manages only Nodes with this annotation (`--manage-nodes-with-annotation-selector`). */
const KWOK_ANNOTATION = 'kwok.x-k8s.io/node';

/** One cluster before its control plane starts. */
interface Member {
  readonly name: string;
  readonly dir: string;
  readonly region: string;
  readonly nodeNames: readonly string[];
  readonly adminToken: string;
}

/** One cluster's running kube-apiserver, and an admin client of it. */
interface Apiserver {
  readonly url: string;
  readonly pki: ClusterPki;
  readonly client: DynamicClient;
}

/**
 * Starts real Kubernetes clusters from the binaries of `npm run kube:build`: one etcd shared by
 * all (an `--etcd-prefix` per cluster), and per cluster kube-apiserver (TLS with its own CA,
 * `Node,RBAC` authorization, default admission plugins, service-account signing keys),
 * kube-controller-manager (all default controllers, token Secrets filled), kube-scheduler and
 * kwok, plus `nodes` fake Nodes that kwok keeps Ready. Everything listens on loopback ports that
 * were free. Resolves once every apiserver is ready, every component is healthy, every Node is
 * Ready without a `node.kubernetes.io/*` taint and the `default` ServiceAccount exists in
 * `default`; then writes a kubeconfig holding all clusters to a fresh temporary directory.
 *
 * Each process writes to `<cluster dir>/<component>.log`. If a binary is missing, a component
 * exits, or the start exceeds `timeoutMs`, everything started is stopped, the temporary directory
 * is kept for its logs, and it rejects with a {@link RealClusterStartError} naming the component
 * and showing the tail of its log.
 */
export async function startRealClusters(options: StartRealClustersOptions): Promise<RealClusters> {
  const { nodes, podsPerNode } = validateOptions(options);
  const binaries = await findKubeBinaries(options.binDir);
  const root = await mkdtemp(join(tmpdir(), 'kubefed-real-'));
  const regions = { ...DEFAULT_REGIONS, ...options.regions };
  const members: Member[] = options.names.map((name) => ({
    name,
    dir: join(root, name),
    region: regions[name] ?? `region-${name}`,
    nodeNames: Array.from({ length: nodes }, (_, i) => `${name}-node-${i + 1}`),
    adminToken: randomBytes(24).toString('hex'),
  }));
  const launcher = new Launcher({
    binaries,
    root,
    podsPerNode,
    progress: options.onProgress ?? (() => {}),
    deadline: Date.now() + (options.timeoutMs ?? 180_000),
  });
  const running = await launcher.launch(members);
  const entries = running.map(({ member, apiserver }) => kubeconfigEntries(member.name, apiserver));
  const clusters: RealCluster[] = running.map(({ member, apiserver }) => ({
    name: member.name,
    url: apiserver.url,
    caPem: apiserver.pki.ca.certPem,
    adminToken: member.adminToken,
    region: member.region,
    nodeNames: member.nodeNames,
    dir: member.dir,
    kubeconfigYaml: () => kubeconfigYaml(kubeconfigOf([kubeconfigEntries(member.name, apiserver)])),
  }));
  const yaml = kubeconfigYaml(kubeconfigOf(entries));
  const kubeconfigPath = join(root, 'kubeconfig');
  await writeFile(kubeconfigPath, yaml, { mode: 0o600 });
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await launcher.stopProcesses();
      await rm(root, { recursive: true, force: true });
    })());
  return {
    clusters,
    version: binaries.version,
    kubeconfigPath,
    kubeconfigYaml: yaml,
    get(name) {
      const found = clusters.find((c) => c.name === name);
      if (found === undefined) throw new RealClusterStartError(`no real cluster named "${name}" (have ${options.names.join(', ')})`);
      return found;
    },
    processes: () => launcher.processes.map((p) => ({ name: p.name, pid: p.pid, logFile: p.logFile })),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Checks the names and counts of the options; returns `nodes` and `podsPerNode` with their defaults. */
function validateOptions(options: StartRealClustersOptions): { nodes: number; podsPerNode: number } {
  const { names } = options;
  const nodes = options.nodes ?? 2;
  const podsPerNode = options.podsPerNode ?? 110;
  if (names.length === 0) throw new RealClusterStartError('startRealClusters needs at least one cluster name');
  if (new Set(names).size !== names.length) throw new RealClusterStartError(`startRealClusters got duplicate names: ${names.join(', ')}`);
  for (const name of names) {
    if (!/^[a-z0-9]([a-z0-9-]{0,40}[a-z0-9])?$/.test(name))
      throw new RealClusterStartError(`cluster name "${name}" is not a short DNS label`);
  }
  if (!Number.isInteger(nodes) || nodes < 1) throw new RealClusterStartError(`nodes must be a positive integer, got ${nodes}`);
  if (!Number.isInteger(podsPerNode) || podsPerNode < 0)
    throw new RealClusterStartError(`podsPerNode must be a non-negative integer, got ${podsPerNode}`);
  return { nodes, podsPerNode };
}

/** A control-plane process to start: its name (e.g. `kube-apiserver[member1]`), binary, arguments and log directory. */
interface ComponentSpec {
  readonly name: string;
  readonly binary: string;
  readonly args: readonly string[];
  readonly logDir: string;
}

type Start = (spec: ComponentSpec) => Promise<ComponentProcess>;
type WaitUntil = (what: string, blame: ComponentProcess, check: () => Promise<string | undefined>) => Promise<void>;

/** A started cluster: its member description and its apiserver. */
interface Running {
  member: Member;
  apiserver: Apiserver;
}

/** Starts and stops the processes of one {@link startRealClusters} call. */
class Launcher {
  /** Every process started, in start order. */
  readonly processes: ComponentProcess[] = [];
  readonly #clients: DynamicClient[] = [];
  // Clusters start in parallel: the first failure aborts the others, so that none spawns a
  // process after the failed start has stopped them.
  readonly #failure = new AbortController();

  constructor(
    private readonly ctx: {
      binaries: KubeBinaries;
      root: string;
      podsPerNode: number;
      progress: (message: string) => void;
      deadline: number;
    },
  ) {}

  /**
   * Starts etcd, then every member in parallel; resolves once all are ready. On a failure stops
   * everything started and rejects with a {@link RealClusterStartError} that points at the logs.
   */
  async launch(members: readonly Member[]): Promise<Running[]> {
    const { binaries, root } = this.ctx;
    let running: Running[];
    try {
      const etcdUrl = await this.#step('etcd ready', () => startEtcd({ binaries, root, start: this.#start, waitUntil: this.#waitUntil }));
      const started = await Promise.allSettled(members.map((m) => this.#startMember(m, etcdUrl)));
      running = started.map((r) => {
        if (r.status === 'rejected') throw this.#failure.signal.reason;
        return r.value;
      });
    } catch (err) {
      await this.stopProcesses();
      if (err instanceof RealClusterStartError) {
        throw new RealClusterStartError(`${err.message}\n(logs kept in ${root})`, { cause: err.cause });
      }
      throw new RealClusterStartError(
        `starting real clusters failed: ${err instanceof Error ? err.message : String(err)} (logs kept in ${root})`,
        { cause: err },
      );
    }
    for (const c of this.#clients.splice(0)) c.close();
    return running;
  }

  async #startMember(m: Member, etcdUrl: string): Promise<Running> {
    const { binaries, podsPerNode } = this.ctx;
    const [start, waitUntil] = [this.#start, this.#waitUntil];
    try {
      await mkdir(m.dir);
      const apiserver = await this.#step(`${m.name}: kube-apiserver ready`, () =>
        startApiserver(m, { binaries, etcdUrl, start, waitUntil, clients: this.#clients }),
      );
      await this.#step(`${m.name}: controller-manager, scheduler, kwok and ${m.nodeNames.length} nodes ready`, () =>
        startRest(m, apiserver, { binaries, podsPerNode, start, waitUntil }),
      );
      return { member: m, apiserver };
    } catch (err) {
      this.#failure.abort(err);
      throw err;
    }
  }

  /** Stops every process: the clients of the apiservers first, then the apiservers, then etcd. */
  async stopProcesses(): Promise<void> {
    for (const c of this.#clients.splice(0)) c.close();
    const waves = [
      this.processes.filter((p) => !p.name.startsWith('kube-apiserver') && p.name !== 'etcd'),
      this.processes.filter((p) => p.name.startsWith('kube-apiserver')),
      this.processes.filter((p) => p.name === 'etcd'),
    ];
    for (const wave of waves) await Promise.all(wave.map((p) => p.stop()));
  }

  readonly #start: Start = async ({ name, binary, args, logDir }) => {
    this.#failure.signal.throwIfAborted();
    const p = await ComponentProcess.start(name, { binary, args, logFile: join(logDir, `${name.replace(/\[.*$/, '')}.log`) });
    this.processes.push(p);
    return p;
  };

  readonly #waitUntil: WaitUntil = (what, blame, check) =>
    waitFor({ what, blame, check, deadline: this.ctx.deadline, processes: this.processes, signal: this.#failure.signal });

  async #step<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const t0 = Date.now();
    const result = await fn();
    this.ctx.progress(`${what} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
    return result;
  }
}

/** One etcd for all clusters; resolves with its client URL once `/health` answers 200. */
async function startEtcd(ctx: { binaries: KubeBinaries; root: string; start: Start; waitUntil: WaitUntil }): Promise<string> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const etcd = await ctx.start({
    name: 'etcd',
    binary: ctx.binaries.etcd,
    args: [
      '--name=kubefed-real',
      `--data-dir=${join(ctx.root, 'etcd')}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=kubefed-real=${peerUrl}`,
      // Throw-away data: skip fsync, which is most of etcd's latency on a busy disk.
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ],
    logDir: ctx.root,
  });
  await ctx.waitUntil('etcd /health', etcd, async () =>
    (await httpStatus(`${clientUrl}/health`)) === 200 ? undefined : 'not healthy yet',
  );
  return clientUrl;
}

/** Certificates, token file and kube-apiserver of one cluster; resolves once `/readyz` answers 200. */
async function startApiserver(
  m: Member,
  ctx: { binaries: KubeBinaries; etcdUrl: string; start: Start; waitUntil: WaitUntil; clients: DynamicClient[] },
): Promise<Apiserver> {
  const pki = await createClusterPki({ dir: m.dir, clusterName: m.name, serviceIp: SERVICE_IP });
  const tokenFile = join(m.dir, 'tokens.csv');
  await writeFile(tokenFile, `${m.adminToken},kubefed-admin-token,kubefed-admin-token,"system:masters"\n`, { mode: 0o600 });
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const apiserver = await ctx.start({
    name: `kube-apiserver[${m.name}]`,
    binary: ctx.binaries.kubeApiserver,
    args: [
      `--etcd-servers=${ctx.etcdUrl}`,
      `--etcd-prefix=/kubefed-real/${m.name}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${port}`,
      // The `kubernetes` Endpoints would point at 127.0.0.1, which Endpoints validation rejects.
      '--endpoint-reconciler-type=none',
      `--cert-dir=${m.dir}`,
      `--tls-cert-file=${pki.apiserver.certFile}`,
      `--tls-private-key-file=${pki.apiserver.keyFile}`,
      `--client-ca-file=${pki.ca.certFile}`,
      `--token-auth-file=${tokenFile}`,
      // The request-header (front proxy) set-up of kubeadm, with the cluster CA: the delegated
      // authentication of kube-controller-manager and kube-scheduler reads it, as do aggregated APIs.
      `--requestheader-client-ca-file=${pki.ca.certFile}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--proxy-client-cert-file=${pki.frontProxyClient.certFile}`,
      `--proxy-client-key-file=${pki.frontProxyClient.keyFile}`,
      '--authorization-mode=Node,RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.serviceAccountPublicKeyFile}`,
      `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--profiling=false',
    ],
    logDir: m.dir,
  });
  const client = DynamicClient.fromKubeconfig(
    Kubeconfig.fromString(kubeconfigYaml(kubeconfigOf([kubeconfigEntries(m.name, { url, pki })]))),
    { qps: 0 },
  );
  ctx.clients.push(client);
  await ctx.waitUntil(`kube-apiserver[${m.name}] /readyz`, apiserver, async () => {
    const res = await client.raw('/readyz', { timeoutMs: 2_000 }).catch((err: unknown) => ({ status: 0, body: String(err) }));
    return res.status === 200 ? undefined : `/readyz: ${res.status} ${res.body.slice(-300)}`;
  });
  return { url, pki, client };
}

type RestContext = { binaries: KubeBinaries; podsPerNode: number; start: Start; waitUntil: WaitUntil };

/** kube-controller-manager, kube-scheduler, kwok and the fake Nodes of one cluster; resolves once all are ready. */
async function startRest(m: Member, apiserver: Apiserver, ctx: RestContext): Promise<void> {
  const [kcmPort, schedulerPort] = [await freePort(), await freePort()];
  const controllerManager = await startControllerManager(m, apiserver, { ctx, port: kcmPort });
  const scheduler = await startScheduler(m, apiserver, { ctx, port: schedulerPort });
  const kwok = await startKwok(m, apiserver, ctx);
  const nodeClient = apiserver.client.resource(RESOURCES.nodes);
  const zones = ['a', 'b', 'c'].map((z) => `${m.region}${z}`);
  await Promise.all(
    m.nodeNames.map((name, i) =>
      nodeClient.create(fakeNode({ name, region: m.region, zone: zones[i % zones.length] ?? m.region, pods: ctx.podsPerNode })),
    ),
  );

  await ctx.waitUntil(`kube-controller-manager[${m.name}] /healthz`, controllerManager, async () =>
    (await httpStatus(`https://127.0.0.1:${kcmPort}/healthz`)) === 200 ? undefined : 'not healthy yet',
  );
  await ctx.waitUntil(`kube-scheduler[${m.name}] /healthz`, scheduler, async () =>
    (await httpStatus(`https://127.0.0.1:${schedulerPort}/healthz`)) === 200 ? undefined : 'not healthy yet',
  );
  await ctx.waitUntil(`the nodes of ${m.name} to be Ready and untainted`, kwok, async () => {
    const list = await nodeClient.list();
    for (const name of m.nodeNames) {
      const node = list.items.find((n) => n.metadata?.name === name);
      const problem = nodeProblem(node, ctx.podsPerNode);
      if (problem !== undefined) return `${name}: ${problem}`;
    }
    return undefined;
  });
  await ctx.waitUntil(`the default ServiceAccount of ${m.name}`, controllerManager, async () => {
    try {
      await apiserver.client.resource(RESOURCES.serviceAccounts, 'default').get('default');
      return undefined;
    } catch (err) {
      if (isNotFound(err)) return 'not created yet';
      throw err;
    }
  });
}

/** Writes `<member dir>/<user>.kubeconfig` for a component authenticating with the client certificate `cert`. */
async function componentKubeconfig(
  m: Member,
  apiserver: Apiserver,
  identity: { user: string; cert: { certFile: string; keyFile: string } },
): Promise<string> {
  const { user, cert } = identity;
  const file = join(m.dir, `${user}.kubeconfig`);
  await writeFile(
    file,
    kubeconfigYaml({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: m.name, cluster: { server: apiserver.url, 'certificate-authority': apiserver.pki.ca.certFile } }],
      users: [{ name: user, user: { 'client-certificate': cert.certFile, 'client-key': cert.keyFile } }],
      contexts: [{ name: m.name, context: { cluster: m.name, user } }],
      'current-context': m.name,
    }),
    { mode: 0o600 },
  );
  return file;
}

/**
 * The flags kube-controller-manager and kube-scheduler share: `kubeconfig` for the API and for
 * delegated authentication and authorization, HTTPS health on loopback `port` with a self-signed
 * certificate in the member's directory, no leader election.
 */
function componentFlags(m: Member, kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${m.dir}`,
    '--leader-elect=false',
  ];
}

async function startControllerManager(m: Member, apiserver: Apiserver, at: { ctx: RestContext; port: number }): Promise<ComponentProcess> {
  const { pki } = apiserver;
  const kubeconfig = await componentKubeconfig(m, apiserver, { user: 'controller-manager', cert: pki.controllerManager });
  return at.ctx.start({
    name: `kube-controller-manager[${m.name}]`,
    binary: at.ctx.binaries.kubeControllerManager,
    args: [
      ...componentFlags(m, kubeconfig, at.port),
      `--cluster-name=${m.name}`,
      `--service-account-private-key-file=${pki.serviceAccountKeyFile}`,
      `--root-ca-file=${pki.ca.certFile}`,
      '--use-service-account-credentials=true',
      `--cluster-signing-cert-file=${pki.ca.certFile}`,
      `--cluster-signing-key-file=${pki.ca.keyFile}`,
      '--profiling=false',
    ],
    logDir: m.dir,
  });
}

async function startScheduler(m: Member, apiserver: Apiserver, at: { ctx: RestContext; port: number }): Promise<ComponentProcess> {
  const kubeconfig = await componentKubeconfig(m, apiserver, { user: 'scheduler', cert: apiserver.pki.scheduler });
  return at.ctx.start({
    name: `kube-scheduler[${m.name}]`,
    binary: at.ctx.binaries.kubeScheduler,
    args: [...componentFlags(m, kubeconfig, at.port), '--profiling=false'],
    logDir: m.dir,
  });
}

/**
 * kwok runs its built-in node and pod stages (no Stage CRDs, no config): Nodes become Ready
 * and keep heartbeating, scheduled pods become Running. Node Leases as a kubelet renews them
 * (40 s): without, kwok posts Node status only once a minute, longer than the node lifecycle
 * controller's grace period, which then marks every Node unknown and every pod not Ready.
 */
async function startKwok(m: Member, apiserver: Apiserver, ctx: RestContext): Promise<ComponentProcess> {
  const kubeconfig = await componentKubeconfig(m, apiserver, { user: 'kwok', cert: apiserver.pki.admin });
  return ctx.start({
    name: `kwok[${m.name}]`,
    binary: ctx.binaries.kwok,
    args: [
      `--kubeconfig=${kubeconfig}`,
      '--node-lease-duration-seconds=40',
      '--manage-all-nodes=false',
      `--manage-nodes-with-annotation-selector=${KWOK_ANNOTATION}=fake`,
      '--cidr=10.244.0.1/16',
    ],
    logDir: m.dir,
  });
}

/** A Node that kwok manages (by annotation), with `pods` allocatable. */
function fakeNode(spec: { name: string; region: string; zone: string; pods: number }): KubeObject {
  const resources = { cpu: '32', memory: '256Gi', pods: String(spec.pods) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: spec.name,
      annotations: { [KWOK_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        'kubernetes.io/hostname': spec.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/role': 'agent',
        type: 'kwok',
        'topology.kubernetes.io/region': spec.region,
        'topology.kubernetes.io/zone': spec.zone,
      },
    },
    spec: {},
    // kwok's node-initialize stage keeps a status.allocatable/capacity that is already there.
    status: { allocatable: resources, capacity: resources },
  };
}

interface NodeStatusView {
  spec?: { taints?: { key?: string; effect?: string }[] };
  status?: { allocatable?: { pods?: string }; conditions?: { type?: string; status?: string }[] };
}

/** Why a Node is not yet usable by the scheduler (undefined once it is). */
function nodeProblem(node: KubeObject | undefined, pods: number): string | undefined {
  if (node === undefined) return 'missing';
  const view = node as NodeStatusView;
  if (view.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') return 'not Ready';
  const taint = view.spec?.taints?.find((t) => t.key?.startsWith('node.kubernetes.io/') === true);
  if (taint !== undefined) return `tainted ${taint.key ?? ''}:${taint.effect ?? ''}`;
  const allocatable = view.status?.allocatable?.pods;
  if (allocatable !== String(pods)) return `allocatable pods is ${allocatable ?? 'unset'}, not ${pods}`;
  return undefined;
}

/** Polls `check` (undefined = done) until `deadline`, failing early when any component has exited or `signal` aborts. */
async function waitFor(spec: {
  what: string;
  blame: ComponentProcess;
  check: () => Promise<string | undefined>;
  deadline: number;
  processes: readonly ComponentProcess[];
  /** Aborted when another cluster failed to start: stop waiting. */
  signal: AbortSignal;
}): Promise<void> {
  for (;;) {
    spec.signal.throwIfAborted();
    for (const p of spec.processes) await p.assertRunning();
    let last: string;
    try {
      const problem = await spec.check();
      if (problem === undefined) return;
      last = problem;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() >= spec.deadline) {
      throw new RealClusterStartError(
        `timed out waiting for ${spec.what} (last: ${last}); last lines of ${spec.blame.name}'s log ${spec.blame.logFile}:\n${await spec.blame.tail()}`,
      );
    }
    await sleep(POLL_MS);
  }
}

type KubeconfigEntries = { cluster: JsonValue; user: JsonValue; context: JsonValue; name: string };

/** The cluster, user and context of one cluster's admin, all named after it. */
function kubeconfigEntries(name: string, apiserver: Pick<Apiserver, 'url' | 'pki'>): KubeconfigEntries {
  const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
  const { url, pki } = apiserver;
  return {
    name,
    cluster: { name, cluster: { server: url, 'certificate-authority-data': b64(pki.ca.certPem) } },
    user: { name, user: { 'client-certificate-data': b64(pki.admin.certPem), 'client-key-data': b64(pki.admin.keyPem) } },
    context: { name, context: { cluster: name, user: name } },
  };
}

/** A kubeconfig of these clusters; current-context = the first. */
function kubeconfigOf(entries: readonly KubeconfigEntries[]): JsonValue {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: entries.map((e) => e.cluster),
    users: entries.map((e) => e.user),
    contexts: entries.map((e) => e.context),
    'current-context': entries[0]?.name ?? '',
  };
}
