import { describe, expect, it } from 'vitest';
import { RedisConnectionError } from './queue-error.js';
import { parseRedisUrl, redactRedisUrl } from './redis-url.js';

describe('redactRedisUrl', () => {
  it.each([
    ['redis://:secret@127.0.0.1:6379/0', 'redis://:***@127.0.0.1:6379/0'],
    ['redis://user:secret@host:6380', 'redis://user:***@host:6380'],
    ['redis://user@host:6380', 'redis://user@host:6380'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['redis://127.0.0.1:6379/0?password=secret&db=1', 'redis://127.0.0.1:6379/0?password=***&db=1'],
    ['rediss://u:secret@h:6380/?sentinelPassword=secret', 'rediss://u:***@h:6380/?sentinelPassword=***'],
    ['rediss://u:p%40ss@h:6380/?tlsCaFile=/etc/redis/ca.pem', 'rediss://u:***@h:6380/?tlsCaFile=/etc/redis/ca.pem'],
    [
      'redis+sentinel://:secret@s1:26379,s2:26379/mymaster?sentinelPassword=s2',
      'redis+sentinel://:***@s1:26379,s2:26379/mymaster?sentinelPassword=***',
    ],
    ['redis+cluster://u:a@b@n1:7000,[::1]:7001', 'redis+cluster://u:***@n1:7000,[::1]:7001'],
    ['::nonsense', '<unparsable Redis URL>'],
  ])('redacts %j', (url, redacted) => {
    expect(redactRedisUrl(url)).toBe(redacted);
  });
});

describe('parseRedisUrl', () => {
  it.each([
    ['redis://:pw@cache:6379/2', { mode: 'standalone', tls: undefined, url: 'redis://:pw@cache:6379/2' }],
    ['rediss://cache', { mode: 'standalone', tls: {}, url: 'rediss://cache' }],
    [
      'rediss://cache:6380/?tlsCaFile=/ca.pem&password=pw&tlsCertFile=/c.pem&tlsKeyFile=/k.pem',
      { mode: 'standalone', tls: { caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/k.pem' }, url: 'rediss://:pw@cache:6380/' },
    ],
    // ioredis would ignore ?password= next to a user name.
    [
      'redis://kubefed@cache/0?password=p%2Fw%40&db=1',
      { mode: 'standalone', tls: undefined, url: 'redis://kubefed:p%2Fw%40@cache/0?db=1' },
    ],
    [
      'redis+sentinel://s1,s2:26380,[::1]/mymaster',
      {
        mode: 'sentinel',
        tls: undefined,
        sentinels: [
          { host: 's1', port: 26379 },
          { host: 's2', port: 26380 },
          { host: '::1', port: 26379 },
        ],
        masterName: 'mymaster',
        db: 0,
        username: undefined,
        password: undefined,
        sentinelUsername: undefined,
        sentinelPassword: undefined,
      },
    ],
    [
      'rediss+sentinel://kubefed:p%40ss@s1:26379/my%20master/3?sentinelUsername=sen&sentinelPassword=spw&tlsCaFile=/ca.pem',
      {
        mode: 'sentinel',
        tls: { caFile: '/ca.pem' },
        sentinels: [{ host: 's1', port: 26379 }],
        masterName: 'my master',
        db: 3,
        username: 'kubefed',
        password: 'p@ss',
        sentinelUsername: 'sen',
        sentinelPassword: 'spw',
      },
    ],
    [
      'redis+cluster://n1:7000,n2:7001?password=pw',
      {
        mode: 'cluster',
        tls: undefined,
        nodes: [
          { host: 'n1', port: 7000 },
          { host: 'n2', port: 7001 },
        ],
        username: undefined,
        password: 'pw',
      },
    ],
    ['rediss+cluster://u:pw@n1/', { mode: 'cluster', tls: {}, nodes: [{ host: 'n1', port: 6379 }], username: 'u', password: 'pw' }],
  ])('parses %s', (url, target) => {
    expect(parseRedisUrl(url)).toEqual(target);
  });

  it.each([
    ['http://:secret@cache', /^Redis URL http:\/\/:\*\*\*@cache has scheme http: must start with redis:\/\//],
    ['cache:6379', /is not a URL/],
    ['redis://a:1,b:2', /several hosts need redis\+sentinel:\/\/ or redis\+cluster:\/\//],
    ['redis://:secret@', /has no host/],
    ['redis+sentinel://s1:26379', /must name the master after the sentinels/],
    ['redis+sentinel://s1:26379/m/x', /has database "x": must be a number/],
    ['redis+sentinel://s1:99999/m', /has "s1:99999" where host\[:port\] is expected/],
    ['redis+sentinel://s1/m?family=6', /has unknown parameter \?family=/],
    ['redis+cluster://n1/1', /a Redis Cluster has only database 0/],
    ['redis+cluster://', /names no host/],
    ['redis+cluster://n1?tlsCaFile=/ca.pem', /TLS is off: use rediss\+cluster:\/\//],
    ['rediss://cache?tlsCertFile=/c.pem', /a client certificate needs both/],
    ['rediss://cache?tlsCaFile=', /empty \?tlsCaFile=/],
  ])('refuses %s with a clear message', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(RedisConnectionError);
    expect(() => parseRedisUrl(url)).toThrow(message);
    expect(() => parseRedisUrl(url)).not.toThrow(/secret/);
  });
});
