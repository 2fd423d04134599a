/* eslint-disable no-restricted-imports -- the conformance suite checks kube-sim with the reference client */
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiException, CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { buildKubeconfig, startCluster } from '@kubefed/kube-sim';
import { kubeSim, type ConformanceTarget, type Json } from './support/conformance-target.js';
import { configMap, expectCode, expectFailure } from './support/fixtures.js';

// kube-sim's own controls (fault injection, history compaction, restart, kubeconfig writer,
// version and zones): a real kube-apiserver has none of them, so conformance.real.test.ts leaves
// this file out.
describe('kube-sim control', () => {
  let t: ConformanceTarget;
  let ns: string;
  beforeAll(async () => {
    t = await kubeSim.open('control');
    ns = t.namespace;
  });
  afterEach(() => {
    t?.sim?.faults.restore();
  });
  afterAll(async () => {
    await t?.close();
  });

  const cms = (): string => `/api/v1/namespaces/${ns}/configmaps`;

  it('refuses connections while unreachable, breaks open watches, and serves again after restore', async () => {
    const sim = t.sim!;
    const w = await t.watch(`${cms()}?watch=1`);
    sim.faults.unreachable();
    await expect(t.request('GET', cms())).rejects.toThrow();
    const viaClient: unknown = await t.kc
      .makeApiClient(CoreV1Api)
      .listNamespacedConfigMap({ namespace: ns })
      .catch((e: unknown) => e);
    expect(viaClient).toBeInstanceOf(Error);
    expect(viaClient).not.toBeInstanceOf(ApiException);
    try {
      await vi.waitFor(() => expect(w.isEnded(), 'watch survived unreachable').toBe(true), { timeout: 5000, interval: 20 });
    } finally {
      w.close();
    }
    sim.faults.restore();
    // A pooled keep-alive socket the server destroyed may fail once; a fresh connection must work.
    await vi.waitFor(async () => expectCode(await t.request('GET', cms()), 200), { timeout: 5000, interval: 50 });
  });

  it('hangs like a stopped kube-apiserver: accepts connections without a TLS handshake, answers nothing, then serves what waited once restored', async () => {
    const sim = t.sim!;
    const port = Number(new URL(sim.url).port);
    const settled = (p: Promise<unknown>): (() => boolean) => {
      let done = false;
      void p.then(
        () => (done = true),
        () => (done = true),
      );
      return () => done;
    };
    expectCode(await t.request('GET', cms()), 200); // a kept-alive connection exists before the hang
    const res = await t.request('POST', '/kube-sim/faults', { body: { hang: true } });
    expect(res.status).toBe(200);
    const request = t.request('GET', cms());
    const socket = tls.connect({ host: '127.0.0.1', port, ca: sim.caPem, servername: 'localhost' });
    const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const handshake = new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', () => resolve());
      socket.once('error', reject);
    });
    try {
      await connected;
      const requestDone = settled(request);
      const handshakeDone = settled(handshake);
      // Stays unanswered for a fixed window.
      for (let i = 0; i < 10; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(requestDone(), 'a request was answered while hung').toBe(false);
        expect(handshakeDone(), 'a TLS handshake completed while hung').toBe(false);
      }
      sim.faults.restore();
      await handshake;
      expectCode(await request, 200);
    } finally {
      socket.destroy();
    }
  });

  it.each([
    [500, 'InternalError'],
    [429, 'TooManyRequests'],
  ] as const)('fails every request with a %i Status at failRate 1', async (code, reason) => {
    t.sim!.faults.failRate(1, code);
    const res = await t.request('GET', cms());
    expectFailure(res, code, reason);
    if (code === 429) expect(res.headers['retry-after']).toBe('1');
    const viaClient: unknown = await t.kc
      .makeApiClient(CoreV1Api)
      .listNamespacedConfigMap({ namespace: ns })
      .catch((e: unknown) => e);
    expect(viaClient).toBeInstanceOf(ApiException);
    expect((viaClient as ApiException<string>).code).toBe(code);
    expect(JSON.parse((viaClient as ApiException<string>).body)).toMatchObject({ kind: 'Status', code, reason });
    t.sim!.faults.restore();
    expectCode(await t.request('GET', cms()), 200);
  });

  it('adds latency before every response', async () => {
    t.sim!.faults.latency(300);
    const started = Date.now();
    expectCode(await t.request('GET', cms()), 200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('injects faults through the admin-only control endpoint', async () => {
    const denied = await t.request('POST', '/kube-sim/faults', { auth: 'none', body: { failRate: 1, code: 500 } });
    expect(denied.status).toBe(403);
    expect((await t.request('POST', '/kube-sim/faults', { auth: { token: 'wrong' }, body: { failRate: 1, code: 500 } })).status).toBe(401);
    expect((await t.request('POST', '/kube-sim/faults', { body: { failRate: 1, code: 500 } })).status).toBeLessThan(300);
    expectFailure(await t.request('GET', cms()), 500, 'InternalError');
    expect((await t.request('POST', '/kube-sim/faults', { body: { restore: true } })).status).toBeLessThan(300);
    expectCode(await t.request('GET', cms()), 200);
  });

  it('answers an unreachable request through the control endpoint before cutting connections', async () => {
    const res = await t.request('POST', '/kube-sim/faults', { body: { unreachable: true } });
    expect(res.status).toBe(200);
    await expect(t.request('GET', cms())).rejects.toThrow();
    t.sim!.faults.restore();
    await vi.waitFor(async () => expectCode(await t.request('GET', cms()), 200), { timeout: 5000, interval: 50 });
  });

  it('answers a watch from a compacted resourceVersion with an ERROR event 410 Expired', async () => {
    const compactNs = await t.createNamespace('conf-compact');
    const base = `/api/v1/namespaces/${compactNs}/configmaps`;
    const list = expectCode(await t.request('GET', base), 200);
    for (let i = 0; i < 3; i++) await t.request('POST', base, { body: configMap(compactNs, `c${i}`) });
    t.sim!.compactHistory();
    const w = await t.watch(`${base}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    try {
      expect(w.status).toBe(200);
      expect(await w.next()).toMatchObject({
        type: 'ERROR',
        object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' },
      });
      await w.ended;
    } finally {
      w.close();
    }
    // A list is still served and a watch from its resourceVersion works again.
    const fresh = expectCode(await t.request('GET', base), 200);
    const again = await t.watch(`${base}?watch=1&resourceVersion=${fresh.metadata.resourceVersion}`);
    try {
      await t.request('POST', base, { body: configMap(compactNs, 'after') });
      expect(await again.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'after' } } });
    } finally {
      again.close();
    }
  });

  it('answers a watch from a resourceVersion before the bootstrap (1) with an ERROR event 410 Expired', async () => {
    // kube-sim's history starts after its bootstrap objects, as a kube-apiserver's watch cache
    // starts at the revision it listed when it started. Not a shared test: which resourceVersions
    // the real cache still serves depends on when it listed (against kube-apiserver v1.34.12 a
    // cluster a few minutes old answered `too old resource version: 1 (261)`, a fresh one replayed
    // every event since 1).
    const w = await t.watch(`${cms()}?watch=1&resourceVersion=1`);
    try {
      const event = await w.next();
      expect(event).toMatchObject({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' } });
      expect(event.object.message).toMatch(/^too old resource version: 1 \(\d+\)$/);
      await w.ended;
    } finally {
      w.close();
    }
  });

  it('serves /version as v1.31.0 by default', async () => {
    const body = expectCode(await t.request('GET', '/version'), 200);
    expect(body).toMatchObject({ gitVersion: 'v1.31.0', major: '1', minor: '31' });
  });

  it('keeps state and its URL across restart()', async () => {
    const sim = t.sim!;
    const created = expectCode(await t.request('POST', cms(), { body: configMap(ns, 'survivor', { a: '1' }) }), 201);
    const url = sim.url;
    await sim.restart();
    expect(sim.url).toBe(url);
    const got = await vi.waitFor(async () => expectCode(await t.request('GET', `${cms()}/survivor`), 200), { timeout: 5000, interval: 50 });
    expect(got.metadata).toMatchObject({ uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion });
    const next = expectCode(await t.request('POST', cms(), { body: configMap(ns, 'after-restart') }), 201);
    expect(BigInt(next.metadata.resourceVersion as string) > BigInt(created.metadata.resourceVersion as string)).toBe(true);
  });

  it('resumes a watch from a resourceVersion taken before restart()', async () => {
    const sim = t.sim!;
    const list = expectCode(await t.request('GET', cms()), 200);
    expectCode(await t.request('POST', cms(), { body: configMap(ns, 'before-restart') }), 201);
    await sim.restart();
    await vi.waitFor(async () => expectCode(await t.request('GET', cms()), 200), { timeout: 5000, interval: 50 });
    const w = await t.watch(`${cms()}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    try {
      expect(w.status).toBe(200);
      const event = await w.until((e) => e.object?.metadata?.name === 'before-restart');
      expect(event.type).toBe('ADDED');
    } finally {
      w.close();
    }
  });

  it('writes a kubeconfig that client-node loads and uses', async () => {
    const sim = t.sim!;
    const doc = parse(sim.kubeconfigYaml());
    expect(doc['current-context']).toBe(sim.name);
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    expect(kc.getCurrentCluster()?.server).toBe(sim.url);
    const list = await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(list.items.map((n) => n.metadata?.name)).toContain(ns);
    expect(sim.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.caPem).toContain('-----BEGIN CERTIFICATE-----');
  });

  it('merges several clusters into one kubeconfig whose current context is the first', async () => {
    await using a = await startCluster({ name: 'merge-a' });
    await using b = await startCluster({ name: 'merge-b', tls: false });
    expect(b.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(b.caPem).toBeUndefined();
    const doc = parse(buildKubeconfig([a, b]));
    expect(doc['current-context']).toBe('merge-a');
    expect((doc.contexts as Json[]).map((c) => c.name).sort()).toEqual(['merge-a', 'merge-b']);
    for (const sim of [a, b]) {
      const kc = new KubeConfig();
      kc.loadFromString(buildKubeconfig([a, b]));
      kc.setCurrentContext(sim.name);
      const nodes = await kc.makeApiClient(CoreV1Api).listNode();
      expect(nodes.items.length).toBe(2);
      expect(nodes.items.every((n) => n.metadata?.labels?.['topology.kubernetes.io/region'] === `region-${sim.name}`)).toBe(true);
    }
  });

  it('serves the configured version and zones', async () => {
    await using sim = await startCluster({ name: 'zoned', version: 'v1.29.4', region: 'eu', zones: ['eu-1', 'eu-2', 'eu-3'] });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    const nodes = await kc.makeApiClient(CoreV1Api).listNode();
    expect(nodes.items.map((n) => n.metadata?.labels?.['topology.kubernetes.io/zone']).sort()).toEqual(['eu-1', 'eu-2', 'eu-3']);
    const version = await kc.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toBe('v1.29.4');
    await sim.stop();
    await sim.stop();
  });
});
