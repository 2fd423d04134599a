import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { sleep, systemClock, type Clock } from '@kubefed/client';
import { Controller, type ControllerOptions } from './controller.js';
import { CacheSyncTimeoutError, LeadershipLostError, RunnableFailedError } from './errors.js';
import { parseAddress } from './http-address.js';
import { Informer, type InformerOptions } from './informer.js';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.js';
import { describeLock } from './resource-lock.js';
import { silentLogger, type Logger } from './logger.js';
import type { MetricsAuthorizer } from './metrics-auth.js';
import { RuntimeMetrics } from './metrics.js';
import { isCacheRunnable, untilAborted, type Runnable } from './runnable.js';
import { SharedInformers, type SharedInformersOptions } from './shared-informers.js';

/** A health or readiness check: true (or resolving true) = passing; throwing = failing. */
export type Check = () => boolean | Promise<boolean>;

/** Leader election settings of a manager (callbacks are the manager's). */
export type ManagerLeaderElectionOptions = Omit<
  LeaderElectionOptions,
  'onStartedLeading' | 'onStoppedLeading' | 'metrics' | 'logger' | 'clock'
>;

/** Options of {@link Manager}. */
export interface ManagerOptions {
  logger?: Logger;
  /** Default: a new registry for this manager. */
  metrics?: RuntimeMetrics;
  /** Where `/healthz` and `/readyz` are served; default `127.0.0.1:0` (the process passes `:8080`); null = no server. */
  healthAddress?: string | null;
  /** Where `/metrics` is served; default `127.0.0.1:0` (the process passes `:9090`); null = no server. */
  metricsAddress?: string | null;
  /** Who may read `/metrics` (e.g. {@link KubeMetricsAuthorizer}); default anyone who reaches the port. */
  metricsAuth?: MetricsAuthorizer;
  /** PEM certificate and key: `/metrics` is served over HTTPS; default plain HTTP. */
  metricsTls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Run leader-only runnables only while holding this lock; default: no election (always run them). */
  leaderElection?: ManagerLeaderElectionOptions;
  /** Time allowed for all runnables to stop; default 30 s. */
  gracefulShutdownMs?: number;
  /** Time allowed for caches to sync at start; default 120 s. */
  cacheSyncTimeoutMs?: number;
  clock?: Clock;
}

/** Bound addresses of the manager's servers (`http://host:port`). */
export interface ManagerAddresses {
  health?: string;
  metrics?: string;
}

interface Started {
  runnable: Runnable;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Owns the runnables of a process (controller-runtime's manager). `start(signal)`:
 * 1. serves `/healthz`, `/readyz` and `/metrics`;
 * 2. starts caches (informers) and waits for them to sync (`/readyz` turns 200);
 * 3. starts the other runnables; those with `needLeaderElection` (default) only while this
 *    process holds the Lease, and aborts them the moment leadership is lost;
 * 4. on abort, stops runnables in reverse start order within `gracefulShutdownMs` (the
 *    elector, releasing the Lease, after the leader-only ones), then the shared informer sets
 *    ({@link sharedInformers}), and closes the servers.
 * It rejects with the first failure (a runnable rejecting, cache sync timeout, lost lease)
 * after stopping everything.
 */
export class Manager {
  readonly logger: Logger;
  readonly metrics: RuntimeMetrics;
  readonly #o: ManagerOptions;
  readonly #clock: Clock;
  readonly #runnables: Runnable[] = [];
  readonly #healthChecks = new Map<string, Check>();
  readonly #readyChecks = new Map<string, Check>();
  /** Runnables (and the leader elector) in start order; stopped in reverse. */
  readonly #started: Started[] = [];
  /** The running shared informer sets, kept apart: stopped after every runnable, whatever reads them has stopped by then. */
  readonly #startedShared: Started[] = [];
  readonly #servers: Server[] = [];
  readonly #shared = new Map<SharedInformersOptions['client'], SharedInformers>();
  #running = false;
  #addresses: ManagerAddresses = {};
  #servingWaiters: (() => void)[] = [];
  #serving = false;
  #cachesSynced = false;
  #stopping = false;
  #elector: LeaderElector | undefined;
  #failure: Error | undefined;
  #fail: (err: unknown) => void = () => {};

  constructor(options: ManagerOptions = {}) {
    this.#o = options;
    this.logger = options.logger ?? silentLogger();
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.#clock = options.clock ?? systemClock;
  }

  /** Adds a runnable; must be called before `start`. */
  add(runnable: Runnable): this {
    this.#runnables.push(runnable);
    return this;
  }

  /** Creates an informer with this manager's logger and metrics, and adds it. */
  informer(options: Omit<InformerOptions, 'logger' | 'metrics'>): Informer {
    const informer = new Informer({ ...options, logger: this.logger, metrics: this.metrics.informer(options.name) });
    this.add(informer);
    return informer;
  }

  /**
   * The shared, reference-counted informers of `client`'s cluster (one set per client; `cluster`
   * names it in informer names and logs, default `host`), with this manager's logger and metrics.
   * Every consumer of a host resource takes its informer from here, so that each (resource,
   * namespace, label selector) is listed and watched once (docs/architecture.md "Shared informers").
   * They start with the manager, those held by then as caches it waits for (except those no
   * holder awaits: `awaitSync: false`), and stop after every runnable.
   */
  sharedInformers(client: SharedInformersOptions['client'], cluster = 'host'): SharedInformers {
    let shared = this.#shared.get(client);
    if (shared !== undefined) return shared;
    shared = new SharedInformers({ cluster, client, logger: this.logger, metrics: this.metrics, clock: this.#clock });
    this.#shared.set(client, shared);
    if (this.#running && !this.#stopping) this.#startShared(shared);
    return shared;
  }

  /** Creates a controller with this manager's logger and metrics, and adds it. */
  controller(options: Omit<ControllerOptions, 'logger' | 'metrics'>): Controller {
    const controller = new Controller({
      ...options,
      logger: this.logger,
      metrics: {
        controller: this.metrics.controller(options.name, {
          maxConcurrentReconciles: Math.max(1, options.maxConcurrentReconciles ?? 1),
        }),
        queue: this.metrics.workQueue(options.name),
      },
    });
    this.add(controller);
    return controller;
  }

  /** A check for `/healthz` (liveness). */
  addHealthCheck(name: string, check: Check): this {
    this.#healthChecks.set(name, check);
    return this;
  }

  /** A check for `/readyz`, on top of "caches synced". */
  addReadyCheck(name: string, check: Check): this {
    this.#readyChecks.set(name, check);
    return this;
  }

  /** True while leader-only runnables run (always true without leader election once started). */
  get isLeader(): boolean {
    return this.#o.leaderElection === undefined ? this.#cachesSynced && !this.#stopping : (this.#elector?.isLeader ?? false);
  }

  /** True once every cache has synced. */
  get cachesSynced(): boolean {
    return this.#cachesSynced;
  }

  /** Bound addresses (empty before `start` binds them). */
  get addresses(): ManagerAddresses {
    return this.#addresses;
  }

  /** Resolves with the bound addresses once the servers listen. */
  async serving(): Promise<ManagerAddresses> {
    if (!this.#serving) await new Promise<void>((resolve) => this.#servingWaiters.push(resolve));
    return this.#addresses;
  }

  /** Runs everything until `signal` aborts (see the class doc). */
  async start(signal: AbortSignal): Promise<void> {
    const internal = new AbortController();
    const stop = AbortSignal.any([signal, internal.signal]);
    this.#fail = (err) => {
      if (this.#failure === undefined)
        this.#failure = err instanceof Error ? err : new RunnableFailedError('manager failed', { cause: err });
      internal.abort();
    };
    try {
      await this.#listen();
      await this.#run(stop);
      await untilAborted(stop);
    } catch (err) {
      this.#fail(err);
    }
    await this.#shutdown();
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #run(stop: AbortSignal): Promise<void> {
    this.#running = true;
    for (const shared of this.#shared.values()) this.#startShared(shared);
    const caches = [...this.#shared.values(), ...this.#runnables.filter(isCacheRunnable)];
    for (const c of this.#runnables.filter(isCacheRunnable)) this.#startRunnable(c);
    if (!(await this.#waitForCaches(caches, stop))) return;
    this.#cachesSynced = true;
    this.logger.info({ caches: caches.length }, 'caches synced');
    const rest = this.#runnables.filter((r) => !isCacheRunnable(r));
    for (const r of rest) if (r.needLeaderElection === false) this.#startRunnable(r);
    const leaderOnly = rest.filter((r) => r.needLeaderElection !== false);
    const le = this.#o.leaderElection;
    if (le === undefined) {
      for (const r of leaderOnly) this.#startRunnable(r);
      return;
    }
    const electorStop = new AbortController();
    const elector = new LeaderElector({
      ...le,
      clock: this.#clock,
      logger: this.logger,
      metrics: this.metrics,
      onStartedLeading: (leading) => {
        this.logger.info({ kind: le.lock.kind, namespace: le.lock.namespace, name: le.lock.name }, 'promoted as leader');
        if (stop.aborted) return;
        for (const r of leaderOnly) this.#startRunnable(r, leading);
      },
    });
    this.#elector = elector;
    const done = elector.run(electorStop.signal).then((end) => {
      if (end === 'lost' && !stop.aborted) this.#fail(new LeadershipLostError(`lost the lock ${describeLock(le.lock)}`));
    });
    // The elector is stopped (and releases the Lease) only after the leader-only runnables stopped.
    this.#started.push({ runnable: { name: 'leader-election', start: () => done }, controller: electorStop, done });
  }

  async #waitForCaches(caches: Runnable[], stop: AbortSignal): Promise<boolean> {
    const timeoutMs = this.#o.cacheSyncTimeoutMs ?? 120_000;
    const timeout = new AbortController();
    const timer = this.#clock.setTimeout(() => timeout.abort(), timeoutMs);
    const waitSignal = AbortSignal.any([stop, timeout.signal]);
    try {
      for (const c of caches) {
        if (!isCacheRunnable(c)) continue;
        if (!(await c.waitForSync(waitSignal))) {
          if (timeout.signal.aborted && !stop.aborted) {
            const why = c.unsynced?.() ?? [];
            this.#fail(
              new CacheSyncTimeoutError(
                `cache ${c.name} did not sync within ${timeoutMs} ms${why.length > 0 ? `: ${why.join('; ')}` : ''}`,
              ),
            );
          }
          return false;
        }
      }
      return true;
    } finally {
      this.#clock.clearTimeout(timer);
    }
  }

  /** Starts `r`; it is stopped by the shutdown sequence (in reverse start order), or at once when `parent` aborts. */
  #startRunnable(r: Runnable, parent?: AbortSignal): void {
    this.#started.push(this.#launch(r, parent));
  }

  /** Starts a shared informer set, stopped by the shutdown sequence after every runnable. */
  #startShared(shared: SharedInformers): void {
    this.#startedShared.push(this.#launch(shared));
  }

  /** Runs `r` until its controller (or `parent`) aborts; a rejection while running fails the manager. */
  #launch(r: Runnable, parent?: AbortSignal): Started {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    if (parent?.aborted === true) controller.abort();
    else parent?.addEventListener('abort', onAbort, { once: true });
    this.logger.debug({ runnable: r.name }, 'starting runnable');
    const done = (async () => {
      try {
        await r.start(controller.signal);
      } catch (err) {
        if (!controller.signal.aborted) {
          // Not logged as an error here: the failure rejects start() as a RunnableFailedError that
          // names the runnable and carries the cause, and whoever awaits start() reports it once.
          this.logger.debug({ runnable: r.name }, 'runnable failed; stopping the manager');
          this.#fail(new RunnableFailedError(`runnable ${r.name} failed`, { cause: err }));
        }
      } finally {
        parent?.removeEventListener('abort', onAbort);
      }
    })();
    return { runnable: r, controller, done };
  }

  async #shutdown(): Promise<void> {
    this.#stopping = true;
    const deadline = this.#clock.now() + (this.#o.gracefulShutdownMs ?? 30_000);
    await this.#stopInOrder([...this.#started].reverse(), deadline);
    await this.#stopInOrder(this.#startedShared, deadline);
    await Promise.all(
      this.#servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
    this.logger.info('manager stopped');
  }

  /** Stops each of `started` in turn, waiting for it until `deadline` at most. */
  async #stopInOrder(started: readonly Started[], deadline: number): Promise<void> {
    for (const s of started) {
      s.controller.abort();
      const remaining = deadline - this.#clock.now();
      const finished = await Promise.race([s.done.then(() => true), sleep(this.#clock, Math.max(0, remaining)).then(() => false)]);
      if (!finished) this.logger.warn({ runnable: s.runnable.name }, 'runnable did not stop in time');
    }
  }

  async #listen(): Promise<void> {
    const serve = async (
      option: string,
      address: string,
      handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
      tls?: ManagerOptions['metricsTls'],
    ): Promise<string> => {
      const { host, port } = parseAddress(option, address);
      const listener = (req: IncomingMessage, res: ServerResponse): void => {
        handler(req, res).catch((err: unknown) => {
          this.logger.error({ err }, 'http handler failed');
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
      };
      const server: Server = tls === undefined ? createServer(listener) : createTlsServer({ cert: tls.cert, key: tls.key }, listener);
      this.#servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      const bound = server.address() as AddressInfo;
      const h = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
      return `${tls === undefined ? 'http' : 'https'}://${h}:${bound.port}`;
    };
    const healthAddress = this.#o.healthAddress === undefined ? '127.0.0.1:0' : this.#o.healthAddress;
    const metricsAddress = this.#o.metricsAddress === undefined ? '127.0.0.1:0' : this.#o.metricsAddress;
    if (healthAddress !== null) this.#addresses.health = await serve('healthAddress', healthAddress, (req, res) => this.#health(req, res));
    if (metricsAddress !== null)
      this.#addresses.metrics = await serve('metricsAddress', metricsAddress, (req, res) => this.#metrics(req, res), this.#o.metricsTls);
    this.logger.info({ ...this.#addresses }, 'serving health and metrics');
    this.#serving = true;
    for (const w of this.#servingWaiters.splice(0)) w();
  }

  async #health(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/healthz' && path !== '/readyz' && path !== '/livez') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const results: [string, boolean][] = [];
    const checks = path === '/readyz' ? this.#readyChecks : this.#healthChecks;
    if (path === '/readyz') {
      results.push(['informer-sync', this.#cachesSynced]);
      results.push(['shutdown', !this.#stopping]);
    } else {
      results.push(['ping', true]);
    }
    for (const [name, check] of checks) {
      let ok: boolean;
      try {
        ok = await check();
      } catch {
        ok = false;
      }
      results.push([name, ok]);
    }
    const healthy = results.every(([, ok]) => ok);
    const body = results.map(([name, ok]) => `[${ok ? '+' : '-'}]${name} ${ok ? 'ok' : 'failed'}`).join('\n');
    res
      .writeHead(healthy ? 200 : 503, { 'content-type': 'text/plain' })
      .end(`${body}\n${path.slice(1)} check ${healthy ? 'passed' : 'failed'}\n`);
  }

  async #metrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if ((req.url ?? '/').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const access = this.#o.metricsAuth === undefined ? 'allowed' : await this.#o.metricsAuth.check(req.headers.authorization, '/metrics');
    if (access !== 'allowed') {
      const code = access === 'unauthenticated' ? 401 : 403;
      res.writeHead(code, { 'content-type': 'text/plain' }).end(code === 401 ? 'Unauthorized\n' : 'Forbidden\n');
      return;
    }
    const text = await this.metrics.text();
    res.writeHead(200, { 'content-type': this.metrics.contentType }).end(text);
  }
}
