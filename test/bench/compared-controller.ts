// The two controller managers `versus-kubefed.bench.ts` compares, behind one shape: ours, compiled
// JavaScript (`packages/controller-manager/dist/main.js`, `npm run build`) on the production Node
// (tools/node/production-version, installed by tools/node/install-node.sh), and KubeFed v0.10.0's
// Go controller manager (`npm run kubefed:build`, started by `startKubeFed`). Both are given the
// same KubeFedConfig and read everything else from the host.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type KubeFedConfigSpec, RESOURCES } from '@kubefed/api';
import { type LocalFederation, ManagedProcess, REPO_ROOT, startKubeFed } from '@kubefed/testing';
import { metricValue } from '../../packages/controller-manager/test/process-federation.js';
import { until } from './bench-support.js';
import { INSPECTABLE } from './cpu-profiler.js';

/** The compiled entry point of our controller manager (what the image runs). */
const COMPILED_ENTRY = 'packages/controller-manager/dist/main.js';

/**
 * The KubeFedConfig `kubefed` of both controllers: the values of KubeFed's chart
 * (charts/kubefed/templates/kubefedconfig.yaml), leader election by a ConfigMap lock included, so
 * both take the same lock with the same timing. Health checks every 10 s, 3 failures to give up.
 */
export const BENCH_KUBEFED_CONFIG: KubeFedConfigSpec = {
  scope: 'Cluster',
  controllerDuration: { availableDelay: '20s', unavailableDelay: '60s', cacheSyncTimeout: '5m' },
  leaderElect: { leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '5s', resourceLock: 'configmaps' },
  clusterHealthCheck: { period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s' },
  syncController: { maxConcurrentReconciles: 1, adoptResources: 'Enabled' },
  statusController: { maxConcurrentReconciles: 1 },
  featureGates: [
    { name: 'PushReconciler', configuration: 'Enabled' },
    { name: 'RawResourceStatusCollection', configuration: 'Disabled' },
    { name: 'SchedulerPreferences', configuration: 'Enabled' },
  ],
};

/** One running controller manager of either kind. */
export interface RunningController {
  /** The controller manager's process. */
  readonly pid: number;
  /** Processes whose CPU counts with the controller's, by name (ours: Redis). */
  readonly helpers: Readonly<Record<string, readonly number[]>>;
  /** The process, when it is a Node process this benchmark started (ours): for profiles. */
  readonly node: ManagedProcess | undefined;
  /** Throws with the end of its log once it has exited; true while it runs. */
  alive(): Promise<boolean>;
  /** SIGTERM (SIGKILL after a grace period), as a rolling update stops it. */
  stop(): Promise<void>;
}

/** How to start one kind of controller manager on a federation. */
export interface ControllerKind {
  readonly name: 'ours' | 'KubeFed';
  /**
   * Starts it; resolves once it leads (holds the leader lock). `inspect` starts ours with an
   * inspector for CPU profiles (ignored for KubeFed).
   */
  start(fed: LocalFederation, o: { redisPid: number | undefined; inspect: boolean; limitMs: number }): Promise<RunningController>;
}

/** Writes {@link BENCH_KUBEFED_CONFIG} as the spec of the KubeFedConfig `kubefed` (which the federation created with its scope). */
export async function writeBenchKubeFedConfig(fed: LocalFederation): Promise<void> {
  const configs = fed.client('host').resource(RESOURCES.kubeFedConfigs, fed.namespace);
  const current = await configs.get('kubefed');
  await configs.update({ ...current, spec: BENCH_KUBEFED_CONFIG });
}

/** The path of the production Node (tools/node/install-node.sh prints it, installing it first when missing). */
export async function productionNode(): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [join(REPO_ROOT, 'tools/node/install-node.sh')]);
  return stdout.trim();
}

/** Our controller manager, compiled, on `node`. */
export function oursCompiled(node: string): ControllerKind {
  if (!existsSync(join(REPO_ROOT, COMPILED_ENTRY)))
    throw new Error(`${COMPILED_ENTRY} is missing: run \`npm run build\` first (the benchmark runs the compiled controller manager)`);
  let started = 0;
  return {
    name: 'ours',
    async start(fed, o) {
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: o.inspect ? INSPECTABLE : '' };
      delete env['KUBECONFIG'];
      const args = [
        COMPILED_ENTRY,
        ...['--kubeconfig', fed.kubeconfigPath, '--context', 'host', '--kubefed-namespace', fed.namespace],
        ...['--redis-url', fed.redis.url, '--queue-prefix', fed.queuePrefix],
        ...['--metrics-addr', '127.0.0.1:0', '--health-addr', '127.0.0.1:0'],
      ];
      const cm = new ManagedProcess(`kubefed-controller-manager-${++started}`, args, { env, node });
      const alive = (): Promise<boolean> => {
        if (!cm.running) throw new Error(`our controller manager exited; its last lines:\n${cm.tail(40)}`);
        return Promise.resolve(true);
      };
      try {
        await until('our controller manager leading', async () => (await alive()) && (await leads(cm)), o.limitMs, 50);
      } catch (err) {
        await cm.stop();
        throw err;
      }
      return {
        pid: cm.child.pid ?? 0,
        helpers: { Redis: o.redisPid === undefined ? [] : [o.redisPid] },
        node: cm,
        alive,
        stop: async () => {
          await cm.stop();
        },
      };
    },
  };
}

/** Whether `cm` says it leads; false while it does not serve metrics yet. */
async function leads(cm: ManagedProcess): Promise<boolean> {
  if (!cm.lines.some((line) => line.includes('"msg":"serving health and metrics"'))) return false;
  return (await metricValue(cm, 'kubefed_leader_election_is_leader')) >= 1;
}

/**
 * KubeFed v0.10.0's controller manager (`startKubeFed`: KubeFed's CRDs over ours, the
 * KubeFedConfig of {@link BENCH_KUBEFED_CONFIG}, the FederatedTypeConfigs `kubefedctl enable`
 * wrote left as they are). Resolves once its log says it leads.
 */
export const kubeFed: ControllerKind = {
  name: 'KubeFed',
  async start(fed, o) {
    const kubefed = await startKubeFed({
      kubeconfigPath: fed.kubeconfigPath,
      context: 'host',
      namespace: fed.namespace,
      federatedTypes: [],
      kubeFedConfig: BENCH_KUBEFED_CONFIG,
      timeoutMs: o.limitMs,
    });
    const pid = kubefed.pid ?? 0;
    return {
      pid,
      helpers: {},
      node: undefined,
      alive: async () => {
        if (!existsSync(`/proc/${pid}`)) throw new Error(`KubeFed's controller manager exited; its last lines:\n${await kubefed.tail(40)}`);
        return true;
      },
      stop: () => kubefed.stop(),
    };
  },
};
