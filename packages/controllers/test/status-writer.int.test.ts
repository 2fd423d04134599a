import { randomUUID } from 'node:crypto';
import { buildFederatedTypeConfig, defaultFederatedTypeConfig } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { FakeClock, Store } from '@kubefed/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusRecorder, StatusWriter, syncTypeOf } from '@kubefed/controllers';
import { federatedObjectRef } from '@kubefed/queue';
import { type InProcessFederation, startInProcessFederation } from '@kubefed/testing';
import { TARGET_TYPES } from '@kubefed/testing/fixtures';

const FED_CLUSTER_ROLES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' };
const cluster = (name: string): { metadata: { name: string } } => ({ metadata: { name } });

let fed: InProcessFederation;

beforeAll(async () => {
  fed = await startInProcessFederation({ federatedTypes: [TARGET_TYPES.clusterRoles] });
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

describe('StatusWriter', () => {
  it('writes the reported clusters once a Ready cluster has not reported for reportTimeoutMs, that one as CreationTimedOut', async () => {
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    const created = await objects.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedClusterRole',
      metadata: { name },
      spec: { template: { rules: [] }, placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] } },
    });
    const type = syncTypeOf(defaultFederatedTypeConfig(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, 'kube-federation-system')));
    const store = new Store<KubeObject>();
    store.upsert(created);
    const recorder = new StatusRecorder();
    const clock = new FakeClock();
    const writer = new StatusWriter({
      host: fed.hostClient,
      clusters: () => [cluster('member1'), cluster('member2')],
      kubefedNamespace: 'kube-federation-system',
      type,
      objects: store,
      recorder,
      isReady: () => true,
      remoteStatusCollection: () => false,
      reportTimeoutMs: 30_000,
      clock,
    });
    recorder.record(federatedObjectRef(type.name, name), 'member1', { status: '', generation: 1 });

    await writer.flush();
    await clock.advance(29_000);
    await writer.flush();
    expect((await objects.get(name)).status).toBeUndefined();

    await clock.advance(1_000);
    await writer.flush();
    expect((await objects.get(name)).status).toMatchObject({
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'False', reason: 'CheckClusters' }],
      clusters: [{ name: 'member1' }, { name: 'member2', status: 'CreationTimedOut' }],
    });

    // member2 reports: its entry is written as it is.
    store.upsert(await objects.get(name));
    recorder.record(federatedObjectRef(type.name, name), 'member2', { status: '', generation: 1 });
    await writer.flush();
    expect((await objects.get(name)).status).toMatchObject({
      conditions: [{ type: 'Propagation', status: 'True' }],
      clusters: [{ name: 'member1' }, { name: 'member2' }],
    });
  });
});
