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
