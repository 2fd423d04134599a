import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBEFED_NAMESPACE_DEFAULT, kubeFedCrds, RESOURCES } from '@kubefed/api';
import { DynamicClient, isAlreadyExists, Kubeconfig, type KubeObject } from '@kubefed/client';
import { DEFAULT_REGIONS } from './default-regions.js';
import { startLocalClusters, substrateFromEnvironment, type Substrate } from './local-clusters.js';
import { type CommandResult, ManagedProcess, runSourceEntry, sourceEntry } from './managed-process.js';
import type { RealClusters } from './real-clusters/start-real-clusters.js';
import { startRedis, type RedisHandle } from './start-redis.js';
import { TestingError } from './testing-error.js';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const CONTROLLER_MANAGER = 'packages/controller-manager/src/main.ts';
const KUBEFEDCTL = 'packages/kubefedctl/src/main.ts';

export { DEFAULT_REGIONS };

/** Options of {@link startLocalFederation}. */
export interface LocalFederationOptions {
  /**
   * What the host and members run on: `sim` (the kube-sim CLI) or `real` (etcd, kube-apiserver,
   * kube-controller-manager, kube-scheduler and kwok per cluster, from `npm run kube:build`).
   * Default: the environment variable `KUBEFED_TEST_SUBSTRATE`, else `sim`.
   */
  readonly substrate?: Substrate;
  /** Member cluster names (also their kubeconfig contexts and KubeFedCluster names); default member1..member3. */
  readonly members?: readonly string[];
  /** Region of each member's Nodes; default {@link DEFAULT_REGIONS}, else `region-<name>`. */
  readonly regions?: Readonly<Record<string, string>>;
  /** Pods each member can run (kube-sim `--pod-capacity`; on `real` the Nodes' allocatable pods); default unlimited. */
  readonly podCapacity?: Readonly<Record<string, number>>;
  /** Where the kubeconfig is written (contexts `host` and one per member); default a temporary directory. */
  readonly kubeconfigPath?: string;
  /** Redis to use when it answers (e.g. REDIS_URL); else a private redis-server is started. */
  readonly redisUrl?: string | undefined;
  /** BullMQ key prefix; default a unique one. */
  readonly queuePrefix?: string;
  /** Start a controller manager process (`--mode all`) with these extra flags; `false` starts none. Default `[]`. */
  readonly controllerManager?: readonly string[] | false;
  /** Join every member with `kubefedctl join`; default true. */
  readonly join?: boolean;
  /** Run `kubefedctl enable --default-types`; default true. */
  readonly enableDefaultTypes?: boolean;
  /** Called with a line per step (`starting kube-sim ...`, `joined member1 (2.1s)`). */
  readonly onProgress?: (message: string) => void;
}

/** A running local federation: host and member clusters (kube-sim or real), Redis, controller manager processes. */
export interface LocalFederation extends AsyncDisposable {
  readonly substrate: Substrate;
  readonly kubeconfigPath: string;
  /** `host`. */
  readonly hostContext: string;
  readonly members: readonly string[];
  readonly namespace: string;
  readonly redis: RedisHandle;
  readonly queuePrefix: string;
  /** The kube-sim CLI process (substrate `sim` only). */
  readonly kubeSim: ManagedProcess | undefined;
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
 * distinct regions (the kube-sim CLI, or real control planes: `options.substrate`), Redis, the KubeFed CRDs and namespace in the host, the
 * controller manager as a separate process, `kubefedctl join` of every member and
 * `kubefedctl enable --default-types`, then waits until every KubeFedCluster is Ready. On any
 * failure, what was started is stopped and the error names the step.
 */
export async function startLocalFederation(options: LocalFederationOptions = {}): Promise<LocalFederation> {
  const members = options.members ?? ['member1', 'member2', 'member3'];
  const progress = options.onProgress ?? (() => {});
  const namespace = KUBEFED_NAMESPACE_DEFAULT;
  const started: (() => Promise<unknown>)[] = [];
  const clients = new Map<string, DynamicClient>();
  let dir: string | undefined;
  const cleanup = async (): Promise<void> => {
    for (const c of clients.values()) c.close();
    clients.clear();
    for (const stop of started.splice(0).reverse()) await stop().catch(() => undefined);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  };
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      const result = await fn();
      progress(`${name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
      return result;
    } catch (err) {
      throw new TestingError(`local federation: ${name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  };
  try {
    dir = await mkdtemp(join(tmpdir(), 'kubefed-local-'));
    const kubeconfigPath = options.kubeconfigPath ?? join(dir, 'kubeconfig');
    const substrate = options.substrate ?? substrateFromEnvironment();
    const names = ['host', ...members];
    const clusters = await step(`started ${substrate === 'real' ? 'real clusters' : 'kube-sim'}: ${names.join(', ')}`, () =>
      startLocalClusters({
        substrate,
        names,
        kubeconfigPath,
        regions: { ...DEFAULT_REGIONS, ...options.regions },
        podCapacity: options.podCapacity ?? {},
      }),
    );
    started.push(() => clusters.stop());
    const kubeconfig = Kubeconfig.fromFile(kubeconfigPath);
    const client = (context: string): DynamicClient => {
      let c = clients.get(context);
      if (c === undefined) clients.set(context, (c = DynamicClient.fromKubeconfig(kubeconfig, { context, qps: 0 })));
      return c;
    };
    const redis = await step('Redis ready', () => startRedis({ url: options.redisUrl }));
    started.push(() => redis.stop());
    const queuePrefix = options.queuePrefix ?? redis.prefix('kubefed');
    await step('installed the KubeFed CRDs and namespace in the host', async () => {
      const host = client('host');
      const crds = kubeFedCrds();
      for (const crd of crds) await createIfMissing(host.resource(CRDS), crd as unknown as KubeObject);
      // A real API server serves a CRD's resource only once it is Established.
      await waitForEstablished(
        host,
        crds.map((c) => c.metadata.name),
        30_000,
      );
      await createIfMissing(host.resource(RESOURCES.namespaces), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    });

    const controllerManagers: ManagedProcess[] = [];
    const startControllerManager = async (args: readonly string[] = []): Promise<ManagedProcess> => {
      const cm = new ManagedProcess(
        `kubefed-controller-manager-${controllerManagers.length + 1}`,
        [
          ...sourceEntry(CONTROLLER_MANAGER),
          '--kubeconfig',
          kubeconfigPath,
          '--context',
          'host',
          '--redis-url',
          redis.url,
          '--queue-prefix',
          queuePrefix,
          '--metrics-addr',
          '127.0.0.1:0',
          '--health-addr',
          '127.0.0.1:0',
          ...args,
        ],
        { env: childEnv() },
      );
      controllerManagers.push(cm);
      started.push(() => cm.stop());
      await cm.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true, timeoutMs: 60_000 });
      return cm;
    };
    const cmArgs = options.controllerManager;
    if (cmArgs !== false) await step('started kubefed-controller-manager', () => startControllerManager(cmArgs ?? []));
    const kubefedctl = (args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<CommandResult> =>
      runSourceEntry(KUBEFEDCTL, ['--kubeconfig', kubeconfigPath, ...args], { env: childEnv(), ...opts });
    const must = async (args: readonly string[]): Promise<void> => {
      const r = await kubefedctl(args);
      if (r.code !== 0) throw new TestingError(`kubefedctl ${args.join(' ')} exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`);
    };
    if (options.join !== false) {
      await Promise.all(
        members.map((m) => step(`joined ${m}`, () => must(['join', m, '--cluster-context', m, '--host-cluster-context', 'host']))),
      );
    }
    if (options.enableDefaultTypes !== false) {
      await step('enabled the default types', () => must(['enable', '--default-types', '--host-cluster-context', 'host']));
    }
    if (options.join !== false && options.controllerManager !== false) {
      await step('every member cluster Ready', () => waitForReady(client('host'), namespace, members, 60_000));
    }
    let stopped: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopped ??= cleanup());
    return {
      kubeconfigPath,
      hostContext: 'host',
      members,
      namespace,
      redis,
      queuePrefix,
      substrate,
      kubeSim: clusters.kubeSim,
      realClusters: clusters.real,
      controllerManagers,
      client,
      kubefedctl,
      startControllerManager,
      fault: (cluster, fault) => clusters.fault(cluster, fault, client(cluster)),
      restoreFaults: () => clusters.restoreFaults(),
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

async function createIfMissing(resource: ReturnType<DynamicClient['resource']>, obj: KubeObject): Promise<void> {
  try {
    await resource.create(obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** Polls until every named CRD has condition Established=True. */
async function waitForEstablished(host: DynamicClient, names: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pending: string[] = [...names];
  while (Date.now() < deadline) {
    const list = await host.resource(CRDS).list();
    const established = new Set(
      list.items
        .filter((c) =>
          ((c.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
            (x) => x.type === 'Established' && x.status === 'True',
          ),
        )
        .map((c) => c.metadata.name),
    );
    pending = names.filter((n) => !established.has(n));
    if (pending.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new TestingError(`CustomResourceDefinitions not Established within ${timeoutMs}ms: ${pending.join(', ')}`);
}

/** Polls until every named KubeFedCluster has condition Ready=True. */
async function waitForReady(host: DynamicClient, namespace: string, names: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let notReady: string[] = [...names];
  while (Date.now() < deadline) {
    const list = await host.resource(RESOURCES.kubeFedClusters, namespace).list();
    const ready = new Set(
      list.items
        .filter((c) =>
          ((c.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
            (x) => x.type === 'Ready' && x.status === 'True',
          ),
        )
        .map((c) => c.metadata.name),
    );
    notReady = names.filter((n) => !ready.has(n));
    if (notReady.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new TestingError(`KubeFedClusters not Ready within ${timeoutMs}ms: ${notReady.join(', ')}`);
}
