import type { PropagatedVersion } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { copyIsCurrent, type CurrentCopyInput } from './current-copy.js';
import { memberVersion, objectVersions, type VersionSource } from './versions.js';

const fedObject: KubeObject = {
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedDeployment',
  metadata: { name: 'web', namespace: 'ns', generation: 3 },
  spec: {
    template: { metadata: { labels: { app: 'web' } }, spec: { replicas: 2 } },
    overrides: [{ clusterName: 'c1', clusterOverrides: [{ path: '/spec/replicas', value: 5 }] }],
  },
};
const copy: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', uid: 'u1', generation: 7, labels: { app: 'web', 'kubefed.io/managed': 'true' } },
  spec: { replicas: 5 },
  status: { readyReplicas: 5 },
};
const recordFor = (fed: KubeObject, version: string): PropagatedVersion => ({
  metadata: {},
  status: { ...objectVersions(fed as unknown as VersionSource), clusterVersions: [{ clusterName: 'c1', version }] },
});
const withUid = (record: PropagatedVersion, uid: string): PropagatedVersion => ({
  ...record,
  metadata: { annotations: { 'kubefed.io/member-uids': JSON.stringify({ c1: uid }) } },
});
const current: CurrentCopyInput = {
  fedObject,
  targetType: { group: 'apps', version: 'v1', kind: 'Deployment' },
  cluster: 'c1',
  copy,
  propagatedVersion: recordFor(fedObject, memberVersion(copy)),
  versions: objectVersions(fedObject as unknown as VersionSource),
  reported: { status: '' },
  collectStatus: false,
};

describe('copyIsCurrent', () => {
  it('is true when the recorded version is the copy’s for the current template and overrides, and the cluster reported success', () => {
    expect(copyIsCurrent(current)).toBe(true);
    expect(copyIsCurrent({ ...current, reported: {} })).toBe(true);
  });

  it('is true for a record naming the copy’s uid, and for KubeFed’s record, which names none', () => {
    expect(current.propagatedVersion?.status?.clusterVersions).toEqual([{ clusterName: 'c1', version: 'gen:7' }]);
    expect(copyIsCurrent({ ...current, propagatedVersion: withUid(recordFor(fedObject, 'gen:7'), 'u1') })).toBe(true);
  });

  it.each<[string, Partial<CurrentCopyInput>]>([
    ['nothing reported for this generation', { reported: undefined }],
    ['a failure reported', { reported: { status: 'UpdateFailed' } }],
    ['ClusterNotReady reported (the cluster came back)', { reported: { status: 'ClusterNotReady' } }],
    ['no version record', { propagatedVersion: undefined }],
    ['a record of another member version (the copy drifted)', { propagatedVersion: recordFor(fedObject, 'gen:6/u1') }],
    ['a record of another uid (deleted and recreated)', { propagatedVersion: withUid(recordFor(fedObject, 'gen:7'), 'u0') }],
    ['an older record of another uid (gen:<n>/<uid>)', { propagatedVersion: recordFor(fedObject, 'gen:7/u0') }],
    [
      'an older record of this very copy (gen:<n>/<uid>, to be rewritten in KubeFed’s form)',
      { propagatedVersion: recordFor(fedObject, 'gen:7/u1') },
    ],
    [
      'a record of an older template',
      { propagatedVersion: recordFor({ ...fedObject, spec: { template: { spec: { replicas: 1 } } } }, memberVersion(copy)) },
    ],
    [
      'a copy whose labels drifted (no new generation)',
      { copy: { ...copy, metadata: { ...copy.metadata, labels: { app: 'other', 'kubefed.io/managed': 'true' } } } },
    ],
    ['a copy without the managed label', { copy: { ...copy, metadata: { ...copy.metadata, labels: { app: 'web' } } } }],
    ['a copy being deleted', { copy: { ...copy, metadata: { ...copy.metadata, deletionTimestamp: '2026-11-25T10:00:00Z' } } }],
    ['a rendering that fails (template not an object)', { fedObject: { ...fedObject, spec: { template: 'broken' } } }],
    ['status collected and reported without the copy’s status', { collectStatus: true }],
    ['status not collected but reported', { reported: { status: '', remoteStatus: { readyReplicas: 5 } } }],
  ])('is false with %s', (_, change) => {
    expect(copyIsCurrent({ ...current, ...change })).toBe(false);
  });

  it('compares the reported remoteStatus with the copy’s status when status is collected', () => {
    expect(copyIsCurrent({ ...current, collectStatus: true, reported: { status: '', remoteStatus: { readyReplicas: 5 } } })).toBe(true);
    expect(copyIsCurrent({ ...current, collectStatus: true, reported: { status: '', remoteStatus: { readyReplicas: 4 } } })).toBe(false);
  });
});
