import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildKubeconfig, startCluster, type SimCluster, type StartClusterOptions } from '@kubefed/kube-sim';
import { TestingError } from './testing-error.js';

/** Options of {@link startSimClusters}; applied to every cluster. */
export interface StartSimClustersOptions {
  /** Serve HTTPS with a per-cluster CA. Default true (like kube-sim). */
  tls?: boolean;
  /** Extra kube-sim options per cluster name (region, zones, version, watchHistory). */
  perCluster?: Readonly<Record<string, Omit<StartClusterOptions, 'name'>>>;
}

/** Simulated clusters plus one kubeconfig file holding them all. */
export interface SimClusters extends AsyncDisposable {
  /** The clusters, in the order of the names given. */
  readonly clusters: readonly SimCluster[];
  /** Path of the kubeconfig (one context per cluster, named after it; current-context = first). */
  readonly kubeconfigPath: string;
  /** The same kubeconfig as YAML. */
  readonly kubeconfigYaml: string;
  /** The cluster called `name`. @throws TestingError for an unknown name. */
  get(name: string): SimCluster;
  /** Stops every cluster and removes the kubeconfig directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts one kube-sim cluster per name (e.g. `['host', 'member1', 'member2']`) and writes a
 * kubeconfig holding all of them to a fresh temporary directory. If any cluster fails to
 * start, the ones already started are stopped before the error is rethrown.
 */
export async function startSimClusters(names: readonly string[], options: StartSimClustersOptions = {}): Promise<SimClusters> {
  if (names.length === 0) throw new TestingError('startSimClusters needs at least one cluster name');
  if (new Set(names).size !== names.length) throw new TestingError(`startSimClusters got duplicate names: ${names.join(', ')}`);
  const clusters: SimCluster[] = [];
  let dir: string | undefined;
  const stopAll = async (): Promise<void> => {
    await Promise.allSettled(clusters.map((c) => c.stop()));
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const name of names) {
      const extra = options.perCluster?.[name] ?? {};
      clusters.push(await startCluster({ ...extra, name, ...(options.tls === undefined ? {} : { tls: options.tls }) }));
    }
    dir = await mkdtemp(join(tmpdir(), 'kubefed-sim-'));
    const kubeconfigYaml = buildKubeconfig(clusters);
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfigYaml, { mode: 0o600 });
    let stopped: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopped ??= stopAll());
    return {
      clusters,
      kubeconfigPath,
      kubeconfigYaml,
      get(name) {
        const found = clusters.find((c) => c.name === name);
        if (found === undefined) throw new TestingError(`no simulated cluster named "${name}" (have ${names.join(', ')})`);
        return found;
      },
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
