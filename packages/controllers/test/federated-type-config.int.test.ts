import { randomUUID } from 'node:crypto';
import { buildFederatedTypeConfig, type FederatedTypeOptions } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import type { JobProducer, SyncJob } from '@kubefed/queue';
import { listerWatcherFor, Manager, type Runnable } from '@kubefed/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FEDERATED_TYPE_CONFIG_GVR,
  FederatedTypeConfigReconciler,
  registerFederatedTypeConfigController,
  registerSyncPath,
  registerKubeFedClusterController,
  staticHealthCheckSettings,
  type SyncType,
} from '@kubefed/controllers';
import { consistently, createNamespace, type InProcessFederation, joinMember, startInProcessFederation } from '@kubefed/testing';
import { TARGET_TYPES } from '@kubefed/testing/fixtures';

const FEDERATED_CLUSTER_ROLES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' };
/** `namespaces` federated into a group and version other than KubeFed's defaults. */
const NAMESPACES_ELSEWHERE: FederatedTypeOptions = {
  ...TARGET_TYPES.namespaces,
  federatedGroup: 'fed.example.io',
  federatedVersion: 'v1alpha1',
};

let fed: InProcessFederation;

beforeAll(async () => {
  fed = await startInProcessFederation({
    members: { member1: {} },
    federatedTypes: [TARGET_TYPES.configMaps, TARGET_TYPES.clusterRoles, NAMESPACES_ELSEWHERE],
  });
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

/** A job producer that holds every call until released, counting how many are held at once (the sync reconciles in flight). */
class HoldingProducer implements JobProducer {
  inFlight = 0;
  maxInFlight = 0;
  #release: (() => void)[] = [];
  #released = false;

  async enqueue(job: SyncJob): Promise<void> {
    await this.enqueueBulk([job]);
  }

  async enqueueBulk(jobs: readonly SyncJob[]): Promise<void> {
    if (jobs.length === 0) return;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (!this.#released) await new Promise<void>((resolve) => this.#release.push(resolve));
    this.inFlight--;
  }

  release(): void {
    this.#released = true;
    for (const r of this.#release.splice(0)) r();
  }

  close(): Promise<void> {
    this.release();
    return Promise.resolve();
  }
}

describe('FederatedTypeConfig controller', () => {
  it('runs each sync controller with maxConcurrentReconciles reconciles at a time, never more', async () => {
    const ns = `kf-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, ns);
    await joinMember(fed, fed.member('member1'), ns);
    const producer = new HoldingProducer();
    const manager = new Manager({ healthAddress: null, metricsAddress: null });
    const clusters = registerKubeFedClusterController(manager, {
      host: fed.hostClient,
      namespace: ns,
      settings: staticHealthCheckSettings({ periodMs: 200, timeoutMs: 1000, failureThreshold: 2, successThreshold: 1 }),
    });
    const scope = { kubefedNamespace: ns };
    const path = registerSyncPath(manager, {
      host: fed.hostClient,
      scope,
      fleet: clusters.fleet,
      clusters: () => clusters.informer.store.list(),
      versions: 'memory',
      controllers: { producer, maxConcurrentReconciles: 2, watchMembers: false },
    });
    registerFederatedTypeConfigController(manager, {
      host: fed.hostClient,
      scope,
      fleet: clusters.fleet,
      syncController: path.syncController!,
    });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await expect.poll(() => clusters.fleet.isReady('member1'), { timeout: 10_000, interval: 50 }).toBe(true);
      const objects = fed.hostClient.resource(FEDERATED_CLUSTER_ROLES);
      const names = Array.from({ length: 6 }, (_, i) => `fcr-${ns}-${i}`);
      for (const name of names) {
        await objects.create({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedClusterRole',
          metadata: { name },
          spec: { template: {}, placement: { clusters: [{ name: 'member1' }] } },
        });
      }
      await fed.hostClient
        .resource(FEDERATED_TYPE_CONFIG_GVR, ns)
        .create(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, ns) as unknown as KubeObject);
      // Six objects wait to be reconciled; two reconciles are held in the producer and no third starts.
      await expect.poll(() => producer.inFlight, { timeout: 15_000, interval: 50 }).toBe(2);
      await consistently(() => expect(producer.maxInFlight).toBe(2), { durationMs: 1000 });
      producer.release();
      for (const name of names) await objects.delete(name);
    } finally {
      producer.release();
      stop.abort();
      await running;
    }
  }, 40_000);

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
      // A cluster-scoped type: a namespaced one would also wait for the namespaces FTC.
      await ftcs.create(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, ns) as unknown as KubeObject);
      const status = async (): Promise<unknown> => (await ftcs.get('clusterroles.rbac.authorization.k8s.io')).status;
      await expect.poll(status, { timeout: 10_000, interval: 50 }).toMatchObject({
        propagationController: 'NotRunning',
        conditions: [
          { type: 'Ready', status: 'False', reason: 'SyncControllerFailed', message: expect.stringContaining('watch failed') as unknown },
        ],
      });
      await expect
        .poll(status, { timeout: 20_000, interval: 100 })
        .toMatchObject({ propagationController: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
      expect(child.starts()).toBe(3);
      expect(errors).toEqual(['watch failed (start 1)', 'watch failed (start 2)']);
    } finally {
      stop.abort();
      await running;
      await reconciler.close();
    }
  }, 40_000);

  it('starts the sync controller of a namespaced type only while the namespaces FTC exists, with its FederatedNamespace type', async () => {
    const ns = `kf-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, ns);
    const ftcs = fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns);
    const started: SyncType[] = [];
    const manager = new Manager({ healthAddress: null, metricsAddress: null });
    const informer = manager.informer({ name: 'federatedtypeconfigs', listerWatcher: listerWatcherFor(ftcs) });
    const reconciler: FederatedTypeConfigReconciler = new FederatedTypeConfigReconciler({
      host: fed.hostClient,
      ftcs: informer.store,
      syncController: (type) => ({
        name: `sync-${type.name}`,
        start: async (signal) => {
          started.push(type);
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        },
      }),
      requeue: (key) => controller.queue.add(key),
    });
    const controller = manager.controller({ name: 'federatedtypeconfig', reconciler }).watch(informer);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    const status = async (): Promise<unknown> => (await ftcs.get('configmaps')).status;
    try {
      await ftcs.create(buildFederatedTypeConfig(TARGET_TYPES.configMaps, ns) as unknown as KubeObject);
      await expect.poll(status, { timeout: 10_000, interval: 50 }).toMatchObject({
        propagationController: 'NotRunning',
        conditions: [{ type: 'Ready', status: 'False', reason: 'NamespacesNotEnabled' }],
      });
      expect(started).toEqual([]);

      await ftcs.create(buildFederatedTypeConfig(NAMESPACES_ELSEWHERE, ns) as unknown as KubeObject);
      await expect
        .poll(status, { timeout: 10_000, interval: 50 })
        .toMatchObject({ propagationController: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
      expect(started.find((t) => t.name === 'configmaps')?.federatedNamespaceGvr).toEqual({
        group: 'fed.example.io',
        version: 'v1alpha1',
        resource: 'federatednamespaces',
      });

      await ftcs.delete('namespaces');
      await expect.poll(status, { timeout: 10_000, interval: 50 }).toMatchObject({
        propagationController: 'NotRunning',
        conditions: [{ type: 'Ready', status: 'False', reason: 'NamespacesNotEnabled' }],
      });
      expect(reconciler.syncType('configmaps')).toBeUndefined();
    } finally {
      stop.abort();
      await running;
      await reconciler.close();
    }
  }, 40_000);
});
