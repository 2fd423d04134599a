import { ValidationError } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { describeSyncJob, parseSyncJob, syncJobDeduplicationId, type SyncJob } from './sync-job.js';

const job: SyncJob = { kind: 'sync', federatedType: 'deployments.apps', namespace: 'web-ns', name: 'web', cluster: 'member1' };

describe('parseSyncJob', () => {
  it('accepts a namespaced and a cluster-scoped job', () => {
    expect(parseSyncJob(job)).toEqual(job);
    const scoped = { kind: 'remove', federatedType: 'clusterroles.rbac.authorization.k8s.io', name: 'system:view', cluster: 'c1' };
    expect(parseSyncJob(scoped)).toEqual(scoped);
  });

  it.each([
    [{ ...job, cluster: undefined }, 'cluster: Required value'],
    [{ ...job, kind: 'update' }, 'kind: must be one of sync, remove'],
    [{ ...job, federatedType: 'Deployments' }, 'federatedType: must be a DNS-1123 subdomain'],
    [{ ...job, namespace: 'Web' }, 'namespace: must be a DNS-1123 label'],
    [{ ...job, name: '' }, 'name: must have at least 1 characters'],
    [{ ...job, name: 'a/b' }, "name: must not contain '/'"],
    [{ ...job, cluster: 'a:b' }, 'cluster: must be a DNS-1123 subdomain'],
    [{ ...job, spec: { replicas: 3 } }, 'spec'],
    ['not a job', 'sync job is invalid'],
  ])('rejects %j naming the field', (payload, message) => {
    expect(() => parseSyncJob(payload)).toThrow(ValidationError);
    expect(() => parseSyncJob(payload)).toThrow(message);
  });
});

describe('syncJobDeduplicationId', () => {
  it.each([
    [job, 'deployments.apps/web-ns/web@member1'],
    [{ ...job, kind: 'remove' as const }, 'deployments.apps/web-ns/web@member1'],
    [{ ...job, namespace: undefined, name: 'system:view' }, 'deployments.apps/system%3Aview@member1'],
    [{ ...job, namespace: undefined, name: '100%' }, 'deployments.apps/100%25@member1'],
    [{ ...job, name: '42', namespace: undefined }, 'deployments.apps/42@member1'],
  ])('derives the id of %j as %j', (input, id) => {
    const { namespace, ...rest } = input;
    const value = syncJobDeduplicationId(namespace === undefined ? rest : { ...rest, namespace });
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
      ].map(syncJobDeduplicationId),
    );
    expect(ids.size).toBe(5);
  });
});

describe('describeSyncJob', () => {
  it('names kind, type, key and cluster', () => {
    expect(describeSyncJob(job)).toBe('sync deployments.apps "web-ns/web" in cluster "member1"');
  });
});
