import { ApiError, ConfigError, type RequestDescription } from '@kubefed/client';
import { capturedLogger, FakeClock } from '@kubefed/runtime/testing';
import { describe, expect, it } from 'vitest';
import { HostStartupError, isTransientStartupError, permanentStartupMessage, StartupRetry } from './startup-retry.js';

const GET_KUBE_SYSTEM: RequestDescription = { verb: 'get', resource: 'namespaces', name: 'kube-system', cluster: 'host' };
const CREATE_KUBEFED_CONFIG: RequestDescription = {
  verb: 'create',
  resource: 'kubefedconfigs.core.kubefed.io',
  namespace: 'kube-federation-system',
  cluster: 'host',
};

const response = (code: number, reason: string, message: string, request = GET_KUBE_SYSTEM): ApiError =>
  ApiError.fromResponse({ code, body: JSON.stringify({ kind: 'Status', code, reason, message }), request });
const network = (code: string, message: string): ApiError =>
  ApiError.fromNetworkError(Object.assign(new Error(message), { code }), GET_KUBE_SYSTEM);

const FORBIDDEN = response(
  403,
  'Forbidden',
  'namespaces "kube-system" is forbidden: User "system:serviceaccount:kube-federation-system:cm" cannot get resource "namespaces" in API group "" at the cluster scope',
);

describe('isTransientStartupError', () => {
  it.each<[string, unknown, boolean]>([
    ['connection refused', network('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443'), true],
    ['connection reset', network('ECONNRESET', 'read ECONNRESET'), true],
    [
      'a TLS handshake cut short',
      network('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'),
      true,
    ],
    ['a DNS name not found (yet)', network('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example'), true],
    ['a request timeout (a TLS handshake that never completes)', ApiError.timeout(30_000, GET_KUBE_SYSTEM), true],
    ['500', response(500, 'InternalError', 'etcd not ready'), true],
    ['502 from a load balancer', ApiError.fromResponse({ code: 502, body: 'Bad Gateway', request: GET_KUBE_SYSTEM }), true],
    ['503', response(503, 'ServiceUnavailable', 'starting'), true],
    ['504', response(504, 'Timeout', 'timeout'), true],
    ['429', response(429, 'TooManyRequests', 'slow down'), true],
    ['408', ApiError.fromResponse({ code: 408, body: '', request: GET_KUBE_SYSTEM }), true],
    ['401', response(401, 'Unauthorized', 'Unauthorized'), false],
    ['403', FORBIDDEN, false],
    ['404 of a missing CRD', response(404, 'NotFound', 'the server could not find the requested resource', CREATE_KUBEFED_CONFIG), false],
    ['400', response(400, 'BadRequest', 'bad'), false],
    ['an untrusted server certificate', network('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'), false],
    ['a certificate for another name', network('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), false],
    ['a malformed kubeconfig', new ConfigError('kubeconfig: context "x" not found'), false],
  ])('%s → transient: %s', (_, err, transient) => {
    expect(isTransientStartupError(err)).toBe(transient);
  });
});

describe('permanentStartupMessage', () => {
  const step = { name: 'reading the kube-system Namespace', hint: 'pass --queue-prefix to skip this read' };

  it('names the user and the permission missing on a 403, and the way around the read', () => {
    expect(permanentStartupMessage(FORBIDDEN, step, 'https://h:6443')).toBe(
      'reading the kube-system Namespace failed: get namespaces "kube-system" on cluster "host": Forbidden: namespaces "kube-system" is forbidden: ' +
        'User "system:serviceaccount:kube-federation-system:cm" cannot get resource "namespaces" in API group "" at the cluster scope: ' +
        "the host user needs permission to get namespaces at the cluster scope; grant it in the controller manager's ClusterRole, or pass --queue-prefix to skip this read",
    );
  });

  it.each<[string, ApiError, string]>([
    [
      'a 403 in a namespace',
      response(403, 'Forbidden', 'no', CREATE_KUBEFED_CONFIG),
      'permission to create kubefedconfigs.core.kubefed.io in namespace "kube-federation-system"',
    ],
    ['a 401', response(401, 'Unauthorized', 'Unauthorized'), 'the host API server at https://h:6443 does not accept the credentials'],
    [
      'a missing KubeFed CRD',
      response(404, 'NotFound', 'not found', CREATE_KUBEFED_CONFIG),
      'are the KubeFed CRDs installed on the host cluster',
    ],
    [
      'an untrusted certificate',
      network('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify'),
      "not trusted by the kubeconfig's certificate-authority data",
    ],
  ])('says what to fix for %s', (_, err, advice) => {
    expect(permanentStartupMessage(err, { name: 'step' }, 'https://h:6443')).toContain(advice);
  });
});

describe('StartupRetry', () => {
  it('retries transient failures with a doubling delay capped at maxDelayMs, logging each, until the request succeeds', async () => {
    const clock = new FakeClock();
    const { lines, logger } = capturedLogger();
    const retry = new StartupRetry({
      signal: new AbortController().signal,
      logger,
      server: 'https://h',
      initialDelayMs: 100,
      maxDelayMs: 300,
      clock,
    });
    const failures = [
      network('ECONNREFUSED', 'refused'),
      ApiError.timeout(10, GET_KUBE_SYSTEM),
      response(503, 'ServiceUnavailable', 'x'),
      response(500, 'InternalError', 'y'),
    ];
    let attempts = 0;
    const result = retry.run({ name: 'step' }, () => {
      attempts++;
      const failure = failures.shift();
      return failure === undefined ? Promise.resolve('uid') : Promise.reject(failure);
    });
    for (const ms of [100, 200, 300, 300]) await clock.advance(ms);
    expect(await result).toBe('uid');
    expect(attempts).toBe(5);
    const retries = lines.filter((l) => l['msg'] === 'host API server not available at start-up: retrying');
    expect(retries.map((l) => [l['attempt'], l['retryInMs']])).toEqual([
      [1, 100],
      [2, 200],
      [3, 300],
      [4, 300],
    ]);
    expect(retries[0]).toMatchObject({ step: 'step', err: { message: expect.stringContaining('ECONNREFUSED') as unknown } });
  });

  it('waits at least as long as a 429 asks in Retry-After', async () => {
    const clock = new FakeClock();
    const { lines, logger } = capturedLogger();
    const retry = new StartupRetry({ signal: new AbortController().signal, logger, server: 'https://h', initialDelayMs: 100, clock });
    let failed = false;
    const result = retry.run({ name: 'step' }, () => {
      if (failed) return Promise.resolve(1);
      failed = true;
      return Promise.reject(ApiError.fromResponse({ code: 429, body: '', retryAfter: '3', request: GET_KUBE_SYSTEM }));
    });
    await clock.advance(0);
    expect(lines.at(-1)).toMatchObject({ retryInMs: 3000 });
    await clock.advance(3000);
    expect(await result).toBe(1);
  });

  it('throws a HostStartupError at once on a permanent failure, without retrying', async () => {
    const { lines, logger } = capturedLogger();
    const retry = new StartupRetry({ signal: new AbortController().signal, logger, server: 'https://h', clock: new FakeClock() });
    let attempts = 0;
    const failing = retry.run({ name: 'step' }, () => {
      attempts++;
      return Promise.reject(FORBIDDEN);
    });
    await expect(failing).rejects.toThrow(HostStartupError);
    await expect(failing).rejects.toThrow(/User "system:serviceaccount:kube-federation-system:cm" cannot get resource "namespaces"/);
    expect(attempts).toBe(1);
    expect(lines).toEqual([]);
  });

  it('passes an error that is no API error through unchanged', async () => {
    const retry = new StartupRetry({
      signal: new AbortController().signal,
      logger: capturedLogger().logger,
      server: 'https://h',
      clock: new FakeClock(),
    });
    const bad = new ConfigError('kubeconfig: no current context');
    await expect(retry.run({ name: 'step' }, () => Promise.reject(bad))).rejects.toBe(bad);
  });

  it('ends the wait between attempts as soon as the signal aborts', async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const retry = new StartupRetry({
      signal: stop.signal,
      logger: capturedLogger().logger,
      server: 'https://h',
      initialDelayMs: 60_000,
      clock,
    });
    const waiting = retry.run({ name: 'step' }, () => Promise.reject(network('ECONNREFUSED', 'refused')));
    await clock.advance(0);
    stop.abort();
    await expect(waiting).rejects.toBe(stop.signal.reason);
  });
});
