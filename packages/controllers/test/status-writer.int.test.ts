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

  it('writes the statuses of changes before those of a fan-out, also those dirtied while the fan-out is written', async () => {
    const prefix = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    const type = syncTypeOf(defaultFederatedTypeConfig(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, 'kube-federation-system')));
    const recorder = new StatusRecorder();
    // The status writer reads each key from the store before writing it: reading the first
    // fan-out key is where a change's outcome arrives in the middle of the flush.
    let onGet = (key: string): void => void key;
    const store = new (class extends Store<KubeObject> {
      override get(key: string): KubeObject | undefined {
        onGet(key);
        return super.get(key);
      }
    })();
    const names = ['fan-out-1', 'fan-out-2', 'change-1', 'change-2'].map((n) => `${prefix}-${n}`);
    const [fanOut1, fanOut2, change1, change2] = names as [string, string, string, string];
    for (const name of names) {
      store.upsert(
        await objects.create({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedClusterRole',
          metadata: { name },
          spec: { template: { rules: [] }, placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] } },
        }),
      );
      recorder.record(federatedObjectRef(type.name, name), 'member1', { status: '', generation: 1 });
    }
    recorder.takeDirty(type.name);
    const writer = new StatusWriter({
      host: fed.hostClient,
      clusters: () => [cluster('member1'), cluster('member2')],
      kubefedNamespace: 'kube-federation-system',
      type,
      objects: store,
      recorder,
      // member2 went away: every status gets its ClusterNotReady entry.
      isReady: (c) => c === 'member1',
      remoteStatusCollection: () => false,
      clock: new FakeClock(),
    });
    recorder.markDirty(federatedObjectRef(type.name, fanOut1), 'low');
    recorder.markDirty(federatedObjectRef(type.name, fanOut2), 'low');
    recorder.markDirty(federatedObjectRef(type.name, change1));
    onGet = (key) => {
      if (key !== fanOut1) return;
      onGet = () => undefined;
      recorder.record(federatedObjectRef(type.name, change2), 'member1', { status: 'UpdateFailed', generation: 1 });
    };

    await writer.flush();
    const written = await Promise.all(names.map(async (n) => ({ name: n, obj: await objects.get(n) })));
    for (const { obj } of written)
      expect(obj.status).toMatchObject({ clusters: expect.arrayContaining([{ name: 'member2', status: 'ClusterNotReady' }]) });
    const order = written
      .sort((a, b) => Number(a.obj.metadata.resourceVersion) - Number(b.obj.metadata.resourceVersion))
      .map((w) => w.name);
    expect(order).toEqual([change1, fanOut1, change2, fanOut2]);
    expect(recorder.takeDirty(type.name)).toEqual([]);
    expect(recorder.takeDirty(type.name, 'low')).toEqual([]);
  });

  it('keeps every key of a flush dirty at its priority when a write fails with a server error', async () => {
    const prefix = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    const type = syncTypeOf(defaultFederatedTypeConfig(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, 'kube-federation-system')));
    const recorder = new StatusRecorder();
    const store = new Store<KubeObject>();
    const names = ['change', 'fan-out-1', 'fan-out-2'].map((n) => `${prefix}-${n}`);
    for (const name of names) {
      store.upsert(
        await objects.create({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedClusterRole',
          metadata: { name },
          spec: { template: { rules: [] }, placement: { clusters: [{ name: 'member1' }] } },
        }),
      );
      recorder.record(federatedObjectRef(type.name, name), 'member1', { status: '', generation: 1 });
    }
    const [change, fanOut1, fanOut2] = names as [string, string, string];
    recorder.takeDirty(type.name);
    recorder.markDirty(federatedObjectRef(type.name, fanOut1), 'low');
    recorder.markDirty(federatedObjectRef(type.name, fanOut2), 'low');
    recorder.markDirty(federatedObjectRef(type.name, change));
    const writer = new StatusWriter({
      host: fed.hostClient,
      clusters: () => [cluster('member1')],
      kubefedNamespace: 'kube-federation-system',
      type,
      objects: store,
      recorder,
      isReady: () => true,
      remoteStatusCollection: () => false,
      clock: new FakeClock(),
    });
    fed.host.faults.failRate(1, 500);
    try {
      await expect(writer.flush()).rejects.toThrow();
    } finally {
      fed.host.faults.restore();
    }
    expect(recorder.takeDirty(type.name)).toEqual([change]);
    expect(recorder.takeDirty(type.name, 'low').sort()).toEqual([fanOut1, fanOut2]);
  });
});
