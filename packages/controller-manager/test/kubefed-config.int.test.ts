// The KubeFedConfig settings that the controller manager process reads at start (leader
// election, sync concurrency), proven on the running process against kube-sim.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESOURCES } from '@kubefed/api';
import { POLL, runSourceEntry, type ManagedProcess } from '@kubefed/testing';
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

  it("leads on KubeFed's default ConfigMap lock in client-go's format, says so in the log and an Event, and hands over to a second process", async () => {
    // No resourceLock: the CRD defaults it to configmaps, as KubeFed's webhook did.
    await writeKubeFedConfig({ leaderElect: { leaseDuration: '4s', renewDeadline: '3s', retryPeriod: '500ms' } });
    const host = fed.client('host');
    const configs = host.resource(RESOURCES.kubeFedConfigs, fed.namespace);
    expect(((await configs.get('kubefed')).spec as { leaderElect: unknown }).leaderElect).toEqual({
      leaseDuration: '4s',
      renewDeadline: '3s',
      retryPeriod: '500ms',
      resourceLock: 'configmaps',
    });
    // The Lease of the tests before: this process must neither need nor write one.
    const leases = host.resource(RESOURCES.leases, fed.namespace);
    await leases.delete('kubefed-controller-manager').catch(() => undefined);
    const configMaps = host.resource(RESOURCES.configMaps, fed.namespace);
    const record = async (): Promise<string | undefined> =>
      configMaps.get('kubefed-controller-manager').then(
        (cm) => cm.metadata.annotations?.['control-plane.alpha.kubernetes.io/leader'],
        () => undefined,
      );
    const identityOf = async (p: ManagedProcess): Promise<string> =>
      String(
        (JSON.parse(await p.waitForLine(/"msg":"starting kubefed-controller-manager"/, { fromStart: true })) as { identity: string })
          .identity,
      );

    const a = await fed.startControllerManager();
    const aId = await identityOf(a);
    const holding = JSON.parse(
      await a.waitForLine(/"msg":"holding the leader-election lock"/, { fromStart: true, timeoutMs: 30_000 }),
    ) as object;
    expect(holding).toMatchObject({
      kind: 'ConfigMap',
      namespace: fed.namespace,
      name: 'kubefed-controller-manager',
      resourceLock: 'configmaps',
    });
    const raw = await record();
    expect(Object.keys(JSON.parse(raw ?? '{}') as object)).toEqual([
      'holderIdentity',
      'leaseDurationSeconds',
      'acquireTime',
      'renewTime',
      'leaderTransitions',
    ]);
    expect(JSON.parse(raw ?? '{}')).toMatchObject({ holderIdentity: aId, leaseDurationSeconds: 4, leaderTransitions: expect.any(Number) });
    await expect(leases.get('kubefed-controller-manager')).rejects.toMatchObject({ code: 404 });
    const events = host.resource(RESOURCES.events, fed.namespace);
    await expect
      .poll(
        async () =>
          (await events.list()).items
            .filter((e) => (e['involvedObject'] as { kind?: string }).kind === 'KubeFedConfig' && e['reason'] === 'LeaderElection')
            .map((e) => e['message']),
        POLL,
      )
      .toContain(
        `${aId} became leader, holding ConfigMap ${fed.namespace}/kubefed-controller-manager (spec.leaderElect.resourceLock configmaps)`,
      );

    const b = await fed.startControllerManager();
    const bId = await identityOf(b);
    await b.waitForLine(/"msg":"caches synced"/, { fromStart: true, timeoutMs: 30_000 });
    // A lease duration and more with both running: a keeps the lock, b never leads.
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      expect(JSON.parse((await record()) ?? '{}')).toMatchObject({ holderIdentity: aId });
      expect(b.lines.some((l) => l.includes('"msg":"promoted as leader"'))).toBe(false);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await a.stop()).toBe(0);
    await b.waitForLine(/"msg":"promoted as leader"/, { fromStart: true, timeoutMs: 10_000 });
    await expect.poll(async () => JSON.parse((await record()) ?? '{}') as object, POLL).toMatchObject({ holderIdentity: bId });
    expect(await b.stop()).toBe(0);
  }, 120_000);

  it('refuses to start with a lock client-go does not know, naming the file and spec.leaderElect.resourceLock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubefed-config-'));
    try {
      const file = join(dir, 'kubefedconfig.yaml');
      await writeFile(file, 'spec: {scope: Cluster, leaderElect: {resourceLock: etcd}}\n');
      const result = await runSourceEntry(CONTROLLER_MANAGER, [...commonFlags(), '--kubefed-config', file], { timeoutMs: 60_000 });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(
        `invalid KubeFedConfig in --kubefed-config ${file}: spec.leaderElect.resourceLock: must be one of configmaps, endpoints, leases, configmapsleases, endpointsleases`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('prints the version that kubefedctl version prints with --version and exits 0', async () => {
    const result = await runSourceEntry(CONTROLLER_MANAGER, ['--version'], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^kubefed-controller-manager version: \{gitVersion: "v[^"]+", gitCommit: "[^"]+", gitTreeState: "[^"]+", buildDate: "[^"]+", nodeVersion: "v[^"]+", platform: "[^"]+"\}\n$/,
    );
  }, 60_000);
});
