import { createHash } from 'node:crypto';
import type { FederatedObject, GenericOverrideItem, PropagatedVersion } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import {
  copyMatchesRecord,
  memberUid,
  memberVersion,
  needsUpdate,
  objectVersions,
  overridesVersion,
  recordedCopy,
  recordedUids,
  recordedVersion,
  splitLegacyVersion,
  templateVersion,
  type RecordedCopy,
  type VersionSource,
} from './versions.js';

const md5 = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex');

describe('templateVersion (docs/kubefed-compatibility.md §4.4.8)', () => {
  it.each<[string, VersionSource, string]>([
    ['matches KubeFed’s test vector', { spec: { template: { spec: { foo: null } } } }, 'a5b8d4352d5aed51c51b93900258ccf3'],
    ['is empty without a template', { spec: {} }, ''],
    ['is empty without a spec', {}, ''],
    [
      'hashes sorted keys plus a newline',
      { spec: { template: { spec: { b: 1, a: 'x' }, metadata: { labels: { z: '1' } } } } },
      md5('{"metadata":{"labels":{"z":"1"}},"spec":{"a":"x","b":1}}\n'),
    ],
    [
      'escapes HTML characters like Go',
      { spec: { template: { data: { html: '<b>&</b>' } } } },
      md5('{"data":{"html":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e"}}\n'),
    ],
    ['hashes an empty template', { spec: { template: {} } }, md5('{}\n')],
  ])('%s', (_title, obj, expected) => {
    expect(templateVersion(obj)).toBe(expected);
  });

  it('does not depend on key order', () => {
    expect(templateVersion({ spec: { template: { a: 1, b: { c: 2, d: 3 } } } })).toBe(
      templateVersion({ spec: { template: { b: { d: 3, c: 2 }, a: 1 } } }),
    );
  });
});

describe('overridesVersion (§4.4.8)', () => {
  const ov = (overrides: GenericOverrideItem[] | undefined): VersionSource => ({ spec: overrides === undefined ? {} : { overrides } });
  it.each<[string, VersionSource, string]>([
    ['is empty without a spec', {}, ''],
    ['hashes {"overrides":null} when there are none', ov(undefined), md5('{"overrides":null}\n')],
    ['hashes an empty list as []', ov([]), md5('{"overrides":[]}\n')],
    [
      'omits an empty clusterOverrides list',
      ov([{ clusterName: 'c1', clusterOverrides: [] }]),
      md5('{"overrides":[{"clusterName":"c1"}]}\n'),
    ],
    ['omits an absent clusterOverrides list', ov([{ clusterName: 'c1' }]), md5('{"overrides":[{"clusterName":"c1"}]}\n')],
    [
      'uses the fixed field order op, path, value and keeps list order',
      ov([
        { clusterName: 'b', clusterOverrides: [{ value: 5, path: '/spec/replicas', op: 'replace' }] },
        { clusterName: 'a', clusterOverrides: [{ path: '/x', value: 1.5 }] },
      ]),
      md5(
        '{"overrides":[{"clusterName":"b","clusterOverrides":[{"op":"replace","path":"/spec/replicas","value":5}]},{"clusterName":"a","clusterOverrides":[{"path":"/x","value":1.5}]}]}\n',
      ),
    ],
    [
      'omits an empty op',
      ov([{ clusterName: 'c', clusterOverrides: [{ op: '', path: '/p', value: 'v' }] }]),
      md5('{"overrides":[{"clusterName":"c","clusterOverrides":[{"path":"/p","value":"v"}]}]}\n'),
    ],
    [
      'omits a null value',
      ov([{ clusterName: 'c', clusterOverrides: [{ op: 'remove', path: '/p', value: null }] }]),
      md5('{"overrides":[{"clusterName":"c","clusterOverrides":[{"op":"remove","path":"/p"}]}]}\n'),
    ],
    [
      'keeps false, 0 and "" values',
      ov([
        {
          clusterName: 'c',
          clusterOverrides: [
            { path: '/a', value: false },
            { path: '/b', value: 0 },
            { path: '/c', value: '' },
          ],
        },
      ]),
      md5(
        '{"overrides":[{"clusterName":"c","clusterOverrides":[{"path":"/a","value":false},{"path":"/b","value":0},{"path":"/c","value":""}]}]}\n',
      ),
    ],
    [
      'encodes missing clusterName and path as "" like Go’s zero values',
      ov([{ clusterOverrides: [{ value: 1 }] } as unknown as GenericOverrideItem]),
      md5('{"overrides":[{"clusterName":"","clusterOverrides":[{"path":"","value":1}]}]}\n'),
    ],
    [
      'sorts keys inside object values',
      ov([{ clusterName: 'c', clusterOverrides: [{ path: '/metadata/labels', value: { z: '1', a: '2' } }] }]),
      md5('{"overrides":[{"clusterName":"c","clusterOverrides":[{"path":"/metadata/labels","value":{"a":"2","z":"1"}}]}]}\n'),
    ],
  ])('%s', (_title, obj, expected) => {
    expect(overridesVersion(obj)).toBe(expected);
  });
});

describe('memberVersion (§1.6)', () => {
  it.each<[string, KubeObject['metadata'], string]>([
    ['uses the generation when non-zero', { generation: 3, resourceVersion: '99' }, 'gen:3'],
    ['uses the resourceVersion when the generation is 0', { generation: 0, resourceVersion: '99' }, 'rv:99'],
    ['uses the resourceVersion without a generation', { resourceVersion: '12' }, 'rv:12'],
    ['is KubeFed’s string with a uid: no uid in it', { generation: 3, resourceVersion: '99', uid: 'u-1' }, 'gen:3'],
    ['is KubeFed’s string for a resourceVersion with a uid', { generation: 0, resourceVersion: '99', uid: 'u-1' }, 'rv:99'],
  ])('%s', (_title, metadata, expected) => {
    expect(memberVersion({ metadata })).toBe(expected);
  });
});

describe('memberUid', () => {
  it.each<[string, KubeObject['metadata'], string | undefined]>([
    ['is the uid of an object with a generation', { generation: 3, uid: 'u-1' }, 'u-1'],
    ['is none for a resourceVersion (new on every write anyway)', { generation: 0, resourceVersion: '99', uid: 'u-1' }, undefined],
    ['is none without a uid', { generation: 3 }, undefined],
    ['is none for an empty uid', { generation: 3, uid: '' }, undefined],
  ])('%s', (_title, metadata, expected) => {
    expect(memberUid({ metadata })).toBe(expected);
  });
});

describe('splitLegacyVersion', () => {
  it.each<[string, { version: string; uid?: string }]>([
    ['gen:3/u-1', { version: 'gen:3', uid: 'u-1' }],
    ['gen:3', { version: 'gen:3' }],
    ['rv:12', { version: 'rv:12' }],
    ['', { version: '' }],
  ])('splits %j', (stored, expected) => {
    expect(splitLegacyVersion(stored)).toEqual(expected);
  });
});

describe('recordedUids', () => {
  const withAnnotation = (text: string): PropagatedVersion => ({ metadata: { annotations: { 'kubefed.io/member-uids': text } } });
  it.each<[string, PropagatedVersion | undefined, [string, string][]]>([
    [
      'reads the uids by cluster',
      withAnnotation('{"c1":"u-1","c2":"u-2"}'),
      [
        ['c1', 'u-1'],
        ['c2', 'u-2'],
      ],
    ],
    ['is empty without the annotation (a record KubeFed wrote)', { metadata: {} }, []],
    ['is empty without a record', undefined, []],
    ['is empty for malformed JSON', withAnnotation('{"c1":'), []],
    ['is empty for JSON that is not an object', withAnnotation('["u-1"]'), []],
    ['skips values that are not uids', withAnnotation('{"c1":7,"c2":"","c3":"u-3"}'), [['c3', 'u-3']]],
  ])('%s', (_title, record, expected) => {
    expect([...recordedUids(record)]).toEqual(expected);
  });
});

describe('recordedVersion and needsUpdate (§4.4.8)', () => {
  const fedObject: FederatedObject = { metadata: { name: 'web', namespace: 'ns' }, spec: { template: { data: { a: '1' } } } };
  const versions = objectVersions(fedObject);
  const pv = (status: Partial<NonNullable<PropagatedVersion['status']>>): PropagatedVersion => ({
    metadata: { name: 'configmap-web', namespace: 'ns' },
    status: {
      ...versions,
      clusterVersions: [
        { clusterName: 'c1', version: 'gen:2' },
        { clusterName: 'c2', version: 'rv:10' },
      ],
      ...status,
    },
  });
  const meta = (m: KubeObject['metadata']): KubeObject => ({
    metadata: { name: 'web', namespace: 'ns', labels: { 'kubefed.io/managed': 'true' }, ...m },
  });

  it.each<[string, PropagatedVersion | undefined, string, string]>([
    ['returns the recorded version when both hashes match', pv({}), 'c1', 'gen:2'],
    ['returns "" for an unrecorded cluster', pv({}), 'c3', ''],
    ['returns "" when the template changed', pv({ templateVersion: 'old' }), 'c1', ''],
    ['returns "" when the overrides changed', pv({ overridesVersion: 'old' }), 'c1', ''],
    ['returns "" without a record', undefined, 'c1', ''],
  ])('recordedVersion %s', (_title, record, cluster, expected) => {
    expect(recordedVersion(record, versions, cluster)).toBe(expected);
  });

  it.each<[string, PropagatedVersion | undefined, string, KubeObject, KubeObject, boolean]>([
    ['no write when the recorded gen version matches and metadata is equal', pv({}), 'c1', meta({}), meta({ generation: 2 }), false],
    ['a write when the member generation moved (drift)', pv({}), 'c1', meta({}), meta({ generation: 3 }), true],
    ['no write when the recorded rv version matches', pv({}), 'c2', meta({}), meta({ resourceVersion: '10' }), false],
    ['a write when the member resourceVersion moved (drift)', pv({}), 'c2', meta({}), meta({ resourceVersion: '11' }), true],
    ['a write when nothing is recorded', undefined, 'c1', meta({}), meta({ generation: 2 }), true],
    ['a write when the template changed since recording', pv({ templateVersion: 'old' }), 'c1', meta({}), meta({ generation: 2 }), true],
    [
      'a write for gen: versions when labels differ',
      pv({}),
      'c1',
      meta({ labels: { a: 'b', 'kubefed.io/managed': 'true' } }),
      meta({ generation: 2 }),
      true,
    ],
    ['a write for gen: versions when annotations differ', pv({}), 'c1', meta({ annotations: { a: 'b' } }), meta({ generation: 2 }), true],
    [
      'no write for gen: versions when annotations are absent on one side and empty on the other',
      pv({}),
      'c1',
      meta({ annotations: {} }),
      meta({ generation: 2 }),
      false,
    ],
    ['a write for gen: versions when the namespace differs', pv({}), 'c1', meta({ namespace: 'other' }), meta({ generation: 2 }), true],
    ['no metadata comparison for rv: versions', pv({}), 'c2', meta({ labels: { x: 'y' } }), meta({ resourceVersion: '10' }), false],
  ])('needsUpdate: %s', (_title, record, cluster, desired, member, expected) => {
    expect(needsUpdate({ fedObject, propagatedVersion: record, cluster, desired, memberObject: member })).toBe(expected);
    expect(needsUpdate({ fedObject, versions, propagatedVersion: record, cluster, desired, memberObject: member })).toBe(expected);
  });

  const withUids = (record: PropagatedVersion, uids: Record<string, string>): PropagatedVersion => ({
    ...record,
    metadata: { ...record.metadata, annotations: { 'kubefed.io/member-uids': JSON.stringify(uids) } },
  });

  it.each<[string, PropagatedVersion | undefined, string, RecordedCopy]>([
    ['reads KubeFed’s gen: string without a uid', pv({}), 'c1', { version: 'gen:2', uid: undefined, legacy: false }],
    [
      'adds the uid of the annotation to a gen: string',
      withUids(pv({}), { c1: 'u-1' }),
      'c1',
      { version: 'gen:2', uid: 'u-1', legacy: false },
    ],
    ['never adds a uid to an rv: string', withUids(pv({}), { c2: 'u-2' }), 'c2', { version: 'rv:10', uid: undefined, legacy: false }],
    [
      'splits an older record’s gen:<n>/<uid> string',
      pv({ clusterVersions: [{ clusterName: 'c1', version: 'gen:2/u-0' }] }),
      'c1',
      { version: 'gen:2', uid: 'u-0', legacy: true },
    ],
    [
      'is unknown when the template changed',
      withUids(pv({ templateVersion: 'old' }), { c1: 'u-1' }),
      'c1',
      { version: '', uid: undefined, legacy: false },
    ],
  ])('recordedCopy %s', (_title, record, cluster, expected) => {
    expect(recordedCopy(record, versions, cluster)).toEqual(expected);
  });

  it.each<[string, RecordedCopy, KubeObject['metadata'], boolean]>([
    [
      'matches the version when no uid is known (KubeFed’s record)',
      { version: 'gen:2', legacy: false },
      { generation: 2, uid: 'any' },
      true,
    ],
    ['matches version and uid', { version: 'gen:2', uid: 'u-1', legacy: false }, { generation: 2, uid: 'u-1' }, true],
    ['refuses another uid at the same generation', { version: 'gen:2', uid: 'u-1', legacy: false }, { generation: 2, uid: 'u-9' }, false],
    ['refuses a copy without a uid when one is known', { version: 'gen:2', uid: 'u-1', legacy: false }, { generation: 2 }, false],
    ['refuses another generation', { version: 'gen:2', legacy: false }, { generation: 3, uid: 'u-1' }, false],
    [
      'matches an older record’s split string with the same uid',
      { version: 'gen:2', uid: 'u-1', legacy: true },
      { generation: 2, uid: 'u-1' },
      true,
    ],
    ['matches nothing for an unknown version', { version: '', legacy: false }, { resourceVersion: '' }, false],
  ])('copyMatchesRecord %s', (_title, recorded, metadata, expected) => {
    expect(copyMatchesRecord(recorded, { metadata })).toBe(expected);
  });

  it('writes a copy that was deleted and recreated by someone else with the same generation', () => {
    const written = meta({ generation: 1, uid: 'written-by-us' });
    const record = withUids(pv({ clusterVersions: [{ clusterName: 'c1', version: memberVersion(written) }] }), { c1: 'written-by-us' });
    expect(record.status?.clusterVersions).toEqual([{ clusterName: 'c1', version: 'gen:1' }]);
    expect(needsUpdate({ fedObject, propagatedVersion: record, cluster: 'c1', desired: meta({}), memberObject: written })).toBe(false);
    const recreated = meta({ generation: 1, uid: 'recreated-by-hand' });
    expect(needsUpdate({ fedObject, propagatedVersion: record, cluster: 'c1', desired: meta({}), memberObject: recreated })).toBe(true);
  });

  it('takes a copy at the generation of a record KubeFed wrote (no uid) for current', () => {
    const record = pv({ clusterVersions: [{ clusterName: 'c1', version: 'gen:1' }] });
    const copy = meta({ generation: 1, uid: 'written-by-kubefed' });
    expect(needsUpdate({ fedObject, propagatedVersion: record, cluster: 'c1', desired: meta({}), memberObject: copy })).toBe(false);
  });

  it('reads an older record’s gen:<n>/<uid>: current for that uid, a write for another', () => {
    const record = pv({ clusterVersions: [{ clusterName: 'c1', version: 'gen:1/u-1' }] });
    const desired = meta({});
    expect(
      needsUpdate({ fedObject, propagatedVersion: record, cluster: 'c1', desired, memberObject: meta({ generation: 1, uid: 'u-1' }) }),
    ).toBe(false);
    expect(
      needsUpdate({ fedObject, propagatedVersion: record, cluster: 'c1', desired, memberObject: meta({ generation: 1, uid: 'u-2' }) }),
    ).toBe(true);
  });
});
