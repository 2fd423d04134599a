import { describe, expect, it } from 'vitest';
import { podsPerNode, startLocalClusters, substrateFromEnvironment } from './local-clusters.js';
import { TestingError } from './testing-error.js';

describe('substrateFromEnvironment', () => {
  it.each([
    [undefined, 'sim'],
    ['', 'sim'],
    ['sim', 'sim'],
    ['real', 'real'],
  ] as const)('reads %j as %s', (value, substrate) => {
    expect(substrateFromEnvironment(value)).toBe(substrate);
  });

  it('refuses any other value, naming the variable', () => {
    expect(() => substrateFromEnvironment('kind')).toThrow(TestingError);
    expect(() => substrateFromEnvironment('kind')).toThrow('KUBEFED_TEST_SUBSTRATE must be sim or real, got "kind"');
  });
});

describe('podsPerNode', () => {
  it.each([
    [5, 2, [3, 2]],
    [4, 2, [2, 2]],
    [1, 2, [1, 0]],
    [0, 2, [0, 0]],
    [null, 2, [110, 110]],
  ] as const)('spreads %j pods over %i Nodes as %j', (pods, nodes, expected) => {
    expect(podsPerNode(pods, nodes)).toEqual(expected);
  });
});

describe('startLocalClusters', () => {
  it('refuses a pod capacity for a cluster it does not start, before starting any process', async () => {
    const started = startLocalClusters({
      substrate: 'sim',
      names: ['host', 'member1'],
      kubeconfigPath: '/nonexistent/kubeconfig',
      regions: {},
      podCapacity: { member9: 1 },
      simProcesses: 'host-apart',
    });
    await expect(started).rejects.toThrow(TestingError);
    await expect(started).rejects.toThrow('podCapacity names no cluster of this federation: member9 (clusters: host, member1)');
  });
});
