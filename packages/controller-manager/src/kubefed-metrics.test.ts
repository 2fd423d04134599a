import { RuntimeMetrics } from '@kubefed/runtime';
import { describe, expect, it } from 'vitest';
import { kubeFedMetrics } from './kubefed-metrics.js';

/** A registry with the KubeFedCluster controller's state gauge, as the controller registers it. */
function withClusterStates(): { metrics: RuntimeMetrics; state: (cluster: string, current: string | undefined) => void } {
  const metrics = new RuntimeMetrics();
  const gauge = metrics.gauge('kubefed_cluster_health_state', 'state', ['cluster', 'state']);
  const state = (cluster: string, current: string | undefined): void => {
    for (const s of ['ready', 'notready', 'offline', 'malformed']) gauge.set({ cluster, state: s }, s === current ? 1 : 0);
  };
  return { metrics, state };
}

describe('kubeFedMetrics', () => {
  it("serves kubefedcluster_total and joined_cluster_total from the clusters' health states, read on scrape", async () => {
    const { metrics, state } = withClusterStates();
    kubeFedMetrics(metrics);
    state('member1', 'ready');
    state('member2', 'offline');
    state('member3', 'malformed');
    state('gone', undefined);
    const text = await metrics.text();
    expect(text).toContain('kubefedcluster_total{cluster="member1",state="ready"} 1');
    expect(text).toContain('kubefedcluster_total{cluster="member1",state="offline"} 0');
    expect(text).toContain('kubefedcluster_total{cluster="member2",state="offline"} 1');
    expect(text).toContain('kubefedcluster_total{cluster="member3",state="notready"} 0');
    expect(text).not.toMatch(/^kubefedcluster_total\{[^}]*state="malformed"/m);
    expect(text).toMatch(/^joined_cluster_total 3$/m);
    state('member2', 'ready');
    state('member3', undefined);
    const later = await metrics.text();
    expect(later).toContain('kubefedcluster_total{cluster="member2",state="ready"} 1');
    expect(later).toMatch(/^joined_cluster_total 2$/m);
  });

  it('times cluster health checks and sync reconciles from the reconciles of their controllers, and member writes by action', async () => {
    const metrics = new RuntimeMetrics();
    const kubefed = kubeFedMetrics(metrics);
    metrics.controller('kubefedcluster').reconciled('success', 0.03);
    metrics.controller('sync-configmaps').reconciled('success', 0.2);
    metrics.controller('sync-deployments.apps').reconciled('error', 2);
    metrics.controller('federatedtypeconfig').reconciled('success', 0.01);
    kubefed.dispatched('update', 0.07);
    const text = await metrics.text();
    expect(text).toMatch(/^cluster_health_status_duration_seconds_count 1$/m);
    expect(text).toMatch(/^cluster_health_status_duration_seconds_bucket\{le="0.05"\} 1$/m);
    expect(text).toMatch(/^reconcile_federated_resources_duration_seconds_count 2$/m);
    expect(text).toMatch(/^reconcile_federated_resources_duration_seconds_bucket\{le="1"\} 1$/m);
    expect(text).toMatch(/^dispatch_operation_duration_seconds_count\{action="update"\} 1$/m);
    expect(text).toMatch(/^dispatch_operation_duration_seconds_count\{action="create"\} 0$/m);
    expect(text).toMatch(/^dispatch_operation_duration_seconds_bucket\{le="1000",action="delete"\} 0$/m);
  });

  it('registers once per registry: a second call returns the same metrics', () => {
    const metrics = new RuntimeMetrics();
    expect(kubeFedMetrics(metrics)).toBe(kubeFedMetrics(metrics));
    expect(metrics.names().filter((n) => n === 'kubefedcluster_total')).toHaveLength(1);
  });
});
