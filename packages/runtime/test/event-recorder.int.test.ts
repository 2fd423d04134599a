import { DynamicClient, Kubeconfig, type KubeObject } from '@kubefed/client';
import { startCluster } from '@kubefed/kube-sim';
import { EventRecorder } from '@kubefed/runtime';
import { FakeClock } from '@kubefed/runtime/testing';
import { describe, expect, it } from 'vitest';

const EVENTS = { group: '', version: 'v1', resource: 'events' };

describe('EventRecorder', () => {
  it('creates an event about the object and aggregates identical ones into count and lastTimestamp', async () => {
    await using sim = await startCluster({ name: 'runtime-events', tls: false });
    using client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()), { qps: 0 });
    const cm = await client
      .resource({ group: '', version: 'v1', resource: 'configmaps' }, 'default')
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' } });
    const clock = new FakeClock(Date.parse('2026-11-23T10:00:00Z'));
    const recorder = new EventRecorder({ events: (ns) => client.resource(EVENTS, ns), component: 'federatedconfigmap-controller', clock });

    await recorder.record(cm, {
      type: 'Warning',
      reason: 'CreateInClusterFailed',
      message: 'Failed to create ConfigMap "default/web" in cluster "c1": boom',
    });
    await clock.advance(5000);
    await recorder.record(cm, {
      type: 'Warning',
      reason: 'CreateInClusterFailed',
      message: 'Failed to create ConfigMap "default/web" in cluster "c1": boom',
    });
    await recorder.record(cm, { type: 'Normal', reason: 'CreateInCluster', message: 'Creating ConfigMap "default/web" in cluster "c1"' });

    const list = (await client.resource(EVENTS, 'default').list()).items as (KubeObject & Record<string, unknown>)[];
    const byReason = new Map(list.map((e) => [e['reason'], e]));
    expect(list).toHaveLength(2);
    expect(byReason.get('CreateInClusterFailed')).toMatchObject({
      type: 'Warning',
      count: 2,
      firstTimestamp: '2026-11-23T10:00:00Z',
      lastTimestamp: '2026-11-23T10:00:05Z',
      involvedObject: { kind: 'ConfigMap', name: 'web', namespace: 'default', uid: cm.metadata.uid },
      source: { component: 'federatedconfigmap-controller' },
    });
    expect(byReason.get('CreateInCluster')).toMatchObject({ type: 'Normal', count: 1 });
  });

  it('creates a new event once the aggregation window has passed, and records cluster-scoped objects in default', async () => {
    await using sim = await startCluster({ name: 'runtime-events-2', tls: false });
    using client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()), { qps: 0 });
    const role = await client
      .resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' })
      .create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [] });
    const clock = new FakeClock(Date.parse('2026-11-23T10:00:00Z'));
    const recorder = new EventRecorder({ events: (ns) => client.resource(EVENTS, ns), component: 'c', clock, aggregateWindowMs: 1000 });
    const event = { type: 'Normal', reason: 'UpdateInCluster', message: 'Updating ClusterRole "reader" in cluster "c1"' } as const;
    await recorder.record(role, event);
    await clock.advance(1500);
    await recorder.record(role, event);
    const list = (await client.resource(EVENTS, 'default').list()).items as (KubeObject & Record<string, unknown>)[];
    expect(list.map((e) => e['count'])).toEqual([1, 1]);
    expect(list.every((e) => (e['involvedObject'] as { name?: string }).name === 'reader')).toBe(true);
  });
});
