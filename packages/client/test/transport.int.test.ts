import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  type Clock,
  DynamicClient,
  isGone,
  isNetworkError,
  isTimeout,
  Kubeconfig,
  type TimerHandle,
  type WatchEvent,
  type WatchOptions,
} from '@kubefed/client';
import { clusterConnector } from '../src/cluster-pool.js';

// TLS behaviour of the transport against a plain HTTPS server with fixed test certificates
// (kube-sim generates one valid certificate per cluster; expired / wrong-name ones need these).
const fixtures = path.join(import.meta.dirname, 'fixtures', 'tls');
const read = (f: string): string => fs.readFileSync(path.join(fixtures, f), 'utf8');
const b64 = (s: string): string => Buffer.from(s).toString('base64');

// `gc` for the test of what a keep-alive connection keeps alive.
v8.setFlagsFromString('--expose-gc');

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}

/** An HTTPS server presenting `certFile`: `/healthz` → ok, `/whoami` → the Authorization header, `/slow` → after 2 s, `/missing` → 404. */
async function tlsServer(certFile = 'server.crt'): Promise<number> {
  const server = https.createServer({ key: read('server.key'), cert: read(certFile) }, (req, res) => {
    if (req.url === '/slow') {
      const t = setTimeout(() => res.end('late'), 2000);
      res.on('close', () => clearTimeout(t));
      return;
    }
    if (req.url?.startsWith('/api/v1/namespaces/ns/configmaps?') === true) {
      // A watch: one event split across two writes, an event in the same chunk as the next, then silence or an ERROR.
      res.writeHead(200, { 'content-type': 'application/json' });
      const ev = (type: string, name: string): string => JSON.stringify({ type, object: { kind: 'ConfigMap', metadata: { name } } });
      const first = ev('ADDED', 'a');
      res.write(first.slice(0, 10));
      setTimeout(() => {
        res.write(`${first.slice(10)}\n${ev('MODIFIED', 'a')}\n`);
        if (req.url?.includes('fieldSelector=gone') === true) {
          res.end(
            `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' } })}\n`,
          );
        }
      }, 20);
      return;
    }
    if (req.url === '/missing') res.statusCode = 404;
    res.end(req.url === '/whoami' ? (req.headers.authorization ?? '') : 'ok');
  });
  return listen(server);
}

function member(
  port: number,
  spec: object = {},
  options: { timeoutMs?: number; qps?: number; burst?: number; clock?: Clock; onRequestDone?: (method: string, code: string) => void } = {},
): DynamicClient {
  const client = DynamicClient.fromKubeFedCluster(
    {
      metadata: { name: 'member1' },
      spec: { apiEndpoint: `127.0.0.1:${port}`, secretRef: { name: 'member1' }, caBundle: b64(read('ca.crt')), ...spec },
    },
    { data: { token: b64('member-token') } },
    options,
  );
  cleanups.push(() => client.close());
  return client;
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describe('TLS verification of a KubeFedCluster client', () => {
  it('trusts a server signed by the CA bundle and sends the secret token', async () => {
    const port = await tlsServer();
    expect(await member(port).raw('/whoami')).toEqual({ status: 200, body: 'Bearer member-token' });
  });

  it.each<[string, string, object, string]>([
    ['an unrelated CA bundle', 'server.crt', { caBundle: b64(read('other-ca.crt')) }, 'NetworkError'],
    ['no CA bundle (system roots)', 'server.crt', { caBundle: '' }, 'unable to verify'],
    ['a certificate for another name', 'server-wrong-name.crt', {}, 'ERR_TLS_CERT_ALTNAME_INVALID'],
    ['an expired certificate', 'server-expired.crt', {}, 'CERT_HAS_EXPIRED'],
    [
      'a wrong name when only ValidityPeriod is disabled',
      'server-wrong-name.crt',
      { disabledTLSValidations: ['ValidityPeriod'] },
      'ALTNAME',
    ],
    [
      'an untrusted CA when only SubjectName is disabled',
      'server.crt',
      { caBundle: b64(read('other-ca.crt')), disabledTLSValidations: ['SubjectName'] },
      'NetworkError',
    ],
  ])('refuses %s', async (_t, cert, spec, message) => {
    const port = await tlsServer(cert);
    const e = await failure(member(port, spec).raw('/healthz'));
    expect(isNetworkError(e)).toBe(true);
    expect(e.message).toContain('on cluster "member1"');
    expect(e.message).toContain(message);
  });

  it.each<[string, string, string[], object]>([
    ['a wrong name with SubjectName disabled', 'server-wrong-name.crt', ['SubjectName'], {}],
    ['an expired certificate with ValidityPeriod disabled', 'server-expired.crt', ['ValidityPeriod'], {}],
    ['an untrusted certificate with * disabled', 'server.crt', ['*'], { caBundle: b64(read('other-ca.crt')) }],
  ])('accepts %s', async (_t, cert, disabled, spec) => {
    const port = await tlsServer(cert);
    expect(await member(port, { disabledTLSValidations: disabled, ...spec }).raw('/healthz')).toEqual({ status: 200, body: 'ok' });
  });

  // ValidityPeriod forgives only the dates: the chain must still end at the configured CA, or a
  // man in the middle with any expired certificate would receive the member's token.
  it.each<[string, string]>([
    ['an expired self-signed certificate', 'attacker-self-signed-expired.crt'],
    ['an expired certificate whose chain ends at an unrelated CA', 'attacker-ca-chain-expired.crt'],
  ])('refuses %s with ValidityPeriod disabled and never sends the token', async (_t, cert) => {
    const seen: string[] = [];
    const server = https.createServer({ key: read('attacker.key'), cert: read(cert) }, (req, res) => {
      seen.push(req.headers.authorization ?? '');
      res.end('stolen');
    });
    const port = await listen(server);
    const e = await failure(member(port, { disabledTLSValidations: ['ValidityPeriod'] }).raw('/whoami'));
    expect(isNetworkError(e)).toBe(true);
    expect(e.message).toContain('not signed by a trusted certificate authority');
    expect(seen).toEqual([]);
  });

  it('accepts an expired certificate signed by the configured CA with ValidityPeriod disabled and sends the token', async () => {
    const port = await tlsServer('server-expired.crt');
    expect(await member(port, { disabledTLSValidations: ['ValidityPeriod'] }).raw('/whoami')).toEqual({
      status: 200,
      body: 'Bearer member-token',
    });
  });

  it('tunnels through an HTTP CONNECT proxy given as proxyURL', async () => {
    const port = await tlsServer();
    const tunnels: string[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    const sockets = new Set<net.Socket>();
    proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, p] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(p), host ?? '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      sockets.add(socket).add(upstream);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    const proxyPort = await listen(proxy);
    cleanups.push(() => sockets.forEach((s) => s.destroy()));
    const client = member(port, { proxyURL: `http://127.0.0.1:${proxyPort}` });
    expect(await client.raw('/whoami')).toEqual({ status: 200, body: 'Bearer member-token' });
    expect(tunnels).toEqual([`127.0.0.1:${port}`]);
  });
});

describe('HTTP transport', () => {
  it('fails a request slower than the timeout with reason Timeout', async () => {
    const port = await tlsServer();
    const e = await failure(member(port, {}, { timeoutMs: 200 }).raw('/slow'));
    expect(isTimeout(e)).toBe(true);
    expect(e.message).toBe('GET /slow on cluster "member1": Timeout: no response within 200 ms');
  });

  it('fails with reason Timeout, or the abort reason, when the server accepts the connection and never answers the TLS handshake', async () => {
    // What a stopped (SIGSTOP) or blackholed kube-apiserver does: the kernel accepts, nobody speaks.
    const accepted: net.Socket[] = [];
    const silent = net.createServer((socket) => void accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const port = (silent.address() as AddressInfo).port;
    const t0 = Date.now();
    const e = await failure(member(port, {}, { timeoutMs: 300 }).raw('/healthz'));
    expect(isTimeout(e)).toBe(true);
    expect(e.message).toBe('GET /healthz on cluster "member1": Timeout: no response within 300 ms');
    // At the deadline, not once the socket gives up on the handshake (10 s).
    expect(Date.now() - t0).toBeLessThan(5_000);

    const ac = new AbortController();
    const t1 = Date.now();
    const pending = member(port).raw('/healthz', { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('caller gave up')), 100);
    await expect(pending).rejects.toThrow('caller gave up');
    expect(Date.now() - t1).toBeLessThan(5_000);
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const port = await tlsServer();
    const ac = new AbortController();
    const pending = member(port).raw('/slow', { signal: ac.signal });
    ac.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('fails the requests in flight when closed, and opens new connections for later ones', async () => {
    let held = 0;
    const server = https.createServer({ key: read('server.key'), cert: read('server.crt') }, (req, res) => {
      if (req.url === '/hold') held++;
      else res.end('ok');
    });
    const port = await listen(server);
    const client = member(port);
    expect(await client.raw('/healthz')).toMatchObject({ status: 200, body: 'ok' });
    const inFlight = failure(client.raw('/hold'));
    await expect.poll(() => held).toBe(1);
    client.close();
    expect(isNetworkError(await inFlight)).toBe(true);
    expect(await client.raw('/healthz')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('maps a refused connection to NetworkError naming the verb, object and cluster', async () => {
    const closed = http.createServer();
    const port = await listen(closed);
    await cleanups.pop()!();
    const client = member(port);
    const e = await failure(client.resource({ group: '', version: 'v1', resource: 'pods' }, 'ns').get('p'));
    expect(isNetworkError(e)).toBe(true);
    expect(e.message).toContain('get pods "p" in namespace "ns" on cluster "member1": NetworkError: connect ECONNREFUSED');
    expect((e.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('builds the TLS context of a cluster once, not for every connection (an unreachable member is retried on new ones)', async () => {
    const closed = http.createServer();
    const port = await listen(closed);
    await cleanups.pop()!();
    const client = member(port);
    const contexts = vi.spyOn(tls, 'createSecureContext');
    try {
      for (let i = 0; i < 3; i++) await failure(client.resource({ group: '', version: 'v1', resource: 'pods' }, 'ns').get('p'));
      expect(contexts).toHaveBeenCalledTimes(1);
    } finally {
      contexts.mockRestore();
    }
  });

  it.each(['https:', 'http:'] as const)(
    'turns Nagle off and TCP keep-alive on for every %s connection, as undici and Go do',
    async (protocol) => {
      const server =
        protocol === 'https:'
          ? https.createServer({ key: read('server.key'), cert: read('server.crt') }, (_req, res) => res.end('ok'))
          : http.createServer((_req, res) => res.end('ok'));
      const port = await listen(server);
      const connect = clusterConnector(protocol === 'https:' ? { ca: read('ca.crt') } : undefined, undefined);
      const noDelay = vi.spyOn(net.Socket.prototype, 'setNoDelay');
      const keepAlive = vi.spyOn(net.Socket.prototype, 'setKeepAlive');
      try {
        const socket = await new Promise<net.Socket>((resolve, reject) =>
          connect({ hostname: '127.0.0.1', host: `127.0.0.1:${port}`, protocol, port: String(port), servername: '' }, (err, s) =>
            err === null && s !== null ? resolve(s) : reject(err ?? new Error('no socket')),
          ),
        );
        cleanups.push(() => void socket.destroy());
        expect(noDelay.mock.contexts).toContain(socket);
        expect(noDelay.mock.calls[noDelay.mock.contexts.indexOf(socket)]).toEqual([true]);
        expect(keepAlive.mock.contexts).toContain(socket);
        expect(keepAlive.mock.calls[keepAlive.mock.contexts.indexOf(socket)]).toEqual([true, 30_000]);
      } finally {
        noDelay.mockRestore();
        keepAlive.mockRestore();
      }
    },
  );

  it('does not keep what asked for a connection alive through the keep-alive connection it opened', async () => {
    const server = https.createServer({ key: read('server.key'), cert: read('server.crt') }, (_req, res) => res.end('ok'));
    server.keepAliveTimeout = 60_000;
    const port = await listen(server);
    const connect = clusterConnector({ ca: read('ca.crt') }, undefined);
    // The pool's callback stands for what asked for the connection (before, a request and its response).
    let asked: WeakRef<object> | undefined;
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const callback = (err: Error | null, s: net.Socket | null): void =>
        err === null && s !== null ? resolve(s) : reject(err ?? new Error('no socket'));
      asked = new WeakRef(callback);
      connect({ hostname: '127.0.0.1', host: `127.0.0.1:${port}`, protocol: 'https:', port: String(port), servername: '' }, callback);
    });
    cleanups.push(() => void socket.destroy());
    const collect = vm.runInNewContext('gc') as () => void;
    await expect
      .poll(
        () => {
          collect();
          // A boolean: the poll keeps the value it was given.
          return asked?.deref() === undefined;
        },
        { timeout: 3000 },
      )
      .toBe(true);
    // The connection is still open and serves a request.
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const answer = await new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString('utf8'))));
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
  });

  it('gets its bearer token from an exec credential plugin', async () => {
    const port = await tlsServer();
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      status: { token: 'exec-token' },
    });
    const yaml = JSON.stringify({
      'current-context': 'c',
      clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${port}`, 'certificate-authority-data': b64(read('ca.crt')) } }],
      users: [
        {
          name: 'u',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1beta1',
              command: process.execPath,
              args: ['-e', `process.stdout.write(${JSON.stringify(credential)})`],
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    });
    const client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(yaml));
    cleanups.push(() => client.close());
    expect(await client.raw('/whoami')).toEqual({ status: 200, body: 'Bearer exec-token' });
  });

  it('uses the certificate authority of a kubeconfig context', async () => {
    const port = await tlsServer();
    const yaml = `
current-context: c
clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:${port}', certificate-authority-data: ${b64(read('ca.crt'))} } }]
users: [{ name: u, user: { token: kube-token } }]
contexts: [{ name: c, context: { cluster: c, user: u } }]
`;
    const client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(yaml));
    cleanups.push(() => client.close());
    expect(await client.raw('/whoami')).toEqual({ status: 200, body: 'Bearer kube-token' });
  });
});

describe('watch stream', () => {
  const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

  async function collect(client: DynamicClient, opts: WatchOptions): Promise<{ events: string[]; error: unknown }> {
    const events: string[] = [];
    try {
      for await (const ev of client.resource(configmaps, 'ns').watch(opts)) events.push(`${ev.type} ${ev.object.metadata.name}`);
    } catch (error) {
      return { events, error };
    }
    return { events, error: undefined };
  }

  it('reassembles events split across chunks and fails a silent stream with Timeout', async () => {
    const port = await tlsServer();
    const { events, error } = await collect(member(port), { idleTimeoutMs: 300 });
    expect(events).toEqual(['ADDED a', 'MODIFIED a']);
    expect(isTimeout(error)).toBe(true);
    expect((error as Error).message).toContain('watch configmaps in namespace "ns" on cluster "member1": Timeout');
  });

  it('throws an ERROR event with a 410 Status as ApiError Gone', async () => {
    const port = await tlsServer();
    const { events, error } = await collect(member(port), { fieldSelector: 'gone' });
    expect(events).toEqual(['ADDED a', 'MODIFIED a']);
    expect(isGone(error)).toBe(true);
  });

  it('ends without error when the signal aborts', async () => {
    const port = await tlsServer();
    const ac = new AbortController();
    const seen: WatchEvent[] = [];
    const done = (async () => {
      for await (const ev of member(port).resource(configmaps, 'ns').watch({ signal: ac.signal })) {
        seen.push(ev);
        if (seen.length === 2) ac.abort();
      }
    })();
    await expect(done).resolves.toBeUndefined();
    expect(seen).toHaveLength(2);
  });
});

describe('client-side rate limit', () => {
  /** Time moves only when the test says so. */
  class ManualClock implements Clock {
    private t = 0;
    private timers = new Map<number, { at: number; fn: () => void }>();
    private nextId = 1;
    now(): number {
      return this.t;
    }
    setTimeout(fn: () => void, ms: number): TimerHandle {
      const id = this.nextId++;
      this.timers.set(id, { at: this.t + ms, fn });
      return id;
    }
    clearTimeout(handle: TimerHandle): void {
      this.timers.delete(handle as number);
    }
    get waiting(): number {
      return this.timers.size;
    }
    advance(ms: number): void {
      this.t += ms;
      for (const [id, timer] of [...this.timers]) {
        if (timer.at > this.t) continue;
        this.timers.delete(id);
        timer.fn();
      }
    }
  }

  it('holds requests beyond the burst until tokens refill, but never delays a watch', async () => {
    const port = await tlsServer();
    const clock = new ManualClock();
    const client = member(port, {}, { qps: 1, burst: 2, clock });
    expect((await client.raw('/healthz')).body).toBe('ok');
    expect((await client.raw('/healthz')).body).toBe('ok');
    let third = false;
    const pending = client.raw('/healthz').then((r) => {
      third = true;
      return r;
    });
    await vi.waitFor(() => expect(clock.waiting).toBe(1));
    // A watch is exempt: it gets its events while the third request still waits.
    const ac = new AbortController();
    const events: WatchEvent[] = [];
    for await (const ev of client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'ns').watch({ signal: ac.signal })) {
      events.push(ev);
      if (events.length === 2) ac.abort();
    }
    expect(events).toHaveLength(2);
    expect(third).toBe(false);
    clock.advance(1000);
    expect((await pending).body).toBe('ok');
  });
});

describe('request counting', () => {
  it('tells onRequestDone the method and status of every request, <error> when none came, and nothing of a watch', async () => {
    const port = await tlsServer();
    const done: string[] = [];
    const client = member(port, {}, { timeoutMs: 500, onRequestDone: (method, code) => done.push(`${method} ${code}`) });
    await client.raw('/healthz');
    expect((await client.raw('/missing')).status).toBe(404);
    await expect(client.raw('/slow')).rejects.toSatisfy(isTimeout);
    const ac = new AbortController();
    for await (const _ of client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'ns').watch({ signal: ac.signal }))
      ac.abort();
    expect(done).toEqual(['GET 200', 'GET 404', 'GET <error>']);
  });
});
