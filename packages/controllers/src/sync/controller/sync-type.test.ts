import { buildFederatedTypeConfig } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { Store } from '@kubefed/runtime';
import { describe, expect, it } from 'vitest';
import { syncTypeLookup, syncTypeOf } from './sync-type.js';

const configMaps = { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' } as const;

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
  it('finds FTCs with propagation Enabled in the kubefed namespace only', () => {
    const store = new Store<KubeObject>();
    const enabled = buildFederatedTypeConfig(configMaps, 'kf');
    const disabled = buildFederatedTypeConfig({ ...configMaps, kind: 'Secret', pluralName: 'secrets' }, 'kf');
    disabled.spec.propagation = 'Disabled';
    store.upsert(enabled as unknown as KubeObject);
    store.upsert(disabled as unknown as KubeObject);
    const lookup = syncTypeLookup(store, 'kf');
    expect(lookup('configmaps')?.federatedGvr.resource).toBe('federatedconfigmaps');
    expect(lookup('secrets')).toBeUndefined();
    expect(lookup('deployments.apps')).toBeUndefined();
    expect(syncTypeLookup(store, 'other')('configmaps')).toBeUndefined();
  });
});
