/**
 * The Helm chart deploy/helm/kubefed given KubeFed v0.10.0's own values file
 * (fixtures/kubefed-v0.10.0-values.yaml): it renders this project's controller manager with
 * KubeFed's settings mapped, warns in NOTES about the values without a meaning here, refuses
 * the ones it cannot honour, and the rendered controller manager's command line starts against a
 * kube-sim host and real Redis. helm is built by `bash tools/helm/build.sh` (tools/helm/README.md).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster } from '@kubefed/kube-sim';
import { ManagedProcess, type RedisHandle, sourceEntry, startRedis } from '@kubefed/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  CHART,
  containerOf,
  crdsFirst,
  envVar,
  find,
  helmBinary,
  helmBuilt,
  helmTemplate,
  type K8sObject,
  KUBECTL,
  runCommand,
  runOk,
  setArgs,
} from './support/helm.js';

const NS = 'kube-federation-system';
const KUBEFED_VALUES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'kubefed-v0.10.0-values.yaml');
const kubefedValues = parse(readFileSync(KUBEFED_VALUES, 'utf8'));
const render = (extra: readonly string[] = []): Promise<K8sObject[]> =>
  helmTemplate({ namespace: NS, extraArgs: ['-f', KUBEFED_VALUES, ...extra] });

/**
 * NOTES.txt rendered offline: `helm template` never prints it (and `helm install --dry-run`
 * needs the chart's CRDs in a cluster), so a copy of the chart renders it as a YAML string.
 */
async function renderNotes(args: readonly string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'kubefed-helm-notes-'));
  try {
    const chart = join(dir, 'kubefed');
    cpSync(CHART, chart, { recursive: true });
    const notes = readFileSync(join(chart, 'templates', 'NOTES.txt'), 'utf8');
    writeFileSync(join(chart, 'templates', '_test-notes.tpl'), `{{- define "test.notes" -}}\n${notes}{{- end -}}\n`);
    writeFileSync(join(chart, 'templates', 'test-notes.yaml'), 'notes: {{ include "test.notes" . | toJson }}\n');
    const out = await runOk(helmBinary(), ['template', 'kubefed', chart, '-n', NS, ...args, '--show-only', 'templates/test-notes.yaml']);
    return (parse(out) as { notes: string }).notes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(() => {
  if (!helmBuilt()) throw new Error(`helm is not built: run bash tools/helm/build.sh (expected ${helmBinary()})`);
});

describe("helm template with KubeFed v0.10.0's values file", () => {
  it("runs this chart's image, not KubeFed's, and maps KubeFed's klog level to --v", async () => {
    const objects = await render();
    for (const name of ['kubefed-controller-manager', 'kubefed-sync-worker']) {
      const c = containerOf(find(objects, 'Deployment', name));
      expect(c.image).toBe('kubefed-controller-manager:0.1.0');
      expect((c.args as string[]).filter((a) => a.startsWith('--v=') || a.startsWith('--log-level'))).toEqual(
        name === 'kubefed-controller-manager'
          ? [`--v=${String(kubefedValues.controllermanager.controller.logLevel)}`]
          : ['--log-level=info'],
      );
    }
  });

  it("takes KubeFed's replicas, resources, scope and KubeFedConfig defaults", async () => {
    const objects = await render();
    const cm = find(objects, 'Deployment', 'kubefed-controller-manager');
    const controller = kubefedValues.controllermanager.controller;
    expect(cm.spec.replicas).toBe(controller.replicaCount);
    expect(containerOf(cm).resources).toEqual(controller.resources);
    expect(envVar(cm, 'DEFAULT_KUBEFED_SCOPE').value).toBe('Cluster');
    const config = find(objects, 'KubeFedConfig', 'kubefed').spec;
    expect(config.scope).toBe('Cluster');
    expect(config.leaderElect).toEqual({ leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '5s' });
    expect(config.clusterHealthCheck).toEqual({ period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s' });
    expect(config.featureGates).toContainEqual({ name: 'PushReconciler', configuration: 'Enabled' });
  });

  it("maps KubeFed's settings given beside its file: scope, leader election, health checks, feature gates, pull secrets", async () => {
    const objects = await render(
      setArgs({
        'global.scope': 'Namespaced',
        'controllermanager.leaderElectLeaseDuration': '30s',
        'controllermanager.leaderElectResourceLock': 'configmaps',
        'controllermanager.clusterHealthCheckPeriod': '20s',
        'controllermanager.clusterHealthCheckFailureThreshold': '4',
        'controllermanager.featureGates.RawResourceStatusCollection': 'Disabled',
        'controllermanager.imagePullSecrets[0].name': 'pull',
        'controllermanager.controller.logLevel': '5',
      }),
    );
    const cm = find(objects, 'Deployment', 'kubefed-controller-manager');
    expect(containerOf(cm).args).toEqual(expect.arrayContaining(['--v=5', '--leader-elect-lease-duration=30s']));
    expect(cm.spec.template.spec.imagePullSecrets).toEqual([{ name: 'pull' }]);
    const config = find(objects, 'KubeFedConfig', 'kubefed').spec;
    expect(config.scope).toBe('Namespaced');
    expect(config.leaderElect).toMatchObject({ leaseDuration: '30s', resourceLock: 'configmaps' });
    expect(config.clusterHealthCheck).toMatchObject({ period: '20s', failureThreshold: 4 });
    expect(config.featureGates).toContainEqual({ name: 'RawResourceStatusCollection', configuration: 'Disabled' });
  });

  it('runs an image the user names explicitly, also with KubeFed tag or repository', async () => {
    const objects = await render(
      setArgs({ 'controllermanager.controller.repository': 'registry.example.com/mirror', 'controllermanager.controller.tag': 'canary' }),
    );
    expect(containerOf(find(objects, 'Deployment', 'kubefed-controller-manager')).image).toBe('registry.example.com/mirror/kubefed:canary');
  });

  it.each([
    [{ 'controllermanager.enabled': 'false' }, 'controllermanager.enabled: false would install no controller manager'],
    [{ 'controllermanager.certManager.enabled': 'true' }, 'controllermanager.certManager.enabled: this chart runs no admission webhook'],
    [{ 'controllermanager.controller.logLevel': 'loud' }, "at '/controllermanager/controller/logLevel'"],
    [{ 'controllermanager.featureGates.FederatedIngress': 'Enabled' }, "additional properties 'FederatedIngress' not allowed"],
    [{ 'controllermanager.clusterHealthCheckPeriod': 'ten seconds' }, "at '/controllermanager/clusterHealthCheckPeriod'"],
    [{ 'controllermanager.leaderElectResourceLock': 'secrets' }, "at '/controllermanager/leaderElectResourceLock'"],
  ])('refuses %j naming the value', async (values, message) => {
    const r = await runCommand(helmBinary(), ['template', 'kubefed', CHART, '-n', NS, '-f', KUBEFED_VALUES, ...setArgs(values)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });
  it("NOTES name the image and warn about KubeFed's webhook, certManager and postInstallJob values", async () => {
    const notes = await renderNotes(['-f', KUBEFED_VALUES]);
    expect(notes).toContain(
      'Image: kubefed-controller-manager:0.1.0 (controller manager), kubefed-controller-manager:0.1.0 (sync workers)',
    );
    expect(notes).toContain('WARNING: KubeFed chart values without a meaning here:');
    for (const value of ['webhook', 'certManager', 'postInstallJob']) expect(notes).toContain(`- controllermanager.${value}.*:`);
    expect(notes).toContain(
      "- controllermanager.controller.repository/image/tag name KubeFed's image (quay.io/kubernetes-multicluster/kubefed:canary), which cannot run this controller manager; running kubefed-controller-manager:0.1.0 instead.",
    );
    expect(await renderNotes([])).not.toContain('WARNING');
  });
});

describe("the chart with KubeFed's values file against a kube-sim host", () => {
  let redis: RedisHandle;
  beforeAll(async () => {
    redis = await startRedis({ url: process.env['REDIS_URL'] });
  });
  afterAll(async () => {
    await redis?.stop();
  });
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function host(): Promise<{ kubeconfig: string; dir: string; k: (args: readonly string[], input?: string) => Promise<string> }> {
    const cluster = await startCluster({ name: 'host' });
    cleanups.push(() => cluster.stop());
    const dir = mkdtempSync(join(tmpdir(), 'kubefed-helm-kubefed-values-'));
    cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const kubeconfig = join(dir, 'host.kubeconfig');
    writeFileSync(kubeconfig, cluster.kubeconfigYaml(), { mode: 0o600 });
    const base = [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dir, 'cache')}`];
    return { kubeconfig, dir, k: (args, input) => runOk(KUBECTL, [...base, ...args], { input }) };
  }

  it('the rendered controller manager command line starts against the host and serves health', async () => {
    const { kubeconfig, k } = await host();
    await k(['create', 'namespace', NS]);
    const objects = await render();
    // The CRDs, the KubeFedConfig and the FederatedTypeConfigs the controller manager reads at start.
    const { crds, rest } = crdsFirst(
      objects.filter((o) => ['CustomResourceDefinition', 'KubeFedConfig', 'FederatedTypeConfig'].includes(o.kind)),
    );
    const yaml = (list: readonly K8sObject[]): string => list.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
    await k(['apply', '--server-side', '-f', '-'], yaml(crds));
    await k(['wait', '--for=condition=Established', '--timeout=60s', ...crds.map((c) => `crd/${c.metadata.name}`)]);
    await k(['apply', '--server-side', '-f', '-'], yaml(rest));

    const container = containerOf(find(objects, 'Deployment', 'kubefed-controller-manager'));
    const renderedEnv = Object.fromEntries(
      (container.env as { name: string; value?: string }[]).filter((e) => e.value !== undefined).map((e) => [e.name, e.value ?? '']),
    );
    // What the kubelet would do: expand $(POD_NAMESPACE); the pod's in-cluster credentials and the
    // bundled Redis become the kube-sim host's kubeconfig and the test's Redis, and the fixed ports
    // free ones (given after the rendered flags, which the process takes last-wins).
    const args = (container.args as string[]).map((a) => a.replaceAll('$(POD_NAMESPACE)', NS));
    expect(args).toContain('--v=2');
    const cm = new ManagedProcess(
      'rendered controller manager',
      [
        ...sourceEntry('packages/controller-manager/src/main.ts'),
        ...args,
        `--kubeconfig=${kubeconfig}`,
        '--metrics-addr=127.0.0.1:0',
        '--health-addr=127.0.0.1:0',
        `--queue-prefix=${redis.prefix('helm-kubefed-values')}`,
      ],
      { env: { ...process.env, ...renderedEnv, POD_NAMESPACE: NS, REDIS_URL: redis.url, KUBECONFIG: '' } },
    );
    cleanups.push(() => cm.stop());
    const serving = JSON.parse(await cm.waitForLine(/"msg":"serving health and metrics"/, { timeoutMs: 90_000, fromStart: true })) as {
      health: string;
    };
    const healthz = await fetch(`${serving.health}/healthz`);
    expect(healthz.status).toBe(200);
    expect(cm.lines.filter((l) => /unknown option|error: /i.test(l))).toEqual([]);
    expect(cm.running).toBe(true);
  }, 150_000);
});
