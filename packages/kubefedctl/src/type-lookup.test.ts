import { RestMapper, StaticDiscovery } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { TypeNotFoundError, lookupType } from './type-lookup.js';

const discovery = new StaticDiscovery({
  groups: [
    { name: '', versions: ['v1'], preferredVersion: 'v1' },
    { name: 'apps', versions: ['v1'], preferredVersion: 'v1' },
    { name: 'example.com', versions: ['v1', 'v1beta1'], preferredVersion: 'v1' },
    { name: 'other.io', versions: ['v1'], preferredVersion: 'v1' },
  ],
  resources: {
    v1: [
      { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', shortNames: ['cm'] },
      { name: 'services', singularName: 'service', namespaced: true, kind: 'Service', shortNames: ['svc'] },
    ],
    'apps/v1': [
      { name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', shortNames: ['deploy'] },
      { name: 'deployments/scale', namespaced: true, kind: 'Scale' },
    ],
    'example.com/v1': [
      { name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment' },
      { name: 'services', singularName: 'service', namespaced: true, kind: 'Service' },
      { name: 'widgets', singularName: 'widget', namespaced: false, kind: 'Widget' },
    ],
    'example.com/v1beta1': [{ name: 'gadgets', singularName: 'gadget', namespaced: true, kind: 'Gadget' }],
    'other.io/v1': [{ name: 'widgets', singularName: 'widget', namespaced: false, kind: 'Widget' }],
  },
});

const mapper = new RestMapper(discovery, { minRefreshIntervalMs: Number.POSITIVE_INFINITY });

describe('lookupType', () => {
  it.each([
    ['configmaps', '', 'configmaps'],
    ['cm', '', 'configmaps'],
    ['ConfigMap', '', 'configmaps'],
    ['deployments.apps', 'apps', 'deployments'],
    ['deploy', 'apps', 'deployments'],
    ['deployments.example.com', 'example.com', 'deployments'],
    // A core-group match wins over other groups.
    ['services', '', 'services'],
    ['widgets.other.io', 'other.io', 'widgets'],
  ])('resolves %s to %s %s', async (key, group, resource) => {
    const m = await lookupType(mapper, key);
    expect({ group: m.group, resource: m.resource }).toEqual({ group, resource });
  });

  it('refuses a name matched in several non-core groups, asking for plural.group', async () => {
    await expect(lookupType(mapper, 'widget')).rejects.toThrow(
      'Multiple resources are matched by "widget": widgets.example.com, widgets.other.io. A group-qualified plural name must be provided.',
    );
    await expect(lookupType(mapper, 'deployments')).rejects.toThrow('Multiple resources are matched by "deployments"');
  });

  it('fails with TypeNotFoundError for unknown names and for types only in a non-preferred version', async () => {
    await expect(lookupType(mapper, 'nosuchthings')).rejects.toThrow('Unable to find api resource named "nosuchthings".');
    await expect(lookupType(mapper, 'nosuchthings')).rejects.toBeInstanceOf(TypeNotFoundError);
    await expect(lookupType(mapper, 'gadgets')).rejects.toBeInstanceOf(TypeNotFoundError);
    expect((await lookupType(mapper, 'gadgets', 'v1beta1')).kind).toBe('Gadget');
  });
});
