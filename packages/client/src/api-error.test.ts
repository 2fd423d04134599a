import { describe, expect, it } from 'vitest';
import {
  ApiError,
  type ApiErrorReason,
  isAlreadyExists,
  isConflict,
  isGone,
  isNetworkError,
  isNotFound,
  isTooManyRequests,
  KubeFedClientError,
} from './api-error.js';

const status = (code: number, reason: string, message = 'boom', extra: object = {}): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message, ...extra });

describe('ApiError.fromResponse', () => {
  it.each<[string, number, string, ApiErrorReason]>([
    ['NotFound', 404, status(404, 'NotFound'), 'NotFound'],
    ['AlreadyExists', 409, status(409, 'AlreadyExists'), 'AlreadyExists'],
    ['Conflict', 409, status(409, 'Conflict'), 'Conflict'],
    ['Gone via Expired', 410, status(410, 'Expired'), 'Gone'],
    ['Gone', 410, status(410, 'Gone'), 'Gone'],
    ['Invalid', 422, status(422, 'Invalid'), 'Invalid'],
    ['Forbidden', 403, status(403, 'Forbidden'), 'Forbidden'],
    ['Unauthorized', 401, status(401, 'Unauthorized'), 'Unauthorized'],
    ['TooManyRequests', 429, status(429, 'TooManyRequests'), 'TooManyRequests'],
    ['InternalError', 500, status(500, 'InternalError'), 'ServerError'],
    ['ServerTimeout', 500, status(500, 'ServerTimeout'), 'Timeout'],
    ['Timeout', 504, status(504, 'Timeout'), 'Timeout'],
    ['BadRequest', 400, status(400, 'BadRequest'), 'BadRequest'],
    ['MethodNotAllowed', 405, status(405, 'MethodNotAllowed'), 'MethodNotAllowed'],
    ['UnsupportedMediaType', 415, status(415, 'UnsupportedMediaType'), 'UnsupportedMediaType'],
    ['a 404 with a plain-text body', 404, '404 page not found', 'NotFound'],
    ['a 502 with no body', 502, '', 'ServerError'],
    ['a Status without a reason', 409, JSON.stringify({ kind: 'Status', code: 409, message: 'x' }), 'Conflict'],
    ['an unknown 4xx', 418, '', 'Unknown'],
  ])('maps %s to reason %s', (_title, code, body, reason) => {
    const e = ApiError.fromResponse({ code, body, request: { verb: 'get' } });
    expect(e.reason).toBe(reason);
    expect(e.code).toBe(code);
    expect(e).toBeInstanceOf(KubeFedClientError);
  });

  it('names the verb, resource, object, namespace and cluster in the message', () => {
    const e = ApiError.fromResponse({
      code: 409,
      body: status(409, 'AlreadyExists', 'deployments.apps "web" already exists'),
      request: { verb: 'create', resource: 'deployments.apps', name: 'web', namespace: 'demo', cluster: 'member1' },
    });
    expect(e.message).toBe(
      'create deployments.apps "web" in namespace "demo" on cluster "member1": AlreadyExists: deployments.apps "web" already exists',
    );
    expect(isAlreadyExists(e)).toBe(true);
    expect(isConflict(e)).toBe(false);
  });

  it('keeps the causes of an Invalid status', () => {
    const causes = [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.replicas' }];
    const e = ApiError.fromResponse({
      code: 422,
      body: status(422, 'Invalid', 'bad', { details: { name: 'x', kind: 'Deployment', causes } }),
      request: { verb: 'update' },
    });
    expect(e.causes).toEqual(causes);
    expect(e.status?.details?.kind).toBe('Deployment');
  });

  it.each<[string, string | undefined, object, number | undefined]>([
    ['the Retry-After header', '3', {}, 3],
    ['details.retryAfterSeconds', undefined, { details: { retryAfterSeconds: 7 } }, 7],
    ['neither', undefined, {}, undefined],
  ])('reads retryAfterSeconds of a 429 from %s', (_t, header, extra, expected) => {
    const e = ApiError.fromResponse({
      code: 429,
      body: status(429, 'TooManyRequests', 'slow down', extra),
      retryAfter: header,
      request: { verb: 'list' },
    });
    expect(isTooManyRequests(e)).toBe(true);
    expect(e.retryAfterSeconds).toBe(expected);
  });

  it('uses the body text when the body is not a Status', () => {
    const e = ApiError.fromResponse({ code: 404, body: '404 page not found\n', request: { verb: 'GET', resource: '/nope' } });
    expect(e.message).toBe('GET /nope: NotFound: 404 page not found');
    expect(e.status).toBeUndefined();
    expect(isNotFound(e)).toBe(true);
  });
});

describe('ApiError.fromNetworkError', () => {
  it('carries the socket error as cause and names its code', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const e = ApiError.fromNetworkError(cause, { verb: 'get', resource: 'pods', name: 'p', cluster: 'c1' });
    expect(e.reason).toBe('NetworkError');
    expect(e.code).toBe(0);
    expect(e.cause).toBe(cause);
    expect(e.message).toBe('get pods "p" on cluster "c1": NetworkError: connect ECONNREFUSED 127.0.0.1:1');
    expect(isNetworkError(e)).toBe(true);
    expect(isGone(e)).toBe(false);
  });

  it('prefixes the code when the message does not contain it', () => {
    const cause = Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    const e = ApiError.fromNetworkError(cause, { verb: 'list', resource: 'pods' });
    expect(e.message).toBe('list pods: NetworkError: DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate');
  });
});
