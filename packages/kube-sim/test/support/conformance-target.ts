/* eslint-disable no-restricted-imports -- the conformance suite checks kube-sim with the reference client */
/* eslint-disable @typescript-eslint/no-unsafe-assignment -- parsed API JSON is loose by design, as in the *.test.ts files */
/**
 * The API server a conformance suite talks to. A {@link Substrate} opens one
 * {@link ConformanceTarget} per suite: {@link kubeSim} starts a fresh kube-sim cluster,
 * {@link kubeconfigSubstrate} connects to the current context of a kubeconfig (a real
 * kube-apiserver, see `conformance.real.test.ts`). Either way the suite gets the same handles:
 * a client-node `KubeConfig`, a raw HTTP request function, a watch-stream reader, and its own
 * namespace.
 */
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { startCluster, type SimCluster } from '@kubefed/kube-sim';

/** Parsed JSON of an API response: deliberately loose, tests assert its shape. */
export type Json = ReturnType<typeof JSON.parse>;

/** A response read to its end; `json` is the parsed body when it is JSON, else undefined. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Json;
}

interface RawRequestOptions {
  /** Serialized with JSON.stringify unless it is already a string. */
  body?: unknown;
  /** Default `application/json` when there is a body. */
  contentType?: string;
  /** Default `application/json`. */
  accept?: string;
  /** 'default' = the kubeconfig identity; 'none' = no credentials at all; or a bearer token. */
  auth?: 'default' | 'none' | { token: string };
  headers?: Record<string, string>;
}

type RawRequest = (method: string, path: string, options?: RawRequestOptions) => Promise<RawResponse>;

export interface WatchEvent {
  type: string;
  object: Json;
}

/** A streaming watch response: events are buffered; `next` consumes them in order. */
export interface WatchStream {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** Every event received so far (consumed or not). */
  readonly received: readonly WatchEvent[];
  /** The next unconsumed event; rejects after `timeoutMs` (default 10 s) or when the stream ended first. */
  next(timeoutMs?: number): Promise<WatchEvent>;
  /** Consume events until one matches; rejects on timeout or end of stream. */
  until(predicate: (event: WatchEvent) => boolean, timeoutMs?: number): Promise<WatchEvent>;
  /** Resolves when the server closed the stream (or it broke). */
  readonly ended: Promise<void>;
  readonly isEnded: () => boolean;
  close(): void;
}

export interface ConformanceTarget extends AsyncDisposable {
  readonly real: boolean;
  readonly url: string;
  readonly kc: KubeConfig;
  /** The kubeconfig as YAML (for kubectl). */
  readonly kubeconfigYaml: string;
  readonly request: RawRequest;
  /** Open a watch (or any streaming GET) and read its events. */
  watch(path: string, options?: RawRequestOptions): Promise<WatchStream>;
  /** The kube-sim cluster, undefined on a real cluster. */
  readonly sim: SimCluster | undefined;
  /** The namespace created for this test file. */
  readonly namespace: string;
  /** A unique lowercase suffix for cluster-scoped names (CRD groups, extra namespaces). */
  readonly suffix: string;
  /** Create one more namespace (deleted at close). */
  createNamespace(prefix: string): Promise<string>;
  close(): Promise<void>;
}

/** Options shared by every request: TLS trust, client certificate, default Authorization. */
interface Transport {
  module: typeof http | typeof https;
  base: URL;
  identityAgent: http.Agent;
  anonymousAgent: http.Agent;
  identityHeaders: Record<string, string>;
}

async function makeTransport(kc: KubeConfig): Promise<Transport> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('kubeconfig has no current cluster');
  const base = new URL(cluster.server);
  const opts: https.RequestOptions = { headers: {} };
  await kc.applyToHTTPSOptions(opts);
  const tls: https.AgentOptions = { keepAlive: true, maxSockets: 64 };
  if (opts.ca !== undefined) tls.ca = opts.ca;
  if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
  if (opts.servername !== undefined) tls.servername = opts.servername;
  const isHttps = base.protocol === 'https:';
  const identity: https.AgentOptions = { ...tls };
  if (opts.cert !== undefined) identity.cert = opts.cert;
  if (opts.key !== undefined) identity.key = opts.key;
  const identityHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string') identityHeaders[k] = v;
  return {
    module: isHttps ? https : http,
    base,
    identityAgent: isHttps ? new https.Agent(identity) : new http.Agent({ keepAlive: true }),
    anonymousAgent: isHttps ? new https.Agent(tls) : new http.Agent({ keepAlive: true }),
    identityHeaders,
  };
}

function buildRequest(
  t: Transport,
  method: string,
  path: string,
  options: RawRequestOptions,
): {
  req: http.ClientRequest;
  payload: string | undefined;
} {
  const auth = options.auth ?? 'default';
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  let agent = t.anonymousAgent;
  if (auth === 'default') {
    Object.assign(headers, t.identityHeaders);
    agent = t.identityAgent;
  } else if (auth !== 'none') {
    headers['authorization'] = `Bearer ${auth.token}`;
  }
  let payload: string | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  Object.assign(headers, options.headers ?? {});
  const url = new URL(path, t.base);
  const req = t.module.request(url, { method, headers, agent });
  return { req, payload };
}

function parseJson(text: string): Json {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function makeRequest(t: Transport): RawRequest {
  return (method, path, options = {}) =>
    new Promise<RawResponse>((resolve, reject) => {
      const { req, payload } = buildRequest(t, method, path, options);
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
        });
      });
      req.end(payload);
    });
}

function makeWatch(t: Transport): (path: string, options?: RawRequestOptions) => Promise<WatchStream> {
  return (path, options = {}) =>
    new Promise<WatchStream>((resolve, reject) => {
      const { req, payload } = buildRequest(t, 'GET', path, options);
      req.on('error', reject);
      req.on('response', (res) => {
        const received: WatchEvent[] = [];
        let cursor = 0;
        let ended = false;
        let wake: (() => void) | undefined;
        let buffer = '';
        let endResolve: () => void = () => undefined;
        const endedPromise = new Promise<void>((r) => (endResolve = r));
        const finish = (): void => {
          if (ended) return;
          ended = true;
          endResolve();
          wake?.();
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let nl = buffer.indexOf('\n');
          while (nl >= 0) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (line !== '') {
              const parsed = parseJson(line);
              if (parsed !== undefined) received.push(parsed as WatchEvent);
            }
            nl = buffer.indexOf('\n');
          }
          wake?.();
        });
        res.on('end', () => {
          const rest = buffer.trim();
          if (rest !== '') {
            const parsed = parseJson(rest);
            if (parsed !== undefined) received.push(parsed as WatchEvent);
          }
          finish();
        });
        res.on('error', finish);
        res.on('close', finish);
        const next = async (timeoutMs = 10_000): Promise<WatchEvent> => {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const event = received[cursor];
            if (event !== undefined) {
              cursor += 1;
              return event;
            }
            if (ended) throw new Error(`watch ${path} ended before the next event`);
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`watch ${path}: no event within ${timeoutMs} ms`);
            await new Promise<void>((r) => {
              const timer = setTimeout(r, left);
              wake = () => {
                clearTimeout(timer);
                r();
              };
            });
            wake = undefined;
          }
        };
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          received,
          next,
          async until(predicate, timeoutMs = 10_000) {
            const deadline = Date.now() + timeoutMs;
            for (;;) {
              const event = await next(Math.max(1, deadline - Date.now()));
              if (predicate(event)) return event;
            }
          },
          ended: endedPromise,
          isEnded: () => ended,
          close() {
            req.destroy();
            res.destroy();
            finish();
          },
        });
      });
      req.end(payload);
    });
}

function randomSuffix(): string {
  return randomBytes(4).toString('hex');
}

/** Where a conformance suite runs: kube-sim or a real kube-apiserver. */
export interface Substrate {
  /** `kube-sim` or `kube-apiserver`, for test titles. */
  readonly name: string;
  /** True for a real kube-apiserver. */
  readonly real: boolean;
  /**
   * Start (or connect to) the API server for one suite and create its namespace
   * `conf-<tag>-<random>`. Close the target in `afterAll`: closing deletes the namespaces it
   * created and stops kube-sim.
   */
  open(tag: string): Promise<ConformanceTarget>;
}

/** Every suite gets a kube-sim cluster of its own (so suites run in parallel). */
export const kubeSim: Substrate = {
  name: 'kube-sim',
  real: false,
  async open(tag) {
    const sim = await startCluster({ name: `conformance-${tag}` });
    return openTarget(tag, sim.kubeconfigYaml(), sim);
  },
};

/**
 * Every suite connects to the current context of the kubeconfig that `kubeconfigYaml` returns
 * when the suite starts (so it may be filled in by a `beforeAll` that starts the cluster).
 */
export function kubeconfigSubstrate(kubeconfigYaml: () => string): Substrate {
  return {
    name: 'kube-apiserver',
    real: true,
    open: (tag) => openTarget(tag, kubeconfigYaml(), undefined),
  };
}

async function openTarget(tag: string, kubeconfigYaml: string, sim: SimCluster | undefined): Promise<ConformanceTarget> {
  const suffix = randomSuffix();
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml);
  const transport = await makeTransport(kc);
  const request = makeRequest(transport);
  const namespaces: string[] = [];
  const createNamespace = async (prefix: string): Promise<string> => {
    const name = `${prefix}-${randomSuffix()}`;
    const res = await request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    if (res.status !== 201) throw new Error(`creating namespace ${name}: ${res.status} ${res.text}`);
    namespaces.push(name);
    await rootCaPublished(name);
    return name;
  };
  // Both servers' root CA publisher writes `kube-root-ca.crt` into every new namespace, a moment
  // later. Waiting for it keeps that write out of the watches and lists a test opens afterwards.
  const rootCaPublished = async (ns: string): Promise<void> => {
    const deadline = Date.now() + 30_000;
    while ((await request('GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`namespace ${ns}: kube-root-ca.crt not published within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  let namespace: string;
  try {
    namespace = await createNamespace(`conf-${tag}`);
  } catch (err) {
    transport.identityAgent.destroy();
    transport.anonymousAgent.destroy();
    await sim?.stop();
    throw err;
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    try {
      if (sim === undefined) {
        for (const ns of namespaces) await request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
      }
    } finally {
      transport.identityAgent.destroy();
      transport.anonymousAgent.destroy();
      await sim?.stop();
    }
  };
  return {
    real: sim === undefined,
    url: transport.base.origin,
    kc,
    kubeconfigYaml,
    request,
    watch: makeWatch(transport),
    sim,
    namespace,
    suffix,
    createNamespace,
    close,
    [Symbol.asyncDispose]: close,
  };
}
