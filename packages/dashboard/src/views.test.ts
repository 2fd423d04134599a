import type { KubeFedCluster } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import type { FleetSnapshot, WatchedType } from './fleet-watch.js';
import {
  cellTone,
  clusterView,
  dashboardView,
  matrixRow,
  schedulingView,
  type ObjectSummary,
  type SummarizeObject,
  type Tone,
} from './views.js';

const T0 = '2025-01-02T03:04:05Z';

function kfc(
  name: string,
  conditions: { type: string; status: string; reason?: string; message?: string }[] = [],
  extra: Partial<NonNullable<KubeFedCluster['status']>> = {},
): KubeFedCluster {
  return {
    apiVersion: 'core.kubefed.io/v1beta1',
    kind: 'KubeFedCluster',
    metadata: { name, namespace: 'kube-federation-system' },
    spec: { apiEndpoint: `https://${name}.example:6443`, secretRef: { name: `${name}-secret` } },
    status: { conditions: conditions.map((c) => ({ ...c, lastProbeTime: T0, lastTransitionTime: T0 })), ...extra },
  };
}

const READY = { type: 'Ready', status: 'True', reason: 'ClusterReady', message: '/healthz responded with ok' };
const asObject = (c: KubeFedCluster): KubeObject => c as unknown as KubeObject;

/** A summary fixed by the test (kubefedctl's objectStatus in the product). */
const summarizeAs =
  (summary: Partial<ObjectSummary>): SummarizeObject =>
  () => ({ generation: 1, observedGeneration: 1, propagation: 'True', placement: 'clusters: a, b', clusters: [], ...summary });

const CONFIGMAPS = { name: 'configmaps', kind: 'FederatedConfigMap' };

function federated(name: string, spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedConfigMap',
    metadata: { name, namespace: 'ns', generation: 1 },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

describe('cellTone', () => {
  it.each<[string, Tone]>([
    ['', 'none'],
    ['OK', 'ok'],
    ['Pending', 'pending'],
    ['WaitingForRemoval', 'pending'],
    ['CreationTimedOut', 'pending'],
    ['UpdateTimedOut', 'pending'],
    ['NotJoined', 'error'],
    ['ClusterNotReady', 'error'],
    ['ApplyOverridesFailed', 'error'],
    ['ManagedLabelFalse', 'error'],
    ['SomethingNew', 'error'],
  ])('paints status %j as %s', (status, tone) => {
    expect(cellTone(status)).toBe(tone);
  });
});

describe('clusterView', () => {
  it.each<[string, Parameters<typeof kfc>[1], string, Tone, string | undefined]>([
    ['Ready', [READY], 'Ready', 'ok', 'ClusterReady'],
    [
      'not Ready',
      [{ type: 'Ready', status: 'False', reason: 'ClusterNotReady', message: '/healthz responded without ok' }],
      'NotReady',
      'error',
      'ClusterNotReady',
    ],
    [
      'Offline over NotReady',
      [
        { type: 'Ready', status: 'False', reason: 'ClusterNotReady' },
        { type: 'Offline', status: 'True', reason: 'ClusterNotReachable' },
      ],
      'Offline',
      'error',
      'ClusterNotReachable',
    ],
    ['an Offline condition that is False', [READY, { type: 'Offline', status: 'False' }], 'Ready', 'ok', 'ClusterReady'],
    ['no conditions yet', [], 'Unknown', 'pending', undefined],
  ])('shows a cluster with %s', (_title, conditions, state, tone, reason) => {
    const view = clusterView(kfc('a', conditions));
    expect(view).toMatchObject({ name: 'a', state, tone, reason });
  });

  it('carries version, region, zones, the time of the deciding condition and the queue counts', () => {
    const queue = { waiting: 3, active: 1, delayed: 2, failed: 0 };
    const view = clusterView(kfc('a', [READY], { kubernetesVersion: 'v1.34.1', region: 'eu', zones: ['eu-1', 'eu-2'] }), queue);
    expect(view).toEqual({
      name: 'a',
      state: 'Ready',
      tone: 'ok',
      reason: 'ClusterReady',
      message: '/healthz responded with ok',
      version: 'v1.34.1',
      region: 'eu',
      zones: ['eu-1', 'eu-2'],
      since: T0,
      apiEndpoint: 'https://a.example:6443',
      queue,
    });
  });
});

describe('matrixRow', () => {
  const clusters = [asObject(kfc('a', [READY])), asObject(kfc('b', [READY])), asObject(kfc('c', [READY]))];

  it('gives every member a cell: its status where placed, an empty one elsewhere', () => {
    const row = matrixRow(federated('web'), CONFIGMAPS, {
      clusters,
      summarize: summarizeAs({
        clusters: [
          { name: 'a', status: 'OK' },
          { name: 'b', status: 'Pending' },
        ],
      }),
    });
    expect(Object.fromEntries(Object.entries(row.cells).map(([n, c]) => [n, [c.status, c.tone]]))).toEqual({
      a: ['OK', 'ok'],
      b: ['Pending', 'pending'],
      c: ['', 'none'],
    });
    expect(row).toMatchObject({
      id: 'configmaps/ns/web',
      type: 'configmaps',
      kind: 'FederatedConfigMap',
      namespace: 'ns',
      name: 'web',
      propagation: 'True',
      propagationTone: 'ok',
    });
    expect(row.cells['a']!.title).toBe('a: OK: the member object matches the federated object');
    expect(row.cells['c']!.title).toBe('c: not placed: not placed in this cluster');
  });

  it('adds a column for a placed cluster that has no KubeFedCluster (NotJoined)', () => {
    const row = matrixRow(federated('web'), CONFIGMAPS, {
      clusters,
      summarize: summarizeAs({ clusters: [{ name: 'gone', status: 'NotJoined' }] }),
    });
    expect(Object.keys(row.cells)).toEqual(['a', 'b', 'c', 'gone']);
    expect(row.cells['gone']).toMatchObject({ status: 'NotJoined', tone: 'error' });
  });

  it("puts the member's reported status, and for a failure the condition message, in the cell's title", () => {
    const status = {
      conditions: [{ type: 'Propagation', status: 'False', reason: 'CheckClusters', message: 'cluster b: update failed: quota exceeded' }],
    };
    const row = matrixRow(federated('web', {}, status), CONFIGMAPS, {
      clusters,
      summarize: summarizeAs({
        propagation: 'False',
        reason: 'CheckClusters',
        clusters: [
          { name: 'a', status: 'OK', remote: '2/2 ready' },
          { name: 'b', status: 'UpdateFailed' },
        ],
      }),
    });
    expect(row.cells['a']!.title).toBe('a: OK: the member object matches the federated object\nmember reports: 2/2 ready');
    expect(row.cells['b']!.title).toBe('b: UpdateFailed: updating the member object failed\ncluster b: update failed: quota exceeded');
    expect(row).toMatchObject({
      propagation: 'False (CheckClusters)',
      propagationTone: 'error',
      message: 'cluster b: update failed: quota exceeded',
      problem: true,
    });
  });

  it.each<[string, Partial<ObjectSummary>, string, Tone, boolean]>([
    ['propagated everywhere', { clusters: [{ name: 'a', status: 'OK' }] }, 'True', 'ok', false],
    [
      'a newer generation not yet observed',
      { generation: 3, observedGeneration: 2, clusters: [{ name: 'a', status: 'OK' }] },
      'Pending (generation 3 not yet propagated)',
      'pending',
      true,
    ],
    ['an Unknown condition', { propagation: 'Unknown', clusters: [] }, 'Unknown', 'pending', true],
    [
      'a cluster still pending',
      {
        clusters: [
          { name: 'a', status: 'OK' },
          { name: 'b', status: 'CreationTimedOut' },
        ],
      },
      'True',
      'ok',
      true,
    ],
  ])('reads the Propagation column and problem flag of an object with %s', (_title, summary, text, tone, problem) => {
    const row = matrixRow(federated('web'), CONFIGMAPS, { clusters, summarize: summarizeAs(summary) });
    expect([row.propagation, row.propagationTone, row.problem]).toEqual([text, tone, problem]);
  });
});

function rsp(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'scheduling.kubefed.io/v1alpha1',
    kind: 'ReplicaSchedulingPreference',
    metadata: { name: 'web', namespace: 'ns' },
    spec,
  };
}

function deployment(
  spec: Record<string, unknown>,
  reported: Record<string, { replicas?: number; readyReplicas?: number } | undefined> = {},
): KubeObject {
  const clusters = Object.entries(reported).map(([name, remoteStatus]) => ({
    name,
    ...(remoteStatus === undefined ? {} : { remoteStatus }),
  }));
  return {
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedDeployment',
    metadata: { name: 'web', namespace: 'ns' },
    spec,
    status: { clusters },
  };
}

describe('schedulingView', () => {
  const plannedSpec = {
    template: { spec: { replicas: 5 } },
    placement: { clusters: [{ name: 'a' }, { name: 'b' }] },
    overrides: [{ clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 4 }] }],
  };

  it('draws planned replicas from the overrides (else the template) and actual ones from the reported status', () => {
    const view = schedulingView(
      rsp({ targetKind: 'FederatedDeployment', totalReplicas: 6, clusters: { a: { weight: 2 }, b: { weight: 1 } } }),
      deployment(plannedSpec, { a: { replicas: 4, readyReplicas: 3 }, b: { replicas: 2 } }),
      ['a', 'b', 'c'],
    );
    expect(view.clusters).toEqual([
      { name: 'a', planned: 4, replicas: 4, ready: 3 },
      { name: 'b', planned: 5, replicas: 2, ready: 0 },
      { name: 'c', planned: 0, replicas: null, ready: null },
    ]);
    expect(view).toMatchObject({ namespace: 'ns', name: 'web', targetKind: 'FederatedDeployment', totalReplicas: 6, problem: undefined });
    expect(view.explanation?.clusters.find((c) => c.name === 'a')?.why).toContain('a: 4 replicas');
  });

  it('shows zero planned replicas everywhere before the workload exists', () => {
    const view = schedulingView(rsp({ targetKind: 'FederatedDeployment', totalReplicas: 3 }), undefined, ['a', 'b']);
    expect(view.clusters.map((c) => [c.name, c.planned, c.replicas])).toEqual([
      ['a', 0, null],
      ['b', 0, null],
    ]);
    expect(view.explanation?.placed).toBe(3);
  });

  it('defaults a template without replicas to one planned replica', () => {
    const view = schedulingView(
      rsp({ targetKind: 'FederatedDeployment', totalReplicas: 2 }),
      deployment({ template: { spec: {} }, placement: { clusters: [{ name: 'a' }] } }),
      ['a'],
    );
    expect(view.clusters).toEqual([{ name: 'a', planned: 1, replicas: null, ready: null }]);
  });

  it('names the invalid fields of an RSP instead of a plan', () => {
    const view = schedulingView(rsp({ targetKind: 'FederatedService', totalReplicas: 2 }), undefined, ['a']);
    expect(view).toMatchObject({ clusters: [], totalReplicas: 0 });
    expect(view.explanation).toBeUndefined();
    expect(view.problem).toContain('spec.targetKind: must be one of');
  });
});

describe('dashboardView', () => {
  const watched = (name: string, kind: string, resource: string): WatchedType => ({
    name,
    kind,
    gvr: { group: 'types.kubefed.io', version: 'v1beta1', resource },
    target: { group: 'apps', version: 'v1', resource: 'deployments' },
    targetType: { group: 'apps', version: 'v1', kind: 'Deployment', namespaced: true },
    namespaced: true,
  });

  it('sorts clusters and rows, attaches queue counts, and pairs each RSP with its workload', () => {
    const snapshot: FleetSnapshot = {
      clusters: [asObject(kfc('b', [READY])), asObject(kfc('a', [{ type: 'Ready', status: 'False' }])), { metadata: { name: 'broken' } }],
      types: [watched('deployments.apps', 'FederatedDeployment', 'federateddeployments')],
      objects: new Map([
        [
          'deployments.apps',
          [
            deployment({ placement: { clusters: [{ name: 'b' }] } }, { b: { replicas: 2 } }),
            { ...deployment({}), metadata: { name: 'api', namespace: 'ns' } },
          ],
        ],
      ]),
      rsps: [rsp({ targetKind: 'FederatedDeployment', totalReplicas: 2 })],
    };
    const view = dashboardView(snapshot, {
      summarize: summarizeAs({}),
      queues: new Map([['b', { waiting: 1, active: 0, delayed: 0, failed: 2 }]]),
    });
    expect(view.clusters.map((c) => [c.name, c.state, c.queue?.failed])).toEqual([
      ['a', 'NotReady', undefined],
      ['b', 'Ready', 2],
    ]);
    expect(view.objects.map((r) => r.id)).toEqual(['deployments.apps/ns/api', 'deployments.apps/ns/web']);
    expect(view.types).toEqual([{ name: 'deployments.apps', kind: 'FederatedDeployment' }]);
    expect(view.queueSource).toEqual({ source: 'none' });
    // Only the Ready cluster b is available to the plan; the workload's reported replicas are b's.
    expect(view.scheduling[0]!.clusters).toEqual([{ name: 'b', planned: 1, replicas: 2, ready: 0 }]);
    expect(view.scheduling[0]!.explanation?.clusters.map((c) => c.name)).toEqual(['b']);
  });
});
