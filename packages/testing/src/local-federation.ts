import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBEFED_NAMESPACE_DEFAULT, kubeFedCrds, RESOURCES } from '@kubefed/api';
import { DynamicClient, isAlreadyExists, Kubeconfig, type KubeObject } from '@kubefed/client';
import { DEFAULT_REGIONS } from './default-regions.js';
import { eventually } from './eventually.js';
import { type LocalClusters, startLocalClusters, substrateFromEnvironment, type Substrate } from './local-clusters.js';
import type { SimProcesses } from './sim-processes.js';
import { type CommandResult, ManagedProcess, runSourceEntry, sourceEntry } from './managed-process.js';
import type { RealClusters } from './real-clusters/start-real-clusters.js';
import { startRedis, type RedisHandle } from './start-redis.js';
import { TestingError } from './testing-error.js';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const CONTROLLER_MANAGER = 'packages/controller-manager/src/main.ts';
const KUBEFEDCTL = 'packages/kubefedctl/src/main.ts';

/**
 * Leader election short enough that a replacement of a killed leader takes the Lease within a
 * few seconds (the defaults wait 15 s for the dead leader's claim to expire).
 */
const FAST_LEADER_ELECTION = [
  '--leader-elect-lease-duration',
  '3s',
  '--leader-elect-renew-deadline',
  '2s',
  '--leader-elect-retry-period',
  '500ms',
] as const;

/**
 * Health checks that notice an unreachable member within a few seconds: every second, giving up
 * after two failures (the defaults, 10 s x 3, would cost half a minute per fault).
 */
const FAST_HEALTH_CHECKS = { period: '1s', timeout: '1s', failureThreshold: 2, successThreshold: 1 } as const;

/** `kubefedctl join` processes run at once by {@link startLocalFederation}. */
const JOINS_AT_ONCE = 8;

export { DEFAULT_REGIONS };

/** The environment variable that joins the host as a member of every local federation that joins members (`hostAsMember`). */
export const HOST_AS_MEMBER_ENV = 'KUBEFED_E2E_HOST_AS_MEMBER';

/** The context, and KubeFedCluster name, of the host cluster. */
const HOST = 'host';

/**
 * Whether `value` (default: the environment variable `KUBEFED_E2E_HOST_AS_MEMBER`) asks for the
 * host as a member: `1` or `true` yes; unset, empty, `0` or `false` no.
 *
 * @throws TestingError for any other value.
 */
export function hostAsMemberFromEnvironment(value: string | undefined = process.env[HOST_AS_MEMBER_ENV]): boolean {
  if (value === undefined || value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new TestingError(`${HOST_AS_MEMBER_ENV} must be 1 or 0, got "${value}"`);
}

/** Options of {@link startLocalFederation}. */
export interface LocalFederationOptions {
  /**
   * What the host and members run on: `sim` (the kube-sim CLI) or `real` (etcd, kube-apiserver,
   * kube-controller-manager, kube-scheduler and kwok per cluster, from `npm run kube:build`).
   * Default: the environment variable `KUBEFED_TEST_SUBSTRATE`, else `sim`.
   */
  readonly substrate?: Substrate;
  /**
   * `sim` only: how the clusters are spread over kube-sim CLI processes (`one`, `host-apart`,
   * `per-cluster`; see {@link SimProcesses}). Default `one`: one process, whose event loop the
   * host's requests share with every member's.
   */
  readonly simProcesses?: SimProcesses;
  /** Member cluster names (also their kubeconfig contexts and KubeFedCluster names); default member1..member3. */
  readonly members?: readonly string[];
  /** Region of each member's Nodes; default {@link DEFAULT_REGIONS}, else `region-<name>`. */
  readonly regions?: Readonly<Record<string, string>>;
  /** Pods each member can run (kube-sim `--pod-capacity`; on `real` the Nodes' allocatable pods); default unlimited. */
  readonly podCapacity?: Readonly<Record<string, number>>;
  /** Where the kubeconfig is written (contexts `host` and one per member); default a temporary directory. */
  readonly kubeconfigPath?: string;
  /** Redis to use when it answers; default `REDIS_URL`; else a private redis-server is started. */
  readonly redisUrl?: string | undefined;
  /** BullMQ key prefix; default a unique one. */
  readonly queuePrefix?: string;
  /**
   * Create the KubeFedConfig `kubefed` with this scope before anything else runs (what the
   * controller manager creates at its start, and `kubefedctl join` reads). Default: none is
   * created here; the controller manager creates one with scope Cluster.
   */
  readonly scope?: 'Cluster' | 'Namespaced';
  /** Start a controller manager process (`--mode all`) with these extra flags; `false` starts none. Default `[]`. */
  readonly controllerManager?: readonly string[] | false;
  /** Controller managers (this one and later ones) take over a dead leader's Lease within seconds; default false. */
  readonly fastLeaderElection?: boolean;
  /**
   * Health checks every second, two failures to give up (set in the KubeFedConfig before the
   * joins). Needs a controller manager or `scope`, which create the KubeFedConfig. Default false.
   */
  readonly fastHealthChecks?: boolean;
  /** Members to join with `kubefedctl join`: `true` every one, `false` none, or a list of them. Default true. */
  readonly join?: boolean | readonly string[];
  /**
   * Join the host as a member of its own federation too, with the members and the same flags,
   * under the name of its context, `host` (KubeFed's CI topology: its host cluster is also a
   * member, named after its context). With `join: false` nothing is joined, the host neither (a
   * file that joins by hand joins the host by hand); `true` then throws a TestingError. Default:
   * the environment variable `KUBEFED_E2E_HOST_AS_MEMBER` ({@link hostAsMemberFromEnvironment}), else false.
   */
  readonly hostAsMember?: boolean;
  /** Extra `kubefedctl join` flags (e.g. `--least-privilege`); default none. */
  readonly joinFlags?: readonly string[];
  /**
   * Types to `kubefedctl enable`: `default` (`--default-types`), or a list of type names or of
   * `enable` arguments (`['deployments.apps', '--federated-group', 'g.example']`), enabled in
   * order; `[]` enables none. Default `default`.
   */
  readonly types?: 'default' | readonly (string | readonly string[])[];
  /** Called with a line per step (`starting kube-sim ...`, `joined member1 (2.1s)`). */
  readonly onProgress?: (message: string) => void;
  /**
   * Aborts the start: no step begins once it has fired, what was started is stopped, temporary
   * files are removed and the promise rejects. Default none.
   */
  readonly signal?: AbortSignal;
}

/** A running local federation: host and member clusters (kube-sim or real), Redis, controller manager processes. */
export interface LocalFederation extends AsyncDisposable {
  readonly substrate: Substrate;
  readonly kubeconfigPath: string;
  /** `host`. */
  readonly hostContext: string;
  /** Whether the host is a member of its own federation (`hostAsMember`), as KubeFedCluster `host`. */
  readonly hostAsMember: boolean;
  /** The member clusters: `host` first when it is one (`hostAsMember`), then those of the `members` option. */
  readonly members: readonly string[];
  /** The clusters joined by the start: `host` first when it is a member, then those of the `join` option; empty with `join: false`. */
  readonly joined: readonly string[];
  readonly namespace: string;
  readonly redis: RedisHandle;
  readonly queuePrefix: string;
  /** The kube-sim CLI process serving the host (substrate `sim` only). */
  readonly kubeSim: ManagedProcess | undefined;
  /** Every kube-sim CLI process, the host's first (substrate `sim`; see `simProcesses`); empty on `real`. */
  readonly kubeSims: readonly ManagedProcess[];
  /** The real clusters (substrate `real` only): their processes, pids and log directories. */
  readonly realClusters: RealClusters | undefined;
  /** Controller manager processes started so far (stopped ones included). */
  readonly controllerManagers: readonly ManagedProcess[];
  /** An admin client of a context (`host` or a member); owned by the federation. */
  client(context: string): DynamicClient;
  /** Runs `kubefedctl --kubeconfig <path> ...args` as a process. */
  kubefedctl(args: readonly string[], options?: { timeoutMs?: number }): Promise<CommandResult>;
  /** Starts one more controller manager process with the common flags plus `args`; resolves once it serves health. */
  startControllerManager(args?: readonly string[]): Promise<ManagedProcess>;
  /**
   * Resolves once the KubeFedCluster of every member is Ready (as a controller manager's health
   * checks write it). Default timeout 60 s.
   *
   * @throws TestingError naming the members not Ready in time.
   */
  waitForReady(timeoutMs?: number): Promise<void>;
  /**
   * Fault injection on one cluster. `sim`: any kube-sim fault (`{ unreachable: true }`,
   * `{ latencyMs }`, `{ podCapacity }`, ...; see kube-sim's README). `real`: `{ unreachable: true }`
   * (SIGSTOP to its kube-apiserver), `{ restore: true }`, `{ podCapacity: N | null }`; other faults
   * reject with a TestingError.
   */
  fault(cluster: string, fault: Readonly<Record<string, unknown>>): Promise<void>;
  /** Restores the unreachable faults of every cluster (works while a cluster is unreachable). */
  restoreFaults(): void;
  /** Stops every process it started and removes temporary files. Idempotent. */
  stop(): Promise<void>;
}

const childEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env['KUBECONFIG'];
  return env;
};

/**
 * Starts a whole local federation the way a user would run one: the host and members in
 * distinct regions (the kube-sim CLI, or real control planes: `options.substrate`), Redis, the
 * KubeFed CRDs and namespace in the host (and the KubeFedConfig when `options.scope` says so),
 * the controller manager as a separate process, `kubefedctl join` of every member and
 * `kubefedctl enable` of the types, then waits until every KubeFedCluster is Ready. On any
 * failure, what was started is stopped and the error names the step.
 */
export async function startLocalFederation(options: LocalFederationOptions = {}): Promise<LocalFederation> {
  if (options.fastHealthChecks === true && options.controllerManager === false && options.scope === undefined)
    throw new TestingError('local federation: fastHealthChecks needs a KubeFedConfig: start a controller manager or give a scope');
  if (options.hostAsMember === true && options.join === false)
    throw new TestingError('local federation: hostAsMember joins the host with the members: it needs join other than false');
  if (options.members?.includes(HOST) === true)
    throw new TestingError(`local federation: "${HOST}" is the host, not a member name: join it as one with hostAsMember`);
  const starting = new LocalFederationStart(options);
  try {
    return await starting.run();
  } catch (err) {
    await starting.cleanup();
    throw err;
  }
}

/** The steps of {@link startLocalFederation} and what they started, stopped in reverse on failure or at the end. */
class LocalFederationStart {
  readonly #options: LocalFederationOptions;
  /** The member clusters started beside the host. */
  readonly #members: readonly string[];
  /** The host's own KubeFedCluster, when it is a member: `['host']`, else `[]`. */
  readonly #hostMember: readonly string[];
  /** The clusters joined at the start, the host first. */
  readonly #joined: readonly string[];
  readonly #started: (() => Promise<unknown>)[] = [];
  readonly #clients = new Map<string, DynamicClient>();
  readonly #controllerManagers: ManagedProcess[] = [];
  #dir: string | undefined;
  #kubeconfig: Kubeconfig | undefined;

  constructor(options: LocalFederationOptions) {
    this.#options = options;
    this.#members = options.members ?? ['member1', 'member2', 'member3'];
    const join = options.join ?? true;
    this.#hostMember = join !== false && (options.hostAsMember ?? hostAsMemberFromEnvironment()) ? [HOST] : [];
    this.#joined = join === false ? [] : [...this.#hostMember, ...(join === true ? this.#members : join)];
  }

  async run(): Promise<LocalFederation> {
    const options = this.#options;
    this.#dir = await mkdtemp(join(tmpdir(), 'kubefed-local-'));
    const kubeconfigPath = options.kubeconfigPath ?? join(this.#dir, 'kubeconfig');
    const substrate = options.substrate ?? substrateFromEnvironment();
    const clusters = await this.#startClusters(substrate, kubeconfigPath);
    this.#kubeconfig = Kubeconfig.fromFile(kubeconfigPath);
    const redis = await this.#step('Redis ready', () => startRedis({ url: options.redisUrl }));
    this.#started.push(() => redis.stop());
    const queuePrefix = options.queuePrefix ?? redis.prefix('kubefed');
    await this.#step('installed the KubeFed CRDs and namespace in the host', () => this.#installControlPlane());
    const startControllerManager = (args: readonly string[] = []): Promise<ManagedProcess> =>
      this.#startControllerManager([...this.#commonFlags(kubeconfigPath, redis.url, queuePrefix), ...args]);
    const kubefedctl = (args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<CommandResult> =>
      runSourceEntry(KUBEFEDCTL, ['--kubeconfig', kubeconfigPath, ...args], { env: childEnv(), ...opts });
    const members = [...this.#hostMember, ...this.#members];
    const waitForReady = (timeoutMs = 60_000): Promise<void> => waitForReadyClusters(this.#client(HOST), members, timeoutMs);
    await this.#configure({ startControllerManager, kubefedctl });
    let stopped: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopped ??= this.cleanup());
    return {
      kubeconfigPath,
      hostContext: HOST,
      hostAsMember: this.#hostMember.length > 0,
      members,
      joined: this.#joined,
      namespace: KUBEFED_NAMESPACE_DEFAULT,
      redis,
      queuePrefix,
      substrate,
      kubeSim: clusters.kubeSim,
      kubeSims: clusters.kubeSims,
      realClusters: clusters.real,
      controllerManagers: this.#controllerManagers,
      client: (context) => this.#client(context),
      kubefedctl,
      startControllerManager,
      waitForReady,
      fault: (cluster, fault) => clusters.fault(cluster, fault, this.#client(cluster)),
      restoreFaults: () => clusters.restoreFaults(),
      stop,
      [Symbol.asyncDispose]: stop,
    };
  }

  async cleanup(): Promise<void> {
    for (const c of this.#clients.values()) c.close();
    this.#clients.clear();
    for (const stop of this.#started.splice(0).reverse()) await stop().catch(() => undefined);
    if (this.#dir !== undefined) await rm(this.#dir, { recursive: true, force: true });
  }

  async #step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    if (this.#options.signal?.aborted === true) throw new TestingError(`local federation: aborted before ${name}`);
    const t0 = Date.now();
    try {
      const result = await fn();
      this.#options.onProgress?.(`${name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
      return result;
    } catch (err) {
      throw new TestingError(`local federation: ${name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  #client(context: string): DynamicClient {
    if (this.#kubeconfig === undefined) throw new TestingError('local federation: no kubeconfig yet');
    let c = this.#clients.get(context);
    if (c === undefined) this.#clients.set(context, (c = DynamicClient.fromKubeconfig(this.#kubeconfig, { context, qps: 0 })));
    return c;
  }

  async #startClusters(substrate: Substrate, kubeconfigPath: string): Promise<LocalClusters> {
    const names = ['host', ...this.#members];
    const clusters = await this.#step(`started ${substrate === 'real' ? 'real clusters' : 'kube-sim'}: ${names.join(', ')}`, () =>
      startLocalClusters({
        substrate,
        names,
        kubeconfigPath,
        regions: { ...DEFAULT_REGIONS, ...this.#options.regions },
        podCapacity: this.#options.podCapacity ?? {},
        simProcesses: this.#options.simProcesses,
      }),
    );
    this.#started.push(() => clusters.stop());
    return clusters;
  }

  async #installControlPlane(): Promise<void> {
    const host = this.#client('host');
    const crds = kubeFedCrds();
    for (const crd of crds) await createIfMissing(host.resource(CRDS), crd as unknown as KubeObject);
    // A real API server serves a CRD's resource only once it is Established.
    await waitForEstablished(
      host,
      crds.map((c) => c.metadata.name),
      30_000,
    );
    const namespace = KUBEFED_NAMESPACE_DEFAULT;
    await createIfMissing(host.resource(RESOURCES.namespaces), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const scope = this.#options.scope;
    if (scope === undefined) return;
    const spec = { scope, ...(this.#options.fastHealthChecks === true ? { clusterHealthCheck: FAST_HEALTH_CHECKS } : {}) };
    await host
      .resource(RESOURCES.kubeFedConfigs, namespace)
      .create({ apiVersion: 'core.kubefed.io/v1beta1', kind: 'KubeFedConfig', metadata: { name: 'kubefed' }, spec });
  }

  /** The controller manager, fast health checks, joins, enabled types and the wait for Ready, as the options ask. */
  async #configure(fed: Pick<LocalFederation, 'startControllerManager' | 'kubefedctl'>): Promise<void> {
    const options = this.#options;
    const cmArgs = options.controllerManager;
    if (cmArgs !== false) await this.#step('started kubefed-controller-manager', () => fed.startControllerManager(cmArgs ?? []));
    if (options.fastHealthChecks === true && options.scope === undefined) {
      await this.#step('fast health checks in the KubeFedConfig', () =>
        this.#client('host')
          .resource(RESOURCES.kubeFedConfigs, KUBEFED_NAMESPACE_DEFAULT)
          .patch('kubefed', { spec: { clusterHealthCheck: FAST_HEALTH_CHECKS } }, 'merge'),
      );
    }
    const must = async (args: readonly string[]): Promise<void> => {
      const r = await fed.kubefedctl(args);
      if (r.code !== 0) throw new TestingError(`kubefedctl ${args.join(' ')} exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`);
    };
    const joinFlags = options.joinFlags ?? [];
    const joined = this.#joined;
    // Eight joins at a time: each is a process of its own, and a hundred at once overload the machine.
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(JOINS_AT_ONCE, joined.length) }, async () => {
        for (let m = joined[next++]; m !== undefined; m = joined[next++])
          await this.#step(`joined ${m}`, () => must(['join', m, '--cluster-context', m, '--host-cluster-context', HOST, ...joinFlags]));
      }),
    );
    const types = options.types ?? 'default';
    if (types === 'default') {
      await this.#step('enabled the default types', () => must(['enable', '--default-types', '--host-cluster-context', 'host']));
    } else {
      for (const t of types) {
        const args = typeof t === 'string' ? [t] : t;
        await this.#step(`enabled ${args.join(' ')}`, () => must(['enable', ...args, '--host-cluster-context', 'host']));
      }
    }
    if (joined.length > 0 && cmArgs !== false)
      await this.#step('every joined cluster Ready', () => waitForReadyClusters(this.#client('host'), joined, 60_000));
  }

  #commonFlags(kubeconfigPath: string, redisUrl: string, queuePrefix: string): string[] {
    return [
      '--kubeconfig',
      kubeconfigPath,
      '--context',
      'host',
      '--redis-url',
      redisUrl,
      '--queue-prefix',
      queuePrefix,
      '--metrics-addr',
      '127.0.0.1:0',
      '--health-addr',
      '127.0.0.1:0',
      ...(this.#options.fastLeaderElection === true ? FAST_LEADER_ELECTION : []),
    ];
  }

  async #startControllerManager(args: readonly string[]): Promise<ManagedProcess> {
    const cm = new ManagedProcess(
      `kubefed-controller-manager-${this.#controllerManagers.length + 1}`,
      [...sourceEntry(CONTROLLER_MANAGER), ...args],
      {
        env: childEnv(),
      },
    );
    this.#controllerManagers.push(cm);
    this.#started.push(() => cm.stop());
    await cm.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true, timeoutMs: 60_000 });
    return cm;
  }
}

async function createIfMissing(resource: ReturnType<DynamicClient['resource']>, obj: KubeObject): Promise<void> {
  try {
    await resource.create(obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** The names of the objects whose condition `type` is True. */
function withTrueCondition(items: readonly KubeObject[], type: string): Set<string | undefined> {
  return new Set(
    items
      .filter((o) =>
        ((o.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
          (x) => x.type === type && x.status === 'True',
        ),
      )
      .map((o) => o.metadata.name),
  );
}

/** Polls until every named CRD has condition Established=True. */
async function waitForEstablished(host: DynamicClient, names: readonly string[], timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      const established = withTrueCondition((await host.resource(CRDS).list()).items, 'Established');
      const pending = names.filter((n) => !established.has(n));
      if (pending.length > 0) throw new TestingError(pending.join(', '));
    },
    { timeoutMs, intervalMs: 100, message: 'CustomResourceDefinitions not Established' },
  );
}

/** Polls until every named KubeFedCluster has condition Ready=True. */
async function waitForReadyClusters(host: DynamicClient, names: readonly string[], timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      const ready = withTrueCondition((await host.resource(RESOURCES.kubeFedClusters, KUBEFED_NAMESPACE_DEFAULT).list()).items, 'Ready');
      const notReady = names.filter((n) => !ready.has(n));
      if (notReady.length > 0) throw new TestingError(notReady.join(', '));
    },
    { timeoutMs, intervalMs: 250, message: 'KubeFedClusters not Ready' },
  );
}
