import { randomUUID } from 'node:crypto';
import { buildFederatedTypeConfig, buildFederatedTypeCrd, type FederatedTypeOptions } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { listerWatcherFor, Manager, type Runnable } from '@kubefed/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEDERATED_TYPE_CONFIG_GVR, FederatedTypeConfigReconciler } from '@kubefed/controllers';
import { createNamespace, startFederation, type Federation } from './federation.js';

const CONFIG_MAPS: FederatedTypeOptions = { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' };

let fed: Federation;

beforeAll(async () => {
  fed = await startFederation({});
  await fed.hostClient.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create(buildFederatedTypeCrd(CONFIG_MAPS) as unknown as KubeObject);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

/** A sync controller stand-in that fails `failures` times, then runs until stopped. */
function flakyChild(failures: number): { factory: () => Runnable; starts: () => number } {
  let starts = 0;
  const factory = (): Runnable => ({
    name: 'sync-configmaps',
    start: async (signal) => {
      starts++;
      if (starts <= failures) throw new Error(`watch failed (start ${starts})`);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  });
  return { factory, starts: () => starts };
}

describe('FederatedTypeConfig controller', () => {
  it('reports a sync controller that failed as NotRunning with the error, and restarts it with backoff', async () => {
    const ns = `kf-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, ns);
    const ftcs = fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns);
    const child = flakyChild(2);
    const errors: string[] = [];
    const manager = new Manager({ healthAddress: null, metricsAddress: null });
    const informer = manager.informer({ name: 'federatedtypeconfigs', listerWatcher: listerWatcherFor(ftcs) });
    const reconciler: FederatedTypeConfigReconciler = new FederatedTypeConfigReconciler({
      host: fed.hostClient,
      ftcs: informer.store,
      syncController: child.factory,
      onChildError: (_name, err) => errors.push((err as Error).message),
      requeue: (key) => controller.queue.add(key),
    });
    const controller = manager.controller({ name: 'federatedtypeconfig', reconciler }).watch(informer);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await ftcs.create(buildFederatedTypeConfig(CONFIG_MAPS, ns) as unknown as KubeObject);
      const status = async (): Promise<unknown> => (await ftcs.get('configmaps')).status;
      await expect
        .poll(status, { timeout: 10_000, interval: 50 })
        .toMatchObject({ propagationController: 'NotRunning', conditions: [{ type: 'Ready', status: 'False', reason: 'SyncControllerFailed', message: expect.stringContaining('watch failed') as unknown }] });
      await expect.poll(status, { timeout: 20_000, interval: 100 }).toMatchObject({ propagationController: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
      expect(child.starts()).toBe(3);
      expect(errors).toEqual(['watch failed (start 1)', 'watch failed (start 2)']);
    } finally {
      stop.abort();
      await running;
      await reconciler.close();
    }
  }, 40_000);
});
