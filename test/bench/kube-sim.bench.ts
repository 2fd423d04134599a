/**
 * kube-sim throughput and latency figures over HTTPS keep-alive on loopback.
 * Run: `npx tsx --conditions=@kubefed/source test/bench/kube-sim.bench.ts` (runs on the TypeScript
 * sources; without the condition, build kube-sim first so its dist/ exists).
 * Prints figures; asserts nothing about time. Every phase is bounded in count and in time.
 */
import https from 'node:https';
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { startCluster, type SimCluster } from '@kubefed/kube-sim';

const concurrency = 32;
const createCount = 3000;
const watcherCount = 10;
const fanoutWrites = 2000;
const latencyRate = 1000; // writes per second
const latencySeconds = 3;
const memoryObjects = 10_000;
const phaseBudgetMs = 60_000;

interface Client {
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; body: string }>;
  watch(
    path: string,
    onEvent: (event: { type: string; object: { metadata?: { name?: string } } | undefined }) => void,
  ): Promise<() => void>;
  close(): void;
}

function client(sim: SimCluster): Client {
  const url = new URL(sim.url);
  const isHttps = url.protocol === 'https:';
  const agent = isHttps
    ? new https.Agent({ keepAlive: true, maxSockets: concurrency, ...(sim.caPem === undefined ? {} : { ca: sim.caPem }) })
    : new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const watchAgent = isHttps
    ? new https.Agent({ keepAlive: false, ...(sim.caPem === undefined ? {} : { ca: sim.caPem }) })
    : new http.Agent({ keepAlive: false });
  const mod = isHttps ? https : http;
  const auth = { authorization: `Bearer ${sim.adminToken}`, accept: 'application/json' };
  return {
    request: (method, path, body, contentType = 'application/json') =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const headers: Record<string, string> = { ...auth };
        if (payload !== undefined) {
          headers['content-type'] = contentType;
          headers['content-length'] = String(Buffer.byteLength(payload));
        }
        const req = mod.request(new URL(path, url), { method, headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(payload);
      }),
    watch: (path, onEvent) =>
      new Promise((resolve, reject) => {
        const req = mod.request(new URL(path, url), { method: 'GET', headers: auth, agent: watchAgent }, (res) => {
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffer += chunk;
            let nl = buffer.indexOf('\n');
            while (nl >= 0) {
              const line = buffer.slice(0, nl);
              buffer = buffer.slice(nl + 1);
              if (line.trim() !== '') onEvent(JSON.parse(line) as { type: string; object: { metadata?: { name?: string } } | undefined });
              nl = buffer.indexOf('\n');
            }
          });
          res.on('error', () => undefined);
          resolve(() => {
            req.destroy();
            res.destroy();
          });
        });
        req.on('error', (err) => reject(err));
        req.end();
      }),
    close: () => {
      agent.destroy();
      watchAgent.destroy();
    },
  };
}

/** Run `count` tasks with `limit` in flight; stops starting new ones after `budgetMs`. Returns how many ran. */
async function pool(count: number, limit: number, budgetMs: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const deadline = Date.now() + budgetMs;
  const worker = async (): Promise<void> => {
    while (next < count && Date.now() < deadline) {
      const i = next++;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: limit }, () => worker()));
  return next;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const cm = (namespace: string, name: string, data: Record<string, string>): unknown => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

async function createNamespace(c: Client, name: string): Promise<void> {
  const res = await c.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (res.status !== 201) throw new Error(`namespace ${name}: ${res.status} ${res.body}`);
}

function expectStatus(res: { status: number; body: string }, code: number, what: string): void {
  if (res.status !== code) throw new Error(`${what}: expected ${code}, got ${res.status} ${res.body.slice(0, 200)}`);
}

const rate = (n: number, ms: number): string => `${Math.round((n * 1000) / ms).toLocaleString('en-US')}/s`;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function main(): Promise<void> {
  await using sim = await startCluster({ name: 'bench' });
  const c = client(sim);
  try {
    console.log(`kube-sim bench at ${sim.url} (concurrency ${concurrency}, keep-alive)`);

    // creates/s and updates/s
    await createNamespace(c, 'bench-crud');
    let start = performance.now();
    const created = await pool(createCount, concurrency, phaseBudgetMs, async (i) => {
      expectStatus(
        await c.request('POST', '/api/v1/namespaces/bench-crud/configmaps', cm('bench-crud', `cm-${i}`, { v: '0' })),
        201,
        'create',
      );
    });
    console.log(
      `creates:  ${created} configmaps in ${Math.round(performance.now() - start)} ms = ${rate(created, performance.now() - start)}`,
    );
    start = performance.now();
    const updated = await pool(created, concurrency, phaseBudgetMs, async (i) => {
      const res = await c.request(
        'PATCH',
        `/api/v1/namespaces/bench-crud/configmaps/cm-${i}`,
        { data: { v: '1' } },
        'application/merge-patch+json',
      );
      expectStatus(res, 200, 'update');
    });
    console.log(
      `updates:  ${updated} merge patches in ${Math.round(performance.now() - start)} ms = ${rate(updated, performance.now() - start)}`,
    );

    // watch fan-out: events delivered per second to 10 watchers
    await createNamespace(c, 'bench-fanout');
    const counts = new Array<number>(watcherCount).fill(0);
    const stops: (() => void)[] = [];
    for (let w = 0; w < watcherCount; w++) {
      stops.push(
        await c.watch('/api/v1/namespaces/bench-fanout/configmaps?watch=1', (e) => {
          if (e.type === 'ADDED' && e.object?.metadata?.name?.startsWith('f-') === true) counts[w]! += 1;
        }),
      );
    }
    start = performance.now();
    const written = await pool(fanoutWrites, concurrency, phaseBudgetMs, async (i) => {
      expectStatus(
        await c.request('POST', '/api/v1/namespaces/bench-fanout/configmaps', cm('bench-fanout', `f-${i}`, {})),
        201,
        'fan-out write',
      );
    });
    const fanoutDeadline = Date.now() + phaseBudgetMs;
    while (counts.some((n) => n < written) && Date.now() < fanoutDeadline) await new Promise((r) => setTimeout(r, 5));
    const fanoutMs = performance.now() - start;
    const delivered = counts.reduce((a, b) => a + b, 0);
    console.log(
      `fan-out:  ${written} writes x ${watcherCount} watchers = ${delivered} events in ${Math.round(fanoutMs)} ms = ${rate(delivered, fanoutMs)}`,
    );
    for (const stop of stops) stop();

    // delivery latency at a paced write rate
    await createNamespace(c, 'bench-latency');
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    const stopLatency = await c.watch('/api/v1/namespaces/bench-latency/configmaps?watch=1', (e) => {
      const sent = sentAt.get(e.object?.metadata?.name ?? '');
      if (e.type === 'ADDED' && sent !== undefined) latencies.push(performance.now() - sent);
    });
    const total = latencyRate * latencySeconds;
    const inflight: Promise<void>[] = [];
    start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / latencyRate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const name = `l-${i}`;
      sentAt.set(name, performance.now());
      inflight.push(
        c
          .request('POST', '/api/v1/namespaces/bench-latency/configmaps', cm('bench-latency', name, {}))
          .then((res) => expectStatus(res, 201, 'paced write')),
      );
    }
    await Promise.all(inflight);
    const achieved = (total * 1000) / (performance.now() - start);
    const latencyDeadline = Date.now() + 10_000;
    while (latencies.length < total && Date.now() < latencyDeadline) await new Promise((r) => setTimeout(r, 5));
    stopLatency();
    latencies.sort((a, b) => a - b);
    console.log(
      `latency:  ${latencies.length}/${total} events at ~${Math.round(achieved)} writes/s: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms (write start to watch event)`,
    );

    // memory per 10k objects
    // Expose the collector at run time so heap figures do not depend on node flags.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage();
    await createNamespace(c, 'bench-memory');
    const stored = await pool(memoryObjects, concurrency, phaseBudgetMs, async (i) => {
      const data = { key: `value-${i}`, other: 'x'.repeat(64) };
      expectStatus(
        await c.request('POST', '/api/v1/namespaces/bench-memory/configmaps', cm('bench-memory', `m-${i}`, data)),
        201,
        'memory write',
      );
    });
    gc();
    const after = process.memoryUsage();
    const per10k = (delta: number): string => mb((delta * 10_000) / Math.max(1, stored));
    console.log(
      `memory:   ${stored} configmaps (~150 B of data each): heap +${per10k(after.heapUsed - before.heapUsed)} / RSS +${per10k(after.rss - before.rss)} per 10k objects`,
    );
  } finally {
    c.close();
  }
}

await main();
