import { describe, expect, it } from 'vitest';
import { type DiscoveryDocument, StaticDiscovery } from './discovery.js';
import { NoMatchError, RestMapper } from './rest-mapper.js';
import type { Clock, TimerHandle } from './clock.js';

const document = (): DiscoveryDocument => ({
  groups: [
    { name: '', versions: ['v1'], preferredVersion: 'v1' },
    { name: 'apps', versions: ['v1'], preferredVersion: 'v1' },
    { name: 'events.k8s.io', versions: ['v1'], preferredVersion: 'v1' },
    { name: 'core.kubefed.io', versions: ['v1beta1', 'v1alpha1'], preferredVersion: 'v1beta1' },
    { name: 'example.com', versions: ['v2', 'v1'], preferredVersion: 'v2' },
  ],
  resources: {
    v1: [
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
      { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'update'] },
      { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', shortNames: ['ns'] },
      { name: 'events', singularName: 'event', namespaced: true, kind: 'Event', shortNames: ['ev'] },
      { name: 'configmaps', singularName: '', namespaced: true, kind: 'ConfigMap', shortNames: ['cm'] },
    ],
    'apps/v1': [
      { name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', shortNames: ['deploy'] },
      { name: 'deployments/scale', singularName: '', namespaced: true, kind: 'Scale' },
      { name: 'deployments/status', singularName: '', namespaced: true, kind: 'Deployment' },
    ],
    'events.k8s.io/v1': [{ name: 'events', singularName: 'event', namespaced: true, kind: 'Event', shortNames: ['ev'] }],
    'core.kubefed.io/v1beta1': [
      { name: 'kubefedclusters', singularName: 'kubefedcluster', namespaced: true, kind: 'KubeFedCluster' },
      {
        name: 'federatedtypeconfigs',
        singularName: 'federatedtypeconfig',
        namespaced: true,
        kind: 'FederatedTypeConfig',
        shortNames: ['ftc'],
      },
    ],
    'core.kubefed.io/v1alpha1': [
      { name: 'propagatedversions', singularName: 'propagatedversion', namespaced: true, kind: 'PropagatedVersion' },
    ],
    'example.com/v2': [{ name: 'widgets', singularName: 'widget', namespaced: false, kind: 'Widget' }],
    'example.com/v1': [
      { name: 'widgets', singularName: 'widget', namespaced: false, kind: 'Widget' },
      { name: 'gadgets', singularName: 'gadget', namespaced: true, kind: 'Gadget' },
    ],
  },
});

class ManualClock implements Clock {
  t = 0;
  now(): number {
    return this.t;
  }
  setTimeout(): TimerHandle {
    return undefined;
  }
  clearTimeout(): void {}
}

const mapperFor = (doc = document()) => {
  const source = new StaticDiscovery(doc, 'member1');
  const clock = new ManualClock();
  return { source, clock, mapper: new RestMapper(source, { clock, minRefreshIntervalMs: 1000 }) };
};

describe('RestMapper.resolve', () => {
  it.each([
    ['deployments.apps', 'apps', 'v1', 'deployments'],
    ['deployments', 'apps', 'v1', 'deployments'],
    ['deployment', 'apps', 'v1', 'deployments'],
    ['deploy', 'apps', 'v1', 'deployments'],
    ['Deployment', 'apps', 'v1', 'deployments'],
    ['Deployment.apps', 'apps', 'v1', 'deployments'],
    ['deployments.v1.apps', 'apps', 'v1', 'deployments'],
    ['pods', '', 'v1', 'pods'],
    ['po', '', 'v1', 'pods'],
    ['NS', '', 'v1', 'namespaces'],
    ['configmap', '', 'v1', 'configmaps'],
    ['events', '', 'v1', 'events'],
    ['events.events.k8s.io', 'events.k8s.io', 'v1', 'events'],
    ['kubefedclusters.core.kubefed.io', 'core.kubefed.io', 'v1beta1', 'kubefedclusters'],
    ['ftc', 'core.kubefed.io', 'v1beta1', 'federatedtypeconfigs'],
    ['propagatedversions', 'core.kubefed.io', 'v1alpha1', 'propagatedversions'],
    ['widgets', 'example.com', 'v2', 'widgets'],
    ['widgets.v1.example.com', 'example.com', 'v1', 'widgets'],
    ['gadget', 'example.com', 'v1', 'gadgets'],
  ])('resolves %s to %s/%s %s', async (name, group, version, resource) => {
    const m = await mapperFor().mapper.resolve(name);
    expect([m.group, m.version, m.resource]).toEqual([group, version, resource]);
  });

  it('reports scope, kind, preferred version and subresources', async () => {
    const { mapper } = mapperFor();
    const d = await mapper.resolve('deploy');
    expect(d).toMatchObject({ kind: 'Deployment', namespaced: true, preferred: true, singularName: 'deployment' });
    expect(d.subresources.sort()).toEqual(['scale', 'status']);
    expect((await mapper.resolve('namespaces')).namespaced).toBe(false);
    expect((await mapper.resolve('configmaps')).singularName).toBe('configmap');
  });

  it('lists every match of an ambiguous name, core group first', async () => {
    const all = await mapperFor().mapper.matches('events');
    expect(all.map((m) => `${m.resource}.${m.group}`)).toEqual(['events.', 'events.events.k8s.io']);
  });

  it('fails with NoMatchError naming the type and cluster', async () => {
    await expect(mapperFor().mapper.resolve('nosuchthings')).rejects.toThrow(NoMatchError);
    await expect(mapperFor().mapper.resolve('nosuchthings')).rejects.toThrow(
      'the server doesn\'t have a resource type "nosuchthings" on cluster "member1"',
    );
  });
});

describe('RestMapper kind and resource lookups', () => {
  it('maps a GVK to its GVR and back', async () => {
    const { mapper } = mapperFor();
    expect(await mapper.resourceFor({ group: 'apps', version: 'v1', kind: 'Deployment' })).toEqual({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
    });
    expect(await mapper.kindFor({ group: '', version: 'v1', resource: 'pods' })).toEqual({ group: '', version: 'v1', kind: 'Pod' });
  });

  it('picks the preferred version when none is given', async () => {
    const { mapper } = mapperFor();
    expect((await mapper.forKind({ group: 'example.com', kind: 'Widget' })).version).toBe('v2');
    expect((await mapper.forResource({ group: 'example.com', resource: 'widgets', version: 'v1' })).version).toBe('v1');
  });

  it('throws NoMatchError for an unknown kind', async () => {
    await expect(mapperFor().mapper.forKind({ group: 'apps', version: 'v1', kind: 'Nope' })).rejects.toThrow(
      'no matches for kind "Nope" in version "apps/v1"',
    );
  });
});

describe('RestMapper cache', () => {
  it('loads discovery once and serves later lookups from the cache', async () => {
    const { mapper, source } = mapperFor();
    await mapper.resolve('pods');
    await mapper.resolve('deployments');
    expect(source.calls.serverGroups).toBe(1);
  });

  it('refreshes when a type is unknown and finds a newly served type', async () => {
    const { mapper, source, clock } = mapperFor();
    await mapper.resolve('pods');
    source.document.groups.push({ name: 'types.kubefed.io', versions: ['v1beta1'], preferredVersion: 'v1beta1' });
    source.document.resources['types.kubefed.io/v1beta1'] = [
      { name: 'federateddeployments', singularName: 'federateddeployment', namespaced: true, kind: 'FederatedDeployment' },
    ];
    clock.t += 2000;
    expect((await mapper.resolve('federateddeployments.types.kubefed.io')).kind).toBe('FederatedDeployment');
    expect(source.calls.serverGroups).toBe(2);
  });

  it('does not refresh again within the minimum refresh interval', async () => {
    const { mapper, source, clock } = mapperFor();
    await mapper.resolve('pods');
    clock.t += 10;
    await expect(mapper.resolve('nothing')).rejects.toThrow(NoMatchError);
    expect(source.calls.serverGroups).toBe(1);
  });

  it('skips group versions whose discovery fails and records them', async () => {
    const doc = document();
    delete doc.resources['events.k8s.io/v1'];
    const { mapper } = mapperFor(doc);
    expect((await mapper.resolve('deployments')).group).toBe('apps');
    expect(mapper.failedGroupVersions.map((f) => f.groupVersion)).toEqual(['events.k8s.io/v1']);
  });
});
