import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { RedisStartError } from './testing-error.js';
import { uniqueName } from './unique-name.js';

/** The default Redis URL when neither the option nor `REDIS_URL` is set. */
export const defaultRedisUrl = 'redis://127.0.0.1:6379';

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /**
   * Use the server at this URL when it answers PING. Default: `process.env.REDIS_URL`, else
   * {@link defaultRedisUrl}. An explicit `undefined` means the default too, so callers can pass
   * `process.env.REDIS_URL` straight through.
   */
  url?: string | undefined;
  /** Always start a private `redis-server`, even when `url` answers. Default false. */
  forcePrivate?: boolean;
  /** The `redis-server` executable. Default `redis-server` (looked up on PATH). */
  redisServerPath?: string;
  /** How long to wait for a PING answer (probe of `url`, and start of a private server). Default 10_000 ms for starting, 1000 ms for the probe. */
  startTimeoutMs?: number;
}

/** A Redis server for one test file (or one test). */
export interface RedisHandle extends AsyncDisposable {
  /** `redis://host:port`, for ioredis / `createRedisConnection`. */
  readonly url: string;
  /** True when this call started its own `redis-server` (stopped by `stop()`). */
  readonly private: boolean;
  /**
   * A key prefix unique per call (`<name>-<random>`; no `:`), so tests sharing one server never
   * collide: pass it as BullMQ's `prefix`.
   */
  prefix(name?: string): string;
  /**
   * Kills a private server and starts it again on the same port (the data is gone: it runs
   * without persistence), for "Redis restarted mid-propagation" tests.
   *
   * @throws RedisStartError for a shared server (start with `forcePrivate: true`) or when the
   *   server does not come back.
   */
  restart(): Promise<void>;
  /**
   * Stops a private server and removes its directory. For a shared server, deletes the keys
   * under every prefix this handle handed out (`<prefix>:*`) and leaves the server running.
   * Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * Finds a Redis server for tests: the one at `url` (default `REDIS_URL`, else
 * `redis://127.0.0.1:6379`) when it answers PING, otherwise a private `redis-server` on a free
 * 127.0.0.1 port with persistence off, in a temporary directory, stopped on dispose.
 *
 * @throws RedisStartError when no server answers and `redis-server` is not installed (the
 *   message says to install `redis-server` or set `REDIS_URL`), exits early, or never answers.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisHandle> {
  const url = options.url ?? process.env.REDIS_URL ?? defaultRedisUrl;
  if (options.forcePrivate !== true && (await answersPing(url, 1000))) return sharedHandle(url);
  return startPrivate(options.redisServerPath ?? 'redis-server', options.startTimeoutMs ?? 10_000);
}

function makePrefix(name = 'test'): string {
  return uniqueName(`kf-${name}`);
}

/** Deletes every key under `<prefix>:` for each prefix (SCAN + UNLINK), leaving other keys alone. */
async function deletePrefixedKeys(url: string, prefixes: readonly string[]): Promise<void> {
  if (prefixes.length === 0) return;
  const client = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    for (const prefix of prefixes) {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        if (keys.length > 0) await client.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    client.disconnect();
  }
}

function sharedHandle(url: string): RedisHandle {
  const issued: string[] = [];
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopped ??= deletePrefixedKeys(url, issued));
  return {
    url,
    private: false,
    prefix(name) {
      const prefix = makePrefix(name);
      issued.push(prefix);
      return prefix;
    },
    restart: () =>
      Promise.reject(
        new RedisStartError(`cannot restart the shared Redis at ${url}: start with forcePrivate: true to get a private server`),
      ),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** True when a Redis server at `url` answers PING within `timeoutMs`. Never throws. */
export async function answersPing(url: string, timeoutMs: number): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new RedisStartError('could not find a free loopback port');
  return address.port;
}

interface RunningServer {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

async function launch(executable: string, port: number, dir: string, timeoutMs: number): Promise<RunningServer> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = spawn(executable, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exitInfo: string | undefined;
  let spawnError: NodeJS.ErrnoException | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      spawnError = err;
      exitInfo = err.message;
      resolve();
    });
    child.once('exit', (code, signal) => {
      exitInfo = `exited with ${signal ?? `code ${String(code)}`}`;
      resolve();
    });
  });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (spawnError?.code === 'ENOENT') {
      throw new RedisStartError(
        `no Redis answered and "${executable}" is not installed: install redis-server (e.g. apt-get install redis-server), or set REDIS_URL to a running server`,
        { cause: spawnError },
      );
    }
    if (exitInfo !== undefined) {
      throw new RedisStartError(`redis-server on port ${port} ${exitInfo} before answering: ${output.trim()}`, {
        cause: spawnError,
      });
    }
    if (await answersPing(url, 500)) return { child, exited };
    await sleep(25);
  }
  child.kill('SIGKILL');
  await exited;
  throw new RedisStartError(`redis-server on port ${port} did not answer PING within ${timeoutMs}ms: ${output.trim()}`);
}

async function terminate(server: RunningServer): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000);
  await server.exited;
  clearTimeout(timer);
}

async function startPrivate(executable: string, timeoutMs: number): Promise<RedisHandle> {
  const dir = await mkdtemp(join(tmpdir(), 'kubefed-redis-'));
  let port = 0;
  let server: RunningServer | undefined;
  // Another process may take the free port between probing and binding: try a few ports.
  for (let attempt = 1; server === undefined; attempt++) {
    port = await freePort();
    try {
      server = await launch(executable, port, dir, timeoutMs);
    } catch (err) {
      const enoent = err instanceof RedisStartError && err.message.includes('is not installed');
      if (enoent || attempt >= 3) {
        await rm(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const killOnExit = (): void => {
    server?.child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (server !== undefined) await terminate(server);
      process.removeListener('exit', killOnExit);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    private: true,
    prefix: makePrefix,
    async restart() {
      if (stopped !== undefined) throw new RedisStartError(`cannot restart the private Redis on port ${port}: it was stopped`);
      if (server !== undefined) await terminate(server);
      server = undefined;
      server = await launch(executable, port, dir, timeoutMs);
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
