import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SimCluster, startCluster } from './index.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of any shape
  body: any;
  text: string;
}

function call(
  c: SimCluster,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  token = c.adminToken,
): Promise<Reply> {
  const u = new URL(path, c.url);
  const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const opts: https.RequestOptions = {
    method,
    agent: false,
    hostname: u.hostname,
    port: u.port,
    path: u.pathname + u.search,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
    ...(c.caPem !== undefined ? { ca: c.caPem } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = (u.protocol === 'https:' ? https : http).request(opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
      });
    });
    req.on('error', reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

const clusters: SimCluster[] = [];
async function start(tls = false): Promise<SimCluster> {
  const c = await startCluster({ name: `t${clusters.length}`, tls });
  clusters.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.stop()));
});

const cm = (name: string, data: Record<string, string> = {}): object => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('kube-sim smoke', () => {
  it('accepts RBAC names with colons and finds them through percent-encoded paths', async () => {
    const c = await start();
    const name = 'kubefed-controller-manager:member1-host';
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [] };
    const created = await call(c, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', role);
    expect(created.status).toBe(201);
    const path = `/apis/rbac.authorization.k8s.io/v1/clusterroles/${encodeURIComponent(name)}`;
    const got = await call(c, 'GET', path);
    expect(got.status).toBe(200);
    expect(got.body.metadata.name).toBe(name);
    expect((await call(c, 'DELETE', path)).status).toBe(200);
    expect((await call(c, 'GET', path)).status).toBe(404);
    const bad = await call(c, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { ...role, metadata: { name: 'a%b' } });
    expect(bad.status).toBe(422);
    // Other kinds keep the DNS-1123 subdomain rule.
    const cmBad = await call(c, 'POST', '/api/v1/namespaces/default/configmaps', cm('a:b'));
    expect(cmBad.status).toBe(422);
  });

  it('serves version and health over HTTPS with the generated CA and refuses unknown tokens', async () => {
    const c = await start(true);
    const v = await call(c, 'GET', '/version');
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ major: '1', minor: '31', gitVersion: 'v1.31.0' });
    expect((await call(c, 'GET', '/healthz')).text).toBe('ok');
    const denied = await call(c, 'GET', '/api/v1/namespaces', undefined, {}, 'nope');
    expect(denied.status).toBe(401);
    expect(denied.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('turns Nagle off on every connection it accepts, as kube-apiserver does (a watch event is not held for an ACK)', async () => {
    const c = await start(true);
    const port = Number(new URL(c.url).port);
    // The local port of each socket Nagle was set on, and how (the test's request closes its connection).
    const set: [number | undefined, boolean | undefined][] = [];
    const original = Object.getOwnPropertyDescriptor(net.Socket.prototype, 'setNoDelay')?.value as (
      this: net.Socket,
      enable?: boolean,
    ) => net.Socket;
    const noDelay = vi.spyOn(net.Socket.prototype, 'setNoDelay').mockImplementation(function (this: net.Socket, enable?: boolean) {
      set.push([this.localPort, enable]);
      return original.call(this, enable);
    });
    try {
      expect((await call(c, 'GET', '/healthz')).text).toBe('ok');
      expect(set).toContainEqual([port, true]);
    } finally {
      noDelay.mockRestore();
    }
  });

  it('creates, reads, updates with optimistic concurrency and deletes a configmap', async () => {
    const c = await start();
    const created = await call(c, 'POST', '/api/v1/namespaces/default/configmaps', cm('a', { x: '1' }));
    expect(created.status).toBe(201);
    expect(created.body.metadata.uid).toBeTypeOf('string');
    expect((await call(c, 'POST', '/api/v1/namespaces/default/configmaps', cm('a'))).body.reason).toBe('AlreadyExists');
    const stale = { ...created.body, data: { x: '2' } };
    expect((await call(c, 'PUT', '/api/v1/namespaces/default/configmaps/a', stale)).status).toBe(200);
    const conflict = await call(c, 'PUT', '/api/v1/namespaces/default/configmaps/a', stale);
    expect(conflict.status).toBe(409);
    expect(conflict.body.reason).toBe('Conflict');
    const del = await call(c, 'DELETE', '/api/v1/namespaces/default/configmaps/a');
    expect(del.body).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await call(c, 'GET', '/api/v1/namespaces/default/configmaps/a')).status).toBe(404);
  });

  it('streams watch events from a list resourceVersion and answers 410 after compaction', async () => {
    const c = await start();
    const list = await call(c, 'GET', '/api/v1/namespaces/default/configmaps');
    const rv = list.body.metadata.resourceVersion as string;
    await call(c, 'POST', '/api/v1/namespaces/default/configmaps', cm('w1'));
    const events = await new Promise<string[]>((resolve, reject) => {
      const req = http.get(
        `${c.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=1`,
        { headers: { Authorization: `Bearer ${c.adminToken}` } },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve(text.trim().split('\n')));
        },
      );
      req.on('error', reject);
    });
    expect(events.map((e) => JSON.parse(e).type)).toEqual(['ADDED']);
    c.compactHistory();
    const gone = await call(c, 'GET', `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`);
    expect(JSON.parse(gone.text.trim())).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
  });

  it('empties and then removes a deleted namespace, and collects dependents of a deleted owner', async () => {
    const c = await start();
    await call(c, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    const owner = (await call(c, 'POST', '/api/v1/namespaces/doomed/configmaps', cm('owner'))).body;
    const dependent = {
      ...cm('dependent'),
      metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] },
    };
    expect((await call(c, 'POST', '/api/v1/namespaces/doomed/configmaps', dependent)).status).toBe(201);
    await call(c, 'DELETE', '/api/v1/namespaces/doomed/configmaps/owner');
    await expect
      .poll(async () => (await call(c, 'GET', '/api/v1/namespaces/doomed/configmaps/dependent')).status, { timeout: 5000 })
      .toBe(404);
    const terminating = await call(c, 'DELETE', '/api/v1/namespaces/doomed');
    expect(terminating.body.status.phase).toBe('Terminating');
    await expect.poll(async () => (await call(c, 'GET', '/api/v1/namespaces/doomed')).status, { timeout: 5000 }).toBe(404);
  });

  it('authenticates a service-account token and forbids what RBAC does not grant', async () => {
    const c = await start();
    await call(c, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'bot' },
    });
    const tr = await call(c, 'POST', '/api/v1/namespaces/default/serviceaccounts/bot/token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    expect(tr.status).toBe(201);
    const token = tr.body.status.token as string;
    const denied = await call(c, 'GET', '/api/v1/namespaces/default/configmaps', undefined, {}, token);
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      'configmaps is forbidden: User "system:serviceaccount:default:bot" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    expect((await call(c, 'GET', '/version', undefined, {}, token)).status).toBe(200);
    await call(c, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'read' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
    });
    await call(c, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'read' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read' },
      subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'default' }],
    });
    expect((await call(c, 'GET', '/api/v1/namespaces/default/configmaps', undefined, {}, token)).status).toBe(200);
    await call(c, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/bot');
    expect((await call(c, 'GET', '/api/v1/namespaces/default/configmaps', undefined, {}, token)).status).toBe(401);
  });

  it('serves a CRD once created and validates its objects against the schema', async () => {
    const c = await start();
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.io' },
      spec: {
        group: 'example.io',
        scope: 'Namespaced',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } },
            },
          },
        ],
      },
    };
    const created = await call(c, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(created.body.status.conditions.map((x: { type: string }) => x.type)).toEqual(['NamesAccepted', 'Established']);
    const discovery = await call(c, 'GET', '/apis/example.io/v1');
    expect(discovery.body.resources.map((r: { name: string }) => r.name)).toEqual(['gadgets']);
    const bad = await call(c, 'POST', '/apis/example.io/v1/namespaces/default/gadgets', {
      apiVersion: 'example.io/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec: { n: 'x' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes[0]).toMatchObject({ reason: 'FieldValueTypeInvalid', field: 'spec.n' });
    const good = await call(c, 'POST', '/apis/example.io/v1/namespaces/default/gadgets', {
      apiVersion: 'example.io/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec: { n: 1, extra: true },
    });
    expect(good.body.spec).toEqual({ n: 1 });
    expect(good.headers['warning']).toContain('unknown field');
  });

  it('refuses connections while unreachable and serves the same state after restore and restart', async () => {
    const c = await start();
    await call(c, 'POST', '/api/v1/namespaces/default/configmaps', cm('kept'));
    c.faults.unreachable();
    await expect(call(c, 'GET', '/version')).rejects.toThrow();
    c.faults.restore();
    await expect.poll(async () => (await call(c, 'GET', '/version').catch(() => ({ status: 0 }))).status, { timeout: 5000 }).toBe(200);
    await c.restart();
    expect((await call(c, 'GET', '/api/v1/namespaces/default/configmaps/kept')).status).toBe(200);
    c.faults.failRate(1, 429);
    const limited = await call(c, 'GET', '/version');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
  });
});
