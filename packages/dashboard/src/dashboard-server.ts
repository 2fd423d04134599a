import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context, type Next } from 'hono';
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
  /** Address to bind; default `127.0.0.1`. Any other than a loopback address requires the token. */
  readonly address?: string;
  /** Port; default 0 (a free one). */
  readonly port?: number;
  /** Token for a non-loopback bind; default a random one. Ignored on loopback. */
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
  /** Where the page is served; carries `?token=` when a token is required. */
  readonly url: string;
  /** The token a non-loopback bind requires (undefined on loopback). */
  readonly token: string | undefined;
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

function tokenCheck(token: string) {
  const expected = Buffer.from(token);
  return async (c: Context, next: Next): Promise<Response | undefined> => {
    const header = c.req.header('authorization') ?? '';
    const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : (c.req.query('token') ?? ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return c.json({ error: 'a valid token is required (Authorization: Bearer <token>)' }, 401);
    await next();
    return undefined;
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
  parts: { watch: FleetWatch; views: ViewBroadcaster; token: string | undefined; signal: AbortSignal },
): Hono {
  const app = new Hono();
  if (parts.token === undefined) app.use('*', localHostOnly);
  else app.use('/api/*', tokenCheck(parts.token));
  const files = pageFiles();
  app.get('/', pageFile(files, '/assets/index.html'));
  app.get('/assets/*', pageFile(files));
  app.get('/vendor/*', pageFile(files));
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
  const token = isLoopback(address) ? undefined : (options.token ?? randomBytes(24).toString('base64url'));
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
  try {
    server = await listen(buildApp(options, { watch, views, token, signal: abort.signal }), address, options.port ?? 0);
  } catch (err) {
    abort.abort();
    throw err;
  }
  const bound = server.address() as AddressInfo;
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
    url: `http://${hostPart}:${bound.port}/${token === undefined ? '' : `?token=${token}`}`,
    token,
    close,
    [Symbol.asyncDispose]: close,
  };
}
