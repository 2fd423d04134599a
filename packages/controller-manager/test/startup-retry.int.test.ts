// The controller manager waits for its host API server at start-up: real ports (a TCP server
// that never completes a TLS handshake, a port nothing listens on, kube-sim made unreachable)
// and real processes; and it exits 1 saying what to fix when the host refuses it for good.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESOURCES } from '@kubefed/api';
import { DynamicClient } from '@kubefed/client';
import { startCluster, type SimCluster } from '@kubefed/kube-sim';
import { capturedLogger } from '@kubefed/runtime/testing';
import {
  clientFor,
  createNamespace,
  ManagedProcess,
  type RedisHandle,
  sourceEntry,
  startInProcessFederation,
  startRedis,
} from '@kubefed/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { StartupRetry } from '../src/startup-retry.js';

const NS = 'kube-federation-system';
const RETRYING = 'host API server not available at start-up: retrying';

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

/** A TCP server that accepts connections and never answers (a TLS handshake with it never completes). */
async function blackHole(): Promise<{ server: Server; port: number; connections: () => number }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { server, port: (server.address() as { port: number }).port, connections: () => accepted };
}

/** A loopback port that was free a moment ago (nothing listens on it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const unauthenticated = (server: string, timeoutMs: number): DynamicClient =>
  new DynamicClient({ name: 'host', server, tls: {}, authHeaders: () => Promise.resolve({}) }, { timeoutMs });

const kubeSystemUid = (client: DynamicClient, signal: AbortSignal): Promise<string | undefined> =>
  client
    .resource(RESOURCES.namespaces)
    .get('kube-system', { signal })
    .then((ns) => ns.metadata.uid);

describe('StartupRetry against real ports', () => {
  it('retries a GET whose TLS handshake never completes, logging each attempt, and succeeds once the target answers', async () => {
    const hole = await blackHole();
    const sim = await startCluster({ name: 'late', tls: false });
    cleanups.push(async () => await sim[Symbol.asyncDispose]());
    const { lines, logger } = capturedLogger();
    const retry = new StartupRetry({ signal: new AbortController().signal, logger, server: 'test', initialDelayMs: 50, maxDelayMs: 200 });
    let target = unauthenticated(`https://127.0.0.1:${hole.port}`, 300);
    const uid = retry.run({ name: 'reading kube-system' }, (signal) => kubeSystemUid(target, signal));
    await vi.waitFor(() => expect(lines.filter((l) => l['msg'] === RETRYING).length).toBeGreaterThanOrEqual(2), { timeout: 20_000 });
    expect(hole.connections()).toBeGreaterThanOrEqual(2);
    expect(lines.find((l) => l['msg'] === RETRYING)).toMatchObject({
      step: 'reading kube-system',
      attempt: 1,
      retryInMs: 50,
      err: { message: expect.stringContaining('Timeout: no response within 300 ms') as unknown },
    });
    target = unauthenticated(sim.url, 5000);
    expect(await uid).toMatch(/^[0-9a-f-]{36}$/);
  }, 30_000);

  it('ends the wait as soon as the signal aborts, while a request hangs in its TLS handshake', async () => {
    const hole = await blackHole();
    const stop = new AbortController();
    const retry = new StartupRetry({ signal: stop.signal, logger: capturedLogger().logger, server: 'test' });
    // The request's own timeout (10 minutes) is not what ends it.
    const client = unauthenticated(`https://127.0.0.1:${hole.port}`, 600_000);
    cleanups.push(() => Promise.resolve(client[Symbol.dispose]()));
    const settled = vi.fn();
    const waiting = retry.run({ name: 'reading kube-system' }, (signal) => kubeSystemUid(client, signal));
    waiting.then(settled, settled);
    await vi.waitFor(() => expect(hole.connections()).toBe(1), { timeout: 10_000 });
    expect(settled).not.toHaveBeenCalled();
    stop.abort();
    await vi.waitFor(() => expect(settled).toHaveBeenCalledWith(stop.signal.reason), { timeout: 2000 });
  });

  it('retries while nothing listens on the port, and succeeds once kube-sim starts on it', async () => {
    const port = await freePort();
    const { lines, logger } = capturedLogger();
    const retry = new StartupRetry({ signal: new AbortController().signal, logger, server: 'test', initialDelayMs: 50, maxDelayMs: 200 });
    const client = unauthenticated(`http://127.0.0.1:${port}`, 5000);
    cleanups.push(() => Promise.resolve(client[Symbol.dispose]()));
    const uid = retry.run({ name: 'reading kube-system' }, (signal) => kubeSystemUid(client, signal));
    await vi.waitFor(() => expect(lines.filter((l) => l['msg'] === RETRYING).length).toBeGreaterThanOrEqual(2), { timeout: 20_000 });
    expect(lines.find((l) => l['msg'] === RETRYING)).toMatchObject({
      err: { message: expect.stringContaining('ECONNREFUSED') as unknown },
    });
    const sim = await startCluster({ name: 'late', tls: false, port });
    cleanups.push(async () => await sim[Symbol.asyncDispose]());
    expect(await uid).toMatch(/^[0-9a-f-]{36}$/);
  }, 30_000);
});

async function writeKubeconfig(yaml: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kubefed-cm-startup-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'kubeconfig');
  await writeFile(path, yaml, { mode: 0o600 });
  return path;
}

function controllerManager(kubeconfig: string, extra: readonly string[] = [], healthAddr = '127.0.0.1:0'): ManagedProcess {
  const args = ['--kubeconfig', kubeconfig, '--redis-url', redis.url, '--metrics-addr', '127.0.0.1:0', '--health-addr', healthAddr];
  const cm = new ManagedProcess(
    'kubefed-controller-manager',
    [...sourceEntry('packages/controller-manager/src/main.ts'), ...args, ...extra],
    {
      env: { ...process.env, KUBECONFIG: '' },
    },
  );
  cleanups.push(async () => void (await cm.kill()));
  return cm;
}

/** A host with the KubeFed CRDs (or those given) and the kubefed namespace. */
async function host(crds?: readonly object[]): Promise<SimCluster> {
  const fed = await startInProcessFederation(crds === undefined ? {} : { crds });
  cleanups.push(() => fed.stop());
  await createNamespace(fed.hostClient, NS);
  return fed.host;
}

/** The token of a new service account `default/<name>` that has no grant. */
async function serviceAccountToken(sim: SimCluster, name: string): Promise<string> {
  const admin = adminClient(sim);
  await admin.resource(RESOURCES.serviceAccounts, 'default').create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  const secrets = admin.resource(RESOURCES.secrets, 'default');
  await secrets.create({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/service-account-token',
    metadata: { name: `${name}-token`, annotations: { 'kubernetes.io/service-account.name': name } },
  });
  return vi.waitFor(
    async () => {
      const token = ((await secrets.get(`${name}-token`)).data as Record<string, string> | undefined)?.['token'];
      if (token === undefined || token === '') throw new Error('token not filled in yet');
      return Buffer.from(token, 'base64').toString();
    },
    { timeout: 10_000, interval: 50 },
  );
}

function adminClient(sim: SimCluster): DynamicClient {
  const client = clientFor(sim);
  cleanups.push(() => Promise.resolve(client[Symbol.dispose]()));
  return client;
}

function kubeconfigWithToken(sim: SimCluster, token: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'current-context: c',
    `clusters: [{name: c, cluster: {server: "${sim.url}", certificate-authority-data: "${Buffer.from(sim.caPem ?? '').toString('base64')}"}}]`,
    `users: [{name: u, user: {token: "${token}"}}]`,
    'contexts: [{name: c, context: {cluster: c, user: u}}]',
    '',
  ].join('\n');
}

const fatalMessage = (cm: ManagedProcess): string =>
  cm.lines
    .map((l) => JSON.parse(l) as { msg?: string; err?: { message?: string } })
    .find((l) => l.msg === 'kubefed-controller-manager failed')?.err?.message ?? '';

describe('kubefed-controller-manager at start-up', () => {
  it('keeps retrying while the host API server is unreachable, logging each attempt and alive but not ready, and takes the leader lock once it answers', async () => {
    const sim = await host();
    sim.faults.unreachable();
    const health = `127.0.0.1:${await freePort()}`;
    const cm = controllerManager(await writeKubeconfig(sim.kubeconfigYaml()), ['--queue-prefix', redis.prefix('startup')], health);
    const first = JSON.parse(
      await cm.waitForLine(/host API server not available at start-up/, { fromStart: true, timeoutMs: 60_000 }),
    ) as Record<string, unknown>;
    expect(first).toMatchObject({
      step: 'reading the KubeFedConfig',
      attempt: 1,
      retryInMs: 500,
      err: { message: expect.stringMatching(/NetworkError/) as unknown },
    });
    await cm.waitForLine(/"attempt":3,/, { fromStart: true, timeoutMs: 30_000 });
    expect(cm.running).toBe(true);
    // A liveness probe must not restart the wait; nothing may be sent to a replica that waits.
    expect((await fetch(`http://${health}/healthz`)).status).toBe(200);
    expect((await fetch(`http://${health}/readyz`)).status).toBe(503);
    sim.faults.restore();
    const serving = JSON.parse(await cm.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true, timeoutMs: 60_000 })) as {
      health?: string;
    };
    expect(serving.health).toBe(`http://${health}`);
    expect((await fetch(`http://${health}/healthz`)).status).toBe(200);
    // The default lock (KubeFed's): the leader record in the annotation of a ConfigMap.
    const configMaps = adminClient(sim).resource(RESOURCES.configMaps, NS);
    await expect
      .poll(
        async () =>
          (
            JSON.parse(
              (await configMaps.get('kubefed-controller-manager').catch(() => undefined))?.metadata.annotations?.[
                'control-plane.alpha.kubernetes.io/leader'
              ] ?? '{}',
            ) as { holderIdentity?: string }
          ).holderIdentity,
        {
          timeout: 30_000,
          interval: 200,
        },
      )
      .toMatch(/_/);
    expect(await cm.stop()).toBe(0);
  }, 150_000);

  it('exits 0 at once on SIGTERM while it waits for the host API server', async () => {
    const sim = await host();
    sim.faults.unreachable();
    const cm = controllerManager(await writeKubeconfig(sim.kubeconfigYaml()));
    await cm.waitForLine(/host API server not available at start-up/, { fromStart: true, timeoutMs: 60_000 });
    cm.child.kill('SIGTERM');
    const code = await Promise.race([cm.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 10_000))]);
    expect(code).toBe(0);
    expect(cm.lines.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
  }, 90_000);

  it('exits 1 naming the user and the permission it lacks when the host answers 403 at start-up', async () => {
    const sim = await host();
    const token = await serviceAccountToken(sim, 'unprivileged');
    const cm = controllerManager(await writeKubeconfig(kubeconfigWithToken(sim, token)));
    const code = await Promise.race([cm.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 60_000))]);
    expect(code).toBe(1);
    const message = fatalMessage(cm);
    expect(message).toContain('reading the kube-system Namespace for the default queue prefix failed');
    expect(message).toContain('User "system:serviceaccount:default:unprivileged" cannot get resource "namespaces"');
    expect(message).toContain('the host user needs permission to get namespaces at the cluster scope');
    expect(message).toContain('or pass --queue-prefix to skip this read');
    expect(cm.lines.some((l) => l.includes(RETRYING))).toBe(false);
  }, 90_000);

  it('exits 1 naming the server when the host does not accept its credentials (401)', async () => {
    const sim = await host();
    const cm = controllerManager(await writeKubeconfig(kubeconfigWithToken(sim, 'not-a-token')), ['--queue-prefix', redis.prefix('401')]);
    const code = await Promise.race([cm.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 60_000))]);
    expect(code).toBe(1);
    expect(fatalMessage(cm)).toContain(
      `Unauthorized: the host API server at ${sim.url} does not accept the credentials of the kubeconfig context`,
    );
  }, 90_000);

  it('exits 1 in --mode workers too when the host has no KubeFedConfig CRD, instead of waiting for a KubeFedConfig', async () => {
    const sim = await host([]);
    const cm = controllerManager(await writeKubeconfig(sim.kubeconfigYaml()), [
      '--mode',
      'workers',
      '--queue-prefix',
      redis.prefix('no-crd-w'),
    ]);
    const code = await Promise.race([cm.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 60_000))]);
    expect(code).toBe(1);
    const message = fatalMessage(cm);
    expect(message).toContain('listing KubeFedConfigs failed: list kubefedconfigs.core.kubefed.io');
    expect(message).toContain('are the KubeFed CRDs installed on the host cluster (deploy/crds)?');
  }, 90_000);

  it('exits 1 asking whether the KubeFed CRDs are installed when the host has no KubeFedConfig CRD', async () => {
    const sim = await host([]);
    const cm = controllerManager(await writeKubeconfig(sim.kubeconfigYaml()), ['--queue-prefix', redis.prefix('no-crd')]);
    const code = await Promise.race([cm.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 60_000))]);
    expect(code).toBe(1);
    const message = fatalMessage(cm);
    expect(message).toContain('reading the KubeFedConfig failed: create kubefedconfigs.core.kubefed.io');
    expect(message).toContain('are the KubeFed CRDs installed on the host cluster (deploy/crds)?');
  }, 90_000);
});
