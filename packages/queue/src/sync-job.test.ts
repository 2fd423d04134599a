import { ValidationError } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { describeSyncJob, parseSyncJob, syncJob, type SyncJob } from './sync-job.js';

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

describe('describeSyncJob', () => {
  it('names kind, type, key and cluster', () => {
    expect(describeSyncJob(job)).toBe('sync deployments.apps "web-ns/web" in cluster "member1"');
  });
});

describe('syncJob', () => {
  it('builds the payload of a request and keeps other fields out of it', () => {
    const request = { federatedType: 'deployments.apps', namespace: 'web-ns', name: 'web', cluster: 'member1', generation: 3 };
    expect(syncJob(request, 'sync')).toStrictEqual(job);
    expect(
      parseSyncJob(syncJob({ federatedType: 'clusterroles.rbac.authorization.k8s.io', name: 'view', cluster: 'c1' }, 'remove')),
    ).toStrictEqual({
      kind: 'remove',
      federatedType: 'clusterroles.rbac.authorization.k8s.io',
      name: 'view',
      cluster: 'c1',
    });
  });
});
