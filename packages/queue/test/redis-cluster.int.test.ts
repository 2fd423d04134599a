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

describe('Redis Cluster (redis+cluster://)', () => {
  it('runs every key exactly once, with all keys of the prefix in one hash slot', async () => {
    const prefix = 'kf-cluster';
    await using workload = await startWorkload({ connect: (role) => createRedisConnection(clusterUrl(), { role }), prefix });
    expect(isClusterConnection(workload.producerConnection)).toBe(true);
    await workload.enqueue(names(0, 50));
    await workload.settled(30_000);

    expect(workload.overlaps).toEqual([]);
    const runsPerKey = new Map<string, number>();
    for (const run of workload.runs) runsPerKey.set(run.key, (runsPerKey.get(run.key) ?? 0) + 1);
    expect(runsPerKey.size).toBe(100);
    expect([...runsPerKey.values()].every((n) => n === 1)).toBe(true);
    await expect.poll(() => workload.outcomes.size, { timeout: 10_000 }).toBe(100);
    // BullMQ's keys and the outcome stream live under the hash-tagged prefix, on one master.
    const owner = await slotOwner(nodes[0]?.port ?? 0, `{${prefix}}`);
    const keys = await withDirect(owner.master, (c) => c.keys(`*${prefix}*`));
    expect(keys).toContain(`{${prefix}}:kubefed-sync.member1:meta`);
    expect(keys).toContain(`{${prefix}}:kubefed-sync-outcomes`);
    expect(keys.every((k) => k.startsWith(`{${prefix}}:`))).toBe(true);
  });

  it('loses no key and runs none twice at once when the master of the queues is killed mid-propagation', async () => {
    const prefix = 'kf-cluster-failover';
    // On a loaded machine a replica may still be attaching when the test starts: wait for it.
    const before = await vi.waitFor(
      async () => {
        const owner = await slotOwner(nodes[0]?.port ?? 0, `{${prefix}}`);
        expect(owner.replicas).toHaveLength(1);
        return owner;
      },
      { timeout: 30_000, interval: 200 },
    );
    const master = nodes.find((n) => n.port === before.master);
    expect(master).toBeDefined();
    const survivor = nodes.find((n) => n !== master)?.port ?? 0;
    await using workload = await startWorkload({ connect: (role) => createRedisConnection(clusterUrl(), { role }), prefix });
    await workload.enqueue(names(0, 20));
    await workload.settled(20_000);

    // As in the Sentinel test: fill every worker slot, enqueue everything again, and make sure the
    // replica has it all before the master dies (replication is asynchronous).
    workload.closeGate();
    await workload.enqueue(names(20, 60));
    await expect.poll(() => workload.running(), { timeout: 20_000 }).toBe(2 * 3 * 2);
    await workload.enqueue(names(20, 60));
    await withDirect(before.master, async (c) => {
      await c.set(`{${prefix}}:replication-mark`, '1');
      expect(Number(await c.call('WAIT', '1', '10000'))).toBe(1);
    });

    await master?.kill('SIGKILL');
    workload.openGate();
    await workload.enqueue(names(0, 80), 40_000);
    await workload.settled(40_000);

    expect(workload.overlaps).toEqual([]);
    expect((await slotOwner(survivor, `{${prefix}}`)).master).toBe(before.replicas[0]);
    const completed = new Set(workload.runs.filter((r) => r.end !== undefined).map((r) => r.key));
    expect(completed.size).toBe(160);
    expect(completed).toContain(keyOf({ cluster: 'member2', name: 'app-79' }));
    await expect.poll(() => workload.outcomes.size, { timeout: 20_000 }).toBe(160);
  });
});
