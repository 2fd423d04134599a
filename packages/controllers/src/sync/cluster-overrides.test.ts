import type { ClusterOverride, GenericOverrideItem } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { applyClusterOverrides, clusterOverridesFor } from './cluster-overrides.js';
import { ApplyOverridesError } from './errors.js';

const fed = (overrides?: GenericOverrideItem[]) => ({
  metadata: { name: 'web', namespace: 'ns' },
  spec: overrides === undefined ? {} : { overrides },
});

describe('clusterOverridesFor (docs/kubefed-compatibility.md §1.4, §4.4.7)', () => {
  const overrides: GenericOverrideItem[] = [
    { clusterName: 'c1', clusterOverrides: [{ path: '/spec/replicas', value: 1 }] },
    { clusterName: 'c2' },
  ];
  it.each<[string, GenericOverrideItem[] | undefined, string, readonly ClusterOverride[]]>([
    ['returns the overrides of the cluster', overrides, 'c1', [{ path: '/spec/replicas', value: 1 }]],
    ['returns [] for a cluster listed without overrides', overrides, 'c2', []],
    ['returns [] for a cluster not listed', overrides, 'c3', []],
    ['returns [] without overrides', undefined, 'c1', []],
  ])('%s', (_title, list, cluster, expected) => {
    expect(clusterOverridesFor(fed(list), cluster)).toEqual(expected);
  });

  it.each<[string, GenericOverrideItem[], RegExp]>([
    ['a duplicate cluster', [{ clusterName: 'c1' }, { clusterName: 'c1' }], /cluster "c1" appears more than once/],
    [
      'a duplicate path',
      [{ clusterName: 'c1', clusterOverrides: [{ path: '/a' }, { path: '/a' }] }],
      /path "\/a" appears more than once for cluster "c1"/,
    ],
    [
      'a forbidden path /kind',
      [{ clusterName: 'c1', clusterOverrides: [{ path: '/kind' }] }],
      /override\[0\] for cluster "c1" has an invalid path: \/kind/,
    ],
    [
      'a forbidden path /metadata/generateName',
      [{ clusterName: 'c1', clusterOverrides: [{ path: '/metadata/generateName' }] }],
      /invalid path: \/metadata\/generateName/,
    ],
  ])('rejects %s for every cluster with "Error reading cluster overrides"', (_title, list, message) => {
    for (const cluster of ['c1', 'other']) {
      expect(() => clusterOverridesFor(fed(list), cluster)).toThrow(ApplyOverridesError);
      expect(() => clusterOverridesFor(fed(list), cluster)).toThrow(/^Error reading cluster overrides: /);
      expect(() => clusterOverridesFor(fed(list), cluster)).toThrow(message);
    }
  });
});

describe('applyClusterOverrides (§4.4.7)', () => {
  const obj = { metadata: { name: 'web' }, spec: { replicas: 2, list: ['a'] } };
  it.each<[string, ClusterOverride[], unknown]>([
    ['applies nothing for an empty list', [], obj],
    ['treats a missing op as replace', [{ path: '/spec/replicas', value: 3 }], { ...obj, spec: { replicas: 3, list: ['a'] } }],
    ['treats an empty op as replace', [{ op: '', path: '/spec/replicas', value: 4 }], { ...obj, spec: { replicas: 4, list: ['a'] } }],
    ['adds to a list', [{ op: 'add', path: '/spec/list/0', value: 'z' }], { ...obj, spec: { replicas: 2, list: ['z', 'a'] } }],
    ['removes a key', [{ op: 'remove', path: '/spec/list' }], { ...obj, spec: { replicas: 2 } }],
  ])('%s', (_title, overrides, expected) => {
    const before = structuredClone(obj);
    expect(applyClusterOverrides(obj, overrides, 'c1')).toEqual(expected);
    expect(obj).toEqual(before);
  });

  it('names the cluster, the override index, its op and path on failure', () => {
    expect(() =>
      applyClusterOverrides(
        obj,
        [
          { path: '/spec/replicas', value: 1 },
          { op: 'remove', path: '/spec/nope' },
        ],
        'c9',
      ),
    ).toThrow('cannot apply override[1] for cluster "c9": remove "/spec/nope": the key "nope" does not exist');
  });
});
