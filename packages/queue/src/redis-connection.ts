import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { silentLogger, type QueueLogger } from './logger.js';
import { RedisConnectionError } from './queue-error.js';
import { parseRedisUrl, redactRedisUrl, type RedisTarget, type RedisTlsFiles } from './redis-url.js';

/** Options of {@link createRedisConnection}. */
export interface RedisConnectionOptions {
  /**
   * `worker`: commands wait across reconnects (`maxRetriesPerRequest: null`, required by BullMQ
   * workers). `producer`: a command fails after one retry while Redis is unreachable, so the
   * caller (a reconciler) fails and is retried with its own backoff. Default `worker`.
   */
  role?: 'worker' | 'producer';
  /** Name shown in `CLIENT LIST`. Default `kubefed-<role>`. */
  connectionName?: string;
  /** Don't connect until the first command (or `connect()`). Default false. */
  lazyConnect?: boolean;
  /** TCP connect timeout in ms. Default 10_000. */
  connectTimeoutMs?: number;
  /**
   * TLS files for a `rediss` URL (each field wins over the URL's `?tlsCaFile=` / `?tlsCertFile=`
   * / `?tlsKeyFile=`). Default: the URL's, else Node's default CAs and no client certificate.
   * Read once, when the connection is created.
   */
  tls?: RedisTlsFiles;
  /** Where connection errors and reconnects are logged (warn / info). Default silent. */
  logger?: QueueLogger;
}

/**
 * The opaque Redis connection handed to {@link BullMqJobProducer}, {@link SyncWorkerHost} and
 * the sync outcome stream: one server (also found through Sentinel) or a Redis Cluster.
 */
export type RedisConnection = Redis | Cluster;

/**
 * Delay before reconnect attempt `times` (1-based): 100 ms doubling up to 5 s, plus up to
 * 20 % jitter from `random` so that many processes do not reconnect in lockstep.
 */
export function reconnectDelayMs(times: number, random: () => number = Math.random): number {
  const base = Math.min(100 * 2 ** Math.max(0, times - 1), 5000);
  return Math.round(base * (1 + 0.2 * random()));
}

/** What this package remembers about a connection it made, for messages. */
interface ConnectionFacts {
  /** The redacted URL. */
  readonly where: string;
  readonly secrets: readonly string[];
  /** The last connection error (redacted), cleared when the connection is ready again. */
  lastError: RedisConnectionError | undefined;
}

const facts = new WeakMap<RedisConnection, ConnectionFacts>();

/** True for a Redis Cluster connection (its keys are hash-tagged: {@link bullPrefix}, {@link syncQueueBullPrefix}). */
export function isClusterConnection(connection: RedisConnection): connection is Cluster {
  return connection instanceof Cluster;
}

/** True when the connection's commands wait across reconnects, as BullMQ workers require (role `worker`). */
export function isWorkerConnection(connection: RedisConnection): boolean {
  const options = isClusterConnection(connection) ? connection.options.redisOptions : connection.options;
  return options?.maxRetriesPerRequest === null;
}

/** Whether `prefix` holds a Redis Cluster hash tag (`{...}` with something inside). */
const hasHashTag = (prefix: string): boolean => /\{[^}]+\}/.test(prefix);

/**
 * The key prefix of what is shared by every queue of a federation (the outcome stream) on
 * `connection`: `prefix` itself (default `bull`), or on a Redis Cluster `{prefix}`, one hash slot.
 * A prefix that already has a `{...}` hash tag is kept as is.
 */
export function bullPrefix(connection: RedisConnection, prefix: string | undefined): string | undefined {
  if (!isClusterConnection(connection)) return prefix;
  const given = prefix ?? 'bull';
  return hasHashTag(given) ? given : `{${given}}`;
}

/**
 * The BullMQ key prefix of `cluster`'s sync queue on `connection`: `prefix` itself (default
 * `bull`) on one server or Sentinel; on a Redis Cluster `{prefix:cluster}`, a hash tag of its own
 * per member queue. BullMQ's Lua scripts touch several keys of one queue at once, which a
 * Cluster allows only within one slot; no script or transaction spans two queues, so each
 * queue's slot may sit on another master and the queues spread over the cluster. A prefix that
 * already has a `{...}` hash tag is kept as is: every queue then stays in that one slot.
 */
export function syncQueueBullPrefix(connection: RedisConnection, prefix: string | undefined, cluster: string): string | undefined {
  if (!isClusterConnection(connection)) return prefix;
  const given = prefix ?? 'bull';
  return hasHashTag(given) ? given : `{${given}:${cluster}}`;
}

/** The passwords a connection logs in with, as given and percent-encoded, longest first. */
function secretsOf(values: readonly unknown[]): string[] {
  const secrets = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string' || value === '') continue;
    secrets.add(value).add(encodeURIComponent(value));
  }
  return [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * What is logged or passed on for an ioredis error: its message, stack and `code`, the name of
 * the failed command but not its arguments (ioredis attaches them: `HELLO 3 AUTH default <password>`
 * on a failed login), and the connection's passwords masked wherever they still appear (Redis
 * echoes the arguments of an unknown command).
 */
function redactedRedisError(err: unknown, secrets: readonly string[]): RedisConnectionError {
  const source = err instanceof Error ? err : new Error(String(err));
  const mask = (text: string): string => secrets.reduce((t, secret) => t.split(secret).join('***'), text);
  const redacted = new RedisConnectionError(mask(source.message));
  if (source.stack !== undefined) redacted.stack = mask(source.stack);
  const { code, command } = source as { code?: unknown; command?: { name?: unknown } };
  if (typeof code === 'string') Object.assign(redacted, { code });
  if (typeof command?.name === 'string') Object.assign(redacted, { command: command.name });
  return redacted;
}

/** Reads the PEM files of `files`; the error names the file and what it is for. */
function readTls(files: RedisTlsFiles, where: string): TlsConnectionOptions {
  const read = (path: string | undefined, what: string): Buffer | undefined => {
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new RedisConnectionError(`cannot read the ${what} ${path} for Redis at ${where}: ${(err as Error).message}`, { cause: err });
    }
  };
  const ca = read(files.caFile, 'TLS CA file');
  const cert = read(files.certFile, 'TLS client certificate file');
  const key = read(files.keyFile, 'TLS client key file');
  return { ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }) };
}

/** A Redis server answers READONLY after a failover demoted it: reconnect (Sentinel finds the new master) and resend. */
function reconnectOnReadOnly(err: Error): 1 | 2 | boolean {
  return err.message.startsWith('READONLY') ? 2 : false;
}

/**
 * Opens an ioredis connection to `url`, which reconnects forever with {@link reconnectDelayMs}
 * and logs connection errors instead of printing them, without the password (neither from the
 * URL nor from the failed `AUTH` / `HELLO` command ioredis attaches). The URL forms are those of
 * {@link parseRedisUrl}: `redis[s]://` (one server), `redis[s]+sentinel://` (the master of a
 * Sentinel group, found again after a failover) and `redis[s]+cluster://` (a Redis Cluster: give
 * BullMQ {@link bullPrefix}, which this package's producer and worker host do).
 *
 * @throws RedisConnectionError when the URL is not one of those forms, or a TLS file cannot be read.
 */
export function createRedisConnection(url: string, options: RedisConnectionOptions = {}): RedisConnection {
  const target = parseRedisUrl(url);
  const where = redactRedisUrl(url);
  if (options.tls !== undefined && target.tls === undefined) {
    throw new RedisConnectionError(`TLS files are given for Redis at ${where}, but TLS is off: use a rediss:// URL`);
  }
  const tls = target.tls === undefined ? undefined : readTls({ ...target.tls, ...definedOnly(options.tls ?? {}) }, where);
  const role = options.role ?? 'worker';
  const logger = (options.logger ?? silentLogger).child({ redis: where, role });
  const common = {
    connectionName: options.connectionName ?? `kubefed-${role}`,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    reconnectOnError: reconnectOnReadOnly,
    ...(tls === undefined ? {} : { tls }),
  } satisfies RedisOptions;
  const { connection, secrets } = openClient(target, { common, tls, role, lazyConnect: options.lazyConnect ?? false });
  const state: ConnectionFacts = { where, secrets, lastError: undefined };
  facts.set(connection, state);
  logErrors(connection, state, logger);
  return connection;
}

/** What the connections of every mode share. */
interface OpenSettings {
  /** Options of every server connection (name, timeouts, TLS). */
  readonly common: Pick<RedisOptions, 'connectionName' | 'connectTimeout' | 'maxRetriesPerRequest' | 'reconnectOnError' | 'tls'>;
  /** TLS options, also for the Sentinels. */
  readonly tls: RedisOptions['tls'] | undefined;
  readonly role: 'worker' | 'producer';
  readonly lazyConnect: boolean;
}

/** The ioredis client of `target` and the secrets its errors must never show. */
function openClient(target: RedisTarget, settings: OpenSettings): { connection: RedisConnection; secrets: string[] } {
  const { common, tls, role, lazyConnect } = settings;
  const retryStrategy = (times: number): number => reconnectDelayMs(times);
  switch (target.mode) {
    case 'standalone': {
      const connection = new Redis(target.url, { ...common, lazyConnect, retryStrategy });
      return { connection, secrets: secretsOf([connection.options.password]) };
    }
    case 'sentinel': {
      const connection = new Redis({
        ...common,
        lazyConnect,
        retryStrategy,
        sentinels: target.sentinels.map((s) => ({ ...s })),
        name: target.masterName,
        db: target.db,
        ...optional({
          username: target.username,
          password: target.password,
          sentinelUsername: target.sentinelUsername,
          sentinelPassword: target.sentinelPassword,
        }),
        // Learn of a failover from the sentinels at once, also when the old master stays up.
        failoverDetector: true,
        ...(tls === undefined ? {} : { enableTLSForSentinelMode: true, sentinelTLS: tls }),
      });
      return { connection, secrets: secretsOf([target.password, target.sentinelPassword]) };
    }
    case 'cluster': {
      const connection = new Cluster(
        target.nodes.map((n) => ({ ...n })),
        {
          lazyConnect,
          clusterRetryStrategy: retryStrategy,
          // A command to a master that is failing over is retried after a slot refresh. A worker's
          // commands wait across a failover, as on one server: about 60 s (Redis' default
          // cluster-node-timeout is 15 s); a producer's give up after ioredis' 16 × 100 ms.
          ...(role === 'worker' ? { retryDelayOnFailover: 200, retryDelayOnClusterDown: 200, maxRedirections: 300 } : {}),
          redisOptions: { ...common, ...optional({ username: target.username, password: target.password }) },
        },
      );
      return { connection, secrets: secretsOf([target.password]) };
    }
  }
}

/** Logs the first error of each streak (redacted) and the recovery after it. */
function logErrors(connection: RedisConnection, state: ConnectionFacts, logger: QueueLogger): void {
  const onError = (err: unknown): void => {
    const redacted = redactedRedisError(err, state.secrets);
    // ioredis repeats the same error on every reconnect attempt: log the first of a streak.
    if (state.lastError === undefined) logger.warn({ err: redacted }, 'redis connection error');
    state.lastError = redacted;
  };
  connection.on('error', onError);
  // A Cluster reports the errors of its node connections separately.
  if (isClusterConnection(connection)) connection.on('node error', onError);
  connection.on('ready', () => {
    if (state.lastError !== undefined) logger.info({}, 'redis connection restored');
    state.lastError = undefined;
  });
}

/** `values` without its undefined fields (`exactOptionalPropertyTypes`). */
function optional<T extends Record<string, string | undefined>>(values: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: string };
}

function definedOnly(files: RedisTlsFiles): RedisTlsFiles {
  return optional({ caFile: files.caFile, certFile: files.certFile, keyFile: files.keyFile });
}

/** ioredis' errors that only say a command gave up, not why the connection failed. */
function saysOnlyThatItGaveUp(err: unknown): boolean {
  const name = (err as { name?: unknown } | undefined)?.name;
  return name === 'MaxRetriesPerRequestError' || (err instanceof Error && err.message === 'Connection is closed.');
}

/**
 * Sends PING and waits at most `timeoutMs` for the answer: a start-up check with a clear error.
 *
 * @throws RedisConnectionError naming the (redacted) URL when Redis does not answer in time or
 *   refuses (e.g. WRONGPASS, an untrusted TLS certificate); its message and `cause` carry the
 *   Redis or connection error without the command's arguments.
 */
export async function pingRedis(connection: RedisConnection, timeoutMs = 5000): Promise<void> {
  const known = facts.get(connection);
  const where =
    known?.where ??
    (isClusterConnection(connection)
      ? 'a Redis Cluster'
      : redactRedisUrl(`redis://${connection.options.host ?? '127.0.0.1'}:${String(connection.options.port ?? 6379)}`));
  const lastError = (): string => (known?.lastError === undefined ? '' : ` (last connection error: ${known.lastError.message})`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new RedisConnectionError(`Redis at ${where} did not answer PING within ${timeoutMs}ms${lastError()}`, {
            cause: known?.lastError,
          }),
        ),
      timeoutMs,
    );
  });
  try {
    await Promise.race([connection.ping(), timeout]);
  } catch (err) {
    if (err instanceof RedisConnectionError) throw err;
    const cause =
      saysOnlyThatItGaveUp(err) && known?.lastError !== undefined ? known.lastError : redactedRedisError(err, known?.secrets ?? []);
    throw new RedisConnectionError(`Redis at ${where} did not answer PING: ${cause.message}`, { cause });
  } finally {
    clearTimeout(timer);
  }
}
