import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, DynamicClient, Kubeconfig, isNetworkError } from '@kubefed/client';

// A server that drops a kept-alive connection at the moment the client reuses it: the first
// request on each connection is answered, a later one gets its socket reset before any response
// byte. That is the race a server closing idle connections (kube-apiserver behind a load balancer,
// a keepAliveTimeout) leaves open: the client's pooled socket looked alive when it was picked.
interface DroppingServer {
  port: number;
  /** `METHOD path` of every request the server received, dropped ones included. */
  seen: string[];
  /** How many requests were dropped. */
  dropped: () => number;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function droppingServer(): Promise<DroppingServer> {
  const seen: string[] = [];
  const served = new WeakSet<Socket>();
  let dropped = 0;
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (served.has(req.socket)) {
      dropped++;
      req.socket.resetAndDestroy();
      return;
    }
    served.add(req.socket);
    req.resume();
    if (req.url?.includes('watch=true') === true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        `${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'ns' } } })}\n`,
      );
      return;
    }
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' } }));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, seen, dropped: () => dropped };
}

function client(port: number): DynamicClient {
  const yaml = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]
users: [{name: c, user: {}}]
contexts: [{name: c, context: {cluster: c, user: c}}]
current-context: c
`;
  const c = DynamicClient.fromKubeconfig(Kubeconfig.fromString(yaml), { timeoutMs: 10_000, qps: 0 });
  cleanups.push(() => Promise.resolve(c.close()));
  return c;
}

const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

/**
 * The connection pool takes a connection back on the event-loop turn after its response was
 * read; a request sent within the same turn opens a new connection instead of reusing it.
 */
const connectionReturned = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('a kept-alive connection the server has closed', () => {
  it('sends a GET once more on a new connection, and the caller sees no error', async () => {
    const server = await droppingServer();
    const cms = client(server.port).resource(configmaps, 'ns');
    expect((await cms.get('a')).metadata.name).toBe('a');
    await connectionReturned();
    expect((await cms.get('a')).metadata.name).toBe('a');
    expect(server.dropped()).toBe(1);
    expect(server.seen).toEqual([
      'GET /api/v1/namespaces/ns/configmaps/a',
      'GET /api/v1/namespaces/ns/configmaps/a',
      'GET /api/v1/namespaces/ns/configmaps/a',
    ]);
  });

  it('sends a watch request once more', async () => {
    const server = await droppingServer();
    const cms = client(server.port).resource(configmaps, 'ns');
    await cms.get('a');
    await connectionReturned();
    const events: string[] = [];
    for await (const ev of cms.watch({ resourceVersion: '1' })) events.push(`${ev.type} ${ev.object.metadata.name}`);
    expect(events).toEqual(['ADDED a']);
    expect(server.dropped()).toBe(1);
    expect(server.seen.filter((r) => r.includes('watch=true'))).toHaveLength(2);
  });

  it('does not send a POST again: it fails with NetworkError and the server saw it once', async () => {
    const server = await droppingServer();
    const cms = client(server.port).resource(configmaps, 'ns');
    await cms.get('a');
    await connectionReturned();
    const e: unknown = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect(isNetworkError(e as ApiError)).toBe(true);
    expect((e as ApiError).message).toMatch(/^create configmaps "b" in namespace "ns" on cluster "c": NetworkError/);
    expect(server.seen).toEqual(['GET /api/v1/namespaces/ns/configmaps/a', 'POST /api/v1/namespaces/ns/configmaps']);
  });
});
