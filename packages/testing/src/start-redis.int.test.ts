import { createServer } from 'node:net';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { answersPing, RedisStartError, startRedis, type RedisHandle } from '@kubefed/testing';

/** A loopback URL where nothing listens (the port was free a moment ago). */
async function deadUrl(): Promise<string> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `redis://127.0.0.1:${address.port}`;
}

const handles: RedisHandle[] = [];
const clients: Redis[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  await Promise.all(handles.splice(0).map((h) => h.stop()));
});

function client(url: string): Redis {
  const c = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  c.on('error', () => undefined);
  clients.push(c);
  return c;
}

describe('startRedis', () => {
  it('starts a private redis-server when nothing answers at the URL and stops it on dispose', async () => {
    const url = await deadUrl();
    let privateUrl: string;
    {
      await using redis = await startRedis({ url });
      expect(redis.private).toBe(true);
      expect(redis.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      privateUrl = redis.url;
      expect(await client(redis.url).ping()).toBe('PONG');
    }
    expect(await answersPing(privateUrl, 500)).toBe(false);
  });

  it('uses the server at the URL when it answers PING and leaves it running on stop', async () => {
    const owner = await startRedis({ forcePrivate: true });
    handles.push(owner);
    const shared = await startRedis({ url: owner.url });
    expect(shared.private).toBe(false);
    expect(shared.url).toBe(owner.url);
    await shared.stop();
    expect(await answersPing(owner.url, 500)).toBe(true);
  });

  it('deletes the keys under its prefixes from a shared server on stop, and no others', async () => {
    const owner = await startRedis({ forcePrivate: true });
    handles.push(owner);
    const shared = await startRedis({ url: owner.url });
    const prefix = shared.prefix('queue');
    const c = client(owner.url);
    await c.set(`${prefix}:kubefed-sync.c1:meta`, 'x');
    await c.set(`${prefix}-other:key`, 'y');
    await c.set('unrelated', 'z');
    await shared.stop();
    expect(await c.exists(`${prefix}:kubefed-sync.c1:meta`)).toBe(0);
    expect(await c.exists(`${prefix}-other:key`, 'unrelated')).toBe(2);
  });

  it('restarts a private server on the same port without its data', async () => {
    const redis = await startRedis({ forcePrivate: true });
    handles.push(redis);
    const c = client(redis.url);
    await c.set('k', 'v');
    await redis.restart();
    expect(await answersPing(redis.url, 500)).toBe(true);
    const fresh = client(redis.url);
    expect(await fresh.get('k')).toBeNull();
  });

  it('refuses to restart a shared server', async () => {
    const owner = await startRedis({ forcePrivate: true });
    handles.push(owner);
    const shared = await startRedis({ url: owner.url });
    await expect(shared.restart()).rejects.toThrow(/forcePrivate/);
  });

  it('says to install redis-server or set REDIS_URL when the executable is missing', async () => {
    const url = await deadUrl();
    const started = startRedis({ url, redisServerPath: '/nonexistent/redis-server' });
    await expect(started).rejects.toBeInstanceOf(RedisStartError);
    await expect(started).rejects.toThrow(/install redis-server.*or set REDIS_URL/);
  });

  it('hands out a different prefix on every call, without colons', async () => {
    const redis = await startRedis({ forcePrivate: true });
    handles.push(redis);
    const prefixes = Array.from({ length: 50 }, () => redis.prefix('queue'));
    expect(new Set(prefixes).size).toBe(50);
    for (const p of prefixes) expect(p).toMatch(/^kf-queue-[0-9a-f]{8}$/);
  });
});
