// kubefed_sync_queue_jobs on the controller manager's /metrics, read from real Redis on scrape, and the
// API request counts of its host and member clients.
import type { LocalFederation, ManagedProcess } from '@kubefed/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEDERATED_CONFIG_MAPS, FEDERATED_NAMESPACES, metricsText, metricValue, startProcessFederation } from './process-federation.js';

const NS = 'queue-metrics';

describe('kubefed_sync_queue_jobs', () => {
  let fed: LocalFederation;
  let controllers: ManagedProcess;

  beforeAll(async () => {
    fed = await startProcessFederation({ fastLeaderElection: true });
    // Controllers without workers: the jobs they enqueue stay waiting, so the counts hold still.
    controllers = await fed.startControllerManager(['--mode', 'controllers']);
    await fed.waitForReady(60_000);
  }, 180_000);

  afterAll(async () => {
    await fed?.stop();
  }, 60_000);

  it("reports each member's waiting, active, delayed and failed sync jobs from Redis", async () => {
    const host = fed.client('host');
    await host
      .resource({ group: '', version: 'v1', resource: 'namespaces' })
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const placement = { clusters: [{ name: 'member1' }] };
    await host.resource(FEDERATED_NAMESPACES, NS).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: NS, namespace: NS },
      spec: { placement },
    });
    await host.resource(FEDERATED_CONFIG_MAPS, NS).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'settings', namespace: NS },
      spec: { template: { data: { colour: 'blue' } }, placement },
    });
    // One job per federated object for member1 (deduplicated while it waits), none for member2.
    await expect
      .poll(() => metricValue(controllers, 'kubefed_sync_queue_jobs', { cluster: 'member1', state: 'waiting' }), {
        timeout: 60_000,
        interval: 500,
      })
      .toBe(2);
    const text = await metricsText(controllers);
    expect(text).toContain('# TYPE kubefed_sync_queue_jobs gauge');
    for (const state of ['waiting', 'active', 'delayed', 'failed']) {
      expect(text).toMatch(new RegExp(`^kubefed_sync_queue_jobs\\{cluster="member2",state="${state}"\\} 0$`, 'm'));
    }
    for (const state of ['active', 'delayed', 'failed']) {
      expect(text).toMatch(new RegExp(`^kubefed_sync_queue_jobs\\{cluster="member1",state="${state}"\\} 0$`, 'm'));
    }
  }, 120_000);

  it('counts the API requests of each client by cluster, method and code', async () => {
    const requests = (labels: Record<string, string>): Promise<number> =>
      metricValue(controllers, 'kubefed_rest_client_requests_total', labels);
    // Start-up reads of the host (sync client), Lease renewals (its own client), member lists (the member watches of the sync controllers).
    expect(await requests({ cluster: 'host', client: 'sync', method: 'GET', code: '200' })).toBeGreaterThan(0);
    await expect
      .poll(() => requests({ cluster: 'host', client: 'leader-election', method: 'PUT', code: '200' }), { timeout: 30_000 })
      .toBeGreaterThan(0);
    await expect
      .poll(() => requests({ cluster: 'member1', client: 'member', method: 'GET', code: '200' }), { timeout: 30_000 })
      .toBeGreaterThan(0);
  }, 60_000);
});
