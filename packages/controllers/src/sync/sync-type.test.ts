import { buildFederatedTypeConfig } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { Store } from '@kubefed/runtime';
import { describe, expect, it } from 'vitest';
import { syncTypeLookup, syncTypeOf } from './sync-type.js';

const configMaps = { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' } as const;
const namespaces = { group: '', version: 'v1', kind: 'Namespace', pluralName: 'namespaces', scope: 'Cluster' } as const;

describe('syncTypeOf', () => {
  it('maps an FTC to the federated and target resources', () => {
    expect(syncTypeOf(buildFederatedTypeConfig(configMaps, 'kube-federation-system'))).toEqual({
      name: 'configmaps',
      federatedGvr: { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' },
      targetGvr: { group: '', version: 'v1', resource: 'configmaps' },
      targetType: { version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' },
      federatedKind: 'FederatedConfigMap',
      statusCollection: false,
    });
  });

  it('turns status collection on for an FTC with statusCollection Enabled', () => {
    const ftc = buildFederatedTypeConfig(configMaps, 'kube-federation-system');
    ftc.spec.statusCollection = 'Enabled';
    expect(syncTypeOf(ftc).statusCollection).toBe(true);
  });
});

describe('syncTypeLookup', () => {
  it('gives a namespaced type the FederatedNamespace type of the namespaces FTC, and nothing while that FTC is missing', () => {
    const store = new Store<KubeObject>();
    store.upsert(buildFederatedTypeConfig(configMaps, 'kf') as unknown as KubeObject);
    expect(syncTypeLookup(store, 'kf')('configmaps')).toBeUndefined();
    store.upsert(
      buildFederatedTypeConfig(
        { ...namespaces, federatedGroup: 'fed.example.io', federatedVersion: 'v1alpha1' },
        'kf',
      ) as unknown as KubeObject,
    );
    expect(syncTypeLookup(store, 'kf')('configmaps')?.federatedNamespaceGvr).toEqual({
      group: 'fed.example.io',
      version: 'v1alpha1',
      resource: 'federatednamespaces',
    });
    expect(syncTypeLookup(store, 'kf')('namespaces')?.federatedNamespaceGvr).toBeUndefined();
  });

  it('finds FTCs with propagation Enabled in the kubefed namespace only', () => {
    const store = new Store<KubeObject>();
    const enabled = buildFederatedTypeConfig(configMaps, 'kf');
    const disabled = buildFederatedTypeConfig({ ...configMaps, kind: 'Secret', pluralName: 'secrets' }, 'kf');
    disabled.spec.propagation = 'Disabled';
    store.upsert(enabled as unknown as KubeObject);
    store.upsert(disabled as unknown as KubeObject);
    store.upsert(buildFederatedTypeConfig(namespaces, 'kf') as unknown as KubeObject);
    const lookup = syncTypeLookup(store, 'kf');
    expect(lookup('configmaps')?.federatedGvr.resource).toBe('federatedconfigmaps');
    expect(lookup('secrets')).toBeUndefined();
    expect(lookup('deployments.apps')).toBeUndefined();
    expect(syncTypeLookup(store, 'other')('configmaps')).toBeUndefined();
  });
});
