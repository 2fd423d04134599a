import type { PropagatedVersion } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { buildPropagatedVersion } from './build-propagated-version.js';

const fedObject = {
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedConfigMap',
  metadata: { name: 'web', namespace: 'ns', uid: 'u-1' },
};
const versions = { templateVersion: 't1', overridesVersion: 'o1' };
const existing = (templateVersion: string, clusterVersions: [string, string][]): PropagatedVersion => ({
  apiVersion: 'core.kubefed.io/v1alpha1',
  kind: 'PropagatedVersion',
  metadata: { name: 'configmap-web', namespace: 'ns', resourceVersion: '5' },
  status: {
    templateVersion,
    overridesVersion: 'o1',
    clusterVersions: clusterVersions.map(([clusterName, version]) => ({ clusterName, version })),
  },
});

describe('buildPropagatedVersion (docs/kubefed-compatibility.md §1.6, §4.4.8)', () => {
  it('creates a namespaced PropagatedVersion owned by the federated object', () => {
    const { object, changed } = buildPropagatedVersion({
      fedObject,
      targetKind: 'ConfigMap',
      versions,
      selectedClusters: ['c2', 'c1'],
      updatedVersions: new Map([
        ['c2', 'rv:7'],
        ['c1', 'rv:3'],
      ]),
    });
    expect(changed).toBe(true);
    expect(object).toEqual({
      apiVersion: 'core.kubefed.io/v1alpha1',
      kind: 'PropagatedVersion',
      metadata: {
        name: 'configmap-web',
        namespace: 'ns',
        ownerReferences: [{ apiVersion: 'types.kubefed.io/v1beta1', kind: 'FederatedConfigMap', name: 'web', uid: 'u-1' }],
      },
      status: {
        templateVersion: 't1',
        overridesVersion: 'o1',
        clusterVersions: [
          { clusterName: 'c1', version: 'rv:3' },
          { clusterName: 'c2', version: 'rv:7' },
        ],
      },
    });
  });

  it('creates a ClusterPropagatedVersion for a cluster-scoped federated object, without clusterVersions when none', () => {
    const { object } = buildPropagatedVersion({
      fedObject: { apiVersion: 'types.kubefed.io/v1beta1', kind: 'FederatedClusterRole', metadata: { name: 'admin', uid: 'u-2' } },
      targetKind: 'ClusterRole',
      versions,
      selectedClusters: [],
      updatedVersions: new Map(),
    });
    expect(object.kind).toBe('ClusterPropagatedVersion');
    expect(object.metadata).toEqual({
      name: 'clusterrole-admin',
      ownerReferences: [{ apiVersion: 'types.kubefed.io/v1beta1', kind: 'FederatedClusterRole', name: 'admin', uid: 'u-2' }],
    });
    expect(object.status).toEqual({ templateVersion: 't1', overridesVersion: 'o1' });
  });

  it.each<[string, PropagatedVersion, string[], [string, string][], [string, string][], boolean]>([
    [
      'keeps recorded versions of still-selected clusters when the hashes are unchanged',
      existing('t1', [
        ['c1', 'gen:1'],
        ['c2', 'gen:4'],
      ]),
      ['c1', 'c2'],
      [['c2', 'gen:5']],
      [
        ['c1', 'gen:1'],
        ['c2', 'gen:5'],
      ],
      true,
    ],
    [
      'drops versions of clusters that left the placement',
      existing('t1', [
        ['c1', 'gen:1'],
        ['c2', 'gen:4'],
      ]),
      ['c1'],
      [],
      [['c1', 'gen:1']],
      true,
    ],
    [
      'drops every old version when the template changed',
      existing('t0', [
        ['c1', 'gen:1'],
        ['c2', 'gen:4'],
      ]),
      ['c1', 'c2'],
      [['c1', 'gen:2']],
      [['c1', 'gen:2']],
      true,
    ],
    ['drops empty versions', existing('t1', [['c1', 'gen:1']]), ['c1', 'c2'], [['c2', '']], [['c1', 'gen:1']], false],
    ['ignores updates of unselected clusters', existing('t1', [['c1', 'gen:1']]), ['c1'], [['c9', 'rv:1']], [['c1', 'gen:1']], false],
    [
      'reports no change when the status is the same',
      existing('t1', [
        ['a', 'rv:1'],
        ['b', 'rv:2'],
      ]),
      ['a', 'b'],
      [['b', 'rv:2']],
      [
        ['a', 'rv:1'],
        ['b', 'rv:2'],
      ],
      false,
    ],
  ])('%s', (_title, stored, selected, updated, expected, changed) => {
    const before = structuredClone(stored);
    const result = buildPropagatedVersion({
      fedObject,
      targetKind: 'ConfigMap',
      versions,
      existing: stored,
      selectedClusters: selected,
      updatedVersions: new Map(updated),
    });
    expect(result.changed).toBe(changed);
    expect(result.object.status?.clusterVersions ?? []).toEqual(expected.map(([clusterName, version]) => ({ clusterName, version })));
    expect(result.object.status?.templateVersion).toBe('t1');
    expect(result.object.metadata).toEqual(stored.metadata);
    expect(result.metadataChanged).toBe(false);
    expect(stored).toEqual(before);
  });

  const UIDS = 'kubefed.io/member-uids';
  const withUids = (record: PropagatedVersion, uids: Record<string, string>): PropagatedVersion => ({
    ...record,
    metadata: { ...record.metadata, annotations: { other: 'kept', [UIDS]: JSON.stringify(uids) } },
  });

  it('creates the record with the uids of the copies in an annotation and KubeFed’s strings in the status', () => {
    const { object, metadataChanged } = buildPropagatedVersion({
      fedObject,
      targetKind: 'Deployment',
      versions,
      selectedClusters: ['c1', 'c2'],
      updatedVersions: new Map([
        ['c2', 'gen:1'],
        ['c1', 'gen:1'],
      ]),
      updatedUids: new Map([
        ['c2', 'u-2'],
        ['c1', 'u-1'],
      ]),
    });
    expect(metadataChanged).toBe(false);
    expect(object.metadata.annotations).toEqual({ [UIDS]: '{"c1":"u-1","c2":"u-2"}' });
    expect(object.status?.clusterVersions).toEqual([
      { clusterName: 'c1', version: 'gen:1' },
      { clusterName: 'c2', version: 'gen:1' },
    ]);
  });

  it.each<[string, PropagatedVersion, string[], [string, string][], [string, string][], string | undefined, boolean]>([
    [
      'adds the uid of a new copy',
      withUids(existing('t1', [['c1', 'gen:1']]), { c1: 'u-1' }),
      ['c1', 'c2'],
      [['c2', 'gen:1']],
      [['c2', 'u-2']],
      '{"c1":"u-1","c2":"u-2"}',
      true,
    ],
    [
      'keeps the annotation when an update keeps the copy (no metadata write)',
      withUids(existing('t0', [['c1', 'gen:1']]), { c1: 'u-1' }),
      ['c1'],
      [['c1', 'gen:2']],
      [['c1', 'u-1']],
      '{"c1":"u-1"}',
      false,
    ],
    [
      'replaces the uid of a copy created anew',
      withUids(existing('t1', [['c1', 'gen:1']]), { c1: 'u-1' }),
      ['c1'],
      [['c1', 'gen:1']],
      [['c1', 'u-9']],
      '{"c1":"u-9"}',
      true,
    ],
    [
      'drops the uid of a copy that is gone',
      withUids(existing('t1', [['c1', 'gen:1']]), { c1: 'u-1' }),
      ['c1'],
      [['c1', '']],
      [],
      undefined,
      true,
    ],
    [
      'drops the uid of a cluster that left the placement',
      withUids(
        existing('t1', [
          ['c1', 'gen:1'],
          ['c2', 'gen:1'],
        ]),
        { c1: 'u-1', c2: 'u-2' },
      ),
      ['c1'],
      [],
      [],
      '{"c1":"u-1"}',
      true,
    ],
    [
      'moves the uid of an older record’s gen:<n>/<uid> into the annotation',
      withUids(
        existing('t1', [
          ['c1', 'gen:1/u-1'],
          ['c2', 'rv:4'],
        ]),
        {},
      ),
      ['c1', 'c2'],
      [['c2', 'rv:5']],
      [],
      '{"c1":"u-1"}',
      true,
    ],
  ])('%s', (_title, stored, selected, updated, uids, annotation, metadataChanged) => {
    const result = buildPropagatedVersion({
      fedObject,
      targetKind: 'Deployment',
      versions,
      existing: stored,
      selectedClusters: selected,
      updatedVersions: new Map(updated),
      updatedUids: new Map(uids),
    });
    expect(result.changed).toBe(true);
    expect(result.metadataChanged).toBe(metadataChanged);
    expect(result.object.metadata.annotations).toEqual(
      annotation === undefined ? { other: 'kept' } : { other: 'kept', [UIDS]: annotation },
    );
  });

  it('rewrites an older record’s gen:<n>/<uid> strings in KubeFed’s form', () => {
    const result = buildPropagatedVersion({
      fedObject,
      targetKind: 'Deployment',
      versions,
      existing: existing('t1', [
        ['c1', 'gen:3/u-1'],
        ['c2', 'gen:2/u-2'],
      ]),
      selectedClusters: ['c1', 'c2'],
      updatedVersions: new Map([['c1', 'gen:3']]),
      updatedUids: new Map([['c1', 'u-1']]),
    });
    expect(result.changed).toBe(true);
    expect(result.object.status?.clusterVersions).toEqual([
      { clusterName: 'c1', version: 'gen:3' },
      { clusterName: 'c2', version: 'gen:2' },
    ]);
    expect(result.object.metadata.annotations).toEqual({ [UIDS]: '{"c1":"u-1","c2":"u-2"}' });
  });
});
