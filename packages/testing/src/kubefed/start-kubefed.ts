import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllDocuments, parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { KUBEFED_NAMESPACE_DEFAULT, RESOURCES, type KubeFedConfigSpec } from '@kubefed/api';
import { DynamicClient, isAlreadyExists, Kubeconfig, type KubeObject, type ResourceClient } from '@kubefed/client';
import type { CommandResult } from '../managed-process.js';
import { ComponentProcess } from '../real-clusters/component-process.js';
import { freePort } from '../real-clusters/free-port.js';
import { httpStatus } from '../real-clusters/http-status.js';
import { findKubeFedBinaries, type KubeFedBinaries } from './kubefed-binaries.js';
import { KubeFedStartError } from './kubefed-start-error.js';
import { type KubeFedWebhook, registerWebhooks, startKubeFedWebhook, unregisterWebhooks } from './kubefed-webhook.js';

/** Options of {@link startKubeFed}. */
export interface StartKubeFedOptions {
  /**
   * Kubeconfig holding the host cluster's context (and the members' contexts, for
   * {@link KubeFed.join}). Paths inside it must be absolute.
   */
  readonly kubeconfigPath: string;
  /** The host cluster's context in it. */
  readonly context: string;
  /** KubeFed's namespace on the host; default `kube-federation-system`. */
  readonly namespace?: string;
  /**
   * FederatedTypeConfigs of KubeFed's chart to install, with the CRDs of their federated types, by
   * name (`configmaps`, `deployments.apps`, ...); default all ten, as the chart does. `[]` for none.
   */
  readonly federatedTypes?: readonly string[];
  /**
   * Blocks of the KubeFedConfig `kubefed` spec, each merged over the chart's defaults (scope
   * `Cluster`; leader election by `configmaps` with 15 s / 10 s / 5 s; cluster health every 10 s;
   * cluster available delay 20 s; feature gates as after the chart's post-install job:
   * PushReconciler and SchedulerPreferences Enabled, RawResourceStatusCollection Disabled).
   */
  readonly kubeFedConfig?: KubeFedConfigSpec;
  /**
   * Leave the CRDs of KubeFed's own types as they are on the host (a way back after a migration
   * that replaced them) instead of applying the chart's; default false. The CRDs of
   * `federatedTypes` are applied either way.
   */
  readonly keepInstalledCrds?: boolean;
  /** Directory holding `bin/` and `chart/` of `npm run kubefed:build`; default its cache (see tools/kubefed/README.md). */
  readonly dir?: string;
  /**
   * Also run KubeFed's admission webhook server and register the chart's webhook configurations
   * (validation of FederatedTypeConfigs, KubeFedClusters and KubeFedConfigs, defaulting of
   * KubeFedConfigs) with `clientConfig.url` pointing at it; default false. Its manager serves
   * metrics on `:8080` (not configurable in v0.10.0), so only one can run per machine.
   */
  readonly webhook?: boolean;
  /**
   * klog verbosity (`--v`) of the controller manager and the webhook; default 2, the chart's for
   * the controller manager (its 8 for the webhook logs every request body).
   */
  readonly logLevel?: number;
  /** How long the start may take; default 60 000 ms. */
  readonly timeoutMs?: number;
}

/** KubeFed v0.10.0's controller manager running against a host cluster. */
export interface KubeFed extends AsyncDisposable {
  /** e.g. `v0.10.0`. */
  readonly version: string;
  readonly namespace: string;
  /** The host cluster's context. */
  readonly context: string;
  /** The binaries and chart files it was started from. */
  readonly binaries: KubeFedBinaries;
  /** The controller manager's output (klog). */
  readonly logFile: string;
  /** The webhook server's output, when it runs (`webhook: true`). */
  readonly webhookLogFile: string | undefined;
  /** e.g. `http://127.0.0.1:41234/metrics`: KubeFed's Prometheus metrics. */
  readonly metricsUrl: string;
  readonly pid: number | undefined;
  /** Runs KubeFed's `kubefedctl` with `args` as given (never rejects: a failure is a non-zero `code`). */
  kubefedctl(args: readonly string[], options?: { timeoutMs?: number }): Promise<CommandResult>;
  /**
   * `kubefedctl join <cluster> --cluster-context <context> --host-cluster-context <host>` in
   * KubeFed's namespace: a ServiceAccount, its token Secret and RBAC in the member, a Secret and
   * a KubeFedCluster on the host. Resolves with its output.
   *
   * @throws KubeFedStartError with the output when it fails.
   */
  join(cluster: string, options: { context: string; extraArgs?: readonly string[] }): Promise<CommandResult>;
  /** The last `lines` lines of the controller manager's log. */
  tail(lines?: number): Promise<string>;
  /**
   * Stops the controller manager and the webhook (SIGTERM, SIGKILL after 5 s), deletes the webhook
   * configurations (they would refuse every later write of KubeFed's types) and removes the
   * temporary directory. The other objects on the host stay. Idempotent.
   */
  stop(): Promise<void>;
}

const POLL_MS = 200;
/** Logged by KubeFed's leader elector once it holds the lock (cmd/controller-manager/app/leaderelection). */
const LEADING_LINE = 'promoted as leader';

/**
 * Installs KubeFed v0.10.0 on a (real) host cluster as its Helm chart would, and runs its
 * controller manager out of cluster: applies the CRDs of KubeFed's chart
 * (`charts/kubefed/charts/controllermanager/crds`), creates the namespace and the KubeFedConfig
 * `kubefed` of the chart's `kubefedconfig.yaml` template, installs the chosen FederatedTypeConfigs
 * with their CRDs, then starts `controller-manager --kubefed-namespace=<ns> --kubeconfig=<host
 * only>` with health and metrics on free loopback ports and its log in a temporary directory.
 * Resolves once `/healthz` answers 200 and the log says `promoted as leader`. Every object is
 * created or, when present, replaced; the KubeFedConfig is written with every field set, as the
 * chart writes it. With `webhook: true` KubeFed's webhook server is started and registered
 * before the KubeFedConfig and the FederatedTypeConfigs are written, so they pass through it.
 *
 * @throws KubeFedStartError when KubeFed is not built (saying to run `npm run kubefed:build`), an
 *   object is refused, or the controller manager exits or is not leading within `timeoutMs`
 *   (with the tail of its log, kept in the directory named).
 */
export async function startKubeFed(options: StartKubeFedOptions): Promise<KubeFed> {
  const binaries = await findKubeFedBinaries(options.dir);
  const namespace = options.namespace ?? KUBEFED_NAMESPACE_DEFAULT;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const kubeconfigText = await readFile(options.kubeconfigPath, 'utf8');
  const host = DynamicClient.fromKubeconfig(Kubeconfig.fromString(kubeconfigText), { context: options.context, qps: 0 });
  const workDir = await mkdtemp(join(tmpdir(), 'kubefed-ref-'));
  const scope = options.kubeFedConfig?.scope ?? 'Cluster';
  let cm: ComponentProcess | undefined;
  let webhook: KubeFedWebhook | undefined;
  try {
    const ftcs = await installCrds(host, { binaries, namespace, scope, options, deadline });
    const hostKubeconfig = join(workDir, 'kubeconfig');
    await writeFile(hostKubeconfig, withCurrentContext(kubeconfigText, options.context), { mode: 0o600 });
    if (options.webhook === true) {
      webhook = await startKubeFedWebhook({
        binary: binaries.webhook,
        kubeconfig: hostKubeconfig,
        workDir,
        namespace,
        scope,
        logLevel: options.logLevel ?? 2,
        deadline,
      });
      await registerWebhooks(host, webhook.configurations);
    }
    await installConfig(host, { namespace, options, ftcs });
    const [healthzPort, metricsPort] = [await freePort(), await freePort()];
    cm = await ComponentProcess.start('kubefed-controller-manager', {
      binary: binaries.controllerManager,
      args: [
        `--kubefed-namespace=${namespace}`,
        `--kubeconfig=${hostKubeconfig}`,
        `--healthz-addr=127.0.0.1:${healthzPort}`,
        `--metrics-addr=127.0.0.1:${metricsPort}`,
        `--v=${options.logLevel ?? 2}`,
      ],
      logFile: join(workDir, 'controller-manager.log'),
    });
    const { logFile } = cm;
    await waitFor('the controller manager to be healthy and leading', deadline, cm, async () => {
      if ((await httpStatus(`http://127.0.0.1:${healthzPort}/healthz`)) !== 200) return '/healthz not 200 yet';
      return (await readFile(logFile, 'utf8')).includes(LEADING_LINE) ? undefined : `no "${LEADING_LINE}" in the log yet`;
    });
    return handle({ binaries, namespace, options, cm, webhook, workDir, host, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` });
  } catch (err) {
    await cm?.stop();
    if (webhook !== undefined) {
      await unregisterWebhooks(host, webhook.configurations);
      await webhook.process.stop();
    }
    host.close();
    const message = err instanceof Error ? err.message : String(err);
    throw new KubeFedStartError(`starting KubeFed ${binaries.version} failed: ${message} (logs kept in ${workDir})`, { cause: err });
  }
}

function handle(ctx: {
  binaries: KubeFedBinaries;
  namespace: string;
  options: StartKubeFedOptions;
  cm: ComponentProcess;
  webhook: KubeFedWebhook | undefined;
  workDir: string;
  host: DynamicClient;
  metricsUrl: string;
}): KubeFed {
  const { binaries, namespace, options, cm, webhook, workDir, host } = ctx;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await cm.stop();
      if (webhook !== undefined) {
        await unregisterWebhooks(host, webhook.configurations);
        await webhook.process.stop();
      }
      host.close();
      await rm(workDir, { recursive: true, force: true });
    })());
  const kubefedctl = (args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<CommandResult> =>
    runCommand(binaries.kubefedctl, args, opts.timeoutMs ?? 60_000);
  return {
    version: binaries.version,
    namespace,
    context: options.context,
    binaries,
    logFile: cm.logFile,
    webhookLogFile: webhook?.process.logFile,
    metricsUrl: ctx.metricsUrl,
    pid: cm.pid,
    kubefedctl,
    async join(cluster, { context, extraArgs = [] }) {
      const result = await kubefedctl([
        'join',
        cluster,
        `--cluster-context=${context}`,
        `--host-cluster-context=${options.context}`,
        `--kubefed-namespace=${namespace}`,
        `--kubeconfig=${options.kubeconfigPath}`,
        ...extraArgs,
      ]);
      if (result.code !== 0) {
        throw new KubeFedStartError(`kubefedctl join ${cluster} exited with ${result.code}:\n${result.stdout}${result.stderr}`);
      }
      return result;
    },
    tail: (lines) => cm.tail(lines),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** The KubeFedConfig spec of the chart's `kubefedconfig.yaml` with its default values, after the post-install job's feature-gate patch. */
function chartKubeFedConfigSpec(overrides: KubeFedConfigSpec = {}): KubeFedConfigSpec {
  return {
    scope: overrides.scope ?? 'Cluster',
    controllerDuration: { availableDelay: '20s', unavailableDelay: '60s', cacheSyncTimeout: '5m', ...overrides.controllerDuration },
    leaderElect: { leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '5s', resourceLock: 'configmaps', ...overrides.leaderElect },
    clusterHealthCheck: { period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s', ...overrides.clusterHealthCheck },
    syncController: { maxConcurrentReconciles: 1, adoptResources: 'Enabled', ...overrides.syncController },
    statusController: { maxConcurrentReconciles: 1, ...overrides.statusController },
    featureGates: overrides.featureGates ?? [
      { name: 'PushReconciler', configuration: 'Enabled' },
      { name: 'RawResourceStatusCollection', configuration: 'Disabled' },
      { name: 'SchedulerPreferences', configuration: 'Enabled' },
    ],
  };
}

/**
 * The CRDs of `helm install` of KubeFed's chart (its own types and the federated types of the
 * chosen FederatedTypeConfigs, which it returns) until Established, and KubeFed's namespace.
 */
async function installCrds(
  host: DynamicClient,
  ctx: { binaries: KubeFedBinaries; namespace: string; scope: string; options: StartKubeFedOptions; deadline: number },
): Promise<KubeObject[]> {
  const { binaries, namespace, options, deadline } = ctx;
  const crds = host.resource(RESOURCES.customResourceDefinitions);
  const coreCrds = options.keepInstalledCrds === true ? [] : await yamlObjects(binaries.coreCrds);
  const ftcs = (await yamlObjects(binaries.federatedTypeConfigs)).filter(
    (ftc) => options.federatedTypes?.includes(ftc.metadata?.name ?? '') ?? true,
  );
  const unknown = (options.federatedTypes ?? []).filter((name) => !ftcs.some((ftc) => ftc.metadata?.name === name));
  if (unknown.length > 0) throw new KubeFedStartError(`KubeFed's chart has no FederatedTypeConfig ${unknown.join(', ')}`);
  const typeCrdNames = new Set(ftcs.map(federatedCrdName));
  const typeCrds = (await yamlObjects(binaries.federatedTypeCrds)).filter((crd) => typeCrdNames.has(crd.metadata?.name ?? ''));
  for (const crd of [...coreCrds, ...typeCrds]) await createOrReplace(crds, crd);
  await waitFor('the CRDs to be Established', deadline, undefined, async () => {
    for (const crd of [...coreCrds, ...typeCrds]) {
      const name = crd.metadata?.name ?? '';
      if (!isEstablished(await crds.get(name))) return `${name} not Established yet`;
    }
    return undefined;
  });
  // The chart's webhooks of a Namespaced control plane select its namespace by this label.
  const labels = ctx.scope === 'Namespaced' ? { name: namespace } : undefined;
  await createOrReplace(host.resource(RESOURCES.namespaces), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace, ...(labels === undefined ? {} : { labels }) },
  });
  return ftcs;
}

/** The KubeFedConfig `kubefed` and the FederatedTypeConfigs `ftcs` of the chart, in KubeFed's namespace. */
async function installConfig(
  host: DynamicClient,
  ctx: { namespace: string; options: StartKubeFedOptions; ftcs: readonly KubeObject[] },
): Promise<void> {
  const { namespace, options, ftcs } = ctx;
  await createOrReplace(host.resource(RESOURCES.kubeFedConfigs, namespace), {
    apiVersion: 'core.kubefed.io/v1beta1',
    kind: 'KubeFedConfig',
    metadata: { name: 'kubefed', namespace },
    spec: chartKubeFedConfigSpec(options.kubeFedConfig),
  });
  const ftcClient = host.resource(RESOURCES.federatedTypeConfigs, namespace);
  for (const ftc of ftcs) await createOrReplace(ftcClient, { ...ftc, metadata: { ...ftc.metadata, namespace } });
}

/** `<pluralName>.<group>` of an FTC's federated type: the name of its CRD. */
function federatedCrdName(ftc: KubeObject): string {
  const federatedType = (ftc['spec'] as { federatedType?: { pluralName?: string; group?: string } } | undefined)?.federatedType;
  return `${federatedType?.pluralName ?? ''}.${federatedType?.group ?? ''}`;
}

function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd['status'] as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions;
  return conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
}

async function yamlObjects(file: string): Promise<KubeObject[]> {
  const docs = parseAllDocuments(await readFile(file, 'utf8'));
  return docs.map((d) => d.toJSON() as unknown).filter((o): o is KubeObject => typeof o === 'object' && o !== null);
}

/** Creates `obj`, or replaces the existing one (keeping its resourceVersion) when it exists. */
async function createOrReplace(client: ResourceClient, obj: KubeObject): Promise<void> {
  try {
    await client.create(obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const existing = await client.get(obj.metadata?.name ?? '');
    await client.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: existing.metadata?.resourceVersion } } as KubeObject);
  }
}

/** The kubeconfig with `current-context` set to `context` (KubeFed's controller manager always uses the current one). */
function withCurrentContext(kubeconfigText: string, context: string): string {
  const config = parseYaml(kubeconfigText) as Record<string, unknown>;
  return stringifyYaml({ ...config, 'current-context': context });
}

/** Polls `check` (undefined = done; a rejection counts as not yet) until `deadline`, failing at once when `blame` has exited. */
async function waitFor(
  what: string,
  deadline: number,
  blame: ComponentProcess | undefined,
  check: () => Promise<string | undefined>,
): Promise<void> {
  for (;;) {
    if (blame !== undefined && !blame.running) {
      throw new KubeFedStartError(`${blame.name} exited; last lines of ${blame.logFile}:\n${await blame.tail()}`);
    }
    let last: string;
    try {
      const problem = await check();
      if (problem === undefined) return;
      last = problem;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() >= deadline) {
      const log = blame === undefined ? '' : `; last lines of ${blame.logFile}:\n${await blame.tail()}`;
      throw new KubeFedStartError(`timed out waiting for ${what} (last: ${last})${log}`);
    }
    await sleep(POLL_MS);
  }
}

function runCommand(binary: string, args: readonly string[], timeoutMs: number): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(binary, [...args], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}
