import { buildKubeconfig, type SimCluster, startCluster } from '@kubefed/kube-sim';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  DynamicClient,
  HttpDiscovery,
  isAlreadyExists,
  isConflict,
  isGone,
  isNetworkError,
  isNotFound,
  isServerError,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  Kubeconfig,
  type KubeObject,
  type RawRequester,
  type ResourceMapping,
  RestMapper,
  type WatchEvent,
} from '@kubefed/client';

const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const namespaces = { group: '', version: 'v1', resource: 'namespaces' };
const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
const b64 = (s: string): string => Buffer.from(s).toString('base64');

let sim: SimCluster;
let client: DynamicClient;
let nsCounter = 0;

async function namespace(): Promise<string> {
  const name = `t${++nsCounter}-${Date.now().toString(36)}`;
  await client.resource(namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

const cm = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

async function caught(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected the promise to reject');
}

beforeAll(async () => {
  sim = await startCluster({ name: 'c1' });
  client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()));
});

afterAll(async () => {
  client.close();
  await sim.stop();
});

describe('DynamicClient against kube-sim', () => {
  it('names the cluster after the kubeconfig context', () => {
    expect(client.cluster).toBe('c1');
  });

  it('round-trips a deployment with every field preserved', async () => {
    const ns = await namespace();
    const rc = client.resource(deployments, ns);
    const spec = {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: 'web' }, annotations: { 'example.com/x': 'y' } },
        spec: {
          containers: [
            { name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }] },
          ],
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } },
          ],
        },
      },
    };
    const created = await rc.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { a: 'b' } }, spec });
    expect(created.metadata.uid).toBeTruthy();
    const got = await rc.get('web');
    expect(got.spec).toMatchObject(spec);
    expect(got.metadata.labels).toEqual({ a: 'b' });
    expect(typeof got.metadata.creationTimestamp).toBe('string');

    // kube-sim's deployment controller writes the status meanwhile: on Conflict, read again, as a client does.
    let sent: KubeObject = got;
    let updated: KubeObject | undefined;
    for (let attempt = 1; updated === undefined; attempt++) {
      sent.metadata.annotations = { note: 'updated' };
      try {
        updated = await rc.update(sent);
      } catch (e) {
        if (!isConflict(e) || attempt >= 10) throw e;
        sent = await rc.get('web');
      }
    }
    expect(updated.metadata.annotations).toEqual({ note: 'updated' });
    expect(updated.metadata.resourceVersion).not.toBe(sent.metadata.resourceVersion);
  });

  it('round-trips a custom resource with arbitrary fields, found by the REST mapper once its CRD is served', async () => {
    const suffix = Date.now().toString(36);
    const group = `t${suffix}.example.com`;
    await client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wdg'] },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    const mapper = new RestMapper(client.discovery(), { minRefreshIntervalMs: 0 });
    await mapper.refresh();
    const mapping = await vi.waitFor(() => mapper.resolve(`wdg`), { timeout: 5000, interval: 100 });
    expect(mapping).toMatchObject({ group, version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });

    const ns = await namespace();
    const rc = client.resource({ group, version: 'v1', resource: 'widgets' }, ns);
    const spec = { size: 3, nested: { list: [1, 'two', { three: null }], flag: false, when: '2026-11-21T10:00:00Z' }, empty: {} };
    await rc.create({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec, extraTopLevel: 'kept' });
    const got = await rc.get('w1');
    expect(got.spec).toEqual(spec);
    expect(got.extraTopLevel).toBe('kept');
  });

  it('maps a missing object to NotFound with a message naming resource, object, namespace and cluster', async () => {
    const ns = await namespace();
    const e = await caught(client.resource(configmaps, ns).get('nope'));
    expect(isNotFound(e)).toBe(true);
    expect(e.code).toBe(404);
    expect(e.message).toContain(`get configmaps "nope" in namespace "${ns}" on cluster "c1": NotFound`);
  });

  it('maps a duplicate create to AlreadyExists and a stale update to Conflict', async () => {
    const ns = await namespace();
    const rc = client.resource(configmaps, ns);
    const first = await rc.create(cm('dup', { k: 'v' }));
    expect(isAlreadyExists(await caught(rc.create(cm('dup'))))).toBe(true);
    await rc.update({ ...first, data: { k: 'v2' } });
    const e = await caught(rc.update({ ...first, data: { k: 'v3' } }));
    expect(isConflict(e)).toBe(true);
    expect(e.code).toBe(409);
  });

  it('pages a list with limit and continue, and listAll collects every page', async () => {
    const ns = await namespace();
    const rc = client.resource(configmaps, ns);
    for (let i = 0; i < 5; i++) await rc.create(cm(`page-${i}`, {}, { set: 'paging' }));
    await rc.create(cm('other', {}, { set: 'other' }));
    const first = await rc.list({ labelSelector: 'set=paging', limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();
    const second = await rc.list({ labelSelector: 'set=paging', limit: 2, continue: first.metadata.continue! });
    expect(second.items).toHaveLength(2);
    const all = await rc.listAll({ labelSelector: 'set=paging', limit: 2 });
    expect(all.items.map((o) => o.metadata.name).sort()).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    expect(all.metadata.continue).toBeUndefined();
    const byField = await rc.list({ fieldSelector: 'metadata.name=other' });
    expect(byField.items.map((o) => o.metadata.name)).toEqual(['other']);
  });

  it('patches with merge, JSON, strategic and apply patches', async () => {
    const ns = await namespace();
    const rc = client.resource(configmaps, ns);
    await rc.create(cm('p', { a: '1' }));
    expect((await rc.patch('p', { data: { b: '2' } }, 'merge')).data).toEqual({ a: '1', b: '2' });
    expect((await rc.patch('p', [{ op: 'remove', path: '/data/a' }], 'json')).data).toEqual({ b: '2' });
    expect((await rc.patch('p', { data: { c: '3' } }, 'strategic')).data).toEqual({ b: '2', c: '3' });
    const applied = await rc.patch('p', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' }, data: { d: '4' } }, 'apply', {
      fieldManager: 'kubefed-test',
      force: true,
    });
    expect(applied.data).toMatchObject({ d: '4' });
  });

  it('deletes with preconditions, refusing a stale uid', async () => {
    const ns = await namespace();
    const rc = client.resource(configmaps, ns);
    const created = await rc.create(cm('gone-soon'));
    const e = await caught(rc.delete('gone-soon', { preconditions: { uid: 'not-the-uid' } }));
    expect(isConflict(e)).toBe(true);
    await rc.delete('gone-soon', { preconditions: { uid: created.metadata.uid! }, propagationPolicy: 'Background', gracePeriodSeconds: 0 });
    expect(isNotFound(await caught(rc.get('gone-soon')))).toBe(true);
  });

  it('writes status through the status subresource', async () => {
    const ns = await namespace();
    const rc = client.resource(deployments, ns);
    await rc.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 's' },
      spec: {
        selector: { matchLabels: { app: 's' } },
        template: { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    });
    // kube-sim's deployment controller writes this Deployment's status too; a write that loses
    // the race gets 409 Conflict, as on a real server, and is retried on the latest object.
    const withStatus = await vi.waitFor(
      async () => {
        const latest = await rc.get('s');
        return rc.updateStatus({
          ...latest,
          status: { observedGeneration: 1, replicas: 0, conditions: [{ type: 'Test', status: 'True' }] },
        });
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(withStatus.status).toMatchObject({ observedGeneration: 1, conditions: [{ type: 'Test', status: 'True' }] });
  });

  it('streams watch events from a resourceVersion and ends when aborted', async () => {
    const ns = await namespace();
    const rc = client.resource(configmaps, ns);
    const list = await rc.list();
    const ac = new AbortController();
    const events: WatchEvent[] = [];
    const done = (async () => {
      for await (const ev of rc.watch({ resourceVersion: list.metadata.resourceVersion!, allowWatchBookmarks: true, signal: ac.signal })) {
        events.push(ev);
      }
    })();
    const created = await rc.create(cm('w', { a: '1' }));
    await rc.update({ ...created, data: { a: '2' } });
    await rc.delete('w');
    await expect
      .poll(() => events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata.name}`), { timeout: 5000 })
      .toEqual(['ADDED w', 'MODIFIED w', 'DELETED w']);
    ac.abort();
    await expect(done).resolves.toBeUndefined();
  });

  it('ends the watch when the server-side timeout expires', async () => {
    const ns = await namespace();
    const events: WatchEvent[] = [];
    const rc = client.resource(configmaps, ns);
    const resourceVersion = (await rc.list()).metadata.resourceVersion!;
    for await (const ev of rc.watch({ resourceVersion, timeoutSeconds: 1 })) events.push(ev);
    expect(events.filter((e) => e.type !== 'BOOKMARK')).toEqual([]);
  });

  it('throws Gone when watching from a compacted resourceVersion', async () => {
    const ns = await namespace();
    const rc = client.resource(configmaps, ns);
    const list = await rc.list();
    await rc.create(cm('a'));
    await rc.create(cm('b'));
    sim.compactHistory();
    const e = await (async () => {
      try {
        for await (const _ev of rc.watch({ resourceVersion: list.metadata.resourceVersion! })) {
          // draining
        }
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(isGone(e)).toBe(true);
  });

  it('answers raw requests to /healthz and /version', async () => {
    expect(await client.raw('/healthz')).toEqual({ status: 200, body: 'ok' });
    const version = await client.raw('/version');
    expect(JSON.parse(version.body)).toMatchObject({ gitVersion: 'v1.31.0' });
    expect((await client.raw('/no/such/path')).status).toBe(404);
  });

  it('discovers resources and resolves kubectl-style names against the live server', async () => {
    const mapper = client.restMapper();
    for (const name of ['deployments.apps', 'deployment', 'deploy', 'Deployment']) {
      const m = await mapper.resolve(name);
      expect([m.group, m.version, m.resource, m.kind, m.namespaced]).toEqual(['apps', 'v1', 'deployments', 'Deployment', true]);
    }
    expect(await mapper.resolve('ns')).toMatchObject({ group: '', resource: 'namespaces', namespaced: false });
    expect(await mapper.resourceFor({ group: '', version: 'v1', kind: 'ConfigMap' })).toEqual(configmaps);
  });
});

describe('discovery', () => {
  it('finds the same resources through aggregated and plain discovery', async () => {
    const key = (m: ResourceMapping): string =>
      [
        m.group,
        m.version,
        m.resource,
        m.kind,
        m.singularName,
        m.namespaced,
        m.preferred,
        [...m.shortNames].sort(),
        [...m.subresources].sort(),
      ].join('|');
    const counting = (): RawRequester & { paths: string[] } => {
      const paths: string[] = [];
      return {
        cluster: client.cluster,
        paths,
        raw: (path, opts) => {
          paths.push(path);
          return client.raw(path, opts);
        },
      };
    };
    const viaAggregated = counting();
    const viaPlain = counting();
    const aggregated = (await new RestMapper(new HttpDiscovery(viaAggregated)).all()).map(key).sort();
    const plain = (await new RestMapper(new HttpDiscovery(viaPlain, { aggregated: false })).all()).map(key).sort();
    expect(aggregated).toEqual(plain);
    expect(viaAggregated.paths.sort()).toEqual(['/api', '/apis']);
    expect(viaPlain.paths).toContain('/apis/apps/v1');
    expect(aggregated.some((k) => k.startsWith('apps|v1|deployments|Deployment|deployment|true|true|deploy|scale,status'))).toBe(true);
  });
});

describe('several clusters in one kubeconfig', () => {
  it('gives each context its own client with its own CA and token', async () => {
    await using second = await startCluster({ name: 'second' });
    const kubeconfig = Kubeconfig.fromString(buildKubeconfig([sim, second]));
    expect(kubeconfig.currentContext).toBe('c1');
    expect(kubeconfig.contexts().map((c) => c.name)).toEqual(['c1', 'second']);
    using first = DynamicClient.fromKubeconfig(kubeconfig);
    using other = DynamicClient.fromKubeconfig(kubeconfig, { context: 'second' });
    const ns = await namespace();
    expect((await first.resource(namespaces).get(ns)).metadata.name).toBe(ns);
    const e = await caught(other.resource(namespaces).get(ns));
    expect(isNotFound(e)).toBe(true);
    expect(e.message).toContain('on cluster "second"');
  });
});

describe('plain HTTP cluster', () => {
  it('talks to an http:// server from a kubeconfig without insecure-skip-tls-verify', async () => {
    await using plain = await startCluster({ name: 'plain', tls: false });
    using c = DynamicClient.fromKubeconfig(Kubeconfig.fromString(plain.kubeconfigYaml()));
    expect(c.server.startsWith('http://')).toBe(true);
    expect((await c.resource(namespaces).get('default')).metadata.name).toBe('default');
  });
});

describe('DynamicClient faults', () => {
  let faulty: SimCluster;
  let c: DynamicClient;

  beforeAll(async () => {
    faulty = await startCluster({ name: 'faulty' });
    c = DynamicClient.fromKubeconfig(Kubeconfig.fromString(faulty.kubeconfigYaml()), { timeoutMs: 300 });
  });

  afterEach(() => faulty.faults.restore());

  afterAll(async () => {
    c.close();
    await faulty.stop();
  });

  it('maps 429 with Retry-After to TooManyRequests', async () => {
    faulty.faults.failRate(1, 429);
    const e = await caught(c.resource(namespaces).list());
    expect(isTooManyRequests(e)).toBe(true);
    expect(e.retryAfterSeconds).toBe(1);
    expect(e.message).toContain('list namespaces on cluster "faulty": TooManyRequests');
  });

  it('maps an injected 500 to ServerError', async () => {
    faulty.faults.failRate(1, 500);
    const e = await caught(c.resource(namespaces).get('default'));
    expect(isServerError(e)).toBe(true);
  });

  it('fails an unreachable cluster with NetworkError carrying the socket error', async () => {
    faulty.faults.unreachable();
    const e = await caught(c.resource(namespaces).list());
    expect(isNetworkError(e)).toBe(true);
    expect(e.cause).toBeInstanceOf(Error);
    expect(e.message).toContain('list namespaces on cluster "faulty": NetworkError');
  });

  it('times out a request slower than the configured timeout', async () => {
    faulty.faults.latency(1000);
    const e = await caught(c.resource(namespaces).list());
    expect(isTimeout(e)).toBe(true);
    expect(e.message).toContain('no response within 300 ms');
  });

  it('times out a request to a hung cluster that accepts the connection and never answers, on a new and on a kept-alive connection', async () => {
    // A fresh client for a new connection; `c` keeps the connection of its earlier requests.
    const fresh = DynamicClient.fromKubeconfig(Kubeconfig.fromString(faulty.kubeconfigYaml()), { timeoutMs: 300 });
    try {
      expect((await c.resource(namespaces).get('default')).metadata.name).toBe('default');
      faulty.faults.hang();
      for (const client of [fresh, c]) {
        const t0 = Date.now();
        const e = await caught(client.resource(namespaces).get('default'));
        expect(isTimeout(e)).toBe(true);
        expect(e.message).toBe('get namespaces "default" on cluster "faulty": Timeout: no response within 300 ms');
        expect(Date.now() - t0).toBeLessThan(5_000);
      }
      const ac = new AbortController();
      const pending = fresh.resource(namespaces).list({ signal: ac.signal });
      ac.abort(new Error('caller gave up'));
      await expect(pending).rejects.toThrow('caller gave up');
      faulty.faults.restore();
      expect((await fresh.resource(namespaces).get('default')).metadata.name).toBe('default');
    } finally {
      fresh.close();
    }
  });

  it('ends a running watch when the cluster becomes unreachable, and a new watch fails with NetworkError', async () => {
    const rc = c.resource(namespaces);
    const rv = (await rc.list()).metadata.resourceVersion!;
    const drain = async (): Promise<void> => {
      for await (const _ev of rc.watch({ resourceVersion: rv })) {
        // no events expected
      }
    };
    const running = drain().then(
      () => 'ended',
      (e: unknown) => (isNetworkError(e) ? 'network error' : e),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    faulty.faults.unreachable();
    // kube-sim ends watches cleanly before cutting sockets; a real cut surfaces as NetworkError.
    expect(['ended', 'network error']).toContain(await running);
    expect(isNetworkError(await caught(drain()))).toBe(true);
  });

  it('works again once the fault is restored', async () => {
    faulty.faults.unreachable();
    await caught(c.resource(namespaces).list());
    faulty.faults.restore();
    expect((await c.resource(namespaces).get('default')).metadata.name).toBe('default');
  });
});

describe('member client from a KubeFedCluster and its Secret', () => {
  let other: SimCluster;
  let token: string;
  const kfc = (spec: object) => ({
    metadata: { name: 'member1', namespace: 'kube-federation-system' },
    spec: { apiEndpoint: sim.url.replace(/^https:\/\//, ''), secretRef: { name: 'member1-token' }, ...spec },
  });

  beforeAll(async () => {
    other = await startCluster({ name: 'other' });
    token = b64(sim.adminToken);
  });

  afterAll(async () => {
    await other.stop();
  });

  it('verifies the member against its CA bundle and authenticates with the secret token', async () => {
    using member = DynamicClient.fromKubeFedCluster(kfc({ caBundle: b64(sim.caPem!) }), { data: { token } });
    expect(member.cluster).toBe('member1');
    expect(await member.raw('/healthz')).toEqual({ status: 200, body: 'ok' });
    const list = await member.resource(namespaces).list();
    expect(list.items.map((n) => n.metadata.name)).toContain('default');
  });

  it('maps a token the member does not know to Unauthorized', async () => {
    using member = DynamicClient.fromKubeFedCluster(kfc({ caBundle: b64(sim.caPem!) }), { data: { token: b64('not-a-token') } });
    const e = await caught(member.resource(namespaces).list());
    expect(isUnauthorized(e)).toBe(true);
    expect(e.code).toBe(401);
  });

  it('refuses a member whose certificate is not signed by the CA bundle', async () => {
    using member = DynamicClient.fromKubeFedCluster(kfc({ caBundle: b64(other.caPem!) }), { data: { token } });
    const e = await caught(member.resource(namespaces).list());
    expect(isNetworkError(e)).toBe(true);
    expect(e.message).toContain('on cluster "member1"');
  });

  it('skips verification only when disabledTLSValidations is *', async () => {
    using member = DynamicClient.fromKubeFedCluster(kfc({ caBundle: b64(other.caPem!), disabledTLSValidations: ['*'] }), {
      data: { token },
    });
    expect(await member.raw('/healthz')).toEqual({ status: 200, body: 'ok' });
  });

  it('reads the secret through the host client', async () => {
    const adminSecretNs = await namespace();
    await client.resource({ group: '', version: 'v1', resource: 'secrets' }, adminSecretNs).create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'member1-token' },
      data: { token },
    });
    using member = await DynamicClient.forKubeFedCluster(client, {
      ...kfc({ caBundle: b64(sim.caPem!) }),
      metadata: { name: 'member1', namespace: adminSecretNs },
    });
    expect(await member.raw('/healthz')).toEqual({ status: 200, body: 'ok' });
  });
});
