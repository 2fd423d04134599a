import { randomBytes } from 'node:crypto';
import { startRedis, type RedisHandle } from '@kubefed/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRedisConnection, type RedisConnection } from './redis-connection.js';
import { SyncOutcomePublisher, SyncOutcomeSubscriber, syncOutcomeStreamKey, type SyncOutcome } from './sync-outcome-stream.js';

const handles: RedisHandle[] = [];
const connections: RedisConnection[] = [];
const aborts: AbortController[] = [];

afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  for (const c of connections.splice(0)) c.disconnect();
  await Promise.all(handles.splice(0).map((h) => h.stop()));
});

function open(url: string): RedisConnection {
  const c = createRedisConnection(url, { role: 'worker' });
  connections.push(c);
  return c;
}

/** The key shared by the publishers and subscribers of a test. */
const signingKey = randomBytes(32);

function subscribe(url: string, prefix: string): { seen: SyncOutcome[]; done: Promise<void> } {
  const seen: SyncOutcome[] = [];
  const abort = new AbortController();
  aborts.push(abort);
  const done = new SyncOutcomeSubscriber({ connection: open(url), prefix, signingKey }).run(abort.signal, (o) => seen.push(o), {
    blockMs: 200,
    retryMs: 100,
  });
  return { seen, done };
}

const outcome = (name: string, status: string): SyncOutcome => ({
  federatedType: 'deployments.apps',
  namespace: 'ns',
  name,
  cluster: 'member1',
  result: { status, remoteStatus: { replicas: 1 } },
});

describe('sync outcome stream', () => {
  it('delivers outcomes published after the subscriber started, in order, and not older ones', async () => {
    const redis = await startRedis({ url: process.env.REDIS_URL });
    handles.push(redis);
    const prefix = redis.prefix('outcomes');
    const publisher = new SyncOutcomePublisher({ connection: open(redis.url), prefix, signingKey });
    await publisher.publish(outcome('old', ''));
    const { seen } = subscribe(redis.url, prefix);
    // The subscriber picks its starting point asynchronously: publish until it sees one.
    await vi.waitFor(
      async () => {
        await publisher.publish(outcome('probe', ''));
        if (seen.length === 0) throw new Error('subscriber not reading yet');
      },
      { timeout: 5000, interval: 100 },
    );
    await publisher.publish(outcome('web', 'CreationFailed'));
    await publisher.publish({
      federatedType: 'clusterroles.rbac.authorization.k8s.io',
      name: 'system:view',
      cluster: 'member2',
      result: null,
    });
    await expect
      .poll(() => seen.filter((o) => o.name !== 'probe'), { timeout: 5000 })
      .toEqual([
        outcome('web', 'CreationFailed'),
        { federatedType: 'clusterroles.rbac.authorization.k8s.io', name: 'system:view', cluster: 'member2', result: null },
      ]);
  });

  it('refuses an invalid outcome naming the field, and skips malformed stream entries', async () => {
    const redis = await startRedis({ url: process.env.REDIS_URL });
    handles.push(redis);
    const prefix = redis.prefix('outcomes-bad');
    const connection = open(redis.url);
    const publisher = new SyncOutcomePublisher({ connection, prefix, signingKey });
    await expect(publisher.publish({ ...outcome('web', ''), cluster: 'Not_A_Cluster' })).rejects.toThrow(/cluster/);
    const { seen } = subscribe(redis.url, prefix);
    await vi.waitFor(
      async () => {
        await connection.xadd(syncOutcomeStreamKey(prefix), '*', 'o', '{not json');
        await publisher.publish(outcome('after-garbage', ''));
        if (seen.length === 0) throw new Error('subscriber not reading yet');
      },
      { timeout: 5000, interval: 100 },
    );
    expect(seen.every((o) => o.name === 'after-garbage')).toBe(true);
  });

  it('drops outcomes that anyone with access to Redis forged: unsigned, or signed with another key', async () => {
    const redis = await startRedis({ url: process.env.REDIS_URL });
    handles.push(redis);
    const prefix = redis.prefix('outcomes-forged');
    const connection = open(redis.url);
    const publisher = new SyncOutcomePublisher({ connection, prefix, signingKey });
    const forger = new SyncOutcomePublisher({ connection, prefix, signingKey: randomBytes(32) });
    const { seen } = subscribe(redis.url, prefix);
    await vi.waitFor(
      async () => {
        await connection.xadd(syncOutcomeStreamKey(prefix), '*', 'o', JSON.stringify(outcome('unsigned', '')));
        await forger.publish(outcome('forged', ''));
        await publisher.publish(outcome('genuine', 'CreationFailed'));
        if (seen.length === 0) throw new Error('subscriber not reading yet');
      },
      { timeout: 5000, interval: 100 },
    );
    expect(new Set(seen.map((o) => o.name))).toEqual(new Set(['genuine']));
  });

  it('drops a copy of a signed entry that a Redis writer re-added, and an entry signed too long ago', async () => {
    const redis = await startRedis({ url: process.env.REDIS_URL });
    handles.push(redis);
    const prefix = redis.prefix('outcomes-replayed');
    const connection = open(redis.url);
    const key = syncOutcomeStreamKey(prefix);
    const publisher = new SyncOutcomePublisher({ connection, prefix, signingKey });
    // A publisher whose clock is 10 minutes behind: its entries are older than the subscriber's 5-minute maximum age.
    const late = new SyncOutcomePublisher({ connection, prefix, signingKey, now: () => Date.now() - 10 * 60_000 });
    const seen: SyncOutcome[] = [];
    const dropped: string[] = [];
    const abort = new AbortController();
    aborts.push(abort);
    void new SyncOutcomeSubscriber({ connection: open(redis.url), prefix, signingKey, onDropped: (r) => dropped.push(r) }).run(
      abort.signal,
      (o) => seen.push(o),
      { blockMs: 200, retryMs: 100 },
    );
    await vi.waitFor(
      async () => {
        await publisher.publish(outcome('probe', ''));
        if (seen.length === 0) throw new Error('subscriber not reading yet');
      },
      { timeout: 5000, interval: 100 },
    );
    const failed = { ...outcome('web', 'CreationFailed'), uid: 'uid-1', generation: 3 };
    await publisher.publish(failed);
    await expect.poll(() => seen.map((o) => o.name), { timeout: 5000 }).toContain('web');
    // The Redis writer re-adds the entry it read, field for field.
    const [[, fields] = ['', []]] = (await connection.xrevrange(key, '+', '-', 'COUNT', 1)) as [string, string[]][];
    await connection.xadd(key, '*', ...fields);
    await late.publish(outcome('late', ''));
    await publisher.publish(outcome('fresh', ''));
    await expect.poll(() => seen.map((o) => o.name), { timeout: 5000 }).toContain('fresh');
    expect(seen.filter((o) => o.name === 'web')).toEqual([failed]);
    expect(seen.some((o) => o.name === 'late')).toBe(false);
    expect(dropped).toEqual(['replayed', 'expired']);
  });

  it('carries on after Redis restarts', async () => {
    const redis = await startRedis({ forcePrivate: true });
    handles.push(redis);
    const prefix = 'restart';
    const publisher = new SyncOutcomePublisher({ connection: open(redis.url), prefix, signingKey });
    const { seen } = subscribe(redis.url, prefix);
    await vi.waitFor(
      async () => {
        await publisher.publish(outcome('before', ''));
        if (seen.length === 0) throw new Error('subscriber not reading yet');
      },
      { timeout: 5000, interval: 100 },
    );
    await redis.restart();
    await vi.waitFor(
      async () => {
        await publisher.publish(outcome('after', ''));
        if (!seen.some((o) => o.name === 'after')) throw new Error('not seen after the restart yet');
      },
      { timeout: 15_000, interval: 200 },
    );
  });
});
