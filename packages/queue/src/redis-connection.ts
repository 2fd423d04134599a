import { Redis } from 'ioredis';
import { silentLogger, type QueueLogger } from './logger.js';
import { RedisConnectionError } from './queue-error.js';

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
  /** Where connection errors and reconnects are logged (warn / info). Default silent. */
  logger?: QueueLogger;
}

/** The opaque Redis connection handed to {@link BullMqJobProducer} and {@link SyncWorkerHost}. */
export type RedisConnection = Redis;

/**
 * Delay before reconnect attempt `times` (1-based): 100 ms doubling up to 5 s, plus up to
 * 20 % jitter from `random` so that many processes do not reconnect in lockstep.
 */
export function reconnectDelayMs(times: number, random: () => number = Math.random): number {
  const base = Math.min(100 * 2 ** Math.max(0, times - 1), 5000);
  return Math.round(base * (1 + 0.2 * random()));
}

/** Query parameters of a Redis URL that hold secrets (ioredis reads every parameter as an option: `?password=`, `?sentinelPassword=`). */
const SECRET_PARAM = /pass|secret|token/i;

/** `redis://user:***@host:port/db?password=***`: the URL without its passwords, for messages and logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    for (const key of new Set(parsed.searchParams.keys())) if (SECRET_PARAM.test(key)) parsed.searchParams.set(key, '***');
    return parsed.toString();
  } catch {
    return '<unparsable Redis URL>';
  }
}

/** The passwords a connection logs in with, as given and percent-encoded, longest first. */
function secretsOf(connection: RedisConnection): string[] {
  const secrets = new Set<string>();
  for (const value of [connection.options.password, connection.options.sentinelPassword]) {
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

/**
 * Opens an ioredis connection to `url` (`redis://` or `rediss://`) that reconnects forever with
 * {@link reconnectDelayMs} and logs connection errors instead of printing them, without the
 * password (neither from the URL nor from the failed `AUTH` / `HELLO` command ioredis attaches).
 *
 * @throws RedisConnectionError when the URL is not a redis:// or rediss:// URL.
 */
export function createRedisConnection(url: string, options: RedisConnectionOptions = {}): RedisConnection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw new RedisConnectionError(`Redis URL ${JSON.stringify(redactRedisUrl(url))} is not a URL`, { cause: err });
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new RedisConnectionError(
      `Redis URL ${redactRedisUrl(url)} has protocol ${parsed.protocol}: must start with redis:// or rediss://`,
    );
  }
  const role = options.role ?? 'worker';
  const logger = (options.logger ?? silentLogger).child({ redis: redactRedisUrl(url), role });
  const connection = new Redis(url, {
    connectionName: options.connectionName ?? `kubefed-${role}`,
    lazyConnect: options.lazyConnect ?? false,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    retryStrategy: (times) => reconnectDelayMs(times),
  });
  const secrets = secretsOf(connection);
  let failing = false;
  connection.on('error', (err: Error) => {
    // ioredis repeats the same error on every reconnect attempt: log the first of a streak.
    if (!failing) logger.warn({ err: redactedRedisError(err, secrets) }, 'redis connection error');
    failing = true;
  });
  connection.on('ready', () => {
    if (failing) logger.info({}, 'redis connection restored');
    failing = false;
  });
  return connection;
}

/**
 * Sends PING and waits at most `timeoutMs` for the answer: a start-up check with a clear error.
 *
 * @throws RedisConnectionError naming the (redacted) URL when Redis does not answer in time or
 *   refuses (e.g. WRONGPASS); its `cause` is the Redis error without the command's arguments.
 */
export async function pingRedis(connection: RedisConnection, timeoutMs = 5000): Promise<void> {
  const where = redactRedisUrl(
    `redis://${connection.options.host ?? '127.0.0.1'}:${String(connection.options.port ?? 6379)}`,
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RedisConnectionError(`Redis at ${where} did not answer PING within ${timeoutMs}ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([connection.ping(), timeout]);
  } catch (err) {
    if (err instanceof RedisConnectionError) throw err;
    const cause = redactedRedisError(err, secretsOf(connection));
    throw new RedisConnectionError(`Redis at ${where} did not answer PING: ${cause.message}`, { cause });
  } finally {
    clearTimeout(timer);
  }
}
