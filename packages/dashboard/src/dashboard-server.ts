import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context, type Next } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { getMimeType } from 'hono/utils/mime';
import type { DynamicClient } from '@kubefed/client';
import { silentLogger, untilAborted, type Logger } from '@kubefed/runtime';
import { FleetWatch } from './fleet-watch.js';
import { objectDetail } from './object-detail.js';
import { pageFiles, type PageFiles } from './page-files.js';
import { MetricsQueueCountsPoller } from './metrics-queue-counts.js';
import { QueueCountsPoller, type QueueCountsSource } from './queue-counts.js';
import { dashboardView, type DashboardView, type SummarizeObject } from './views.js';

/** Options of {@link startDashboard}. */
export interface DashboardOptions {
  /** Client of the host cluster (the user's kubeconfig context); owned by the caller. */
  readonly host: DynamicClient;
  /** Namespace of the control plane; its KubeFedClusters and FederatedTypeConfigs are shown. */
  readonly kubefedNamespace: string;
  /** Per-object status summary (kubefedctl status's `objectStatus`). */
  readonly summarize: SummarizeObject;
  /**
   * Address to bind; default `127.0.0.1`. On loopback, requests must also name a local host
   * (`Host: 127.0.0.1`/`localhost`), against DNS rebinding. The token is required on every address.
   */
  readonly address?: string;
  /** Port; default 0 (a free one). */
  readonly port?: number;
  /** The token the API requires (see {@link Dashboard.url}); default a random one of 32 bytes. */
  readonly token?: string;
  /** Redis of the control plane: the Clusters page then shows each member's sync queue. Default none. */
  readonly redisUrl?: string | undefined;
  /** BullMQ key prefix of the controller manager (`--queue-prefix`); default BullMQ's. */
  readonly queuePrefix?: string | undefined;
  /**
   * The controller manager's metrics endpoint (`http://host:9090/metrics`): without `redisUrl`,
   * the queue counts are read from its `kubefed_sync_queue_jobs` gauge. Default none.
   */
  readonly metricsUrl?: string | undefined;
  /** Default silent. */
  readonly logger?: Logger;
}

/** A running dashboard. */
export interface Dashboard extends AsyncDisposable {
  /**
   * Where the page is served, with the token in the fragment (`/#token=...`), which browsers never
   * send: the page's script removes it from the address bar and trades it for a session cookie
   * (`POST /api/session` with `Authorization: Bearer <token>`).
   */
  readonly url: string;
  /** The token: API clients send `Authorization: Bearer <token>`. Never accepted in a query string. */
  readonly token: string;
  /** Stops the server, the watches and the queue reader. Idempotent. */
  close(): Promise<void>;
}

/** True for `127.0.0.0/8`, `::1` and `localhost`. */
export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || address === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(address);
}

/** Serves the page file the request path names (page-files.ts), 404 when there is none. */
function pageFile(files: PageFiles, path?: string) {
  return (c: Context): Response | Promise<Response> => {
    const urlPath = path ?? c.req.path;
    const body = files.read(urlPath);
    if (body === undefined) return c.notFound();
    return c.body(body, 200, { 'content-type': getMimeType(urlPath) ?? 'application/octet-stream' });
  };
}

/** Equal strings, in time independent of where they differ. */
function sameSecret(given: string, expected: Buffer): boolean {
  const g = Buffer.from(given);
  return g.length === expected.length && timingSafeEqual(g, expected);
}

/**
 * The dashboard's credentials: the printed token (`Authorization: Bearer`) and the session
 * cookies the page gets for it. A session is a random secret of its own, so the cookie never
 * holds the token; sessions live as long as the process.
 */
class Sessions {
  readonly #token: Buffer;
  readonly #sessions = new Set<string>();
  readonly #cookieName: () => string;

  constructor(token: string, cookieName: () => string) {
    this.#token = Buffer.from(token);
    this.#cookieName = cookieName;
  }

  /** True when the request carries the token in its Authorization header. */
  bearer(c: Context): boolean {
    const header = c.req.header('authorization') ?? '';
    return header.startsWith('Bearer ') && sameSecret(header.slice(7), this.#token);
  }

  /** True when the request carries the token or a session cookie. */
  authorized(c: Context): boolean {
    if (this.bearer(c)) return true;
    const session = getCookie(c, this.#cookieName());
    return session !== undefined && this.#sessions.has(session);
  }

  /** A new session's `Set-Cookie`: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it). */
  open(c: Context): void {
    const session = randomBytes(32).toString('base64url');
    this.#sessions.add(session);
    setCookie(c, this.#cookieName(), session, { httpOnly: true, sameSite: 'Strict', path: '/' });
  }
}

/** The API answers only requests that carry the token or a session; a `?token=` query is not one. */
function apiAuth(sessions: Sessions) {
  return async (c: Context, next: Next): Promise<Response | undefined> => {
    if (c.req.method === 'POST' && c.req.path === '/api/session') {
      await next();
      return undefined;
    }
    if (!sessions.authorized(c)) {
      const error =
        c.req.query('token') !== undefined
          ? 'a token in the query string is not accepted: send Authorization: Bearer <token>, or open the printed URL'
          : 'a valid token is required (Authorization: Bearer <token>)';
      return c.json({ error }, 401);
    }
    await next();
    return undefined;
  };
}

/** The SHA-256 CSP sources of the inline scripts of `html` (the page's import map: it cannot be a file). */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)]
    .map((m) => m[1] ?? '')
    .filter((body) => body.trim() !== '')
    .map((body) => `'sha256-${createHash('sha256').update(body).digest('base64')}'`);
}

/**
 * Headers of every response (page, files, API, errors): a Content-Security-Policy that lets the
 * page load only its own files (scripts: the page's files and its import map, by hash; no inline
 * script or style, no eval, no frames, no other origin), no MIME sniffing, no Referer.
 */
function securityHeaders(indexHtml: string) {
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${inlineScriptHashes(indexHtml).join(' ')}`.trimEnd(),
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return async (c: Context, next: Next): Promise<void> => {
    await next();
    c.res.headers.set('content-security-policy', csp);
    c.res.headers.set('x-content-type-options', 'nosniff');
    c.res.headers.set('referrer-policy', 'no-referrer');
  };
}

/** On loopback, only local host names: a page of another origin cannot reach the API through DNS rebinding. */
async function localHostOnly(c: Context, next: Next): Promise<Response | undefined> {
  const host = (c.req.header('host') ?? '').replace(/:\d+$/, '');
  if (!isLoopback(host)) return c.text('forbidden host', 403);
  await next();
  return undefined;
}

/** Pushes the current view to every open event stream, at most every `debounceMs`. */
class ViewBroadcaster {
  readonly #listeners = new Set<(json: string) => void>();
  readonly #render: () => DashboardView;
  #timer: NodeJS.Timeout | undefined;

  constructor(render: () => DashboardView) {
    this.#render = render;
  }

  json(): string {
    return JSON.stringify(this.#render());
  }

  changed(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      if (this.#listeners.size === 0) return;
      const json = this.json();
      for (const l of this.#listeners) l(json);
    }, 100);
  }

  subscribe(listener: (json: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

function buildApp(
  options: DashboardOptions,
  parts: { watch: FleetWatch; views: ViewBroadcaster; sessions: Sessions; loopback: boolean; signal: AbortSignal },
): Hono {
  const app = new Hono();
  const files = pageFiles();
  app.use('*', securityHeaders(new TextDecoder().decode(files.read('/assets/index.html'))));
  if (parts.loopback) app.use('*', localHostOnly);
  app.use('/api/*', apiAuth(parts.sessions));
  app.get('/', pageFile(files, '/assets/index.html'));
  app.get('/assets/*', pageFile(files));
  app.get('/vendor/*', pageFile(files));
  app.post('/api/session', (c) => {
    if (!parts.sessions.bearer(c)) return c.json({ error: 'a valid token is required (Authorization: Bearer <token>)' }, 401);
    parts.sessions.open(c);
    return c.body(null, 204);
  });
  app.get('/api/view', (c) => c.body(parts.views.json(), 200, { 'content-type': 'application/json' }));
  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      let id = 0;
      const send = (json: string): void => void stream.writeSSE({ event: 'view', data: json, id: String(++id) });
      const unsubscribe = parts.views.subscribe(send);
      send(parts.views.json());
      await Promise.race([new Promise<void>((resolve) => stream.onAbort(resolve)), untilAborted(parts.signal)]);
      unsubscribe();
    }),
  );
  app.get('/api/detail', async (c) => {
    const [typeName, namespace, name, cluster] = ['type', 'namespace', 'name', 'cluster'].map((k) => c.req.query(k) ?? '');
    const snapshot = parts.watch.snapshot();
    const type = snapshot.types.find((t) => t.name === typeName);
    const object = snapshot.objects
      .get(typeName ?? '')
      ?.find((o) => (o.metadata.namespace ?? '') === namespace && o.metadata.name === name);
    if (type === undefined || object === undefined) return c.json({ error: `no federated object ${typeName}/${namespace}/${name}` }, 404);
    return c.json(await objectDetail(options.host, { object, type, cluster: cluster ?? '', kubefedNamespace: options.kubefedNamespace }));
  });
  return app;
}

/** Redis when `redisUrl` is given, else the controller manager's metrics when `metricsUrl` is, else none. */
function queueCountsSource(
  options: DashboardOptions,
  parts: { clusters: () => readonly string[]; onChange: () => void; logger: Logger },
): QueueCountsSource | undefined {
  if (options.redisUrl !== undefined)
    return new QueueCountsPoller({ redisUrl: options.redisUrl, queuePrefix: options.queuePrefix, ...parts });
  if (options.metricsUrl !== undefined)
    return new MetricsQueueCountsPoller({ url: options.metricsUrl, onChange: parts.onChange, logger: parts.logger });
  return undefined;
}

function listen(app: Hono, address: string, port: number): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: address, port }, () => resolve(server));
    server.once('error', reject);
  });
}

/**
 * Starts the dashboard: watches the host (see {@link FleetWatch}), reads the sync queue counts
 * (from Redis with `redisUrl`, else from the controller manager's metrics with `metricsUrl`),
 * and serves the page, `/api/view` (the whole view as JSON), `/api/events` (server-sent events:
 * the view again within ~100 ms of any watch event) and `/api/detail`.
 * Read-only: nothing is ever written to a cluster. Resolves once the first lists are in and the
 * port is bound; rejects when the address cannot be bound.
 */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const address = options.address ?? '127.0.0.1';
  const token = options.token ?? randomBytes(32).toString('base64url');
  const logger = options.logger ?? silentLogger();
  const abort = new AbortController();
  // Both sources call views.changed() only once started, after `views` exists.
  const watch = new FleetWatch({ host: options.host, kubefedNamespace: options.kubefedNamespace, onChange: () => views.changed(), logger });
  const queues = queueCountsSource(options, {
    clusters: () => watch.snapshot().clusters.map((c) => c.metadata.name ?? ''),
    onChange: () => views.changed(),
    logger,
  });
  const views = new ViewBroadcaster(() =>
    dashboardView(watch.snapshot(), {
      summarize: options.summarize,
      queues: queues?.counts ?? new Map(),
      queueSource: {
        source: options.redisUrl !== undefined ? 'redis' : options.metricsUrl !== undefined ? 'metrics' : 'none',
        problem: queues?.problem,
      },
    }),
  );
  if (queues !== undefined) void queues.start(abort.signal);
  await watch.start(abort.signal);
  let server: ServerType;
  let port = 0;
  // One cookie per port: two dashboards on one host (cookies ignore the port) keep their sessions apart.
  const sessions = new Sessions(token, () => `kubefed-dashboard-${port}`);
  try {
    const app = buildApp(options, { watch, views, sessions, loopback: isLoopback(address), signal: abort.signal });
    server = await listen(app, address, options.port ?? 0);
  } catch (err) {
    abort.abort();
    throw err;
  }
  const bound = server.address() as AddressInfo;
  port = bound.port;
  const hostPart = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= new Promise<void>((resolve) => {
      abort.abort();
      views.stop();
      server.close(() => resolve());
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    }));
  return {
    url: `http://${hostPart}:${bound.port}/#token=${token}`,
    token,
    close,
    [Symbol.asyncDispose]: close,
  };
}
