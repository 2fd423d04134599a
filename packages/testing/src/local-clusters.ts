import { writeFile } from 'node:fs/promises';
import { RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig } from '@kubefed/client';
import { ManagedProcess, sourceEntry } from './managed-process.js';
import { kubeconfigYaml } from './real-clusters/kubeconfig-yaml.js';
import { startRealClusters, type RealClusters } from './real-clusters/start-real-clusters.js';
import { mergeKubeconfigFiles, simProcessGroups, type SimProcesses } from './sim-processes.js';
import { TestingError } from './testing-error.js';

const KUBE_SIM = 'packages/kube-sim/src/cli.ts';

/**
 * What the clusters of a local federation are made of: `sim` runs the kube-sim CLI (one process
 * simulating every cluster, unless `LocalClustersSpec.simProcesses` says otherwise), `real` runs etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler and kwok per cluster ({@link startRealClusters}, binaries of `npm run kube:build`).
 */
export type Substrate = 'sim' | 'real';

/** The environment variable that picks the substrate of tests and the demo. */
export const SUBSTRATE_ENV = 'KUBEFED_TEST_SUBSTRATE';

/**
 * The substrate named by `value` (default: the environment variable `KUBEFED_TEST_SUBSTRATE`);
 * `sim` when unset or empty.
 *
 * @throws TestingError for any other value.
 */
export function substrateFromEnvironment(value: string | undefined = process.env[SUBSTRATE_ENV]): Substrate {
  if (value === undefined || value === '' || value === 'sim') return 'sim';
  if (value === 'real') return 'real';
  throw new TestingError(`${SUBSTRATE_ENV} must be sim or real, got "${value}"`);
}

/** What {@link startLocalClusters} starts. */
export interface LocalClustersSpec {
  readonly substrate: Substrate;
  /** Cluster names, the host first; also the kubeconfig contexts. */
  readonly names: readonly string[];
  /** Where the kubeconfig (one context per cluster, current-context = the first) is written. */
  readonly kubeconfigPath: string;
  /** Region of each cluster's Nodes (clusters absent here get the substrate's default). */
  readonly regions: Readonly<Record<string, string>>;
  /** Pods each cluster can run; clusters absent here are unlimited (110 pods per Node on `real`). */
  readonly podCapacity: Readonly<Record<string, number>>;
  /** `sim` only: how the clusters are spread over kube-sim CLI processes; default `one`. */
  readonly simProcesses?: SimProcesses | undefined;
}

/** Running clusters under a local federation, whichever the substrate. */
export interface LocalClusters {
  readonly substrate: Substrate;
  /** The kube-sim CLI process serving the host, the first cluster (`sim` only). */
  readonly kubeSim: ManagedProcess | undefined;
  /** Every kube-sim CLI process, the host's first (`sim`; one unless `simProcesses` says otherwise); empty on `real`. */
  readonly kubeSims: readonly ManagedProcess[];
  /** The real control planes (`real` only): processes, pids, log files. */
  readonly real: RealClusters | undefined;
  /**
   * Fault injection on one cluster. `sim`: any kube-sim fault (`POST /kube-sim/faults`). `real`:
   * `{ unreachable: true }` (its kube-apiserver is stopped with SIGSTOP: connections are accepted
   * and never answered), `{ restore: true }` (SIGCONT), `{ podCapacity: N | null }` (the Nodes'
   * allocatable pods); anything else is refused.
   *
   * @param admin an admin client of `cluster` (`sim` sends the fault through it).
   */
  fault(cluster: string, fault: Readonly<Record<string, unknown>>, admin: DynamicClient): Promise<void>;
  /** Lifts every unreachable fault of every cluster at once (works while a cluster is unreachable). */
  restoreFaults(): void;
  /** Stops every process. Idempotent. */
  stop(): Promise<void>;
}

/** Starts the clusters of {@link LocalClustersSpec} and writes their kubeconfig; resolves once every cluster serves. */
export function startLocalClusters(spec: LocalClustersSpec): Promise<LocalClusters> {
  return spec.substrate === 'real' ? startReal(spec) : startSim(spec);
}

async function startSim(spec: LocalClustersSpec): Promise<LocalClusters> {
  // Each kube-sim process gets the capacities of its own clusters; one named for no cluster at
  // all is refused here, as a single kube-sim process would refuse it.
  const unknown = Object.keys(spec.podCapacity).filter((n) => !spec.names.includes(n));
  if (unknown.length > 0)
    throw new TestingError(`podCapacity names no cluster of this federation: ${unknown.join(', ')} (clusters: ${spec.names.join(', ')})`);
  const groups = simProcessGroups(spec.names, spec.simProcesses ?? 'one');
  const single = groups.length === 1;
  const kubeconfigOf = (i: number): string => (single ? spec.kubeconfigPath : `${spec.kubeconfigPath}.kube-sim-${i}`);
  const kubeSims = groups.map((names, i) =>
    startKubeSim({ ...spec, names }, single ? 'kube-sim' : `kube-sim[${names.join(',')}]`, kubeconfigOf(i)),
  );
  const stop = async (): Promise<void> => void (await Promise.all(kubeSims.map((p) => p.stop())));
  try {
    await Promise.all(kubeSims.map((p, i) => waitForClusters(p, groups[i] ?? [], spec.names.length)));
    if (!single)
      await mergeKubeconfigFiles(
        groups.map((_, i) => kubeconfigOf(i)),
        spec.kubeconfigPath,
        spec.names[0] ?? '',
      );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    substrate: 'sim',
    kubeSim: kubeSims[0],
    kubeSims,
    real: undefined,
    async fault(cluster, fault, admin) {
      const res = await admin.raw('/kube-sim/faults', { method: 'POST', body: fault });
      if (res.status >= 300)
        throw new TestingError(`kube-sim fault ${JSON.stringify(fault)} on ${cluster}: HTTP ${res.status} ${res.body}`);
    },
    // kube-sim restores every cluster's faults on SIGUSR2, even while one does not answer.
    restoreFaults: () => {
      for (const p of kubeSims) p.child.kill('SIGUSR2');
    },
    stop,
  };
}

/** A kube-sim CLI process serving the clusters `spec.names` (their regions and pod capacities from `spec`). */
function startKubeSim(spec: LocalClustersSpec, name: string, kubeconfigPath: string): ManagedProcess {
  const regionFlag = spec.names
    .filter((n) => spec.regions[n] !== undefined)
    .map((n) => `${n}=${spec.regions[n]}`)
    .join(',');
  const capacity = Object.entries(spec.podCapacity)
    .filter(([m]) => spec.names.includes(m))
    .map(([m, n]) => `${m}=${n}`)
    .join(',');
  return new ManagedProcess(name, [
    ...sourceEntry(KUBE_SIM),
    '--clusters',
    spec.names.join(','),
    '--kubeconfig',
    kubeconfigPath,
    ...(regionFlag === '' ? [] : ['--regions', regionFlag]),
    ...(capacity === '' ? [] : ['--pod-capacity', capacity]),
  ]);
}

/** Resolves once `kubeSim` said each of `names` is ready. */
async function waitForClusters(kubeSim: ManagedProcess, names: readonly string[], allClusters: number): Promise<void> {
  // kube-sim sets its clusters up one after the other: a hundred of them take minutes on a loaded machine.
  const timeoutMs = 60_000 + 2_000 * allClusters;
  for (const name of names) await kubeSim.waitForLine(new RegExp(`^cluster ${name} ready at `), { fromStart: true, timeoutMs });
}

/** `status.allocatable.pods` of a Node when a cluster's pod capacity is unlimited (the kubelet default). */
const UNLIMITED_PODS_PER_NODE = 110;
const NODES_PER_CLUSTER = 2;

async function startReal(spec: LocalClustersSpec): Promise<LocalClusters> {
  const real = await startRealClusters({
    names: spec.names,
    nodes: NODES_PER_CLUSTER,
    podsPerNode: UNLIMITED_PODS_PER_NODE,
    regions: spec.regions,
  });
  const yaml = tokenKubeconfigYaml(real, spec.names[0] ?? '');
  const clusters = new RealLocalClusters(real, Kubeconfig.fromString(yaml));
  try {
    await writeFile(spec.kubeconfigPath, yaml, { mode: 0o600 });
    for (const [cluster, pods] of Object.entries(spec.podCapacity)) await clusters.setPodCapacity(cluster, pods);
    return clusters;
  } catch (err) {
    await clusters.stop();
    throw err;
  }
}

/**
 * A kubeconfig of the real clusters with admin bearer tokens rather than client certificates, as
 * kube-sim writes them: a `kubectl --token` then acts as that token's identity alone (with a
 * client certificate in the kubeconfig, kube-apiserver would authenticate the certificate's admin first).
 */
function tokenKubeconfigYaml(real: RealClusters, currentContext: string): string {
  return kubeconfigYaml({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: real.clusters.map((c) => ({
      name: c.name,
      cluster: { server: c.url, 'certificate-authority-data': Buffer.from(c.caPem).toString('base64') },
    })),
    users: real.clusters.map((c) => ({ name: c.name, user: { token: c.adminToken } })),
    contexts: real.clusters.map((c) => ({ name: c.name, context: { cluster: c.name, user: c.name } })),
    'current-context': currentContext,
  });
}

/** {@link LocalClusters} on real control planes: faults by signalling kube-apiserver and by patching the Nodes. */
class RealLocalClusters implements LocalClusters {
  readonly substrate = 'real';
  readonly kubeSim = undefined;
  readonly kubeSims: readonly ManagedProcess[] = [];
  /** Pids of the kube-apiservers stopped with SIGSTOP. */
  readonly #paused = new Set<number>();
  readonly #clients = new Map<string, DynamicClient>();
  #stopped: Promise<void> | undefined;

  constructor(
    readonly real: RealClusters,
    private readonly kubeconfig: Kubeconfig,
  ) {}

  async fault(cluster: string, fault: Readonly<Record<string, unknown>>): Promise<void> {
    for (const [key, value] of Object.entries(fault)) {
      if (key === 'unreachable' && value === true) {
        const pid = this.#apiserverPid(cluster);
        process.kill(pid, 'SIGSTOP');
        this.#paused.add(pid);
      } else if (key === 'restore' && value === true) {
        this.#resume(this.#apiserverPid(cluster));
      } else if (key === 'podCapacity' && (value === null || (typeof value === 'number' && Number.isInteger(value) && value >= 0))) {
        await this.setPodCapacity(cluster, value);
      } else {
        throw new TestingError(
          `fault ${JSON.stringify({ [key]: value })} exists only on kube-sim; the real substrate supports {"unreachable":true}, {"restore":true} and {"podCapacity":N|null}`,
        );
      }
    }
  }

  readonly restoreFaults = (): void => {
    for (const pid of [...this.#paused]) this.#resume(pid);
  };

  readonly stop = (): Promise<void> =>
    (this.#stopped ??= (async () => {
      // A stopped process would hold its SIGTERM until SIGCONT.
      this.restoreFaults();
      for (const c of this.#clients.values()) c.close();
      await this.real.stop();
    })());

  /** Sets the allocatable and capacity pods of the cluster's Nodes so that together they hold `pods` (null = unlimited). */
  async setPodCapacity(cluster: string, pods: number | null): Promise<void> {
    const nodes = this.real.get(cluster).nodeNames;
    const perNode = podsPerNode(pods, nodes.length);
    await Promise.all(
      nodes.map((node, i) => {
        const value = String(perNode[i] ?? 0);
        return this.#client(cluster)
          .resource(RESOURCES.nodes)
          .patch(node, { status: { allocatable: { pods: value }, capacity: { pods: value } } }, 'merge', { subresource: 'status' });
      }),
    );
  }

  #client(name: string): DynamicClient {
    let c = this.#clients.get(name);
    if (c === undefined) this.#clients.set(name, (c = DynamicClient.fromKubeconfig(this.kubeconfig, { context: name, qps: 0 })));
    return c;
  }

  #apiserverPid(cluster: string): number {
    this.real.get(cluster);
    const pid = this.real.processes().find((p) => p.name === `kube-apiserver[${cluster}]`)?.pid;
    if (pid === undefined) throw new TestingError(`no running kube-apiserver for cluster ${cluster}`);
    return pid;
  }

  #resume(pid: number): void {
    this.#paused.delete(pid);
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // Already gone.
    }
  }
}

/** `pods` spread over `nodes` Nodes (the first ones get the remainder); `null` = unlimited. */
export function podsPerNode(pods: number | null, nodes: number): number[] {
  if (pods === null) return Array.from({ length: nodes }, () => UNLIMITED_PODS_PER_NODE);
  return Array.from({ length: nodes }, (_, i) => Math.floor(pods / nodes) + (i < pods % nodes ? 1 : 0));
}
