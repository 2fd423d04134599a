import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFederatedTypeConfig, buildFederatedTypeCrd, RESOURCES } from '@kubefed/api';
import type { DynamicClient, KubeObject } from '@kubefed/client';
import { FEDERATED_TYPE_CONFIG_GVR } from '@kubefed/controllers';
import { generateClusterPki, type SimCluster } from '@kubefed/kube-sim';
import { createRedisConnection } from '@kubefed/queue';
import { clientFor, createNamespace, joinMember, POLL, type RedisHandle, startInProcessFederation, startRedis } from '@kubefed/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TARGET_TYPES } from '@kubefed/testing/fixtures';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const NS = 'kube-federation-system';
const core = (resource: string) => ({ group: '', version: 'v1', resource });
const KFC = RESOURCES.kubeFedClusters;
const CONFIG_MAPS = RESOURCES.configMaps;

const RBAC = (resource: string) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

let redis: RedisHandle;
beforeAll(async () => {
  redis = await startRedis({ url: process.env.REDIS_URL });
});
afterAll(async () => {
  await redis.stop();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Host with the KubeFed CRDs and kubefed namespace; `member1` joined with a service-account token of full access, as `kubefedctl join` grants. */
async function federation(): Promise<{ host: SimCluster; member: SimCluster; hostClient: DynamicClient }> {
  const fed = await startInProcessFederation({ members: { member1: {} } });
  cleanups.push(() => fed.stop());
  await createNamespace(fed.hostClient, NS);
  await joinMember(fed, fed.member('member1'), NS, { access: 'all' });
  return { host: fed.host, member: fed.member('member1'), hostClient: fed.hostClient };
}

async function writeKubeconfig(yaml: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kubefed-cm-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'kubeconfig');
  await writeFile(path, yaml, { mode: 0o600 });
  return path;
}

const exitOf = (cm: Spawned, timeoutMs = 15_000): Promise<number | null | string> =>
  Promise.race([cm.exited, new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs))]);

interface Spawned {
  readonly child: ChildProcess;
  readonly lines: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
}

function spawnControllerManager(args: string[]): Spawned {
  const child = spawn(
    process.execPath,
    ['--conditions=@kubefed/source', '--import', 'tsx', 'packages/controller-manager/src/main.ts', ...args],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: '' },
    },
  );
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
  it('serves /healthz, takes the leader lock (a ConfigMap, as KubeFed), marks a cluster Ready and exits 0 on SIGTERM releasing the lock', async () => {
    const { host, hostClient } = await federation();
    const kubeconfig = await writeKubeconfig(host.kubeconfigYaml());

    const cm = spawnControllerManager([
      '--kubeconfig',
      kubeconfig,
      '--redis-url',
      redis.url,
      '--queue-prefix',
      redis.prefix('cm'),
      '--metrics-addr',
      '127.0.0.1:0',
      '--health-addr',
      '127.0.0.1:0',
    ]);
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
    const metrics = await fetch(`${serving.metrics}/metrics`);
    expect(metrics.status).toBe(200);
    // Node.js process metrics of every replica, under the kubefed_ prefix.
    expect(await metrics.text()).toMatch(/^kubefed_process_cpu_user_seconds_total \d/m);

    // The default lock (KubeFed's): the leader record in the annotation of a ConfigMap.
    const holder = async (): Promise<string | undefined> => {
      const cm = await hostClient
        .resource(CONFIG_MAPS, NS)
        .get('kubefed-controller-manager')
        .catch(() => undefined);
      const raw = cm?.metadata.annotations?.['control-plane.alpha.kubernetes.io/leader'];
      return raw === undefined ? undefined : (JSON.parse(raw) as { holderIdentity?: string }).holderIdentity;
    };
    await expect
      .poll(holder, {
        timeout: 10_000,
        interval: 100,
      })
      .toMatch(/^.+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    await expect
      .poll(
        async () => ((await hostClient.resource(KFC, NS).get('member1')).status as { conditions?: unknown[] } | undefined)?.conditions,
        {
          timeout: 10_000,
          interval: 100,
        },
      )
      .toMatchObject([{ type: 'Ready', status: 'True', reason: 'ClusterReady' }]);
    await expect
      .poll(
        () =>
          hostClient
            .resource({ group: 'core.kubefed.io', version: 'v1beta1', resource: 'kubefedconfigs' }, NS)
            .get('kubefed')
            .then((c) => c.spec),
        { timeout: 5000 },
      )
      .toMatchObject({ scope: 'Cluster' });

    cm.child.kill('SIGTERM');
    const code = await Promise.race([cm.exited, new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), 15_000))]);
    expect(code).toBe(0);
    expect(await holder()).toBe('');
  });

  it('with --metrics-secure serves /metrics over HTTPS only to a host token whose user may get /metrics, and health as before', async () => {
    const { host, hostClient } = await federation();
    const kubeconfig = await writeKubeconfig(host.kubeconfigYaml());
    const pki = generateClusterPki('metrics');
    const dir = await mkdtemp(join(tmpdir(), 'kubefed-metrics-tls-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'tls.crt'), pki.certPem);
    await writeFile(join(dir, 'tls.key'), pki.keyPem);
    // A scraper's token, at first without any grant.
    await hostClient
      .resource(core('serviceaccounts'), 'default')
      .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'scraper' } });
    const secrets = hostClient.resource(core('secrets'), 'default');
    await secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/service-account-token',
      metadata: { name: 'scraper-token', annotations: { 'kubernetes.io/service-account.name': 'scraper' } },
    });
    const token = await vi.waitFor(
      async () => {
        const t = ((await secrets.get('scraper-token')).data as Record<string, string> | undefined)?.token;
        if (t === undefined || t === '') throw new Error('token not filled in yet');
        return Buffer.from(t, 'base64').toString();
      },
      { timeout: 5000, interval: 50 },
    );

    const args = ['--metrics-secure', '--metrics-cert-file', join(dir, 'tls.crt'), '--metrics-key-file', join(dir, 'tls.key')];
    const cm = spawnControllerManager([
      '--kubeconfig',
      kubeconfig,
      '--redis-url',
      redis.url,
      '--queue-prefix',
      redis.prefix('secure'),
      '--metrics-addr',
      '127.0.0.1:0',
      '--health-addr',
      '127.0.0.1:0',
      ...args,
    ]);
    const serving = await vi.waitFor(
      () => {
        const line = cm.lines.find((l) => l.msg === 'serving health and metrics');
        if (line === undefined) throw new Error('not serving yet');
        return line as { health: string; metrics: string };
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(serving.metrics).toMatch(/^https:\/\//);
    expect((await fetch(`${serving.health}/healthz`)).status).toBe(200);
    const scrape = (bearer?: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = httpsRequest(
          `${serving.metrics}/metrics`,
          { ca: pki.caCertPem, headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end();
      });
    expect(await scrape()).toBe(401);
    expect(await scrape(token)).toBe(403);
    const rbac = (resource: string) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });
    await hostClient.resource(rbac('clusterroles')).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'metrics-reader' },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    });
    await hostClient.resource(rbac('clusterrolebindings')).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'scraper-metrics-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: 'default' }],
    });
    // Decisions are cached for 10 s.
    await expect.poll(() => scrape(token), { timeout: 20_000, interval: 500 }).toBe(200);
  }, 60_000);

  it('reports Redis in /readyz: not ready while Redis does not answer, ready again once it does', async () => {
    await using privateRedis = await startRedis({ forcePrivate: true });
    const probe = createRedisConnection(privateRedis.url, { role: 'producer' });
    const pid = Number(/process_id:(\d+)/.exec(await probe.info('server'))?.[1]);
    probe.disconnect();
    const { host } = await federation();
    const kubeconfig = await writeKubeconfig(host.kubeconfigYaml());
    const cm = spawnControllerManager([
      '--kubeconfig',
      kubeconfig,
      '--redis-url',
      privateRedis.url,
      '--metrics-addr',
      '127.0.0.1:0',
      '--health-addr',
      '127.0.0.1:0',
    ]);
    const serving = await vi.waitFor(
      () => {
        const line = cm.lines.find((l) => l.msg === 'serving health and metrics');
        if (line === undefined) throw new Error('not serving yet');
        return line as { health: string };
      },
      { timeout: 20_000, interval: 100 },
    );
    const readyz = async (): Promise<string> => {
      const res = await fetch(`${serving.health}/readyz`);
      return `${res.status} ${(await res.text()).split('\n').find((l) => l.includes('redis')) ?? ''}`;
    };
    await expect.poll(readyz, { timeout: 20_000, interval: 200 }).toBe('200 [+]redis ok');
    process.kill(pid, 'SIGSTOP');
    try {
      await expect.poll(readyz, { timeout: 20_000, interval: 200 }).toBe('503 [-]redis failed');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await expect.poll(readyz, { timeout: 20_000, interval: 200 }).toBe('200 [+]redis ok');
    cm.child.kill('SIGTERM');
    await cm.exited;
  });

  it('propagates a federated object to a member through Redis sync workers, reports Propagation True and exits 0 on SIGTERM', async () => {
    const { host, member, hostClient } = await federation();
    await hostClient.resource(CRDS).create(buildFederatedTypeCrd(TARGET_TYPES.clusterRoles) as unknown as KubeObject);
    await hostClient
      .resource(FEDERATED_TYPE_CONFIG_GVR, NS)
      .create(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, NS) as unknown as KubeObject);
    const kubeconfig = await writeKubeconfig(host.kubeconfigYaml());
    const cm = spawnControllerManager([
      '--kubeconfig',
      kubeconfig,
      '--redis-url',
      redis.url,
      '--queue-prefix',
      redis.prefix('cm'),
      '--metrics-addr',
      '127.0.0.1:0',
      '--health-addr',
      '127.0.0.1:0',
      '--worker-concurrency',
      '2',
    ]);
    const fedRoles = hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' });
    await fedRoles.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedClusterRole',
      metadata: { name: 'reader' },
      spec: {
        template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
        placement: { clusters: [{ name: 'member1' }] },
      },
    });
    using m = clientFor(member);
    await expect
      .poll(
        () =>
          m
            .resource(RBAC('clusterroles'))
            .get('reader')
            .catch(() => undefined),
        { timeout: 25_000, interval: 200 },
      )
      .toMatchObject({ metadata: { labels: { 'kubefed.io/managed': 'true' } }, rules: [{ verbs: ['get'] }] });
    await expect
      .poll(async () => (await fedRoles.get('reader')).status, { timeout: 10_000, interval: 200 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }] });
    expect(cm.lines.some((l) => l.msg === 'sync workers started')).toBe(true);
    // The sync controller of the type reports its reconciles.
    const serving = cm.lines.find((l) => l.msg === 'serving health and metrics') as { metrics: string } | undefined;
    const text = await (await fetch(`${serving?.metrics ?? ''}/metrics`)).text();
    expect(text).toMatch(
      /^kubefed_controller_reconcile_total\{controller="sync-clusterroles\.rbac\.authorization\.k8s\.io",result="success"\} [1-9]/m,
    );
    // One cache of the federated objects, kept without managedFields; the status written from it
    // leaves the server's managedFields as they were, the creator's entry beside the status writer's.
    const informers = [...text.matchAll(/^kubefed_informer_lists_total\{informer="(federatedclusterroles[^"]*)"\}/gm)].map((m) => m[1]);
    expect(informers).toEqual([expect.stringMatching(/#without-managed-fields@host$/)]);
    const fields = ((await fedRoles.get('reader')).metadata.managedFields ?? []) as { manager?: string; subresource?: string }[];
    expect(fields.map((f) => `${f.manager ?? ''}/${f.subresource ?? ''}`).sort()).toEqual([
      'kubefed-controller-manager/',
      'kubefed-controller-manager/status',
      'kubefed-ts/',
    ]);

    cm.child.kill('SIGTERM');
    expect(await exitOf(cm)).toBe(0);
    expect(cm.lines.some((l) => l.msg === 'sync workers stopped')).toBe(true);
  }, 60_000);

  it('propagates with controllers and sync workers in separate processes (--mode controllers + --mode workers)', async () => {
    const { host, member, hostClient } = await federation();
    await hostClient.resource(CRDS).create(buildFederatedTypeCrd(TARGET_TYPES.clusterRoles) as unknown as KubeObject);
    await hostClient
      .resource(FEDERATED_TYPE_CONFIG_GVR, NS)
      .create(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, NS) as unknown as KubeObject);
    const kubeconfig = await writeKubeconfig(host.kubeconfigYaml());
    const common = [
      '--kubeconfig',
      kubeconfig,
      '--redis-url',
      redis.url,
      '--queue-prefix',
      redis.prefix('split'),
      '--metrics-addr',
      '127.0.0.1:0',
      '--health-addr',
      '127.0.0.1:0',
    ];
    const controllers = spawnControllerManager([...common, '--mode', 'controllers']);
    const workers = spawnControllerManager([...common, '--mode', 'workers']);
    await hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' }).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedClusterRole',
      metadata: { name: 'split-reader' },
      spec: {
        template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] },
        placement: { clusters: [{ name: 'member1' }] },
      },
    });
    using m = clientFor(member);
    await expect
      .poll(
        () =>
          m
            .resource(RBAC('clusterroles'))
            .get('split-reader')
            .catch(() => undefined),
        POLL,
      )
      .toMatchObject({ metadata: { labels: { 'kubefed.io/managed': 'true' } }, rules: [{ verbs: ['list'] }] });
    // The workers' outcomes reach the leader's status writer through Redis.
    await expect
      .poll(
        async () =>
          (
            await hostClient
              .resource({ group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' })
              .get('split-reader')
          ).status,
        { timeout: 15_000, interval: 200 },
      )
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }] });
    expect(controllers.lines.some((l) => l.msg === 'sync workers started')).toBe(false);

    workers.child.kill('SIGTERM');
    controllers.child.kill('SIGTERM');
    expect(await exitOf(workers)).toBe(0);
    expect(await exitOf(controllers)).toBe(0);
  }, 60_000);

  it('exits 1 naming the Redis URL without its password when Redis is unreachable', async () => {
    const kubeconfig = await writeKubeconfig(
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: c',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        '',
      ].join('\n'),
    );
    const cm = spawnControllerManager([
      '--kubeconfig',
      kubeconfig,
      '--redis-url',
      'redis://op:s3cret@127.0.0.1:1',
      '--metrics-addr',
      '127.0.0.1:0',
      '--health-addr',
      '127.0.0.1:0',
    ]);
    expect(await exitOf(cm)).toBe(1);
    const fatal = cm.lines.find((l) => l.msg === 'kubefed-controller-manager failed') as { err?: { message?: string } } | undefined;
    expect(fatal?.err?.message).toContain('Redis at redis://op:***@127.0.0.1:1 (--redis-url) is unreachable');
    expect(JSON.stringify(cm.lines)).not.toContain('s3cret');
  });

  it('exits 1 with a one-line cause naming a bad flag', async () => {
    const cm = spawnControllerManager(['--metrics-addr', 'nowhere']);
    let stderr = '';
    cm.child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    expect(await cm.exited).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'kubefed-controller-manager: --metrics-addr: "nowhere" is not host:port with a port in 0..65535',
    ]);
  });
});
