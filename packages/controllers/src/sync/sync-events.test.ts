import { describe, expect, it } from 'vitest';
import {
  ADOPTING_EXISTING_RESOURCE,
  adoptionRetrievalError,
  cachedRetrievalFailedEvent,
  clientRetrievalError,
  clusterNotReadyEvent,
  type EventOperation,
  invalidFederatedNamespaceEvent,
  operationEvent,
  RESOURCE_PRE_EXISTS,
  type SyncEvent,
  waitForRemovalEvent,
} from './sync-events.js';

const target = { kind: 'Deployment', name: 'ns/web' };

describe('sync events (docs/kubefed-compatibility.md §4.4.9)', () => {
  it.each<[EventOperation, unknown, SyncEvent]>([
    ['create', undefined, { type: 'Normal', reason: 'CreateInCluster', message: 'Creating Deployment "ns/web" in cluster "c1"' }],
    ['update', undefined, { type: 'Normal', reason: 'UpdateInCluster', message: 'Updating Deployment "ns/web" in cluster "c1"' }],
    ['delete', undefined, { type: 'Normal', reason: 'DeleteInCluster', message: 'Deleting Deployment "ns/web" in cluster "c1"' }],
    [
      'unlabel',
      undefined,
      {
        type: 'Normal',
        reason: 'RemoveManagedLabelFromInCluster',
        message: 'Removing managed label from Deployment "ns/web" in cluster "c1"',
      },
    ],
    [
      'create',
      new Error('boom'),
      { type: 'Warning', reason: 'CreateInClusterFailed', message: 'Failed to create Deployment "ns/web" in cluster "c1": boom' },
    ],
    [
      'update',
      'conflict',
      { type: 'Warning', reason: 'UpdateInClusterFailed', message: 'Failed to update Deployment "ns/web" in cluster "c1": conflict' },
    ],
    [
      'delete',
      new Error('x'),
      { type: 'Warning', reason: 'DeleteInClusterFailed', message: 'Failed to delete Deployment "ns/web" in cluster "c1": x' },
    ],
    [
      'unlabel',
      new Error('y'),
      {
        type: 'Warning',
        reason: 'RemoveManagedLabelFromInClusterFailed',
        message: 'Failed to remove managed label from Deployment "ns/web" in cluster "c1": y',
      },
    ],
    [
      'create',
      RESOURCE_PRE_EXISTS,
      {
        type: 'Warning',
        reason: 'CreateInClusterFailed',
        message: 'Failed to create Deployment "ns/web" in cluster "c1": Resource pre-exist in cluster',
      },
    ],
    [
      'create',
      ADOPTING_EXISTING_RESOURCE,
      {
        type: 'Warning',
        reason: 'CreateInClusterFailed',
        message:
          'Failed to create Deployment "ns/web" in cluster "c1": An update will be attempted instead of a creation due to an existing resource',
      },
    ],
    [
      'update',
      clientRetrievalError(new Error('no token')),
      {
        type: 'Warning',
        reason: 'UpdateInClusterFailed',
        message: 'Failed to update Deployment "ns/web" in cluster "c1": Error retrieving client for cluster: no token',
      },
    ],
    [
      'create',
      adoptionRetrievalError('forbidden'),
      {
        type: 'Warning',
        reason: 'CreateInClusterFailed',
        message:
          'Failed to create Deployment "ns/web" in cluster "c1": failed to retrieve object potentially requiring adoption: forbidden',
      },
    ],
  ])('%s with error %j', (op, error, expected) => {
    expect(operationEvent(op, target, 'c1', error)).toEqual(expected);
  });

  it.each<[string, SyncEvent | string, SyncEvent | string]>([
    ['ClusterNotReady', clusterNotReadyEvent(), { type: 'Warning', reason: 'ClusterNotReady', message: 'Cluster not ready' }],
    [
      'CachedRetrievalFailed',
      cachedRetrievalFailedEvent(new Error('forbidden')),
      { type: 'Warning', reason: 'CachedRetrievalFailed', message: 'Failed to retrieve cached cluster object: forbidden' },
    ],
    [
      'WaitForRemovalInCluster (§4.4.11)',
      waitForRemovalEvent(['a', 'b']),
      {
        type: 'Normal',
        reason: 'WaitForRemovalInCluster',
        message: 'Waiting for managed resources to be removed from the following clusters: a, b',
      },
    ],
    [
      'InvalidName (§4.4.2)',
      invalidFederatedNamespaceEvent(),
      {
        type: 'Warning',
        reason: 'InvalidName',
        message: 'The name of a federated namespace must match the name of its containing namespace.',
      },
    ],
  ])('renders %s', (_title, actual, expected) => {
    expect(actual).toEqual(expected);
  });
});
