import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig, type KubeObject } from '@kubefed/client';
import { findKubeBinaries, RealClusterStartError, startRealClusters, uniqueName, type RealClusters } from '@kubefed/testing';

const run = promisify(execFile);

interface PodView {
  status?: { phase?: string; conditions?: { type?: string; status?: string; reason?: string }[] };
}

// Starting two control planes takes about 10 s and 1 GiB, so the tests of this file share one
// pair of clusters and each works in its own namespace.
describe('startRealClusters', () => {
  let real: RealClusters;
  let member1: DynamicClient;

  beforeAll(async () => {
    real = await startRealClusters({
      names: ['member1', 'member2'],
      nodes: 2,
      podsPerNode: 3,
      regions: { member1: 'us-east-1', member2: 'eu-west-1' },
    });
    member1 = DynamicClient.fromKubeconfig(Kubeconfig.fromFile(real.kubeconfigPath), { context: 'member1', qps: 0 });
  });
  afterAll(async () => {
    member1?.close();
    await real?.stop();
  });

  async function createNamespace(client: DynamicClient): Promise<string> {
    const name = uniqueName('real');
    await client.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    return name;
  }

  it('writes one kubeconfig context per cluster that kubectl can use, with the fake nodes in the cluster region', async () => {
    expect(real.clusters.map((c) => c.name)).toEqual(['member1', 'member2']);
    expect(real.get('member2').url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(() => real.get('nope')).toThrow(RealClusterStartError);
    const kubeconfig = Kubeconfig.fromString(real.kubeconfigYaml);
    expect(kubeconfig.currentContext).toBe('member1');
    expect(kubeconfig.contexts().map((c) => [c.name, c.server])).toEqual(real.clusters.map((c) => [c.name, c.url]));

    const { stdout } = await run('kubectl', ['--kubeconfig', real.kubeconfigPath, '--context', 'member2', 'get', 'nodes', '-o', 'json']);
    const nodes = (JSON.parse(stdout) as { items: KubeObject[] }).items;
    expect(nodes.map((n) => n.metadata?.name).sort()).toEqual(['member2-node-1', 'member2-node-2']);
    for (const node of nodes) {
      expect(node.metadata?.labels?.['topology.kubernetes.io/region']).toBe('eu-west-1');
      expect((node as { status?: { allocatable?: { pods?: string } } }).status?.allocatable?.pods).toBe('3');
    }
    const version = await run('kubectl', ['--kubeconfig', real.kubeconfigPath, 'version', '-o', 'json']);
    expect((JSON.parse(version.stdout) as { serverVersion?: { gitVersion?: string } }).serverVersion?.gitVersion).toBe(real.version);
  });

  it('runs the pods that fit on the nodes and leaves the rest Pending as Unschedulable', async () => {
    const namespace = await createNamespace(member1);
    await member1.resource(RESOURCES.deployments, namespace).create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 8,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
    const pods = member1.resource(RESOURCES.pods, namespace);
    await expect
      .poll(
        async () => {
          const items = (await pods.list()).items as PodView[];
          const running = items.filter((p) => p.status?.phase === 'Running').length;
          const unschedulable = items.filter((p) => {
            const scheduled = p.status?.conditions?.find((c) => c.type === 'PodScheduled');
            return p.status?.phase === 'Pending' && scheduled?.status === 'False' && scheduled.reason === 'Unschedulable';
          }).length;
          return { total: items.length, running, unschedulable };
        },
        { timeout: 60_000, interval: 500 },
      )
      .toEqual({ total: 8, running: 6, unschedulable: 2 });
  });

  it('fills a service-account token Secret through the token controller, and the token authenticates', async () => {
    const namespace = await createNamespace(member1);
    await member1
      .resource(RESOURCES.serviceAccounts, namespace)
      .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
    const secrets = member1.resource(RESOURCES.secrets, namespace);
    await secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/service-account-token',
      metadata: { name: 'builder-token', annotations: { 'kubernetes.io/service-account.name': 'builder' } },
    });
    const secretData = async (): Promise<Record<string, string>> =>
      ((await secrets.get('builder-token')) as { data?: Record<string, string> }).data ?? {};
    await expect
      .poll(async () => Object.keys(await secretData()).sort(), { timeout: 30_000, interval: 250 })
      .toEqual(['ca.crt', 'namespace', 'token']);
    const filled = await secretData();
    const decode = (key: string): string => Buffer.from(filled[key] ?? '', 'base64').toString('utf8');
    expect(decode('namespace')).toBe(namespace);
    expect(decode('ca.crt')).toBe(real.get('member1').caPem);

    const cluster = real.get('member1');
    const asBuilder = DynamicClient.fromKubeconfig(
      Kubeconfig.fromString(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [
            { name: 'c', cluster: { server: cluster.url, 'certificate-authority-data': Buffer.from(cluster.caPem).toString('base64') } },
          ],
          users: [{ name: 'builder', user: { token: decode('token') } }],
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'builder' } }],
          'current-context': 'c',
        }),
      ),
    );
    try {
      const review = await asBuilder.raw('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        method: 'POST',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      expect(review.status).toBe(201);
      expect((JSON.parse(review.body) as { status?: { userInfo?: { username?: string } } }).status?.userInfo?.username).toBe(
        `system:serviceaccount:${namespace}:builder`,
      );
    } finally {
      asBuilder.close();
    }
  });
});

describe('startRealClusters on its own', () => {
  it('stops every process and removes its directory', async () => {
    let pids: number[];
    let dir: string;
    {
      await using one = await startRealClusters({ names: ['solo'], nodes: 1 });
      pids = one.processes().map((p) => p.pid ?? -1);
      dir = one.get('solo').dir;
      expect(one.processes().map((p) => p.name)).toEqual([
        'etcd',
        'kube-apiserver[solo]',
        'kube-controller-manager[solo]',
        'kube-scheduler[solo]',
        'kwok[solo]',
      ]);
      for (const pid of pids) expect(isAlive(pid)).toBe(true);
    }
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    await expect(stat(dir)).rejects.toThrow(/ENOENT/);
  });

  it('names the component that exits during the start and shows the tail of its log', async () => {
    const binDir = await mkdtemp(join(tmpdir(), 'kubefed-bad-bin-'));
    let keptLogs: string | undefined;
    try {
      const real = await findKubeBinaries();
      for (const [name, path] of [
        ['etcd', real.etcd],
        ['kube-controller-manager', real.kubeControllerManager],
        ['kube-scheduler', real.kubeScheduler],
        ['kwok', real.kwok],
      ] as const) {
        await symlink(path, join(binDir, name));
      }
      await writeFile(join(binDir, 'kube-apiserver'), '#!/bin/sh\necho "Error: unknown flag: --made-up"\nexit 1\n', { mode: 0o755 });
      const err = await startRealClusters({ names: ['broken'], binDir }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RealClusterStartError);
      const message = (err as Error).message;
      expect(message).toMatch(/kube-apiserver\[broken\] exited with 1/);
      expect(message).toContain('Error: unknown flag: --made-up');
      keptLogs = /\(logs kept in (\S+)\)/.exec(message)?.[1];
      expect(keptLogs).toBeDefined();
    } finally {
      await rm(binDir, { recursive: true, force: true });
      if (keptLogs !== undefined) await rm(keptLogs, { recursive: true, force: true });
    }
  });

  it('says to run npm run kube:build when the binaries are missing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'kubefed-no-bin-'));
    try {
      await expect(startRealClusters({ names: ['x'], binDir: empty })).rejects.toThrow(/run npm run kube:build/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
