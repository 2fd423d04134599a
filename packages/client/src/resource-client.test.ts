import { describe, expect, it } from 'vitest';
import { collectionPath, qualifiedResource } from './resource-client.js';

describe('collectionPath', () => {
  it.each([
    [{ group: '', version: 'v1', resource: 'pods' }, 'demo', '/api/v1/namespaces/demo/pods'],
    [{ group: '', version: 'v1', resource: 'namespaces' }, undefined, '/api/v1/namespaces'],
    [{ group: 'apps', version: 'v1', resource: 'deployments' }, 'demo', '/apis/apps/v1/namespaces/demo/deployments'],
    [{ group: 'apps', version: 'v1', resource: 'deployments' }, '', '/apis/apps/v1/deployments'],
    [
      { group: 'core.kubefed.io', version: 'v1beta1', resource: 'kubefedclusters' },
      'kube-federation-system',
      '/apis/core.kubefed.io/v1beta1/namespaces/kube-federation-system/kubefedclusters',
    ],
  ])('builds the path of %j in namespace %j', (gvr, ns, expected) => {
    expect(collectionPath(gvr, ns)).toBe(expected);
  });
});

describe('qualifiedResource', () => {
  it.each([
    [{ group: '', version: 'v1', resource: 'configmaps' }, 'configmaps'],
    [{ group: 'apps', version: 'v1', resource: 'deployments' }, 'deployments.apps'],
  ])('names %j as %s', (gvr, expected) => {
    expect(qualifiedResource(gvr)).toBe(expected);
  });
});
