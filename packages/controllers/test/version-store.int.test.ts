import { buildFederatedTypeConfig, buildFederatedTypeCrd, type FederatedTypeOptions } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { syncTypeOf, VersionStore } from '@kubefed/controllers';
import { createNamespace, startFederation, type Federation } from './federation.js';

const CONFIG_MAPS: FederatedTypeOptions = { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' };
const PROPAGATED_VERSIONS = { group: 'core.kubefed.io', version: 'v1alpha1', resource: 'propagatedversions' };

let uid = '';
const fedObject = (generation: number, data: string): KubeObject => ({
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedConfigMap',
  metadata: { name: 'settings', namespace: 'app', uid, generation },
  spec: { template: { data: { mode: data } } },
});

/** The namespace `app` with the FederatedConfigMap `settings` (the owner the records are collected with). */
async function withOwner(fed: Federation): Promise<void> {
  await createNamespace(fed.hostClient, 'app');
  await fed.hostClient.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create(buildFederatedTypeCrd(CONFIG_MAPS) as unknown as KubeObject);
  const owner = await fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' }, 'app').create(fedObject(1, 'a'));
  uid = owner.metadata.uid ?? '';
}

describe('VersionStore', () => {
  it('coalesces concurrent writes of many clusters into few writes of one PropagatedVersion', async () => {
    await using fed = await startFederation({});
    await withOwner(fed);
    const store = new VersionStore(fed.hostClient);
    const type = syncTypeOf(buildFederatedTypeConfig(CONFIG_MAPS, 'kube-federation-system'));
    const clusters = Array.from({ length: 10 }, (_, i) => `member${i}`);
    const pvs = fed.hostClient.resource(PROPAGATED_VERSIONS, 'app');
    const events: string[] = [];
    const abort = new AbortController();
    const watching = (async () => {
      for await (const e of pvs.watch({ signal: abort.signal })) events.push(e.type);
    })().catch(() => undefined);

    await Promise.all(clusters.map((cluster, i) => store.record({ type, fedObject: fedObject(1, 'a'), cluster, version: `rv:${100 + i}`, selectedClusters: clusters })));
    const pv = await pvs.get('configmap-settings');
    expect((pv.status as { clusterVersions?: unknown[] }).clusterVersions).toEqual(clusters.map((clusterName, i) => ({ clusterName, version: `rv:${100 + i}` })));
    // Create + its status, then one status write for the nine that waited: never one write each.
    await expect.poll(() => events.length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    expect(events.length).toBeLessThanOrEqual(3);
    abort.abort();
    await watching;
  });

  it('drops cluster versions of an older template when a newer one is recorded', async () => {
    await using fed = await startFederation({});
    await withOwner(fed);
    const store = new VersionStore(fed.hostClient);
    const type = syncTypeOf(buildFederatedTypeConfig(CONFIG_MAPS, 'kube-federation-system'));
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
