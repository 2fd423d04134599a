import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { type ClusterOperation, type ClusterSyncInput, type MemberObservation, planClusterSync } from './dispatch-plan.js';

const HOST_UID = 'host-ns-uid';
const obj = (opts: { label?: string; terminating?: boolean; uid?: string } = {}): KubeObject => ({
  metadata: {
    name: 'web',
    namespace: 'ns',
    uid: opts.uid ?? 'member-uid',
    ...(opts.label === undefined ? {} : { labels: { 'kubefed.io/managed': opts.label } }),
    ...(opts.terminating === true ? { deletionTimestamp: '2026-11-21T10:00:00Z' } : {}),
  },
});
const present = (o: KubeObject): MemberObservation => ({ state: 'present', object: o });
const absent: MemberObservation = { state: 'absent' };
const unreadable: MemberObservation = { state: 'unreadable', error: new Error('cache broken') };
const managed = obj({ label: 'true' });
const unlabelled = obj();
const labelFalse = obj({ label: 'false' });
const terminating = obj({ label: 'true', terminating: true });
const hostNs = obj({ label: 'true', uid: HOST_UID });
const hostNsUnlabelled = obj({ uid: HOST_UID });

type Row = [string, Omit<ClusterSyncInput, 'cluster'>, Omit<ClusterOperation, 'cluster'>];

describe('planClusterSync (docs/kubefed-compatibility.md §4.4.9 table)', () => {
  it.each<Row>([
    [
      'a selected cluster that is not Ready reports ClusterNotReady',
      { ready: false, selected: true, member: present(managed) },
      { op: 'none', status: 'ClusterNotReady' },
    ],
    [
      'an unselected cluster that is not Ready is left alone without status',
      { ready: false, selected: false, member: present(managed) },
      { op: 'none' },
    ],
    [
      'an unreadable cache reports CachedRetrievalFailed (selected)',
      { ready: true, selected: true, member: unreadable },
      { op: 'none', status: 'CachedRetrievalFailed' },
    ],
    [
      'an unreadable cache reports CachedRetrievalFailed (unselected)',
      { ready: true, selected: false, member: unreadable },
      { op: 'none', status: 'CachedRetrievalFailed' },
    ],
    ['an unselected cluster without the object needs nothing', { ready: true, selected: false, member: absent }, { op: 'none' }],
    [
      'an unselected terminating object reports WaitingForRemoval',
      { ready: true, selected: false, member: present(terminating) },
      { op: 'none', status: 'WaitingForRemoval', member: terminating },
    ],
    [
      'an unselected managed object is deleted',
      { ready: true, selected: false, member: present(managed) },
      { op: 'delete', status: 'DeletionTimedOut', member: managed },
    ],
    [
      'an unselected host namespace is unlabelled, never deleted (§4.4.12)',
      { ready: true, selected: false, member: present(hostNs), hostNamespaceUid: HOST_UID },
      { op: 'unlabel', status: 'LabelRemovalTimedOut', member: hostNs },
    ],
    [
      'an unselected object without the managed label is never touched',
      { ready: true, selected: false, member: present(unlabelled) },
      { op: 'none' },
    ],
    ['an unselected object labelled false is never touched', { ready: true, selected: false, member: present(labelFalse) }, { op: 'none' }],
    [
      'a selected cluster without the object gets a create',
      { ready: true, selected: true, member: absent },
      { op: 'create', status: 'CreationTimedOut' },
    ],
    [
      'a selected managed object gets an update',
      { ready: true, selected: true, member: present(managed) },
      { op: 'update', status: 'UpdateTimedOut', member: managed },
    ],
    [
      'a selected terminating managed object still gets an update (as KubeFed)',
      { ready: true, selected: true, member: present(terminating) },
      { op: 'update', status: 'UpdateTimedOut', member: terminating },
    ],
    [
      'a selected unlabelled object is adopted by default (§9.3)',
      { ready: true, selected: true, member: present(unlabelled) },
      { op: 'update', status: 'UpdateTimedOut', member: unlabelled, adopt: true },
    ],
    [
      'a selected unlabelled object is adopted with adoptResources Enabled',
      { ready: true, selected: true, member: present(unlabelled), adoptResources: 'Enabled' },
      { op: 'update', status: 'UpdateTimedOut', member: unlabelled, adopt: true },
    ],
    [
      'a selected unlabelled object reports AlreadyExists with adoptResources Disabled',
      { ready: true, selected: true, member: present(unlabelled), adoptResources: 'Disabled' },
      { op: 'none', status: 'AlreadyExists' },
    ],
    [
      'a selected object labelled false reports ManagedLabelFalse',
      { ready: true, selected: true, member: present(labelFalse) },
      { op: 'none', status: 'ManagedLabelFalse' },
    ],
    [
      'a selected object labelled false reports AlreadyExists when adoption is disabled (checked first)',
      { ready: true, selected: true, member: present(labelFalse), adoptResources: 'Disabled' },
      { op: 'none', status: 'AlreadyExists' },
    ],
    [
      'the host namespace is adopted even with adoption disabled',
      { ready: true, selected: true, member: present(hostNsUnlabelled), adoptResources: 'Disabled', hostNamespaceUid: HOST_UID },
      { op: 'update', status: 'UpdateTimedOut', member: hostNsUnlabelled, adopt: true },
    ],
  ])('%s', (_title, input, expected) => {
    expect(planClusterSync({ cluster: 'c1', ...input })).toEqual({ cluster: 'c1', ...expected });
  });
});
