import { ApiError } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { MemberWriteError } from './sync-worker.js';
import { syncRetryDelayMs, UNREACHABLE_RETRY_DELAY_MS } from './retry-delay.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
const request = { verb: 'update', resource: 'configmaps', name: 'web', namespace: 'demo', cluster: 'member2' };
const networkError = ApiError.fromNetworkError(refused, request);
const conflict = new ApiError('update configmaps "web": Conflict', { code: 409, reason: 'Conflict', request });
const timeout = new ApiError('update configmaps "web": Timeout', { code: 504, reason: 'Timeout', request });

describe('syncRetryDelayMs', () => {
  it.each([
    ['a member write that could not connect', new MemberWriteError('member2', 'UpdateFailed', 'update failed', { cause: networkError })],
    ['a read of the member that timed out', new MemberWriteError('member2', 'CachedRetrievalFailed', 'read failed', { cause: timeout })],
    ['the transport error itself', networkError],
  ])('starts the retries of %s at KubeFed’s 5 s', (_what, err) => {
    expect(syncRetryDelayMs(err)).toBe(UNREACHABLE_RETRY_DELAY_MS);
  });

  it.each([
    ['a conflict', new MemberWriteError('member2', 'UpdateFailed', 'update failed', { cause: conflict })],
    ['an error without an API cause', new Error('boom')],
    ['a socket error not wrapped by the client', refused],
  ])('keeps the producer’s delay for %s', (_what, err) => {
    expect(syncRetryDelayMs(err)).toBeUndefined();
  });

  it('ends on a cause chain that loops', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(syncRetryDelayMs(a)).toBeUndefined();
  });
});
