import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpTransport } from '@kubefed/client';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A plain HTTP server that holds every request until `count` are in flight, then answers them all. */
async function gatheringServer(count: number): Promise<string> {
  const waiting: http.ServerResponse[] = [];
  const server = http.createServer((_req, res) => {
    waiting.push(res);
    if (waiting.length >= count) for (const r of waiting.splice(0)) r.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('HttpTransport with one caller signal', () => {
  it('runs 25 requests at once on one AbortSignal without a MaxListenersExceededWarning, and aborts them all with it', async () => {
    const server = await gatheringServer(25);
    const transport = new HttpTransport({ name: 'c', server, tls: {}, authHeaders: () => Promise.resolve({}) }, { qps: 1000, burst: 1000 });
    cleanups.push(() => transport.close());
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    cleanups.push(() => void process.off('warning', onWarning));

    const shared = new AbortController();
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        transport.request({ method: 'GET', path: `/r${i}`, signal: shared.signal, description: { verb: 'GET', resource: `/r${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 25 }, () => 200));

    // Requests still follow the shared signal: 25 started, then it aborts.
    const pending = Array.from({ length: 25 }, (_, i) =>
      transport.request({ method: 'GET', path: `/x${i}`, signal: shared.signal, description: { verb: 'GET', resource: `/x${i}` } }).then(
        () => 'answered',
        (err: unknown) => (err instanceof Error ? err.name : String(err)),
      ),
    );
    shared.abort();
    expect(new Set(await Promise.all(pending))).toEqual(new Set(['AbortError']));
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
  });
});
