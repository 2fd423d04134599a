import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubeFedCrds, RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig, type KubeObject } from '@kubefed/client';
import { startCluster, type SimCluster } from '@kubefed/kube-sim';
import { afterEach, describe, expect, it, vi } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const NS = 'kube-federation-system';
const core = (resource: string) => ({ group: '', version: 'v1', resource });
const KFC = RESOURCES.kubeFedClusters;
const LEASES = RESOURCES.leases;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const clientFor = (c: SimCluster): DynamicClient => DynamicClient.fromKubeconfig(Kubeconfig.fromString(c.kubeconfigYaml()));

/** Host with the KubeFed CRDs and kubefed namespace; `member1` joined with a service-account token. */
async function federation(): Promise<{ host: SimCluster; hostClient: DynamicClient }> {
  const host = await startCluster({ name: 'host' });
  cleanups.push(() => host.stop());
  const member = await startCluster({ name: 'member1' });
  cleanups.push(() => member.stop());
  const hostClient = clientFor(host);
  cleanups.push(() => Promise.resolve(hostClient.close()));
  for (const crd of kubeFedCrds()) await hostClient.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create(crd as unknown as KubeObject);
  await hostClient.resource(core('namespaces')).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });

  using m = clientFor(member);
  await m.resource(core('namespaces')).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await m.resource(core('serviceaccounts'), NS).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'member1-host' } });
  const secrets = m.resource(core('secrets'), NS);
  await secrets.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'member1-host-token', annotations: { 'kubernetes.io/service-account.name': 'member1-host' } },
    type: 'kubernetes.io/service-account-token',
  });
  const token = await vi.waitFor(
    async () => {
      const t = ((await secrets.get('member1-host-token')).data as Record<string, string> | undefined)?.token;
      if (t === undefined || t === '') throw new Error('token not filled in yet');
      return t;
    },
    { timeout: 5000, interval: 50 },
  );
  await hostClient.resource(core('secrets'), NS).create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'member1-secret' }, data: { token } });
  await hostClient.resource(KFC, NS).create({
    apiVersion: 'core.kubefed.io/v1beta1',
    kind: 'KubeFedCluster',
    metadata: { name: 'member1' },
    spec: { apiEndpoint: member.url, caBundle: Buffer.from(member.caPem ?? '').toString('base64'), secretRef: { name: 'member1-secret' } },
  });
  return { host, hostClient };
}

interface Spawned {
  readonly child: ChildProcess;
  readonly lines: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
}

function spawnControllerManager(args: string[]): Spawned {
  const child = spawn(process.execPath, ['--conditions=@kubefed/source', '--import', 'tsx', 'packages/controller-manager/src/main.ts', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: '' },
  });
  const lines: Record<string, unknown>[] = [];
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const p of parts) {
      try {
        lines.push(JSON.parse(p) as Record<string, unknown>);
      } catch {
        lines.push({ msg: p });
      }
    }
  });
  child.stderr?.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { child, lines, exited };
}

describe('kubefed-controller-manager process', () => {
  it('serves /healthz, takes the Lease, marks a cluster Ready and exits 0 on SIGTERM releasing the Lease', async () => {
    const { host, hostClient } = await federation();
    const dir = await mkdtemp(join(tmpdir(), 'kubefed-cm-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, host.kubeconfigYaml(), { mode: 0o600 });

    const cm = spawnControllerManager(['--kubeconfig', kubeconfig, '--metrics-addr', '127.0.0.1:0', '--health-addr', '127.0.0.1:0']);
    const serving = await vi.waitFor(
      () => {
        const line = cm.lines.find((l) => l.msg === 'serving health and metrics');
        if (line === undefined) throw new Error('not serving yet');
        return line as { health: string; metrics: string };
      },
      { timeout: 20_000, interval: 100 },
    );
    const healthz = await fetch(`${serving.health}/healthz`);
    expect(healthz.status).toBe(200);
    expect((await fetch(`${serving.metrics}/metrics`)).status).toBe(200);

    const leases = hostClient.resource(LEASES, NS);
    await expect
      .poll(async () => ((await leases.get('kubefed-controller-manager').catch(() => undefined))?.spec as { holderIdentity?: string } | undefined)?.holderIdentity, {
        timeout: 10_000,
        interval: 100,
      })
      .toMatch(/^.+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    await expect
      .poll(async () => ((await hostClient.resource(KFC, NS).get('member1')).status as { conditions?: unknown[] } | undefined)?.conditions, {
        timeout: 10_000,
        interval: 100,
      })
      .toMatchObject([{ type: 'Ready', status: 'True', reason: 'ClusterReady' }]);
    await expect.poll(() => hostClient.resource({ group: 'core.kubefed.io', version: 'v1beta1', resource: 'kubefedconfigs' }, NS).get('kubefed').then((c) => c.spec), { timeout: 5000 }).toMatchObject({ scope: 'Cluster' });

    cm.child.kill('SIGTERM');
    const code = await Promise.race([cm.exited, new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), 15_000))]);
    expect(code).toBe(0);
    const lease = await leases.get('kubefed-controller-manager');
    expect((lease.spec as { holderIdentity?: string }).holderIdentity ?? '').toBe('');
  });

  it('exits 1 with a one-line cause naming a bad flag', async () => {
    const cm = spawnControllerManager(['--metrics-addr', 'nowhere']);
    let stderr = '';
    cm.child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    expect(await cm.exited).toBe(1);
    expect(stderr.trim().split('\n')).toEqual(['kubefed-controller-manager: --metrics-addr: "nowhere" is not host:port with a port in 0..65535']);
  });
});
