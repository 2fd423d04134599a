import type { FederatedStatus } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import {
  type ClusterPropagationResult,
  computeFederatedStatus,
  formatConditionTime,
  type FederatedStatusInput,
  statusEqual,
} from './federated-status.js';

const T0 = '2026-11-21T10:00:00Z';
const NOW = new Date('2026-11-21T10:05:07.891Z');
const T1 = '2026-11-21T10:05:07Z';
const statuses = (entries: Record<string, ClusterPropagationResult>) => new Map(Object.entries(entries));
const prop = (status: 'True' | 'False', reason?: string, times = T0) => ({
  type: 'Propagation',
  status,
  ...(reason === undefined ? {} : { reason }),
  lastUpdateTime: times,
  lastTransitionTime: times,
});
const settled: FederatedStatus = { observedGeneration: 3, conditions: [prop('True')], clusters: [{ name: 'a' }, { name: 'b' }] };
const base = (over: Partial<FederatedStatusInput>): FederatedStatusInput => ({
  generation: 3,
  clusterStatuses: statuses({ a: {}, b: {} }),
  previousStatus: settled,
  now: NOW,
  ...over,
});

describe('computeFederatedStatus (docs/kubefed-compatibility.md §4.4.10)', () => {
  it.each<[string, FederatedStatusInput, FederatedStatus, boolean]>([
    ['changes nothing when everything is as before (no timestamps move)', base({}), settled, false],
    [
      'writes the first status with a new True condition and sorted clusters',
      base({ previousStatus: undefined, clusterStatuses: statuses({ b: {}, a: { status: '' } }) }),
      { observedGeneration: 3, conditions: [prop('True', undefined, T1)], clusters: [{ name: 'a' }, { name: 'b' }] },
      true,
    ],
    [
      'reports CheckClusters when a cluster is not in the desired state',
      base({ clusterStatuses: statuses({ a: {}, b: { status: 'ClusterNotReady' } }) }),
      {
        observedGeneration: 3,
        conditions: [prop('False', 'CheckClusters', T1)],
        clusters: [{ name: 'a' }, { name: 'b', status: 'ClusterNotReady' }],
      },
      true,
    ],
    [
      'moves only lastUpdateTime when clusters change without a transition',
      base({
        previousStatus: {
          observedGeneration: 3,
          conditions: [prop('False', 'CheckClusters')],
          clusters: [{ name: 'a', status: 'UpdateFailed' }],
        },
        clusterStatuses: statuses({ a: { status: 'CreationFailed' } }),
      }),
      {
        observedGeneration: 3,
        conditions: [{ ...prop('False', 'CheckClusters'), lastUpdateTime: T1 }],
        clusters: [{ name: 'a', status: 'CreationFailed' }],
      },
      true,
    ],
    ['updates observedGeneration without touching the condition', base({ generation: 4 }), { ...settled, observedGeneration: 4 }, true],
    [
      'sets ClusterRetrievalFailed with a transition',
      base({ reason: 'ClusterRetrievalFailed', clusterStatuses: new Map() }),
      { observedGeneration: 3, conditions: [prop('False', 'ClusterRetrievalFailed', T1)] },
      true,
    ],
    [
      'sets ComputePlacementFailed',
      base({ reason: 'ComputePlacementFailed', clusterStatuses: new Map() }),
      { observedGeneration: 3, conditions: [prop('False', 'ComputePlacementFailed', T1)] },
      true,
    ],
    [
      'explains ComputePlacementFailed with the message given',
      base({ reason: 'ComputePlacementFailed', message: 'spec.placement.clusterSelector: bad operator', clusterStatuses: new Map() }),
      {
        observedGeneration: 3,
        conditions: [{ ...prop('False', 'ComputePlacementFailed', T1), message: 'spec.placement.clusterSelector: bad operator' }],
      },
      true,
    ],
    [
      'drops the message once the reason is gone',
      base({ previousStatus: { ...settled, conditions: [{ ...prop('False', 'ComputePlacementFailed'), message: 'old' }] } }),
      { observedGeneration: 3, conditions: [prop('True', undefined, T1)], clusters: [{ name: 'a' }, { name: 'b' }] },
      true,
    ],
    [
      'sets NamespaceNotFederated over CheckClusters when nothing worse happened',
      base({ namespaceNotFederated: true, clusterStatuses: statuses({ a: { status: 'WaitingForRemoval' } }) }),
      {
        observedGeneration: 3,
        conditions: [prop('False', 'NamespaceNotFederated', T1)],
        clusters: [{ name: 'a', status: 'WaitingForRemoval' }],
      },
      true,
    ],
    [
      'keeps ClusterRetrievalFailed over NamespaceNotFederated',
      base({ reason: 'ClusterRetrievalFailed', namespaceNotFederated: true, clusterStatuses: new Map() }),
      { observedGeneration: 3, conditions: [prop('False', 'ClusterRetrievalFailed', T1)] },
      true,
    ],
    [
      'returns to True, dropping the reason, when clusters recover',
      base({
        previousStatus: {
          observedGeneration: 3,
          conditions: [prop('False', 'CheckClusters')],
          clusters: [{ name: 'a', status: 'UpdateFailed' }, { name: 'b' }],
        },
      }),
      { observedGeneration: 3, conditions: [prop('True', undefined, T1)], clusters: [{ name: 'a' }, { name: 'b' }] },
      true,
    ],
    [
      'keeps conditions of other types (with only the known keys) and the position of Propagation',
      base({
        previousStatus: {
          ...settled,
          conditions: [
            { type: 'Other', status: 'True', reason: '', lastUpdateTime: T0, message: 'kept', extra: 'dropped' } as never,
            prop('True'),
          ],
        },
      }),
      { ...settled, conditions: [{ type: 'Other', status: 'True', message: 'kept', lastUpdateTime: T0 }, prop('True')] },
      false,
    ],
    [
      'omits observedGeneration 0 and an empty cluster list',
      base({ generation: 0, previousStatus: undefined, clusterStatuses: new Map() }),
      { conditions: [prop('True', undefined, T1)] },
      true,
    ],
    [
      'drops a cluster that is no longer reported',
      base({ clusterStatuses: statuses({ a: {} }) }),
      { observedGeneration: 3, conditions: [{ ...prop('True'), lastUpdateTime: T1 }], clusters: [{ name: 'a' }] },
      true,
    ],
    [
      'detects a renamed cluster even when statuses are equal',
      base({ clusterStatuses: statuses({ a: {}, c: {} }) }),
      { observedGeneration: 3, conditions: [{ ...prop('True'), lastUpdateTime: T1 }], clusters: [{ name: 'a' }, { name: 'c' }] },
      true,
    ],
    [
      'keeps the previous cluster order when nothing changed',
      base({ previousStatus: { ...settled, clusters: [{ name: 'b' }, { name: 'a' }] } }),
      { ...settled, clusters: [{ name: 'b' }, { name: 'a' }] },
      false,
    ],
  ])('%s', (_title, input, expected, changed) => {
    const before = structuredClone(input.previousStatus);
    const result = computeFederatedStatus(input);
    expect(result.status).toEqual(expected);
    expect(result.changed).toBe(changed);
    expect(input.previousStatus).toEqual(before);
  });

  describe('with remote status collection', () => {
    const remote = { readyReplicas: 2 };
    it.each<[string, Partial<FederatedStatusInput>, FederatedStatus, boolean]>([
      [
        'records remoteStatus per cluster',
        { clusterStatuses: statuses({ a: { remoteStatus: remote }, b: { remoteStatus: {} } }) },
        {
          observedGeneration: 3,
          conditions: [{ ...prop('True'), lastUpdateTime: T1 }],
          clusters: [
            { name: 'a', remoteStatus: remote },
            { name: 'b', remoteStatus: {} },
          ],
        },
        true,
      ],
      [
        'reports CheckClusters when a cluster has no remote status',
        { clusterStatuses: statuses({ a: { remoteStatus: remote }, b: {} }) },
        {
          observedGeneration: 3,
          conditions: [prop('False', 'CheckClusters', T1)],
          clusters: [{ name: 'a', remoteStatus: remote }, { name: 'b' }],
        },
        true,
      ],
      [
        'moves lastUpdateTime when an update was performed even if clusters are unchanged',
        {
          previousStatus: {
            ...settled,
            clusters: [
              { name: 'a', remoteStatus: remote },
              { name: 'b', remoteStatus: remote },
            ],
          },
          clusterStatuses: statuses({ a: { remoteStatus: remote }, b: { remoteStatus: remote } }),
          updatePerformed: true,
        },
        {
          ...settled,
          conditions: [{ ...prop('True'), lastUpdateTime: T1 }],
          clusters: [
            { name: 'a', remoteStatus: remote },
            { name: 'b', remoteStatus: remote },
          ],
        },
        true,
      ],
      [
        'changes nothing when remote statuses are unchanged and nothing was updated',
        {
          previousStatus: {
            ...settled,
            clusters: [
              { name: 'a', remoteStatus: remote },
              { name: 'b', remoteStatus: remote },
            ],
          },
          clusterStatuses: statuses({ a: { remoteStatus: { readyReplicas: 2 } }, b: { remoteStatus: remote } }),
        },
        {
          ...settled,
          clusters: [
            { name: 'a', remoteStatus: remote },
            { name: 'b', remoteStatus: remote },
          ],
        },
        false,
      ],
    ])('%s', (_title, over, expected, changed) => {
      const result = computeFederatedStatus(base({ remoteStatusCollection: true, ...over }));
      expect(result.status).toEqual(expected);
      expect(result.changed).toBe(changed);
    });

    it('ignores remote statuses when collection is off', () => {
      const result = computeFederatedStatus(base({ clusterStatuses: statuses({ a: { remoteStatus: remote }, b: {} }) }));
      expect(result.status.clusters).toEqual([{ name: 'a' }, { name: 'b' }]);
      expect(result.changed).toBe(false);
    });
  });

  it('formats times as RFC 3339 UTC with second precision', () => {
    expect(formatConditionTime(new Date('2026-01-02T03:04:05.999Z'))).toBe('2026-01-02T03:04:05Z');
  });
});

describe('statusEqual', () => {
  it.each<[string, FederatedStatus | undefined, FederatedStatus | undefined, boolean]>([
    ['ignores condition timestamps', settled, { ...settled, conditions: [prop('True', undefined, T1)] }, true],
    ['ignores cluster order', settled, { ...settled, clusters: [{ name: 'b' }, { name: 'a' }] }, true],
    ['treats an empty status as equal to undefined', {}, undefined, true],
    [
      'treats an empty reason as absent',
      { conditions: [{ type: 'Propagation', status: 'True', reason: '' }] },
      { conditions: [{ type: 'Propagation', status: 'True' }] },
      true,
    ],
    ['sees a different reason', settled, { ...settled, conditions: [prop('False', 'CheckClusters')] }, false],
    ['sees a different generation', settled, { ...settled, observedGeneration: 4 }, false],
    ['sees a different cluster status', settled, { ...settled, clusters: [{ name: 'a', status: 'UpdateFailed' }, { name: 'b' }] }, false],
    [
      'sees a different remote status',
      { clusters: [{ name: 'a', remoteStatus: { x: 1 } }] },
      { clusters: [{ name: 'a', remoteStatus: { x: 2 } }] },
      false,
    ],
    ['sees an extra cluster', settled, { ...settled, clusters: [{ name: 'a' }] }, false],
  ])('%s', (_title, a, b, expected) => {
    expect(statusEqual(a, b)).toBe(expected);
    expect(statusEqual(b, a)).toBe(expected);
  });
});
