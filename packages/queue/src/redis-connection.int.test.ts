import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, type RedisHandle } from '@kubefed/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisConnectionError } from './queue-error.js';
import { createRedisConnection, pingRedis, type RedisConnection } from './redis-connection.js';

const handles: RedisHandle[] = [];
const connections: RedisConnection[] = [];

const servers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of connections.splice(0)) c.disconnect();
  await Promise.all([...handles.splice(0).map((h) => h.stop()), ...servers.splice(0).map((stop) => stop())]);
});

function open(url: string, role: 'worker' | 'producer'): RedisConnection {
  const c = createRedisConnection(url, { role });
  connections.push(c);
  return c;
}

describe('createRedisConnection', () => {
  it('connects and answers PING', async () => {
    const redis = await startRedis({ url: process.env.REDIS_URL });
    handles.push(redis);
    await expect(pingRedis(open(redis.url, 'producer'), 2000)).resolves.toBeUndefined();
  });

  it('fails PING with a clear error naming the server when nothing answers', async () => {
    const redis = await startRedis({ forcePrivate: true });
    const url = redis.url;
    await redis.stop();
    const ping = pingRedis(open(url, 'worker'), 300);
    await expect(ping).rejects.toBeInstanceOf(RedisConnectionError);
    await expect(ping).rejects.toThrow(/Redis at redis:\/\/127\.0\.0\.1:\d+\/? did not answer PING within 300ms/);
  });

  it('lets a worker connection carry on after Redis restarts', async () => {
    const redis = await startRedis({ forcePrivate: true });
    handles.push(redis);
    const worker = open(redis.url, 'worker');
    await worker.set('before', '1');
    await redis.restart();
    await expect(worker.set('after', '2')).resolves.toBe('OK');
    expect(await worker.get('after')).toBe('2');
  });
});

/** A private `redis-server` requiring `password`, configured through stdin so the password is not in its argv. */
async function startRedisWithPassword(password: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as net.AddressInfo).port;
  probe.close();
  await once(probe, 'close');
  const dir = await mkdtemp(join(tmpdir(), 'kubefed-redis-auth-'));
  const child = spawn('redis-server', ['-'], { cwd: dir, stdio: ['pipe', 'ignore', 'ignore'] });
  const exited = once(child, 'exit');
  child.stdin.end(`port ${port}\nbind 127.0.0.1\nsave ""\nappendonly no\ndir ${dir}\nrequirepass ${password}\n`);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  servers.push(stop);
  // Ready once it answers (NOAUTH) on a raw connection.
  await expect
    .poll(
      () =>
        new Promise<string>((resolve) => {
          const s = net.connect(port, '127.0.0.1', () => s.write('PING\r\n'));
          s.once('data', (d) => {
            s.destroy();
            resolve(d.toString());
          });
          s.once('error', () => resolve(''));
        }),
      { timeout: 10_000, interval: 50 },
    )
    .toMatch(/NOAUTH/);
  return { port, stop };
}

/** A pino logger (what the processes pass in) writing into memory. */
function memoryLogger(): { logger: ReturnType<typeof pino>; text: () => string } {
  const lines: string[] = [];
  return { logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }), text: () => lines.join('') };
}

describe('a Redis server that requires a password', () => {
  const secret = (): string => randomBytes(12).toString('hex');

  it.each([
    ['in the URL password', (pw: string, port: number) => `redis://:${pw}@127.0.0.1:${port}`],
    ['with a user name', (pw: string, port: number) => `redis://default:${pw}@127.0.0.1:${port}`],
    ['in a ?password= parameter', (pw: string, port: number) => `redis://127.0.0.1:${port}/0?password=${pw}`],
  ])('never logs a rejected password given %s, and still says why the login failed', async (_title, urlOf) => {
    const password = secret();
    const wrong = secret();
    const { port } = await startRedisWithPassword(password);
    const { logger, text } = memoryLogger();
    const connection = createRedisConnection(urlOf(wrong, port), { role: 'producer', logger });
    connections.push(connection);
    const err = await pingRedis(connection, 2000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisConnectionError);
    // A caller logs what it caught, once, where it handles it.
    logger.error({ err }, 'redis unreachable');
    await expect.poll(text, { timeout: 5000 }).toContain('redis connection error');
    const lines = text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; redis?: string; err: { type: string; message: string; command?: string } });
    expect(lines.find((l) => l.msg === 'redis connection error')).toMatchObject({
      redis: expect.stringContaining(`127.0.0.1:${port}`),
      err: { type: 'RedisConnectionError', message: expect.stringContaining('WRONGPASS') as string, command: 'hello' },
    });
    expect(lines.find((l) => l.msg === 'redis unreachable')?.err.message).toMatch(
      /^Redis at redis:\/\/(default)?(:\*\*\*@)?127\.0\.0\.1:\d+(\/0\?password=\*\*\*)? did not answer PING: WRONGPASS/,
    );
    expect(text()).not.toContain(wrong);
    expect(text()).not.toContain(password);
  });

  it.each([
    ['in the URL password', (pw: string, port: number) => `redis://:${pw}@127.0.0.1:${port}`],
    ['in a ?password= parameter', (pw: string, port: number) => `redis://127.0.0.1:${port}/0?password=${pw}`],
  ])('never logs the accepted password given %s, also when the server goes away', async (_title, urlOf) => {
    const password = secret();
    const redis = await startRedisWithPassword(password);
    const { logger, text } = memoryLogger();
    const connection = createRedisConnection(urlOf(password, redis.port), { role: 'producer', logger });
    connections.push(connection);
    await expect(pingRedis(connection, 2000)).resolves.toBeUndefined();
    await redis.stop();
    await expect.poll(text, { timeout: 5000 }).toContain('redis connection error');
    expect(text()).toContain(`127.0.0.1:${redis.port}`);
    expect(text()).not.toContain(password);
  });
});
