import { describe, expect, it } from 'vitest';
import { redactCredentials } from './redact-credentials.js';

describe('redactCredentials', () => {
  it.each([
    ['redis://:pw@127.0.0.1:6379/0', 'redis://:***@127.0.0.1:6379/0'],
    ['rediss://kubefed:pw@redis:6380', 'rediss://kubefed:***@redis:6380'],
    ['http://user:p@ss:w0rd@proxy:3128/', 'http://user:***@proxy:3128/'],
    ['https://u:pw@[::1]:6443', 'https://u:***@[::1]:6443'],
    ['redis://redis:6379/0?db=1&password=pw&x=2', 'redis://redis:6379/0?db=1&password=***&x=2'],
    ['redis://redis:6379/?sentinelPassword=pw', 'redis://redis:6379/?sentinelPassword=***'],
    ['https://h/cb?access_token=abc#top', 'https://h/cb?access_token=***#top'],
    ['proxy "http://a:pw@p:1" and "https://b:pw@q:2" failed', 'proxy "http://a:***@p:1" and "https://b:***@q:2" failed'],
    ['{"url":"http://u:p\\"w@h","x":"y"}', '{"url":"http://u:***@h","x":"y"}'],
    ['sent Proxy-Authorization: Basic dTpwdw==', 'sent Proxy-Authorization: [Redacted]'],
    ['{"authorization":"Bearer abc.def"}', '{"authorization":"[Redacted]"}'],
    ['path /data/a.b.redis://u:pw@h', 'path /data/a.b.redis://u:***@h'],
    ['x_http://u:pw@h and ?a=x?token=t&b', 'x_http://u:***@h and ?a=x?token=***&b'],
  ])('masks %s', (text, redacted) => {
    expect(redactCredentials(text)).toBe(redacted);
  });

  it.each([
    'https://api.example.com:6443/apis',
    'https://token-name@github.com/x',
    '{"a":"redis://redis:6379","b":"user@example.com"}',
    'http://[::1]:8080/?continue=abc&limit=500',
    'authorizationMode: Webhook',
  ])('leaves %s alone', (text) => {
    expect(redactCredentials(text)).toBe(text);
  });
});

describe('redactCredentials on hostile text', () => {
  // Each of these made a pattern that restarts inside a run rescan the rest of it: 64,000
  // characters of `a.` took 10 s. Linear work takes a few milliseconds per megabyte; the bound
  // below is far above that and far below what a quadratic scan needs for one megabyte (minutes).
  it.each([
    ['a run of scheme characters', 'a.'.repeat(500_000)],
    ['schemes without a password', 'a://'.repeat(250_000)],
    ['user parts that never end', 'x://u:'.repeat(170_000)],
    ['a query parameter name full of secret words', `?${'passtoken'.repeat(110_000)}`],
    ['escapes in a password', `x://u:${'\\a'.repeat(330_000)}`],
    ['authorization without a value', 'authorization '.repeat(75_000)],
  ])('takes linear time on %s (1 MB)', (_what, text) => {
    const start = performance.now();
    expect(redactCredentials(text)).toBe(text);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
