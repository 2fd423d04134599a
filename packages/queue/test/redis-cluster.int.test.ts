import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedisConnection, isClusterConnection } from '../src/redis-connection.js';
import { freePorts, RedisProcesses, type RedisProcess } from './redis-processes.js';
import { keyOf, startWorkload } from './sync-workload.js';

const password = 'cluster-pw';
let processes: RedisProcesses;
let nodes: RedisProcess[];

async function withDirect<T>(port: number, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ host: '127.0.0.1', port, password, maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true });
  client.on('error', () => undefined);
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/** The master and replica ports serving `key`'s slot, as `node` sees them. */
async function slotOwner(node: number, key: string): Promise<{ master: number; replicas: number[] }> {
  return withDirect(node, async (c) => {
    const slot = Number(await c.call('CLUSTER', 'KEYSLOT', key));
    const ranges = (await c.call('CLUSTER', 'SLOTS')) as [number, number, ...[string, number, string][]][];
    const range = ranges.find(([from, to]) => from <= slot && slot <= to);
    if (range === undefined) throw new Error(`slot ${slot} is not served`);
    const [, , master, ...replicas] = range;
    if (master === undefined) throw new Error(`slot ${slot} has no master`);
    return { master: master[1], replicas: replicas.map((r) => r[1]) };
  });
}

beforeAll(async () => {
  processes = await RedisProcesses.create();
  const ports = await freePorts(6);
  // cluster-node-timeout 3000: a failover takes longer than ioredis' default command retries
  // (16 × 100 ms), so the test fails unless worker commands wait across it.
  nodes = await Promise.all(
    ports.map((port) =>
      processes.start(port, {
        config: [
          'cluster-enabled yes',
          `cluster-config-file nodes-${port}.conf`,
          'cluster-node-timeout 3000',
          `requirepass ${password}`,
          `masterauth ${password}`,
        ],
      }),
    ),
  );
  // Three masters with one replica each (the replica makes the failover test possible).
  await processes.cli([
    '-a',
    password,
    '--no-auth-warning',
    '--cluster',
    'create',
    ...ports.map((p) => `127.0.0.1:${p}`),
    '--cluster-replicas',
    '1',
    '--cluster-yes',
  ]);
  for (const port of ports) {
    await vi.waitFor(
      async () => {
        const info = await withDirect(port, (c) => c.call('CLUSTER', 'INFO') as Promise<string>);
        expect(info).toContain('cluster_state:ok');
        expect(info).toContain('cluster_known_nodes:6');
        const replication = await withDirect(port, (c) => c.info('replication'));
        if (replication.includes('role:slave')) expect(replication).toContain('master_link_status:up');
      },
      { timeout: 30_000, interval: 200 },
    );
  }
}, 60_000);
afterAll(async () => {
  await processes[Symbol.asyncDispose]();
});

const names = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `app-${from + i}`);
const clusterUrl = (): string =>
  `redis+cluster://:${password}@${nodes
    .slice(0, 2)
    .map((n) => `127.0.0.1:${n.port}`)
    .join(',')}`;

/** The port of each master of the cluster, as `node` sees it. */
async function masters(node: number): Promise<number[]> {
  return withDirect(node, async (c) => {
    const ranges = (await c.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string], ...unknown[]][];
    return [...new Set(ranges.map(([, , master]) => master[1]))].sort();
  });
}

/** The key every BullMQ queue has (`<queue prefix>:<queue>:meta`) of `cluster`'s sync queue under `prefix`. */
const metaKey = (prefix: string, cluster: string): string => `{${prefix}:${cluster}}:kubefed-sync.${cluster}:meta`;

describe('Redis Cluster (redis+cluster://)', () => {
  it('runs every key exactly once, each member queue in a hash slot of its own, spread over every master', async () => {
    const prefix = 'kf-cluster';
    const clusters = Array.from({ length: 6 }, (_, i) => `member${i + 1}`);
    await using workload = await startWorkload({ connect: (role) => createRedisConnection(clusterUrl(), { role }), prefix, clusters });
    expect(isClusterConnection(workload.producerConnection)).toBe(true);
    await workload.enqueue(names(0, 20));
    await workload.settled(30_000);

    expect(workload.overlaps).toEqual([]);
    const runsPerKey = new Map<string, number>();
    for (const run of workload.runs) runsPerKey.set(run.key, (runsPerKey.get(run.key) ?? 0) + 1);
    expect(runsPerKey.size).toBe(20 * clusters.length);
    expect([...runsPerKey.values()].every((n) => n === 1)).toBe(true);
    await expect.poll(() => workload.outcomes.size, { timeout: 10_000 }).toBe(20 * clusters.length);
    // Each queue's keys sit on the master of its own tag's slot; the outcome stream in the prefix's.
    const holders = new Set<number>();
    for (const cluster of clusters) {
      const owner = await slotOwner(nodes[0]?.port ?? 0, `{${prefix}:${cluster}}`);
      const keys = await withDirect(owner.master, (c) => c.keys(`{${prefix}:${cluster}}:*`));
      expect(keys).toContain(metaKey(prefix, cluster));
      expect(keys.every((k) => k.startsWith(`{${prefix}:${cluster}}:kubefed-sync.${cluster}:`))).toBe(true);
      holders.add(owner.master);
    }
    expect([...holders].sort()).toEqual(await masters(nodes[0]?.port ?? 0));
    const streamOwner = await slotOwner(nodes[0]?.port ?? 0, `{${prefix}}`);
    expect(await withDirect(streamOwner.master, (c) => c.keys(`{${prefix}}:*`))).toEqual([`{${prefix}}:kubefed-sync-outcomes`]);
  });

  it('keeps every queue in the one slot of a --queue-prefix that has a hash tag of its own', async () => {
    const prefix = 'kf-{pinned}';
    await using workload = await startWorkload({ connect: (role) => createRedisConnection(clusterUrl(), { role }), prefix });
    await workload.enqueue(names(0, 5));
    await workload.settled(30_000);
    const owner = await slotOwner(nodes[0]?.port ?? 0, prefix);
    const keys = await withDirect(owner.master, (c) => c.keys('kf-{pinned}:*'));
    expect(keys).toEqual(expect.arrayContaining(['kf-{pinned}:kubefed-sync.member1:meta', 'kf-{pinned}:kubefed-sync.member2:meta']));
    expect(keys).toContain('kf-{pinned}:kubefed-sync-outcomes');
  });

  it('loses no key and runs none twice at once when the master of a member queue is killed mid-propagation', async () => {
    const prefix = 'kf-cluster-failover';
    const clusters = ['member1', 'member2', 'member3'];
    // On a loaded machine a replica may still be attaching when the test starts: wait for it.
    const owners = await vi.waitFor(
      async () => {
        const found = await Promise.all(clusters.map((c) => slotOwner(nodes[0]?.port ?? 0, `{${prefix}:${c}}`)));
        for (const owner of found) expect(owner.replicas).toHaveLength(1);
        return found;
      },
      { timeout: 30_000, interval: 200 },
    );
    const before = owners[0] ?? { master: 0, replicas: [] };
    // The queues are on more than one master: the others keep serving while member1's fails over.
    expect(new Set(owners.map((o) => o.master)).size).toBeGreaterThan(1);
    const master = nodes.find((n) => n.port === before.master);
    expect(master).toBeDefined();
    const survivor = nodes.find((n) => n !== master)?.port ?? 0;
    await using workload = await startWorkload({
      connect: (role) => createRedisConnection(clusterUrl(), { role }),
      prefix,
      clusters,
    });
    await workload.enqueue(names(0, 20));
    await workload.settled(20_000);

    // As in the Sentinel test: fill every worker slot, enqueue everything again, and make sure the
    // replica has it all before the master dies (replication is asynchronous).
    workload.closeGate();
    await workload.enqueue(names(20, 60));
    await expect.poll(() => workload.running(), { timeout: 20_000 }).toBe(2 * 3 * clusters.length);
    await workload.enqueue(names(20, 60));
    await withDirect(before.master, async (c) => {
      await c.set(`{${prefix}:member1}:replication-mark`, '1');
      expect(Number(await c.call('WAIT', '1', '10000'))).toBe(1);
    });

    await master?.kill('SIGKILL');
    workload.openGate();
    await workload.enqueue(names(0, 80), 40_000);
    await workload.settled(40_000);

    expect(workload.overlaps).toEqual([]);
    expect((await slotOwner(survivor, `{${prefix}:member1}`)).master).toBe(before.replicas[0]);
    const completed = new Set(workload.runs.filter((r) => r.end !== undefined).map((r) => r.key));
    expect(completed.size).toBe(80 * clusters.length);
    expect(completed).toContain(keyOf({ cluster: 'member1', name: 'app-79' }));
    await expect.poll(() => workload.outcomes.size, { timeout: 20_000 }).toBe(80 * clusters.length);
  });
});
