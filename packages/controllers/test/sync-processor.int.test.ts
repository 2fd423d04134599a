import { randomUUID } from 'node:crypto';
import { buildFederatedTypeConfig, buildFederatedTypeCrd, defaultFederatedTypeConfig, type FederatedTypeOptions } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { EventRecorder } from '@kubefed/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncProcessor, MemberWriteError, recorderKey, StatusRecorder, syncTypeOf } from '@kubefed/controllers';
import { startFederation, type Federation } from './federation.js';

const CLUSTER_ROLES: FederatedTypeOptions = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  pluralName: 'clusterroles',
  scope: 'Cluster',
};
const FED_CLUSTER_ROLES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' };
const EVENTS = { group: '', version: 'v1', resource: 'events' };

let fed: Federation;

beforeAll(async () => {
  fed = await startFederation({ member1: {} });
  const crds = fed.hostClient.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' });
  await crds.create(buildFederatedTypeCrd(CLUSTER_ROLES) as unknown as KubeObject);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

describe('sync worker failures before a member write', () => {
  it('reports ClientRetrievalFailed with a Warning event when a Ready cluster has no client, and retries', async () => {
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    await fed.hostClient.resource(FED_CLUSTER_ROLES).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedClusterRole',
      metadata: { name },
      spec: { template: { rules: [] }, placement: { clusters: [{ name: 'member1' }] } },
    });
    const type = syncTypeOf(defaultFederatedTypeConfig(buildFederatedTypeConfig(CLUSTER_ROLES, 'kube-federation-system')));
    const recorder = new StatusRecorder();
    const process = createSyncProcessor({
      host: fed.hostClient,
      clusters: () => [],
      kubefedNamespace: 'kube-federation-system',
      types: (n) => (n === type.name ? type : undefined),
      memberClient: () => {
        throw new Error('the secret of the cluster is not bound to it');
      },
      recorder,
      events: new EventRecorder({ events: (ns) => fed.hostClient.resource(EVENTS, ns), component: 'kubefed-sync' }),
    });

    const attempt = process({ kind: 'sync', federatedType: type.name, name, cluster: 'member1' });
    await expect(attempt).rejects.toBeInstanceOf(MemberWriteError);
    expect(recorder.outcomes(recorderKey(type.name, name)).get('member1')).toEqual({ status: 'ClientRetrievalFailed', generation: 1 });
    const events = (await fed.hostClient.resource(EVENTS, 'default').list()).items.filter(
      (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: 'UpdateInClusterFailed',
        message: `Failed to update ClusterRole "${name}" in cluster "member1": Error retrieving client for cluster: the secret of the cluster is not bound to it`,
      }),
    ]);
  });
});
