import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBEFED_NAMESPACE_DEFAULT, kubeFedCrds, RESOURCES } from '@kubefed/api';
import { DynamicClient, isAlreadyExists, Kubeconfig, type KubeObject } from '@kubefed/client';
import { type CommandResult, ManagedProcess, runSourceEntry, sourceEntry } from './managed-process.js';
import { startRedis, type RedisHandle } from './start-redis.js';
import { TestingError } from './testing-error.js';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const KUBE_SIM = 'packages/kube-sim/src/cli.ts';
const CONTROLLER_MANAGER = 'packages/controller-manager/src/main.ts';
const KUBEFEDCTL = 'packages/kubefedctl/src/main.ts';

/** Regions of the default members, so that each lands in its own. */
export const DEFAULT_REGIONS: Readonly<Record<string, string>> = { member1: 'us-east-1', member2: 'eu-west-1', member3: 'ap-southeast-1' };

/** Options of {@link startLocalFederation}. */
export interface LocalFederationOptions {
  /** Member cluster names (also their kubeconfig contexts and KubeFedCluster names); default member1..member3. */
  readonly members?: readonly string[];
  /** Region of each member's Nodes; default {@link DEFAULT_REGIONS}, else `region-<name>`. */
  readonly regions?: Readonly<Record<string, string>>;
  /** Pods each member can run (kube-sim `--pod-capacity`); default unlimited. */
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

/** A running local federation: kube-sim (host + members), Redis, controller manager processes. */
export interface LocalFederation extends AsyncDisposable {
  readonly kubeconfigPath: string;
  /** `host`. */
  readonly hostContext: string;
  readonly members: readonly string[];
  readonly namespace: string;
  readonly redis: RedisHandle;
  readonly queuePrefix: string;
  readonly kubeSim: ManagedProcess;
  /** Controller manager processes started so far (stopped ones included). */
  readonly controllerManagers: readonly ManagedProcess[];
  /** An admin client of a context (`host` or a member); owned by the federation. */
  client(context: string): DynamicClient;
  /** Runs `kubefedctl --kubeconfig <path> ...args` as a process. */
  kubefedctl(args: readonly string[], options?: { timeoutMs?: number }): Promise<CommandResult>;
  /** Starts one more controller manager process with the common flags plus `args`; resolves once it serves health. */
  startControllerManager(args?: readonly string[]): Promise<ManagedProcess>;
  /** kube-sim fault injection on one cluster (`{ unreachable: true }`, `{ latencyMs }`, `{ podCapacity }`, ...); see kube-sim's README. */
  fault(cluster: string, fault: Readonly<Record<string, unknown>>): Promise<void>;
  /** Restores the faults of every cluster (SIGUSR2 to kube-sim: works while a cluster is unreachable). */
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
 * Starts a whole local federation the way a user would run one: the kube-sim CLI (host and
 * members in distinct regions), Redis, the KubeFed CRDs and namespace in the host, the
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
    const regions = { ...DEFAULT_REGIONS, ...options.regions };
    const regionFlag = members.filter((m) => regions[m] !== undefined).map((m) => `${m}=${regions[m]}`).join(',');
    const capacity = Object.entries(options.podCapacity ?? {}).map(([m, n]) => `${m}=${n}`).join(',');
    const kubeSim = new ManagedProcess('kube-sim', [
      ...sourceEntry(KUBE_SIM),
      '--clusters', ['host', ...members].join(','),
      '--kubeconfig', kubeconfigPath,
      ...(regionFlag === '' ? [] : ['--regions', regionFlag]),
      ...(capacity === '' ? [] : ['--pod-capacity', capacity]),
    ]);
    started.push(() => kubeSim.stop());
    await step(`started kube-sim: host, ${members.join(', ')}`, async () => {
      for (const name of ['host', ...members]) await kubeSim.waitForLine(new RegExp(`^cluster ${name} ready at `), { fromStart: true, timeoutMs: 60_000 });
    });
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
      for (const crd of kubeFedCrds()) await createIfMissing(host.resource(CRDS), crd as unknown as KubeObject);
      await createIfMissing(host.resource(RESOURCES.namespaces), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    });

    const controllerManagers: ManagedProcess[] = [];
    const startControllerManager = async (args: readonly string[] = []): Promise<ManagedProcess> => {
      const cm = new ManagedProcess(
        `kubefed-controller-manager-${controllerManagers.length + 1}`,
        [
          ...sourceEntry(CONTROLLER_MANAGER),
          '--kubeconfig', kubeconfigPath,
          '--context', 'host',
          '--redis-url', redis.url,
          '--queue-prefix', queuePrefix,
          '--metrics-addr', '127.0.0.1:0',
          '--health-addr', '127.0.0.1:0',
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
      kubeSim,
      controllerManagers,
      client,
      kubefedctl,
      startControllerManager,
      async fault(cluster, fault) {
        const res = await client(cluster).raw('/kube-sim/faults', { method: 'POST', body: fault });
        if (res.status >= 300) throw new TestingError(`kube-sim fault ${JSON.stringify(fault)} on ${cluster}: HTTP ${res.status} ${res.body}`);
      },
      restoreFaults: () => void kubeSim.child.kill('SIGUSR2'),
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

/** Polls until every named KubeFedCluster has condition Ready=True. */
async function waitForReady(host: DynamicClient, namespace: string, names: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let notReady: string[] = [...names];
  while (Date.now() < deadline) {
    const list = await host.resource(RESOURCES.kubeFedClusters, namespace).list();
    const ready = new Set(
      list.items
        .filter((c) => ((c.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True'))
        .map((c) => c.metadata.name),
    );
    notReady = names.filter((n) => !ready.has(n));
    if (notReady.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new TestingError(`KubeFedClusters not Ready within ${timeoutMs}ms: ${notReady.join(', ')}`);
}
