import { describe, expect, it } from 'vitest';
import {
  describeSyncRequest,
  federatedObjectId,
  federatedObjectRef,
  objectKeyOf,
  syncRequest,
  syncRequestId,
  type SyncRequest,
} from './sync-request.js';

const job: SyncRequest & { kind: 'sync' | 'remove' } = {
  kind: 'sync',
  federatedType: 'deployments.apps',
  namespace: 'web-ns',
  name: 'web',
  cluster: 'member1',
};

describe('syncRequestId', () => {
  it.each([
    [job, 'deployments.apps/web-ns/web@member1'],
    [{ ...job, kind: 'remove' as const }, 'deployments.apps/web-ns/web@member1'],
    [{ ...job, namespace: undefined, name: 'system:view' }, 'deployments.apps/system%3Aview@member1'],
    [{ ...job, namespace: undefined, name: '100%' }, 'deployments.apps/100%25@member1'],
    [{ ...job, name: '42', namespace: undefined }, 'deployments.apps/42@member1'],
  ])('derives the id of %j as %j', (input, id) => {
    const { namespace, ...rest } = input;
    const value = syncRequestId(namespace === undefined ? rest : { ...rest, namespace });
    expect(value).toBe(id);
    expect(value).not.toContain(':');
    expect(value).not.toMatch(/^\d+$/);
  });

  it('differs per namespace, name, type and cluster', () => {
    const ids = new Set(
      [
        job,
        { ...job, namespace: 'other' },
        { ...job, name: 'other' },
        { ...job, federatedType: 'services' },
        { ...job, cluster: 'member2' },
      ].map(syncRequestId),
    );
    expect(ids.size).toBe(5);
  });
});

describe('federatedObjectRef and objectKeyOf', () => {
  it.each([
    ['web-ns/web', { federatedType: 'deployments.apps', namespace: 'web-ns', name: 'web' }],
    ['system:view', { federatedType: 'deployments.apps', name: 'system:view' }],
  ])('reads the informer key %j and writes it back', (key, ref) => {
    expect(federatedObjectRef('deployments.apps', key)).toStrictEqual(ref);
    expect(objectKeyOf(ref)).toBe(key);
  });
});

describe('syncRequest', () => {
  it('puts an object in a cluster without an undefined namespace', () => {
    expect(syncRequest({ federatedType: 'namespaces', namespace: undefined, name: 'a' }, 'c1')).toStrictEqual({
      federatedType: 'namespaces',
      name: 'a',
      cluster: 'c1',
    });
  });
});

describe('federatedObjectId', () => {
  it('is the request id without its cluster', () => {
    expect(federatedObjectId(job)).toBe('deployments.apps/web-ns/web');
    expect(syncRequestId(job).startsWith(`${federatedObjectId(job)}@`)).toBe(true);
  });
});

describe('describeSyncRequest', () => {
  it('names type, key and cluster', () => {
    expect(describeSyncRequest(job)).toBe('deployments.apps "web-ns/web" in cluster "member1"');
  });
});
