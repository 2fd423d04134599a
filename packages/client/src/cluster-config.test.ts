import type { KubeFedCluster } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './api-error.js';
import { connectionFromKubeFedCluster, parseApiEndpoint, tlsValidationSettings } from './cluster-config.js';
import { DynamicClient } from './dynamic-client.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('parseApiEndpoint', () => {
  it.each([
    ['example.com', 'https://example.com'],
    ['example.com:6443', 'https://example.com:6443'],
    ['10.0.0.1', 'https://10.0.0.1'],
    ['10.0.0.1:6443', 'https://10.0.0.1:6443'],
    ['[::1]:6443', 'https://[::1]:6443'],
    ['localhost:6443', 'https://localhost:6443'],
    ['http://example.com:8080', 'http://example.com:8080'],
    ['https://example.com/', 'https://example.com'],
    ['https://example.com/k8s/clusters/c1', 'https://example.com/k8s/clusters/c1'],
    [' https://example.com:443 ', 'https://example.com'],
  ])('accepts %j as %s', (input, expected) => {
    expect(parseApiEndpoint(input)).toBe(expected);
  });

  it.each([
    ['', 'Required value'],
    ['example.com/path', 'host must be a URL or a host:port pair'],
    ['example.com:6443/api', 'host must be a URL or a host:port pair'],
    ['ftp://example.com', 'scheme must be http or https'],
    ['example.com:99999', 'invalid port 99999'],
    ['example.com:0', 'invalid port 0'],
    ['https://', 'host must be a URL or a host:port pair'],
    ['https://example.com?x=1', 'must not contain a query'],
  ])('rejects %j with %s', (input, message) => {
    expect(() => parseApiEndpoint(input)).toThrow(ConfigError);
    expect(() => parseApiEndpoint(input)).toThrow(message);
  });
});

describe('tlsValidationSettings', () => {
  it.each<[string[] | undefined, object]>([
    [undefined, {}],
    [[], {}],
    [['*'], { insecureSkipVerify: true }],
    [['SubjectName'], { skipSubjectName: true }],
    [['ValidityPeriod', 'SubjectName'], { skipSubjectName: true, skipValidityPeriod: true }],
  ])('maps %j to %j', (input, expected) => {
    expect(tlsValidationSettings(input)).toEqual(expected);
  });

  it.each([
    [['*', 'SubjectName'], 'expected to be the only option'],
    [['Everything'], 'unsupported value'],
  ])('rejects %j', (input, message) => {
    expect(() => tlsValidationSettings(input)).toThrow(message);
  });
});

describe('connectionFromKubeFedCluster', () => {
  const cluster = (spec: object) => ({
    metadata: { name: 'member1', namespace: 'kube-federation-system' },
    spec: { apiEndpoint: 'member1.example:6443', secretRef: { name: 'member1-x' }, ...spec },
  });

  it('uses the secret token as bearer and the CA bundle with verification on', async () => {
    const conn = connectionFromKubeFedCluster(cluster({ caBundle: b64('PEM') }), { data: { token: b64('tok') } });
    expect(conn.name).toBe('member1');
    expect(conn.server).toBe('https://member1.example:6443');
    expect(conn.tls).toEqual({ ca: Buffer.from('PEM') });
    expect(await conn.authHeaders()).toEqual({ Authorization: 'Bearer tok' });
    expect(conn.proxyUrl).toBeUndefined();
  });

  it.each<[string, object, object, string]>([
    ['a missing token', {}, { data: {} }, 'The secret for cluster member1 is missing a non-empty value for "token"'],
    ['an empty token', {}, { data: { token: '' } }, 'missing a non-empty value for "token"'],
    ['an empty endpoint', { apiEndpoint: '' }, { data: { token: b64('t') } }, 'The api endpoint of cluster member1 is empty'],
    ['a bad endpoint', { apiEndpoint: 'h/x' }, { data: { token: b64('t') } }, 'KubeFedCluster "member1": spec.apiEndpoint: host must be'],
    [
      'a bad proxy scheme',
      { proxyURL: 'ftp://p' },
      { data: { token: b64('t') } },
      'proxy URL scheme must be one of: [http, https, socks5]',
    ],
    ['a socks5 proxy', { proxyURL: 'socks5://p:1080' }, { data: { token: b64('t') } }, 'socks5 proxies are not supported'],
    [
      'an endpoint with a query, without its password',
      { apiEndpoint: 'https://u:hunter2@m1:6443/?x=1' },
      { data: { token: b64('t') } },
      'must not contain a query or fragment: "https://u:***@m1:6443/?x=1"',
    ],
    ['a malformed CA bundle', { caBundle: '%%%' }, { data: { token: b64('t') } }, 'spec.caBundle is not valid base64'],
  ])('refuses %s', (_t, spec, secret, message) => {
    expect(() => connectionFromKubeFedCluster(cluster(spec), secret)).toThrow(message);
  });

  it('skips verification only when disabledTLSValidations says so', () => {
    const conn = connectionFromKubeFedCluster(cluster({ disabledTLSValidations: ['*'], proxyURL: 'http://proxy:3128' }), {
      data: { token: b64('t') },
    });
    expect(conn.tls).toEqual({ insecureSkipVerify: true });
    expect(conn.proxyUrl).toBe('http://proxy:3128');
  });
});

describe('connectionFromKubeFedCluster with the @kubefed/api type', () => {
  it('accepts a KubeFedCluster as parsed by @kubefed/api', () => {
    const cluster: KubeFedCluster = {
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'KubeFedCluster',
      metadata: { name: 'm2', namespace: 'kube-federation-system' },
      spec: { apiEndpoint: 'https://m2.example', secretRef: { name: 'm2' }, disabledTLSValidations: ['SubjectName'], proxyURL: '' },
    };
    const conn = connectionFromKubeFedCluster(cluster, { data: { token: b64('t') } });
    expect([conn.server, conn.tls, conn.proxyUrl]).toEqual(['https://m2.example', { skipSubjectName: true }, undefined]);
  });
});

describe('member client from a KubeFedCluster with a malformed proxy URL', () => {
  it('names the proxy without its password', () => {
    const create = (): unknown =>
      DynamicClient.fromKubeFedCluster(
        {
          metadata: { name: 'm1' },
          spec: { apiEndpoint: 'https://m1:6443', secretRef: { name: 'm1' }, proxyURL: 'http://user:hunter2@proxy:99999' },
        },
        { data: { token: b64('t') } },
      );
    expect(create).toThrow(ConfigError);
    expect(create).toThrow('proxy URL "http://user:***@proxy:99999" is not a valid URL');
    expect(create).not.toThrow(/hunter2/);
  });
});
