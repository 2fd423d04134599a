import { describe, expect, it } from 'vitest';
import { createRedisConnection, reconnectDelayMs, redactRedisUrl } from './redis-connection.js';
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

describe('redactRedisUrl', () => {
  it.each([
    ['redis://:secret@127.0.0.1:6379/0', 'redis://:***@127.0.0.1:6379/0'],
    ['redis://user:secret@host:6380', 'redis://user:***@host:6380'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['redis://127.0.0.1:6379/0?password=secret&db=1', 'redis://127.0.0.1:6379/0?password=***&db=1'],
    ['rediss://u:secret@h:6380/?sentinelPassword=secret', 'rediss://u:***@h:6380/?sentinelPassword=***'],
    ['::nonsense', '<unparsable Redis URL>'],
  ])('redacts %j', (url, redacted) => {
    expect(redactRedisUrl(url)).toBe(redacted);
  });
});

describe('createRedisConnection', () => {
  it.each([
    ['http://127.0.0.1:6379', /must start with redis:\/\/ or rediss:\/\//],
    ['not a url', /is not a URL/],
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
      expect(worker.options.maxRetriesPerRequest).toBeNull();
      expect(producer.options.maxRetriesPerRequest).toBe(1);
      expect(producer.options.connectionName).toBe('kubefed-producer');
    } finally {
      worker.disconnect();
      producer.disconnect();
    }
  });
});
