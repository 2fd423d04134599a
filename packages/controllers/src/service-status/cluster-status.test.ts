import { buildFederatedTypeConfig, type FederatedTypeConfig } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { SERVICE_STATUS_TYPE, TARGET_TYPES } from '@kubefed/testing/fixtures';
import { describe, expect, it } from 'vitest';
import { clusterStatusOf, desiredStatusObject, updatedStatusObject } from './cluster-status.js';
import { serviceStatusTypeOf } from './service-status-type.js';

const service = (ip: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'ns1' },
  status: { loadBalancer: { ingress: [{ ip }] } },
});

/** The `services` FTC named `name`, with `spec` laid over the spec. */
const ftc = (name: string, spec: Partial<FederatedTypeConfig['spec']>): FederatedTypeConfig => {
  const base = buildFederatedTypeConfig(TARGET_TYPES.services);
  return { ...base, metadata: { ...base.metadata, name }, spec: { ...base.spec, ...spec } };
};

describe('serviceStatusTypeOf', () => {
  it.each<[string, string, Partial<FederatedTypeConfig['spec']>, boolean]>([
    [
      'services with statusCollection Enabled and a statusType',
      'services',
      { statusCollection: 'Enabled', statusType: SERVICE_STATUS_TYPE },
      true,
    ],
    ['services without statusType', 'services', { statusCollection: 'Enabled' }, false],
    ['services with statusCollection Disabled', 'services', { statusCollection: 'Disabled', statusType: SERVICE_STATUS_TYPE }, false],
    ['services without statusCollection', 'services', { statusType: SERVICE_STATUS_TYPE }, false],
    ['another FTC', 'configmaps', { statusCollection: 'Enabled', statusType: SERVICE_STATUS_TYPE }, false],
  ])('gives a status type for %s: %s', (_title, name, spec, expected) => {
    expect(serviceStatusTypeOf(ftc(name, spec)) !== undefined).toBe(expected);
  });

  it('takes the status object kind and apiVersion from statusType and the owner from federatedType', () => {
    const type = serviceStatusTypeOf(ftc('services', { statusCollection: 'Enabled', statusType: SERVICE_STATUS_TYPE }));
    expect(type).toMatchObject({
      statusGvr: { group: 'core.kubefed.io', version: 'v1alpha1', resource: 'federatedservicestatuses' },
      statusApiVersion: 'core.kubefed.io/v1alpha1',
      statusKind: 'FederatedServiceStatus',
      federatedApiVersion: 'types.kubefed.io/v1beta1',
      federatedKind: 'FederatedService',
    });
  });
});

describe('clusterStatusOf', () => {
  it('lists every cluster by name with its copy status, and an empty status where there is no copy', () => {
    const copies = new Map<string, KubeObject | null>([
      ['c3', service('10.0.0.3')],
      ['c1', null],
      ['c2', service('10.0.0.2')],
      ['c0', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } }],
    ]);
    expect(clusterStatusOf(copies)).toEqual([
      { clusterName: 'c0', status: {} },
      { clusterName: 'c1', status: {} },
      { clusterName: 'c2', status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }] } } },
      { clusterName: 'c3', status: { loadBalancer: { ingress: [{ ip: '10.0.0.3' }] } } },
    ]);
  });

  it('gives an empty list without Ready clusters', () => {
    expect(clusterStatusOf(new Map())).toEqual([]);
  });
});

describe('desiredStatusObject', () => {
  it('names the federated object, is owned by it and carries the cluster statuses', () => {
    const type = serviceStatusTypeOf(ftc('services', { statusCollection: 'Enabled', statusType: SERVICE_STATUS_TYPE }))!;
    const fedObject: KubeObject = { metadata: { name: 'web', namespace: 'ns1', uid: 'u-1' } };
    const clusterStatus = [{ clusterName: 'c1', status: {} }];
    expect(desiredStatusObject(type, fedObject, clusterStatus)).toEqual({
      apiVersion: 'core.kubefed.io/v1alpha1',
      kind: 'FederatedServiceStatus',
      metadata: {
        name: 'web',
        namespace: 'ns1',
        ownerReferences: [{ apiVersion: 'types.kubefed.io/v1beta1', kind: 'FederatedService', name: 'web', uid: 'u-1' }],
      },
      clusterStatus,
    });
  });
});

describe('updatedStatusObject', () => {
  const existing = (clusterStatus?: unknown): KubeObject => ({
    metadata: { name: 'web', namespace: 'ns1', resourceVersion: '7' },
    ...(clusterStatus === undefined ? {} : { clusterStatus }),
  });

  it.each<[string, KubeObject, { clusterName: string; status: Record<string, unknown> }[], boolean]>([
    [
      'the same statuses',
      existing([{ clusterName: 'c1', status: { a: { b: 1, c: 2 } } }]),
      [{ clusterName: 'c1', status: { a: { c: 2, b: 1 } } }],
      false,
    ],
    ['no list and no clusters', existing(), [], false],
    ['an empty list and no clusters', existing([]), [], false],
    ['a changed status', existing([{ clusterName: 'c1', status: { a: 1 } }]), [{ clusterName: 'c1', status: { a: 2 } }], true],
    ['a cluster gone', existing([{ clusterName: 'c1', status: {} }]), [], true],
    ['a cluster more', existing([]), [{ clusterName: 'c1', status: {} }], true],
  ])('with %s, updates: %s', (_title, current, clusterStatus, expected) => {
    const updated = updatedStatusObject(current, clusterStatus);
    expect(updated !== undefined).toBe(expected);
    if (updated !== undefined) expect(updated).toEqual({ ...current, clusterStatus });
  });
});
