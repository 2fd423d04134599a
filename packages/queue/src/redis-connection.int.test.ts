import { startRedis, type RedisHandle } from '@kubefed/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisConnectionError } from './queue-error.js';
import { createRedisConnection, pingRedis, type RedisConnection } from './redis-connection.js';

const handles: RedisHandle[] = [];
const connections: RedisConnection[] = [];

afterEach(async () => {
  for (const c of connections.splice(0)) c.disconnect();
  await Promise.all(handles.splice(0).map((h) => h.stop()));
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
