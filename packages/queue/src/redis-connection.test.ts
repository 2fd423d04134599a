import { describe, expect, it } from 'vitest';
import { Cluster, Redis } from 'ioredis';
import { bullPrefix, createRedisConnection, isWorkerConnection, reconnectDelayMs, syncQueueBullPrefix } from './redis-connection.js';
import { RedisConnectionError } from './queue-error.js';

describe('reconnectDelayMs', () => {
  it.each([
    [1, 0, 100],
    [2, 0, 200],
    [5, 0, 1600],
    [7, 0, 5000],
    [50, 0, 5000],
    [1, 1, 120],
    [50, 1, 6000],
  ])('waits for attempt %i with random %d: %i ms', (times, random, ms) => {
    expect(reconnectDelayMs(times, () => random)).toBe(ms);
  });
});

describe('createRedisConnection', () => {
  it.each([
    ['http://127.0.0.1:6379', /has scheme http: must start with redis:\/\/, rediss:\/\/, redis\+sentinel:\/\//],
    ['not a url', /is not a URL/],
    ['redis://127.0.0.1:6379/?tlsCaFile=/ca.pem', /TLS is off: use rediss:\/\//],
  ])('rejects %j with a clear error', (url, message) => {
    expect(() => createRedisConnection(url, { lazyConnect: true })).toThrow(RedisConnectionError);
    expect(() => createRedisConnection(url, { lazyConnect: true })).toThrow(message);
  });

  it('keeps the password out of the error message', () => {
    expect(() => createRedisConnection('http://:hunter2@127.0.0.1', { lazyConnect: true })).toThrow(/:\*\*\*@/);
    expect(() => createRedisConnection('http://:hunter2@127.0.0.1', { lazyConnect: true })).not.toThrow(/hunter2/);
  });

  it('lets worker commands wait across reconnects and producer commands fail fast', () => {
    const worker = createRedisConnection('redis://127.0.0.1:1', { lazyConnect: true });
    const producer = createRedisConnection('redis://127.0.0.1:1', { lazyConnect: true, role: 'producer' });
    try {
      expect([isWorkerConnection(worker), isWorkerConnection(producer)]).toEqual([true, false]);
      expect(producer).toBeInstanceOf(Redis);
      expect((producer as Redis).options.connectionName).toBe('kubefed-producer');
    } finally {
      worker.disconnect();
      producer.disconnect();
    }
  });
});

describe('createRedisConnection with other URL forms', () => {
  it('finds the master through the sentinels of a redis+sentinel:// URL', () => {
    const c = createRedisConnection('redis+sentinel://kubefed:pw@s1:26379,s2/mymaster/2?sentinelPassword=spw', { lazyConnect: true });
    try {
      expect(c).toBeInstanceOf(Redis);
      expect((c as Redis).options).toMatchObject({
        sentinels: [
          { host: 's1', port: 26379 },
          { host: 's2', port: 26379 },
        ],
        name: 'mymaster',
        db: 2,
        username: 'kubefed',
        password: 'pw',
        sentinelPassword: 'spw',
        maxRetriesPerRequest: null,
      });
    } finally {
      c.disconnect();
    }
  });

  it('opens a Cluster for a redis+cluster:// URL, and hash-tags the BullMQ prefixes there only (a tag per member queue)', () => {
    const cluster = createRedisConnection('redis+cluster://:pw@n1:7000,n2:7001', { lazyConnect: true, role: 'producer' });
    const single = createRedisConnection('redis://127.0.0.1:1', { lazyConnect: true });
    try {
      expect(cluster).toBeInstanceOf(Cluster);
      expect((cluster as Cluster).options.redisOptions).toMatchObject({
        password: 'pw',
        maxRetriesPerRequest: 1,
        connectionName: 'kubefed-producer',
      });
      expect(isWorkerConnection(cluster)).toBe(false);
      expect((cluster as Cluster).options.maxRedirections).toBe(16);
      expect([bullPrefix(cluster, 'kubefed-abc'), bullPrefix(cluster, undefined), bullPrefix(cluster, 'x{tag}y')]).toEqual([
        '{kubefed-abc}',
        '{bull}',
        'x{tag}y',
      ]);
      expect([bullPrefix(single, 'kubefed-abc'), bullPrefix(single, undefined)]).toEqual(['kubefed-abc', undefined]);
      // Each member queue gets a hash tag of its own on a Cluster; a prefix with a tag keeps them all in its slot.
      expect([
        syncQueueBullPrefix(cluster, 'kubefed-abc', 'member1'),
        syncQueueBullPrefix(cluster, undefined, 'eu.west'),
        syncQueueBullPrefix(cluster, 'x{tag}y', 'member1'),
      ]).toEqual(['{kubefed-abc:member1}', '{bull:eu.west}', 'x{tag}y']);
      expect([syncQueueBullPrefix(single, 'kubefed-abc', 'member1'), syncQueueBullPrefix(single, undefined, 'member1')]).toEqual([
        'kubefed-abc',
        undefined,
      ]);
    } finally {
      cluster.disconnect();
      single.disconnect();
    }
  });

  it('lets the commands of a worker Cluster connection wait across a failover', () => {
    const worker = createRedisConnection('redis+cluster://n1:7000', { lazyConnect: true });
    try {
      expect(isWorkerConnection(worker)).toBe(true);
      expect((worker as Cluster).options).toMatchObject({ retryDelayOnFailover: 200, maxRedirections: 300 });
    } finally {
      worker.disconnect();
    }
  });

  it('names the TLS file it cannot read, without the password', () => {
    const open = (): unknown =>
      createRedisConnection('rediss://:hunter2@127.0.0.1:6380/?tlsCaFile=/nonexistent/ca.pem', { lazyConnect: true });
    expect(open).toThrow(RedisConnectionError);
    expect(open).toThrow(
      /cannot read the TLS CA file \/nonexistent\/ca\.pem for Redis at rediss:\/\/:\*\*\*@127\.0\.0\.1:6380\/\?tlsCaFile=\/nonexistent\/ca\.pem: ENOENT/,
    );
  });

  it('refuses TLS files for a URL without TLS', () => {
    expect(() => createRedisConnection('redis://127.0.0.1:6379', { lazyConnect: true, tls: { caFile: '/ca.pem' } })).toThrow(
      /TLS is off: use a rediss:\/\/ URL/,
    );
  });
});
