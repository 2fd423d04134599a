import { randomUUID } from 'node:crypto';
import { buildFederatedTypeConfig, defaultFederatedTypeConfig } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { Store } from '@kubefed/runtime';
import { FakeClock } from '@kubefed/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusRecorder, StatusWriter, syncTypeOf } from '@kubefed/controllers';
import { federatedObjectRef } from '@kubefed/queue';
import { type InProcessFederation, startInProcessFederation } from '@kubefed/testing';
import { TARGET_TYPES } from '@kubefed/testing/fixtures';

const FED_CLUSTER_ROLES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' };
const cluster = (name: string): { metadata: { name: string } } => ({ metadata: { name } });
const TYPE = syncTypeOf(defaultFederatedTypeConfig(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, 'kube-federation-system')));

/** What a test's StatusWriter differs by. */
interface WriterSetup {
  readonly store: Store<KubeObject>;
  readonly recorder: StatusRecorder;
  readonly members: readonly string[];
  readonly isReady?: (cluster: string) => boolean;
  readonly clock?: FakeClock;
  readonly reportTimeoutMs?: number;
}

/** A StatusWriter of FederatedClusterRoles on the federation's host. */
function newWriter(setup: WriterSetup): StatusWriter {
  return new StatusWriter({
    host: fed.hostClient,
    clusters: () => setup.members.map(cluster),
    kubefedNamespace: 'kube-federation-system',
    type: TYPE,
    objects: setup.store,
    recorder: setup.recorder,
    isReady: setup.isReady ?? (() => true),
    remoteStatusCollection: () => false,
    reportTimeoutMs: setup.reportTimeoutMs,
    clock: setup.clock ?? new FakeClock(),
  });
}

/** Creates a FederatedClusterRole per name placed in `members`, each in `store` with member1 reported at generation 1; nothing left dirty. */
async function createReported(
  names: readonly string[],
  members: readonly string[],
  store: Store<KubeObject>,
  recorder: StatusRecorder,
): Promise<void> {
  for (const name of names) {
    store.upsert(
      await fed.hostClient.resource(FED_CLUSTER_ROLES).create({
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedClusterRole',
        metadata: { name },
        spec: { template: { rules: [] }, placement: { clusters: members.map((name) => ({ name })) } },
      }),
    );
    recorder.record(federatedObjectRef(TYPE.name, name), 'member1', { status: '', generation: 1 });
  }
  recorder.takeDirty(TYPE.name);
}

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
    const store = new Store<KubeObject>();
    const recorder = new StatusRecorder();
    const clock = new FakeClock();
    const members = ['member1', 'member2'];
    const writer = newWriter({ store, recorder, members, clock, reportTimeoutMs: 30_000 });
    await createReported([name], members, store, recorder);
    recorder.markDirty(federatedObjectRef(TYPE.name, name));

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
    recorder.record(federatedObjectRef(TYPE.name, name), 'member2', { status: '', generation: 1 });
    await writer.flush();
    expect((await objects.get(name)).status).toMatchObject({
      conditions: [{ type: 'Propagation', status: 'True' }],
      clusters: [{ name: 'member1' }, { name: 'member2' }],
    });
  });

  it('writes the statuses of changes before those of a fan-out, also those dirtied while the fan-out is written', async () => {
    const prefix = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
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
    await createReported(names, ['member1', 'member2'], store, recorder);
    // member2 went away: every status gets its ClusterNotReady entry.
    const writer = newWriter({ store, recorder, members: ['member1', 'member2'], isReady: (c) => c === 'member1' });
    recorder.markDirty(federatedObjectRef(TYPE.name, fanOut1), 'low');
    recorder.markDirty(federatedObjectRef(TYPE.name, fanOut2), 'low');
    recorder.markDirty(federatedObjectRef(TYPE.name, change1));
    onGet = (key) => {
      if (key !== fanOut1) return;
      onGet = () => undefined;
      recorder.record(federatedObjectRef(TYPE.name, change2), 'member1', { status: 'UpdateFailed', generation: 1 });
    };

    await writer.flush();
    const written = await Promise.all(names.map(async (n) => ({ name: n, obj: await objects.get(n) })));
    for (const { obj } of written)
      expect(obj.status).toMatchObject({ clusters: expect.arrayContaining([{ name: 'member2', status: 'ClusterNotReady' }]) });
    const order = written
      .sort((a, b) => Number(a.obj.metadata.resourceVersion) - Number(b.obj.metadata.resourceVersion))
      .map((w) => w.name);
    expect(order).toEqual([change1, fanOut1, change2, fanOut2]);
    expect(recorder.takeDirty(TYPE.name)).toEqual([]);
    expect(recorder.takeDirty(TYPE.name, 'low')).toEqual([]);
  });

  it('keeps every key of a flush dirty at its priority when a write fails with a server error', async () => {
    const prefix = `fcr-${randomUUID().slice(0, 8)}`;
    const recorder = new StatusRecorder();
    const store = new Store<KubeObject>();
    const names = ['change', 'fan-out-1', 'fan-out-2'].map((n) => `${prefix}-${n}`);
    await createReported(names, ['member1'], store, recorder);
    const [change, fanOut1, fanOut2] = names as [string, string, string];
    recorder.markDirty(federatedObjectRef(TYPE.name, fanOut1), 'low');
    recorder.markDirty(federatedObjectRef(TYPE.name, fanOut2), 'low');
    recorder.markDirty(federatedObjectRef(TYPE.name, change));
    const writer = newWriter({ store, recorder, members: ['member1'] });
    fed.host.faults.failRate(1, 500);
    try {
      await expect(writer.flush()).rejects.toThrow();
    } finally {
      fed.host.faults.restore();
    }
    expect(recorder.takeDirty(TYPE.name)).toEqual([change]);
    expect(recorder.takeDirty(TYPE.name, 'low').sort()).toEqual([fanOut1, fanOut2]);
  });
});
