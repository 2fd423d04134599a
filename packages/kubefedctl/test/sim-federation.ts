// Test helpers for the kubefedctl integration tests: the in-process federation of @kubefed/testing
// (kube-sim clusters with a KubeFed control plane's CRDs in the host, a kubeconfig file on disk),
// the kubefed namespace and KubeFedConfig, and the real CLI run as a process.
import path from 'node:path';
import { API_VERSIONS, federatedTypeConfigCrd, kubeFedClusterCrd, kubeFedConfigCrd, RESOURCES } from '@kubefed/api';
import { type DynamicClient, isNotFound } from '@kubefed/client';
import type { SimCluster } from '@kubefed/kube-sim';
import { type InProcessFederation, runSourceEntry, startInProcessFederation } from '@kubefed/testing';

/** Result of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Host and member sim clusters, a kubeconfig file holding both, and admin clients. */
export class SimFederation implements AsyncDisposable {
  /** The directory of the kubeconfig, also the CLI's HOME; removed at the end. */
  readonly dir: string;
  /** Path of the kubeconfig. */
  readonly kubeconfig: string;

  private constructor(private readonly federation: InProcessFederation) {
    this.kubeconfig = federation.kubeconfigPath;
    this.dir = path.dirname(federation.kubeconfigPath);
  }

  /** Starts one sim cluster per name (the first is the host) and installs the KubeFedConfig, FederatedTypeConfig and (unless turned off) KubeFedCluster CRDs in the host. */
  static async start(names: readonly string[], options: { kubefedClusterCrd?: boolean } = {}): Promise<SimFederation> {
    const [host, ...members] = names;
    const crds = [kubeFedConfigCrd(), federatedTypeConfigCrd(), ...(options.kubefedClusterCrd === false ? [] : [kubeFedClusterCrd()])];
    return new SimFederation(
      await startInProcessFederation({
        ...(host === undefined ? {} : { host }),
        members: Object.fromEntries(members.map((m) => [m, {}])),
        crds,
      }),
    );
  }

  sim(name: string): SimCluster {
    return name === this.federation.host.name ? this.federation.host : this.federation.member(name);
  }

  client(name: string): DynamicClient {
    return this.federation.client(name);
  }

  /** Creates the kubefed namespace and the KubeFedConfig `kubefed` in the host. */
  async controlPlane(host: string, namespace: string, scope: 'Cluster' | 'Namespaced' = 'Cluster'): Promise<void> {
    const c = this.client(host);
    await c.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const configs = c.resource(RESOURCES.kubeFedConfigs, namespace);
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

  /** Runs `kubefedctl --kubeconfig <file> ...args` as a process (tsx on the sources), with HOME the federation's directory. */
  cli(args: readonly string[], timeoutMs = 45_000): Promise<CliRun> {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: this.dir };
    delete env['KUBECONFIG'];
    return runSourceEntry('packages/kubefedctl/src/main.ts', ['--kubeconfig', this.kubeconfig, ...args], { env, timeoutMs });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.federation.stop();
  }
}

export const gvr = RESOURCES;
