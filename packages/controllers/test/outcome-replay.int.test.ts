// Replayed sync outcomes (issue #37 item 8), through real Redis and a kube-sim host: whoever can
// write to Redis can copy a signed outcome entry of the stream and add it again (XADD with the
// same fields). A copy is dropped by the subscriber that received the original (its nonce); a
// new leader has not seen it, so the status recorder drops it by what the signature covers: the
// federated object's UID and generation. docs/operations.md ("Who can write what").
import { randomBytes, randomUUID } from 'node:crypto';
import { buildFederatedTypeConfig, defaultFederatedTypeConfig } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { StatusRecorder, StatusWriter, syncTypeOf, type StaleOutcomeReason } from '@kubefed/controllers';
import { createRedisConnection, SyncOutcomePublisher, SyncOutcomeSubscriber, syncOutcomeStreamKey, type SyncOutcome } from '@kubefed/queue';
import { Store } from '@kubefed/runtime';
import { FakeClock } from '@kubefed/runtime/testing';
import { type InProcessFederation, type RedisHandle, startInProcessFederation, startRedis } from '@kubefed/testing';
import { TARGET_TYPES } from '@kubefed/testing/fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

const FED_CLUSTER_ROLES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' };
const TYPE = syncTypeOf(defaultFederatedTypeConfig(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, 'kube-federation-system')));
const signingKey = randomBytes(32);

let fed: InProcessFederation;
let redis: RedisHandle;
beforeAll(async () => {
  fed = await startInProcessFederation({ federatedTypes: [TARGET_TYPES.clusterRoles] });
  redis = await startRedis({ url: process.env.REDIS_URL });
});
afterAll(async () => {
  await redis.stop();
  await fed[Symbol.asyncDispose]();
});

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function connection(): ReturnType<typeof createRedisConnection> {
  const c = createRedisConnection(redis.url, { role: 'worker' });
  cleanups.push(() => c.disconnect());
  return c;
}

/** The leader's side: a subscriber feeding a status recorder, as in `--mode controllers`. */
function leader(prefix: string, store: Store<KubeObject>): { recorder: StatusRecorder; writer: StatusWriter; stale: StaleOutcomeReason[] } {
  const stale: StaleOutcomeReason[] = [];
  const recorder = new StatusRecorder({ onStale: (r) => stale.push(r) });
  const writer = new StatusWriter({
    host: fed.hostClient,
    clusters: () => [{ metadata: { name: 'member1' } }],
    kubefedNamespace: 'kube-federation-system',
    type: TYPE,
    objects: store,
    recorder,
    isReady: () => true,
    remoteStatusCollection: () => false,
    clock: new FakeClock(),
  });
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  void new SyncOutcomeSubscriber({ connection: connection(), prefix, signingKey }).run(abort.signal, (o) => recorder.report(o), {
    blockMs: 200,
    retryMs: 100,
  });
  return { recorder, writer, stale };
}

/** Publishes `probe` outcomes until the subscriber behind `recorder` has read one (it starts after the newest entry). */
async function untilReading(publisher: SyncOutcomePublisher, recorder: StatusRecorder, probe: SyncOutcome): Promise<void> {
  await vi.waitFor(
    async () => {
      await publisher.publish(probe);
      if (recorder.outcomes(probe).size === 0) throw new Error('subscriber not reading yet');
    },
    { timeout: 5000, interval: 100 },
  );
}

/** The newest entry of the stream, field for field, as a Redis writer reads it. */
async function newestEntry(prefix: string): Promise<string[]> {
  const entries = (await connection().xrevrange(syncOutcomeStreamKey(prefix), '+', '-', 'COUNT', 1)) as [string, string[]][];
  return entries[0]?.[1] ?? [];
}

async function createRole(name: string, store: Store<KubeObject>): Promise<KubeObject> {
  const created = await fed.hostClient.resource(FED_CLUSTER_ROLES).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedClusterRole',
    metadata: { name },
    spec: { template: { rules: [] }, placement: { clusters: [{ name: 'member1' }] } },
  });
  store.upsert(created);
  return created;
}

function outcomeOf(object: KubeObject, status: string): SyncOutcome {
  return {
    federatedType: TYPE.name,
    name: object.metadata.name ?? '',
    cluster: 'member1',
    uid: object.metadata.uid ?? '',
    generation: object.metadata.generation ?? 0,
    result: { status },
  };
}

/** member1's status in the object's status (`''` for OK), once the writer has flushed. */
async function member1Status(writer: StatusWriter, name: string, store: Store<KubeObject>): Promise<string | undefined> {
  await writer.flush();
  const current = await fed.hostClient.resource(FED_CLUSTER_ROLES).get(name);
  // As the informer would: the writer's next write starts from what it wrote.
  store.upsert(current);
  const status = current.status as { clusters?: { name: string; status?: string }[] };
  const entry = status.clusters?.find((c) => c.name === 'member1');
  return entry === undefined ? undefined : (entry.status ?? '');
}

describe('a sync outcome re-added to the stream by a Redis writer', () => {
  it('is dropped after the object was deleted and created again (another UID), and a fresh outcome is still applied', async () => {
    const prefix = redis.prefix('replay-uid');
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const store = new Store<KubeObject>();
    const publisher = new SyncOutcomePublisher({ connection: connection(), prefix, signingKey });
    const first = leader(prefix, store);
    const old = await createRole(name, store);
    await untilReading(publisher, first.recorder, outcomeOf(old, 'CreationFailed'));
    expect(await member1Status(first.writer, name, store)).toBe('CreationFailed');
    const captured = await newestEntry(prefix);

    // The object is deleted and created again; its worker reports success; a new leader takes over.
    await fed.hostClient.resource(FED_CLUSTER_ROLES).delete(name);
    store.delete(name);
    const recreated = await createRole(name, store);
    expect(recreated.metadata.uid).not.toBe(old.metadata.uid);
    const second = leader(prefix, store);
    await untilReading(publisher, second.recorder, outcomeOf(recreated, ''));
    expect(await member1Status(second.writer, name, store)).toBe('');

    // The Redis writer re-adds the old entry: dropped by its UID, the status stays.
    await connection().xadd(syncOutcomeStreamKey(prefix), '*', ...captured);
    await expect.poll(() => second.stale, { timeout: 5000 }).toEqual(['uid']);
    second.recorder.markDirty(outcomeOf(recreated, ''));
    expect(await member1Status(second.writer, name, store)).toBe('');

    // A fresh outcome still goes through.
    await publisher.publish(outcomeOf(recreated, 'UpdateFailed'));
    await expect.poll(() => member1Status(second.writer, name, store), { timeout: 5000 }).toBe('UpdateFailed');
  });

  it('is dropped once an outcome of a later generation was applied', async () => {
    const prefix = redis.prefix('replay-generation');
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const store = new Store<KubeObject>();
    const publisher = new SyncOutcomePublisher({ connection: connection(), prefix, signingKey });
    const first = leader(prefix, store);
    const gen1 = await createRole(name, store);
    await untilReading(publisher, first.recorder, outcomeOf(gen1, 'CreationFailed'));
    const captured = await newestEntry(prefix);

    // The spec changes (generation 2) and the worker reports it; a new leader takes over.
    const gen2 = await fed.hostClient.resource(FED_CLUSTER_ROLES).update({
      ...gen1,
      spec: { ...(gen1.spec as object), template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } },
    });
    store.upsert(gen2);
    expect(gen2.metadata.generation).toBe(2);
    const second = leader(prefix, store);
    await untilReading(publisher, second.recorder, outcomeOf(gen2, ''));
    expect(await member1Status(second.writer, name, store)).toBe('');

    await connection().xadd(syncOutcomeStreamKey(prefix), '*', ...captured);
    await expect.poll(() => second.stale, { timeout: 5000 }).toEqual(['generation']);
    second.recorder.markDirty(outcomeOf(gen2, ''));
    expect(await member1Status(second.writer, name, store)).toBe('');
  });
});
