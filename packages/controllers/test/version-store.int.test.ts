import { buildFederatedTypeConfig, buildFederatedTypeCrd } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { syncTypeOf, VersionStore, type VersionCaches, watchPropagatedVersions } from '@kubefed/controllers';
import { Informer, listerWatcherFor } from '@kubefed/runtime';
import { createNamespace, type InProcessFederation, startInProcessFederation } from '@kubefed/testing';
import { TARGET_TYPES } from '@kubefed/testing/fixtures';

const PROPAGATED_VERSIONS = { group: 'core.kubefed.io', version: 'v1alpha1', resource: 'propagatedversions' };

let uid = '';
const fedObject = (generation: number, data: string): KubeObject => ({
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedConfigMap',
  metadata: { name: 'settings', namespace: 'app', uid, generation },
  spec: { template: { data: { mode: data } } },
});

/** The namespace `app` with the FederatedConfigMap `settings` (the owner the records are collected with). */
async function withOwner(fed: InProcessFederation): Promise<void> {
  await createNamespace(fed.hostClient, 'app');
  await fed.hostClient
    .resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' })
    .create(buildFederatedTypeCrd(TARGET_TYPES.configMaps) as unknown as KubeObject);
  const owner = await fed.hostClient
    .resource({ group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' }, 'app')
    .create(fedObject(1, 'a'));
  uid = owner.metadata.uid ?? '';
}

/** A PropagatedVersion informer on the host, started until `signal` aborts, and synced. */
async function versionCaches(fed: InProcessFederation, signal: AbortSignal): Promise<VersionCaches & { running: Promise<void> }> {
  const namespaced = new Informer({
    name: 'propagatedversions',
    listerWatcher: listerWatcherFor(fed.hostClient.resource(PROPAGATED_VERSIONS)),
  });
  const running = namespaced.start(signal);
  await namespaced.waitForSync(signal);
  return { namespaced, running };
}

describe('VersionStore', () => {
  it('reads records from its synced watch cache: no host request once a record is known', async () => {
    await using fed = await startInProcessFederation();
    await withOwner(fed);
    const abort = new AbortController();
    const caches = await versionCaches(fed, abort.signal);
    const type = syncTypeOf(buildFederatedTypeConfig(TARGET_TYPES.configMaps, 'kube-federation-system'));
    // Written by another process: this store learns it from the watch.
    await new VersionStore(fed.hostClient).record({
      type,
      fedObject: fedObject(1, 'a'),
      cluster: 'member1',
      version: 'rv:7',
      selectedClusters: ['member1'],
    });
    const store = new VersionStore(fed.hostClient, { caches });
    await expect
      .poll(async () => (await store.get(type, fedObject(1, 'a')))?.status?.clusterVersions, { timeout: 10_000 })
      .toEqual([{ clusterName: 'member1', version: 'rv:7' }]);
    // Every host request fails now: reads still answer, from the cache.
    fed.host.faults.failRate(1, 500);
    expect((await store.get(type, fedObject(1, 'a')))?.status?.clusterVersions).toEqual([{ clusterName: 'member1', version: 'rv:7' }]);
    fed.host.faults.restore();
    abort.abort();
    await caches.running;
  });

  it('caches the records of watchPropagatedVersions without managedFields, and updates them keeping the host’s', async () => {
    await using fed = await startInProcessFederation();
    await withOwner(fed);
    const abort = new AbortController();
    const started: Promise<void>[] = [];
    // The manager's part: informers created, then started.
    const caches = watchPropagatedVersions(
      {
        informer: (options) => {
          const informer = new Informer(options);
          started.push(informer.start(abort.signal));
          return informer;
        },
      },
      { host: fed.hostClient, namespace: 'app' },
    );
    await caches.namespaced?.waitForSync(abort.signal);
    const type = syncTypeOf(buildFederatedTypeConfig(TARGET_TYPES.configMaps, 'kube-federation-system'));
    const store = new VersionStore(fed.hostClient, { caches });
    const write = { type, fedObject: fedObject(1, 'a'), selectedClusters: ['member1', 'member2'] };
    await store.record({ ...write, cluster: 'member1', version: 'rv:7' });
    const host = fed.hostClient.resource(PROPAGATED_VERSIONS, 'app');
    const [record] = (await host.list()).items;
    expect(record?.metadata.managedFields).not.toEqual([]);
    await expect
      .poll(() => caches.namespaced?.store.get(`app/${record?.metadata.name ?? ''}`)?.metadata.resourceVersion)
      .toBe(record?.metadata.resourceVersion);
    expect(caches.namespaced?.store.get(`app/${record?.metadata.name ?? ''}`)?.metadata.managedFields).toBeUndefined();

    // Another store (no record of its own in memory) reads the record from the cache and updates it.
    await new VersionStore(fed.hostClient, { caches }).record({ ...write, cluster: 'member2', version: 'rv:8' });
    const updated = await host.get(record?.metadata.name ?? '');
    expect((updated['status'] as { clusterVersions?: unknown } | undefined)?.clusterVersions).toEqual([
      { clusterName: 'member1', version: 'rv:7' },
      { clusterName: 'member2', version: 'rv:8' },
    ]);
    expect(updated.metadata.managedFields).toEqual(expect.arrayContaining(record?.metadata.managedFields as unknown[]));
    abort.abort();
    await Promise.all(started);
  });

  it('reads back its own write at once, before the watch delivers it', async () => {
    await using fed = await startInProcessFederation();
    await withOwner(fed);
    const abort = new AbortController();
    const caches = await versionCaches(fed, abort.signal);
    const type = syncTypeOf(buildFederatedTypeConfig(TARGET_TYPES.configMaps, 'kube-federation-system'));
    const store = new VersionStore(fed.hostClient, { caches });
    const selectedClusters = ['member1', 'member2'];
    for (let i = 0; i < 20; i++) {
      await store.record({ type, fedObject: fedObject(1, 'a'), cluster: `member${(i % 2) + 1}`, version: `rv:${i}`, selectedClusters });
      // Each read follows its write immediately: a lagging cache must not answer with an older record.
      const expected =
        i === 0
          ? [{ clusterName: 'member1', version: 'rv:0' }]
          : [
              { clusterName: 'member1', version: `rv:${i % 2 === 0 ? i : i - 1}` },
              { clusterName: 'member2', version: `rv:${i % 2 === 1 ? i : i - 1}` },
            ];
      expect((await store.get(type, fedObject(1, 'a')))?.status?.clusterVersions).toEqual(expected);
    }
    abort.abort();
    await caches.running;
  });

  it('coalesces concurrent writes of many clusters into few writes of one PropagatedVersion', async () => {
    await using fed = await startInProcessFederation();
    await withOwner(fed);
    const store = new VersionStore(fed.hostClient);
    const type = syncTypeOf(buildFederatedTypeConfig(TARGET_TYPES.configMaps, 'kube-federation-system'));
    const clusters = Array.from({ length: 10 }, (_, i) => `member${i}`);
    const pvs = fed.hostClient.resource(PROPAGATED_VERSIONS, 'app');
    const events: string[] = [];
    const abort = new AbortController();
    const watching = (async () => {
      for await (const e of pvs.watch({ signal: abort.signal })) events.push(e.type);
    })().catch(() => undefined);

    await Promise.all(
      clusters.map((cluster, i) =>
        store.record({ type, fedObject: fedObject(1, 'a'), cluster, version: `rv:${100 + i}`, selectedClusters: clusters }),
      ),
    );
    const pv = await pvs.get('configmap-settings');
    expect((pv.status as { clusterVersions?: unknown[] }).clusterVersions).toEqual(
      clusters.map((clusterName, i) => ({ clusterName, version: `rv:${100 + i}` })),
    );
    // Create + its status, then one status write for the nine that waited: never one write each.
    await expect.poll(() => events.length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    expect(events.length).toBeLessThanOrEqual(3);
    abort.abort();
    await watching;
  });

  it('keeps KubeFed’s strings in the status and the uids of the copies in kubefed.io/member-uids, whose write a new copy alone costs', async () => {
    await using fed = await startInProcessFederation();
    await withOwner(fed);
    const store = new VersionStore(fed.hostClient);
    const type = syncTypeOf(buildFederatedTypeConfig(TARGET_TYPES.configMaps, 'kube-federation-system'));
    const pvs = fed.hostClient.resource(PROPAGATED_VERSIONS, 'app');
    const events: string[] = [];
    const abort = new AbortController();
    // From the list's resourceVersion: every write is seen, however late the watch connects.
    const from = (await pvs.list()).metadata?.resourceVersion;
    const watching = (async () => {
      for await (const e of pvs.watch({ signal: abort.signal, resourceVersion: from })) events.push(e.type);
    })().catch(() => undefined);
    const write = { type, fedObject: fedObject(1, 'a'), selectedClusters: ['member1', 'member2'] };
    const record = async () => {
      const pv = await pvs.get('configmap-settings');
      return {
        versions: (pv.status as { clusterVersions?: unknown }).clusterVersions,
        uids: pv.metadata.annotations?.['kubefed.io/member-uids'],
      };
    };

    // The first copy: create (with the annotation) and status.
    await store.record({ ...write, cluster: 'member1', version: 'gen:1', uid: 'u-1' });
    expect(await record()).toEqual({ versions: [{ clusterName: 'member1', version: 'gen:1' }], uids: '{"member1":"u-1"}' });
    await expect.poll(() => events.length, { timeout: 5000 }).toBe(2);
    // A second copy: its uid (metadata), then the status.
    await store.record({ ...write, cluster: 'member2', version: 'gen:1', uid: 'u-2' });
    expect(await record()).toEqual({
      versions: [
        { clusterName: 'member1', version: 'gen:1' },
        { clusterName: 'member2', version: 'gen:1' },
      ],
      uids: '{"member1":"u-1","member2":"u-2"}',
    });
    await expect.poll(() => events.length, { timeout: 5000 }).toBe(4);
    // An update keeps the copy: the status alone.
    await store.record({ ...write, cluster: 'member1', version: 'gen:2', uid: 'u-1' });
    expect(await record()).toEqual({
      versions: [
        { clusterName: 'member1', version: 'gen:2' },
        { clusterName: 'member2', version: 'gen:1' },
      ],
      uids: '{"member1":"u-1","member2":"u-2"}',
    });
    await expect.poll(() => events.length, { timeout: 5000 }).toBe(5);
    abort.abort();
    await watching;
  });

  it('drops cluster versions of an older template when a newer one is recorded', async () => {
    await using fed = await startInProcessFederation();
    await withOwner(fed);
    const store = new VersionStore(fed.hostClient);
    const type = syncTypeOf(buildFederatedTypeConfig(TARGET_TYPES.configMaps, 'kube-federation-system'));
    const selectedClusters = ['member1', 'member2'];
    await store.record({ type, fedObject: fedObject(1, 'a'), cluster: 'member1', version: 'rv:1', selectedClusters });
    await Promise.all([
      store.record({ type, fedObject: fedObject(1, 'a'), cluster: 'member2', version: 'rv:2', selectedClusters }),
      store.record({ type, fedObject: fedObject(2, 'b'), cluster: 'member1', version: 'rv:3', selectedClusters }),
    ]);
    const pv = await store.get(type, fedObject(2, 'b'));
    expect(pv?.status?.clusterVersions).toEqual([{ clusterName: 'member1', version: 'rv:3' }]);
  });
});
