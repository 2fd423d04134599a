import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, type ClientOptions, ConfigError, DynamicClient, isResponseTooLarge, type WatchEvent } from '@kubefed/client';

// A broken or hostile member must not be able to make the control plane buffer without bound:
// these servers send far more than any real API server would, generated lazily so that the
// test process holds at most one chunk of it.
const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** What a lazily generated body did: bytes written, and whether the client hung up before the end. */
interface Sent {
  bytes: number;
  closedEarly: boolean;
}

/** Writes `prefix`, then `total` bytes of filler, honouring backpressure; never allocates the body. */
function streamFiller(res: http.ServerResponse, prefix: string, total: number, sent: Sent): void {
  res.write(prefix);
  sent.bytes += Buffer.byteLength(prefix);
  let left = total;
  const pump = (): void => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(CHUNK.length, left);
      left -= n;
      sent.bytes += n;
      if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  res.once('close', () => {
    if (left > 0) sent.closedEarly = true;
  });
  pump();
}

async function listen(handler: http.RequestListener): Promise<number> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}

/** A member answering every request with a 100 MiB JSON list (chunked, no Content-Length). */
async function hugeListServer(sent: Sent, total = 100 * MiB): Promise<number> {
  return listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    streamFiller(res, '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"', total, sent);
  });
}

/** A healthy member: an empty ConfigMap list. */
async function healthyServer(): Promise<number> {
  return listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
  });
}

function member(name: string, port: number, options: ClientOptions = {}): DynamicClient {
  const client = DynamicClient.fromKubeFedCluster(
    { metadata: { name }, spec: { apiEndpoint: `http://127.0.0.1:${port}`, secretRef: { name } } },
    { data: { token: Buffer.from('member-token').toString('base64') } },
    options,
  );
  cleanups.push(() => client.close());
  return client;
}

/** Samples the process's memory while `work` runs; returns the largest growth seen (bytes). */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; rss: number; arrayBuffers: number }> {
  const before = process.memoryUsage();
  let rss = 0;
  let arrayBuffers = 0;
  const sample = (): void => {
    const now = process.memoryUsage();
    rss = Math.max(rss, now.rss - before.rss);
    arrayBuffers = Math.max(arrayBuffers, now.arrayBuffers - before.arrayBuffers);
  };
  const timer = setInterval(sample, 5);
  try {
    const [result] = await Promise.allSettled([work()]);
    sample();
    return { result, rss, arrayBuffers };
  } finally {
    clearInterval(timer);
  }
}

function rejection(result: PromiseSettledResult<unknown>): ApiError {
  expect(result.status).toBe('rejected');
  const e = (result as PromiseRejectedResult).reason as unknown;
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const [result] = await Promise.allSettled([p]);
  return rejection(result);
}

describe('response size limit', () => {
  it('fails a list whose body passes maxResponseBytes with ResponseTooLarge, without reading the rest', async () => {
    const sent: Sent = { bytes: 0, closedEarly: false };
    const port = await hugeListServer(sent);
    const client = member('member1', port, { maxResponseBytes: 4 * MiB });
    const started = Date.now();
    const m = await peakGrowth(() => client.resource(configmaps, 'ns').list());
    const e = rejection(m.result);
    expect(isResponseTooLarge(e)).toBe(true);
    expect(e.code).toBe(0);
    expect(e.message).toBe(
      'list configmaps in namespace "ns" on cluster "member1": ResponseTooLarge: response body exceeds the limit of 4194304 bytes',
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect.poll(() => sent.closedEarly, { timeout: 5000 }).toBe(true);
    expect(sent.bytes).toBeLessThan(40 * MiB);
    expect(m.arrayBuffers).toBeLessThan(32 * MiB);
    expect(m.rss).toBeLessThan(64 * MiB);
  });

  it('caps a response body at 64 MiB by default', async () => {
    const sent: Sent = { bytes: 0, closedEarly: false };
    // A 1 GiB body: the client must hang up soon after 64 MiB. Its peak memory holds the 64 MiB it
    // read plus chunks not yet collected (Node 20 peaks near 90 MiB, Node 24 near 115 MiB), far
    // below what reading the whole body would take.
    const port = await hugeListServer(sent, 1024 * MiB);
    const m = await peakGrowth(() => member('member1', port).raw('/api/v1/configmaps'));
    const e = rejection(m.result);
    expect(e.message).toBe(
      'GET /api/v1/configmaps on cluster "member1": ResponseTooLarge: response body exceeds the limit of 67108864 bytes',
    );
    await expect.poll(() => sent.closedEarly, { timeout: 5000 }).toBe(true);
    expect(sent.bytes).toBeLessThan(128 * MiB);
    expect(m.arrayBuffers).toBeLessThan(192 * MiB);
  });

  it('fails at once when Content-Length announces a body above the limit', async () => {
    // Headers only: a client that waited for the body would fail with Timeout instead.
    const port = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * MiB) });
      res.flushHeaders();
    });
    const client = member('member1', port, { maxResponseBytes: MiB, timeoutMs: 5000 });
    const started = Date.now();
    const e = await failure(client.resource(configmaps).get('a'));
    expect(e.message).toBe('get configmaps "a" on cluster "member1": ResponseTooLarge: response body exceeds the limit of 1048576 bytes');
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('also caps the body of an error response', async () => {
    const sent: Sent = { bytes: 0, closedEarly: false };
    const port = await listen((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      streamFiller(res, 'internal error: ', 100 * MiB, sent);
    });
    const e = await failure(member('member1', port, { maxResponseBytes: MiB }).resource(configmaps, 'ns').delete('a'));
    expect(e.reason).toBe('ResponseTooLarge');
    expect(e.message).toContain('delete configmaps "a" in namespace "ns" on cluster "member1": ResponseTooLarge');
  });

  it('keeps other clusters working while one member sends an oversized body, and the member client recovers', async () => {
    const sent: Sent = { bytes: 0, closedEarly: false };
    let huge = true;
    const hostilePort = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (huge) streamFiller(res, '{"items":["', 100 * MiB, sent);
      else res.end(JSON.stringify({ kind: 'ConfigMapList', metadata: {}, items: [] }));
    });
    const hostile = member('hostile', hostilePort, { maxResponseBytes: 4 * MiB });
    const healthy = member('healthy', await healthyServer());
    const [bad, good] = await Promise.allSettled([hostile.resource(configmaps, 'ns').list(), healthy.resource(configmaps, 'ns').list()]);
    expect(rejection(bad).message).toContain('on cluster "hostile": ResponseTooLarge');
    expect(good.status).toBe('fulfilled');
    expect((await healthy.resource(configmaps, 'ns').list()).items).toEqual([]);
    huge = false;
    expect((await hostile.resource(configmaps, 'ns').list()).items).toEqual([]);
  });

  it.each([0, -1, 1.5, Number.POSITIVE_INFINITY])('refuses a limit of %d bytes', (limit) => {
    expect(() => member('member1', 1, { maxResponseBytes: limit })).toThrow(ConfigError);
    expect(() => member('member1', 1, { maxWatchEventBytes: limit })).toThrow(
      /maxWatchEventBytes must be a positive whole number of bytes/,
    );
  });
});

describe('listAll', () => {
  it('asks for pages of 500 objects when the caller gives no limit, so no response grows with the cluster', async () => {
    const queries: string[] = [];
    const port = await listen((req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      queries.push(query.toString());
      const cont = query.get('continue') === null ? 'page2' : undefined;
      const name = cont === undefined ? 'b' : 'a';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'ConfigMapList',
          metadata: { resourceVersion: '7', ...(cont === undefined ? {} : { continue: cont }) },
          items: [{ metadata: { name } }],
        }),
      );
    });
    const list = await member('member1', port).resource(configmaps, 'ns').listAll({ labelSelector: 'a=b' });
    expect(list.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
    expect(queries).toEqual(['labelSelector=a%3Db&limit=500', 'labelSelector=a%3Db&limit=500&continue=page2']);
  });
});

describe('watch event size limit', () => {
  /** A watch that sends one normal event, then a single line that never ends (up to 200 MiB). */
  async function endlessLineWatch(sent: Sent, status = 200): Promise<number> {
    return listen((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      if (status !== 200) {
        streamFiller(res, '{"kind":"Status","message":"', 200 * MiB, sent);
        return;
      }
      res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'a' } } })}\n`);
      streamFiller(res, '{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"b"},"data":{"x":"', 200 * MiB, sent);
    });
  }

  async function drain(client: DynamicClient, events: WatchEvent[]): Promise<void> {
    for await (const ev of client.resource(configmaps, 'ns').watch()) events.push(ev);
  }

  it('fails a watch whose event line passes 16 MiB (the default) with ResponseTooLarge after the events before it', async () => {
    const sent: Sent = { bytes: 0, closedEarly: false };
    const port = await endlessLineWatch(sent);
    const events: WatchEvent[] = [];
    const m = await peakGrowth(() => drain(member('member1', port), events));
    const e = rejection(m.result);
    expect(events.map((ev) => ev.object.metadata.name)).toEqual(['a']);
    expect(e.reason).toBe('ResponseTooLarge');
    expect(e.message).toBe(
      'watch configmaps in namespace "ns" on cluster "member1": ResponseTooLarge: watch event exceeds the limit of 16777216 bytes',
    );
    await expect.poll(() => sent.closedEarly, { timeout: 5000 }).toBe(true);
    expect(sent.bytes).toBeLessThan(64 * MiB);
    expect(m.arrayBuffers).toBeLessThan(64 * MiB);
  });

  it('reassembles an event whose multi-byte characters are split across chunks', async () => {
    const line = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'grüße-✓' } } })}\n`);
    const cut = line.indexOf(Buffer.from('✓')) + 1;
    const port = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line.subarray(0, cut));
      setTimeout(() => res.end(line.subarray(cut)), 20);
    });
    const events: WatchEvent[] = [];
    await drain(member('member1', port), events);
    expect(events.map((ev) => ev.object.metadata.name)).toEqual(['grüße-✓']);
  });

  it('honours maxWatchEventBytes', async () => {
    const sent: Sent = { bytes: 0, closedEarly: false };
    const port = await endlessLineWatch(sent);
    const events: WatchEvent[] = [];
    const m = await peakGrowth(() => drain(member('member1', port, { maxWatchEventBytes: MiB }), events));
    const e = rejection(m.result);
    expect(e.message).toContain('ResponseTooLarge: watch event exceeds the limit of 1048576 bytes');
    expect(m.arrayBuffers).toBeLessThan(16 * MiB);
  });

  it('caps the body of a failed watch request', async () => {
    const sent: Sent = { bytes: 0, closedEarly: false };
    const port = await endlessLineWatch(sent, 500);
    const e = await failure(drain(member('member1', port, { maxResponseBytes: MiB }), []));
    expect(e.message).toBe(
      'watch configmaps in namespace "ns" on cluster "member1": ResponseTooLarge: response body exceeds the limit of 1048576 bytes',
    );
    await expect.poll(() => sent.closedEarly, { timeout: 5000 }).toBe(true);
  });
});
