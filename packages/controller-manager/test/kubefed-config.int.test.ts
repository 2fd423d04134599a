// The KubeFedConfig settings that the controller manager process reads at start (leader
// election, sync concurrency), proven on the running process against kube-sim.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESOURCES } from '@kubefed/api';
import { POLL, runSourceEntry } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';

const CONTROLLER_MANAGER = 'packages/controller-manager/src/main.ts';

const fed = useLocalFederation({ members: ['member1'], controllerManager: false, types: [], join: false });

const commonFlags = (): string[] => [
  '--kubeconfig',
  fed.kubeconfigPath,
  '--context',
  'host',
  '--redis-url',
  fed.redis.url,
  '--queue-prefix',
  fed.queuePrefix,
  '--metrics-addr',
  '127.0.0.1:0',
  '--health-addr',
  '127.0.0.1:0',
];

/** Replaces the KubeFedConfig `kubefed` with one whose spec has `spec` (KubeFed's defaults fill the rest). */
async function writeKubeFedConfig(spec: Record<string, unknown>): Promise<void> {
  const configs = fed.client('host').resource(RESOURCES.kubeFedConfigs, fed.namespace);
  await configs.delete('kubefed').catch(() => undefined);
  await expect
    .poll(
      () =>
        configs.get('kubefed').then(
          () => 'present',
          () => 'gone',
        ),
      { timeout: 10_000 },
    )
    .toBe('gone');
  await configs.create({
    apiVersion: 'core.kubefed.io/v1beta1',
    kind: 'KubeFedConfig',
    metadata: { name: 'kubefed' },
    spec: { scope: 'Cluster', ...spec },
  });
}

describe('the KubeFedConfig read by the controller manager process', () => {
  it("takes the Lease with spec.leaderElect's durations and runs each sync controller with spec.syncController.maxConcurrentReconciles workers", async () => {
    await writeKubeFedConfig({
      leaderElect: { leaseDuration: '7s', renewDeadline: '5s', retryPeriod: '1s', resourceLock: 'leases' },
      syncController: { maxConcurrentReconciles: 3 },
    });
    // The sync controller of a namespaced type starts once namespaces is enabled too (as KubeFed's).
    for (const type of ['namespaces', 'configmaps']) {
      const enabled = await fed.kubefedctl(['enable', type, '--host-cluster-context', 'host']);
      expect(enabled.code, enabled.stderr).toBe(0);
    }
    const cm = await fed.startControllerManager();
    const leases = fed.client('host').resource(RESOURCES.leases, fed.namespace);
    await expect.poll(async () => (await leases.get('kubefed-controller-manager')).spec, POLL).toMatchObject({ leaseDurationSeconds: 7 });
    const started = await cm.waitForLine(/"controller":"sync-configmaps".*"msg":"controller started"/, {
      fromStart: true,
      timeoutMs: 30_000,
    });
    expect(JSON.parse(started)).toMatchObject({ workers: 3 });
    expect(await cm.stop()).toBe(0);
  }, 90_000);

  it("with --kubefed-config and --master, takes the file's leader election durations and reaches the host at the --master URL", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubefed-config-'));
    try {
      const file = join(dir, 'kubefedconfig.yaml');
      await writeFile(
        file,
        [
          'apiVersion: core.kubefed.io/v1beta1',
          'kind: KubeFedConfig',
          'metadata: {name: kubefed, namespace: elsewhere}',
          'spec:',
          '  scope: Cluster',
          '  leaderElect: {leaseDuration: 9s, renewDeadline: 6s, retryPeriod: 1s, resourceLock: leases}',
          '',
        ].join('\n'),
      );
      // The kubeconfig's host server answers nothing: only --master reaches the host.
      const server = fed.client('host').server;
      const kubeconfig = join(dir, 'kubeconfig');
      await writeFile(kubeconfig, (await readFile(fed.kubeconfigPath, 'utf8')).replaceAll(server, 'https://127.0.0.1:1'));
      const cm = await fed.startControllerManager(['--kubeconfig', kubeconfig, '--master', server, '--kubefed-config', file]);
      const leases = fed.client('host').resource(RESOURCES.leases, fed.namespace);
      await expect.poll(async () => (await leases.get('kubefed-controller-manager')).spec, POLL).toMatchObject({ leaseDurationSeconds: 9 });
      expect(await cm.stop()).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it.each(['configmaps', 'endpoints', 'configmapsleases'])(
    'refuses to start with the %s lock, naming the file and spec.leaderElect.resourceLock',
    async (lock) => {
      const dir = await mkdtemp(join(tmpdir(), 'kubefed-config-'));
      try {
        const file = join(dir, 'kubefedconfig.yaml');
        await writeFile(file, `spec: {scope: Cluster, leaderElect: {resourceLock: ${lock}}}\n`);
        const result = await runSourceEntry(CONTROLLER_MANAGER, [...commonFlags(), '--kubefed-config', file], { timeoutMs: 60_000 });
        expect(result.code).toBe(1);
        expect(result.stdout).toContain(
          `invalid KubeFedConfig in --kubefed-config ${file}: spec.leaderElect.resourceLock: Unsupported value: \\"${lock}\\": Kubernetes 1.24 and later have no ConfigMap or Endpoints leader-election locks; supported values: \\"leases\\"`,
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    90_000,
  );

  it('prints the version that kubefedctl version prints with --version and exits 0', async () => {
    const result = await runSourceEntry(CONTROLLER_MANAGER, ['--version'], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^kubefed-controller-manager version: \{gitVersion: "v[^"]+", gitCommit: "[^"]+", gitTreeState: "[^"]+", buildDate: "[^"]+", nodeVersion: "v[^"]+", platform: "[^"]+"\}\n$/,
    );
  }, 60_000);
});
