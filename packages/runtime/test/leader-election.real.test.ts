/**
 * client-go's lock kinds against a real kube-apiserver (vitest project `real`; `npm run kube:build`
 * first): two candidates on one lock, one leads and the other takes over on release; the ConfigMap
 * and Endpoints records are client-go's annotation JSON (Endpoints are deprecated, still served).
 */
import { DynamicClient, Kubeconfig, type ResourceClient } from '@kubefed/client';
import { LEADER_ANNOTATION, LeaderElector, newResourceLock, type ResourceLockClients, type ResourceLockType } from '@kubefed/runtime';
import { startRealClusters, type RealClusters } from '@kubefed/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

const running: { ac: AbortController; done: Promise<unknown> }[] = [];

describe('leader election locks on kube-apiserver (startRealClusters)', () => {
  let real: RealClusters | undefined;
  let client: DynamicClient | undefined;
  let clients: ResourceLockClients & { configMaps: ResourceClient; endpoints: ResourceClient; leases: ResourceClient };
  beforeAll(async () => {
    real = await startRealClusters({ names: ['leader'], nodes: 1 });
    client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(real.kubeconfigYaml), { qps: 0 });
    clients = {
      leases: client.resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }, 'default'),
      configMaps: client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'default'),
      endpoints: client.resource({ group: '', version: 'v1', resource: 'endpoints' }, 'default'),
    };
  }, 300_000);
  afterEach(async () => {
    for (const r of running.splice(0)) {
      r.ac.abort();
      await r.done;
    }
  });
  afterAll(async () => {
    client?.close();
    await real?.stop();
  });

  function candidate(lockType: ResourceLockType, name: string, identity: string): { elector: LeaderElector; stop: () => Promise<void> } {
    const elector = new LeaderElector({
      lock: newResourceLock(lockType, { name, namespace: 'default', identity, clients }),
      identity,
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 250,
    });
    const ac = new AbortController();
    const entry = { ac, done: elector.run(ac.signal) };
    running.push(entry);
    return {
      elector,
      stop: async () => {
        ac.abort();
        await entry.done;
        running.splice(running.indexOf(entry), 1);
      },
    };
  }

  const annotation = async (objects: ResourceClient, name: string): Promise<Record<string, unknown>> =>
    JSON.parse((await objects.get(name)).metadata.annotations?.[LEADER_ANNOTATION] ?? '{}') as Record<string, unknown>;

  it.each(['configmaps', 'endpoints', 'configmapsleases', 'leases'] as const)(
    'lets one of two candidates lead on the %s lock and hands over when it releases',
    async (lockType) => {
      const name = `lock-${lockType}`;
      const a = candidate(lockType, name, 'a');
      await vi.waitFor(() => expect(a.elector.isLeader).toBe(true), { timeout: 10_000 });
      const b = candidate(lockType, name, 'b');
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        expect(b.elector.isLeader).toBe(false);
        await new Promise((r) => setTimeout(r, 100));
      }
      if (lockType !== 'leases') {
        const objects = lockType === 'endpoints' ? clients.endpoints : clients.configMaps;
        const record = await annotation(objects, name);
        expect(Object.keys(record)).toEqual(['holderIdentity', 'leaseDurationSeconds', 'acquireTime', 'renewTime', 'leaderTransitions']);
        expect(record).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 2, leaderTransitions: 0 });
      }
      if (lockType === 'configmapsleases' || lockType === 'leases')
        expect((await clients.leases.get(name)).spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 2 });
      await a.stop();
      await vi.waitFor(() => expect(b.elector.isLeader).toBe(true), { timeout: 2000 });
    },
    60_000,
  );
});
