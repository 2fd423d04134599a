// Test helpers for the kubefedctl integration tests: kube-sim clusters with a KubeFed control
// plane's API objects in the host, a kubeconfig file on disk, and the real CLI run as a process.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_VERSIONS, federatedTypeConfigCrd, kubeFedClusterCrd, kubeFedConfigCrd, RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig, isNotFound } from '@kubefed/client';
import type { KubeObject } from '@kubefed/client';
import { buildKubeconfig, startCluster } from '@kubefed/kube-sim';
import type { SimCluster } from '@kubefed/kube-sim';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const mainTs = path.join(repoRoot, 'packages/kubefedctl/src/main.ts');

/** Result of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

const crdGvr = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

/** Admin client of a sim cluster. */
function adminClient(sim: SimCluster): DynamicClient {
  return DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()), { clusterName: sim.name });
}

/** Host and member sim clusters, a kubeconfig file holding both, and admin clients. */
export class SimFederation implements AsyncDisposable {
  private constructor(
    readonly sims: SimCluster[],
    readonly dir: string,
    readonly kubeconfig: string,
    readonly clients: Map<string, DynamicClient>,
  ) {}

  /** Starts one sim cluster per name (the first is the host) and installs the KubeFed CRDs in the host. */
  static async start(names: string[], options: { kubefedClusterCrd?: boolean } = {}): Promise<SimFederation> {
    const sims: SimCluster[] = [];
    try {
      for (const name of names) sims.push(await startCluster({ name }));
    } catch (e) {
      await Promise.all(sims.map((s) => s.stop()));
      throw e;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubefedctl-int-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfig, buildKubeconfig(sims));
    const clients = new Map(sims.map((s) => [s.name, adminClient(s)]));
    const fed = new SimFederation(sims, dir, kubeconfig, clients);
    const crds = [kubeFedConfigCrd(), federatedTypeConfigCrd(), ...(options.kubefedClusterCrd === false ? [] : [kubeFedClusterCrd()])];
    for (const crd of crds)
      await fed
        .client(names[0]!)
        .resource(crdGvr)
        .create(crd as unknown as KubeObject);
    return fed;
  }

  sim(name: string): SimCluster {
    const s = this.sims.find((x) => x.name === name);
    if (s === undefined) throw new Error(`no sim cluster ${name}`);
    return s;
  }

  client(name: string): DynamicClient {
    const c = this.clients.get(name);
    if (c === undefined) throw new Error(`no client for ${name}`);
    return c;
  }

  /** Creates the kubefed namespace and the KubeFedConfig `kubefed` in the host. */
  async controlPlane(host: string, namespace: string, scope: 'Cluster' | 'Namespaced' = 'Cluster'): Promise<void> {
    const c = this.client(host);
    await c
      .resource({ group: '', version: 'v1', resource: 'namespaces' })
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const configs = c.resource({ group: 'core.kubefed.io', version: 'v1beta1', resource: 'kubefedconfigs' }, namespace);
    // The CRD may need a moment before it is served.
    for (let i = 0; ; i++) {
      try {
        await configs.create({
          apiVersion: API_VERSIONS.core,
          kind: 'KubeFedConfig',
          metadata: { name: 'kubefed', namespace },
          spec: { scope },
        });
        return;
      } catch (e) {
        if (!isNotFound(e) || i > 50) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** Runs `kubefedctl --kubeconfig <file> ...args` as a process (tsx on the sources). */
  async cli(args: string[], timeoutMs = 45_000): Promise<CliRun> {
    return new Promise((resolve) => {
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: this.dir };
      delete env['KUBECONFIG'];
      execFile(
        process.execPath,
        ['--conditions=@kubefed/source', '--import', 'tsx', mainTs, '--kubeconfig', this.kubeconfig, ...args],
        { cwd: repoRoot, timeout: timeoutMs, env },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const c of this.clients.values()) c.close();
    await Promise.all(this.sims.map((s) => s.stop()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** GET that resolves undefined on NotFound. */
export async function getOrUndefined(
  client: DynamicClient,
  gvr: { group: string; version: string; resource: string },
  name: string,
  namespace?: string,
): Promise<KubeObject | undefined> {
  try {
    return await client.resource(gvr, namespace).get(name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export const gvr = RESOURCES;
