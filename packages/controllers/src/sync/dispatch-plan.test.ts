import type { FederatedObject, KubeFedCluster } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import {
  type ClusterOperation,
  type ClusterSyncInput,
  type DeletionPlan,
  type DispatchInput,
  isReleased,
  type MemberObservation,
  operationOutcomeStatus,
  type OperationOutcome,
  planClusterSync,
  planDispatch,
  planRelease,
} from './dispatch-plan.js';
import { DeleteOptionsError } from './errors.js';

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
const hostNsTerminating = obj({ label: 'true', uid: HOST_UID, terminating: true });

type Row = [string, Omit<ClusterSyncInput, 'cluster'>, Omit<ClusterOperation, 'cluster'>];

describe('planClusterSync (§4.4.9 table)', () => {
  it.each<Row>([
    ['a selected cluster that is not Ready reports ClusterNotReady', { ready: false, selected: true, member: present(managed) }, { op: 'none', status: 'ClusterNotReady' }],
    ['an unselected cluster that is not Ready is left alone without status', { ready: false, selected: false, member: present(managed) }, { op: 'none' }],
    ['an unreadable cache reports CachedRetrievalFailed (selected)', { ready: true, selected: true, member: unreadable }, { op: 'none', status: 'CachedRetrievalFailed' }],
    ['an unreadable cache reports CachedRetrievalFailed (unselected)', { ready: true, selected: false, member: unreadable }, { op: 'none', status: 'CachedRetrievalFailed' }],
    ['an unselected cluster without the object needs nothing', { ready: true, selected: false, member: absent }, { op: 'none' }],
    ['an unselected terminating object reports WaitingForRemoval', { ready: true, selected: false, member: present(terminating) }, { op: 'none', status: 'WaitingForRemoval', member: terminating }],
    ['an unselected managed object is deleted', { ready: true, selected: false, member: present(managed) }, { op: 'delete', status: 'DeletionTimedOut', member: managed }],
    ['an unselected host namespace is unlabelled, never deleted (§4.4.12)', { ready: true, selected: false, member: present(hostNs), hostNamespaceUid: HOST_UID }, { op: 'unlabel', status: 'LabelRemovalTimedOut', member: hostNs }],
    ['an unselected object without the managed label is never touched', { ready: true, selected: false, member: present(unlabelled) }, { op: 'none' }],
    ['an unselected object labelled false is never touched', { ready: true, selected: false, member: present(labelFalse) }, { op: 'none' }],
    ['a selected cluster without the object gets a create', { ready: true, selected: true, member: absent }, { op: 'create', status: 'CreationTimedOut' }],
    ['a selected managed object gets an update', { ready: true, selected: true, member: present(managed) }, { op: 'update', status: 'UpdateTimedOut', member: managed }],
    ['a selected terminating managed object still gets an update (as KubeFed)', { ready: true, selected: true, member: present(terminating) }, { op: 'update', status: 'UpdateTimedOut', member: terminating }],
    ['a selected unlabelled object is adopted by default (§9.3)', { ready: true, selected: true, member: present(unlabelled) }, { op: 'update', status: 'UpdateTimedOut', member: unlabelled, adopt: true }],
    ['a selected unlabelled object is adopted with adoptResources Enabled', { ready: true, selected: true, member: present(unlabelled), adoptResources: 'Enabled' }, { op: 'update', status: 'UpdateTimedOut', member: unlabelled, adopt: true }],
    ['a selected unlabelled object reports AlreadyExists with adoptResources Disabled', { ready: true, selected: true, member: present(unlabelled), adoptResources: 'Disabled' }, { op: 'none', status: 'AlreadyExists' }],
    ['a selected object labelled false reports ManagedLabelFalse', { ready: true, selected: true, member: present(labelFalse) }, { op: 'none', status: 'ManagedLabelFalse' }],
    ['a selected object labelled false reports AlreadyExists when adoption is disabled (checked first)', { ready: true, selected: true, member: present(labelFalse), adoptResources: 'Disabled' }, { op: 'none', status: 'AlreadyExists' }],
    ['the host namespace is adopted even with adoption disabled', { ready: true, selected: true, member: present(hostNsUnlabelled), adoptResources: 'Disabled', hostNamespaceUid: HOST_UID }, { op: 'update', status: 'UpdateTimedOut', member: hostNsUnlabelled, adopt: true }],
  ])('%s', (_title, input, expected) => {
    expect(planClusterSync({ cluster: 'c1', ...input })).toEqual({ cluster: 'c1', ...expected });
  });
});

describe('operationOutcomeStatus (§4.4.9)', () => {
  it.each<[ClusterOperation['op'], OperationOutcome, string | undefined]>([
    ['create', 'succeeded', ''],
    ['create', 'failed', 'CreationFailed'],
    ['create', 'timedOut', 'CreationTimedOut'],
    ['update', 'succeeded', ''],
    ['update', 'failed', 'UpdateFailed'],
    ['update', 'timedOut', 'UpdateTimedOut'],
    ['delete', 'succeeded', 'WaitingForRemoval'],
    ['delete', 'failed', 'DeletionFailed'],
    ['delete', 'timedOut', 'DeletionTimedOut'],
    ['unlabel', 'succeeded', undefined],
    ['unlabel', 'failed', 'LabelRemovalFailed'],
    ['unlabel', 'timedOut', 'LabelRemovalTimedOut'],
  ])('%s %s → %j', (op, outcome, expected) => {
    expect(operationOutcomeStatus({ cluster: 'c', op }, outcome)).toBe(expected);
  });

  it('keeps the planned status of a none operation', () => {
    expect(operationOutcomeStatus({ cluster: 'c', op: 'none', status: 'ClusterNotReady' }, 'succeeded')).toBe('ClusterNotReady');
  });
});

const cluster = (name: string, ready = true): KubeFedCluster => ({
  metadata: { name },
  spec: { apiEndpoint: `https://${name}`, secretRef: { name } },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastProbeTime: 't', lastTransitionTime: 't' }] },
});
const fed = (metadata: DispatchInput['fedObject']['metadata'] = {}): DispatchInput['fedObject'] => ({ metadata });
const DELETING = { deletionTimestamp: '2026-11-21T10:00:00Z', finalizers: ['kubefed.io/sync-controller'] };

describe('planDispatch: sync flow', () => {
  it('plans every registered cluster, sorted by name', () => {
    const plan = planDispatch({
      fedObject: fed(),
      clusters: [cluster('e'), cluster('d', false), cluster('c'), cluster('b'), cluster('a')],
      placement: ['a', 'b', 'd'],
      members: new Map([
        ['b', present(managed)],
        ['c', present(managed)],
        ['e', unreadable],
      ]),
    });
    expect(plan).toEqual({
      mode: 'sync',
      operations: [
        { cluster: 'a', op: 'create', status: 'CreationTimedOut' },
        { cluster: 'b', op: 'update', status: 'UpdateTimedOut', member: managed },
        { cluster: 'c', op: 'delete', status: 'DeletionTimedOut', member: managed },
        { cluster: 'd', op: 'none', status: 'ClusterNotReady' },
        { cluster: 'e', op: 'none', status: 'CachedRetrievalFailed' },
      ],
    });
  });

  it('accepts a parsed FederatedObject', () => {
    const fedObject: FederatedObject = { metadata: { name: 'web', namespace: 'ns', finalizers: ['kubefed.io/sync-controller'] }, spec: {} };
    expect(planDispatch({ fedObject, clusters: [cluster('a')], placement: ['a'], members: new Map() })).toEqual({
      mode: 'sync',
      operations: [{ cluster: 'a', op: 'create', status: 'CreationTimedOut' }],
    });
  });

  it('removes every copy when the placement is empty (e.g. NamespaceNotFederated, §4.4.4)', () => {
    const plan = planDispatch({ fedObject: fed(), clusters: [cluster('a'), cluster('b')], placement: [], members: new Map([['a', present(managed)]]) });
    expect(plan).toEqual({ mode: 'sync', operations: [{ cluster: 'a', op: 'delete', status: 'DeletionTimedOut', member: managed }, { cluster: 'b', op: 'none' }] });
  });
});

describe('planDispatch: deletion flow (§4.4.11)', () => {
  const clusters = [cluster('a'), cluster('b'), cluster('c'), cluster('d', false), cluster('out')];

  it('does nothing when the finalizer is already gone', () => {
    expect(planDispatch({ fedObject: fed({ deletionTimestamp: 'x' }), clusters, placement: ['a'], members: new Map([['a', present(managed)]]) })).toEqual({ mode: 'finalized' });
  });

  it.each<[string, DispatchInput['fedObject']['metadata'], string[], [string, MemberObservation][], Partial<DeletionPlan>]>([
    [
      'deletes managed objects in placement clusters with the delete options, leaving other clusters alone',
      { ...DELETING, annotations: { 'kubefed.io/deleteoption': '{"propagationPolicy":"Orphan"}' } },
      ['a', 'b', 'c'],
      [['a', present(managed)], ['b', present(terminating)], ['out', present(managed)]],
      {
        mode: 'delete',
        removeFinalizerFirst: false,
        operations: [{ cluster: 'a', op: 'delete', member: managed, deleteOptions: { propagationPolicy: 'Orphan' } }],
        remainingClusters: ['a', 'b'],
        unreadyClusters: [],
        unreadableClusters: [],
        deleteOptions: { propagationPolicy: 'Orphan' },
        next: 'recheck',
      },
    ],
    [
      'remembers a not-ready placement cluster as an error but still issues the other operations',
      DELETING,
      ['a', 'd'],
      [['a', present(managed)], ['d', present(managed)]],
      { operations: [{ cluster: 'a', op: 'delete', member: managed, deleteOptions: {} }], unreadyClusters: ['d'], remainingClusters: ['a'], next: 'error' },
    ],
    ['remembers an unreadable cache as an error', DELETING, ['a', 'b'], [['b', unreadable]], { operations: [], unreadableClusters: ['b'], remainingClusters: [], next: 'error' }],
    ['goes on to verification when nothing remains', DELETING, ['a', 'b'], [['a', present(unlabelled)]], { operations: [], remainingClusters: [], next: 'verifyAndRemoveFinalizer' }],
    [
      'unlabels the host namespace instead of deleting it',
      DELETING,
      ['a'],
      [['a', present(hostNs)]],
      { operations: [{ cluster: 'a', op: 'unlabel', member: hostNs }], remainingClusters: ['a'], next: 'recheck' },
    ],
    ['skips a terminating host namespace entirely', DELETING, ['a'], [['a', present(hostNsTerminating)]], { operations: [], remainingClusters: [], next: 'verifyAndRemoveFinalizer' }],
    [
      'orphaning removes the finalizer first and unlabels non-terminating objects in Ready placement clusters',
      { ...DELETING, annotations: { 'kubefed.io/orphan': 'true', 'kubefed.io/deleteoption': 'not json' } },
      ['a', 'b', 'c', 'd'],
      [['a', present(managed)], ['b', present(terminating)], ['c', present(unlabelled)], ['d', present(managed)], ['out', present(managed)]],
      {
        mode: 'orphan',
        removeFinalizerFirst: true,
        operations: [{ cluster: 'a', op: 'unlabel', member: managed }],
        unreadyClusters: ['d'],
        remainingClusters: [],
        deleteOptions: {},
        next: 'error',
      },
    ],
    [
      'orphaning is done after the unlabels when every placement cluster is Ready',
      { ...DELETING, annotations: { 'kubefed.io/orphan': 'true' } },
      ['a', 'b'],
      [['a', present(managed)]],
      { mode: 'orphan', operations: [{ cluster: 'a', op: 'unlabel', member: managed }], next: 'done' },
    ],
    [
      'orphaning only happens for the exact value "true"',
      { ...DELETING, annotations: { 'kubefed.io/orphan': 'yes' } },
      ['a'],
      [['a', present(managed)]],
      { mode: 'delete', operations: [{ cluster: 'a', op: 'delete', member: managed, deleteOptions: {} }] },
    ],
  ])('%s', (_title, metadata, placement, members, expected) => {
    const plan = planDispatch({ fedObject: fed(metadata), clusters, placement, members: new Map(members), hostNamespaceUid: HOST_UID });
    expect(plan).toMatchObject(expected);
  });

  it('throws DeleteOptionsError for an invalid deleteoption annotation', () => {
    const fedObject = fed({ ...DELETING, annotations: { 'kubefed.io/deleteoption': '{bad' } });
    expect(() => planDispatch({ fedObject, clusters, placement: ['a'], members: new Map() })).toThrow(DeleteOptionsError);
  });
});

describe('planRelease (§4.4.2 possible orphan, §9.4)', () => {
  it('unlabels non-terminating managed objects in every registered cluster and reports not-ready ones', () => {
    const result = planRelease({
      clusters: [cluster('c'), cluster('b', false), cluster('a'), cluster('d'), cluster('e')],
      members: new Map([
        ['a', present(managed)],
        ['b', present(managed)],
        ['c', present(terminating)],
        ['d', present(unlabelled)],
        ['e', unreadable],
      ]),
    });
    expect(result).toEqual({ operations: [{ cluster: 'a', op: 'unlabel', member: managed }], unreadyClusters: ['b'], unreadableClusters: ['e'] });
  });
});

describe('isReleased (§4.4.11 step 6)', () => {
  it.each<[string, KubeObject | undefined, boolean]>([
    ['an object that is gone', undefined, true],
    ['an object without the managed label', unlabelled, true],
    ['an object labelled false', labelFalse, true],
    ['the host namespace being deleted', hostNsTerminating, true],
    ['a still-labelled object', managed, false],
    ['a terminating non-host object', terminating, false],
    ['a terminating unlabelled non-host object', obj({ terminating: true }), false],
  ])('%s → %s', (_title, o, expected) => {
    expect(isReleased(o, { hostNamespaceUid: HOST_UID })).toBe(expected);
  });
});
