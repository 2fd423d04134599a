import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedisConnection, type RedisConnection } from '../src/redis-connection.js';
import { freePorts, RedisProcesses, type RedisProcess } from './redis-processes.js';
import { startWorkload } from './sync-workload.js';

const password = 'data-pw';
const sentinelPassword = 'sentinel-pw';
let processes: RedisProcesses;
let master: RedisProcess;
let replica: RedisProcess;
let sentinelPorts: number[];

/** A plain client (no reconnects) for inspecting one process. */
function direct(port: number, auth: string): Redis {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    password: auth,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  client.on('error', () => undefined);
  return client;
}

async function withDirect<T>(port: number, auth: string, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = direct(port, auth);
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

beforeAll(async () => {
  processes = await RedisProcesses.create();
  const [masterPort = 0, replicaPort = 0, ...rest] = await freePorts(5);
  sentinelPorts = rest;
  const dataAuth = [`requirepass ${password}`, `masterauth ${password}`];
  master = await processes.start(masterPort, { config: dataAuth });
  replica = await processes.start(replicaPort, { config: [...dataAuth, `replicaof 127.0.0.1 ${masterPort}`] });
  await vi.waitFor(
    async () => expect(await withDirect(replicaPort, password, (c) => c.info('replication'))).toContain('master_link_status:up'),
    {
      timeout: 20_000,
      interval: 100,
    },
  );
  await Promise.all(
    sentinelPorts.map((port) =>
      processes.start(port, {
        sentinel: true,
        config: [
          `sentinel monitor mymaster 127.0.0.1 ${masterPort} 2`,
          'sentinel down-after-milliseconds mymaster 1000',
          'sentinel failover-timeout mymaster 3000',
          `sentinel auth-pass mymaster ${password}`,
          // Sentinels with a password of their own, which they also use with each other.
          `requirepass ${sentinelPassword}`,
          `sentinel sentinel-pass ${sentinelPassword}`,
        ],
      }),
    ),
  );
  // A failover needs a majority of sentinels that know each other and the replica.
  for (const port of sentinelPorts) {
    await vi.waitFor(
      async () => {
        const known = await withDirect(port, sentinelPassword, async (c) => {
          const sentinels = (await c.call('SENTINEL', 'SENTINELS', 'mymaster')) as unknown[];
          const replicas = (await c.call('SENTINEL', 'REPLICAS', 'mymaster')) as unknown[];
          return [sentinels.length, replicas.length];
        });
        expect(known).toEqual([2, 1]);
      },
      { timeout: 30_000, interval: 200 },
    );
  }
}, 60_000);
afterAll(async () => {
  await processes[Symbol.asyncDispose]();
});

const names = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `app-${from + i}`);

/** The port of the server a connection is on now. */
async function serverPort(connection: RedisConnection): Promise<number> {
  return Number(/tcp_port:(\d+)/.exec(await connection.info('server'))?.[1]);
}

describe('Redis Sentinel (redis+sentinel://)', () => {
  it('loses no key and runs none twice at once when the master is killed mid-propagation, and every connection follows the promoted replica', async () => {
    const url = `redis+sentinel://:${password}@${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/mymaster?sentinelPassword=${sentinelPassword}`;
    const clusters = ['member1', 'member2'];
    const hosts = 2;
    const concurrency = 3;
    await using workload = await startWorkload({
      connect: (role) => createRedisConnection(url, { role }),
      prefix: 'kf-sentinel',
      clusters,
      hosts,
      concurrency,
    });
    for (const c of [workload.producerConnection, ...workload.workerConnections]) expect(await serverPort(c)).toBe(master.port);

    // Some keys propagate before anything goes wrong.
    await workload.enqueue(names(0, 20));
    await workload.settled(20_000);

    // Processors now hold their jobs: every worker slot fills, the other keys wait in the queues.
    workload.closeGate();
    await workload.enqueue(names(20, 60));
    await expect.poll(() => workload.running(), { timeout: 20_000 }).toBe(hosts * concurrency * clusters.length);
    // A resync mid-way: the running keys get one pending job each, the waiting ones stay single.
    await workload.enqueue(names(20, 60));
    // Replication is asynchronous: a write the master acknowledged but did not pass on is lost in a
    // failover (the controllers' resync repairs that). Make sure the replica has everything so far.
    const acknowledged = await withDirect(master.port, password, async (c) => {
      await c.set('kf-sentinel:replication-mark', '1');
      return Number(await c.call('WAIT', '1', '10000'));
    });
    expect(acknowledged).toBe(1);

    await master.kill('SIGKILL');
    workload.openGate();
    // Enqueueing fails fast until the sentinels promote the replica; the caller retries (as a reconciler does).
    await workload.enqueue(names(0, 80), 40_000);
    await workload.settled(40_000);

    expect(workload.overlaps).toEqual([]);
    for (const c of [workload.producerConnection, ...workload.workerConnections]) expect(await serverPort(c)).toBe(replica.port);
    await expect.poll(() => workload.outcomes.size, { timeout: 20_000 }).toBe(80 * clusters.length);
  });

  it('follows a planned failover (SENTINEL FAILOVER) that keeps the old master up as a replica', async () => {
    // Runs after the test above: the replica is the master now. Bring the old master back as its replica.
    const current = replica;
    const comeback = await processes.start(master.port, {
      config: [`requirepass ${password}`, `masterauth ${password}`, `replicaof 127.0.0.1 ${current.port}`],
    });
    await vi.waitFor(
      async () => expect(await withDirect(comeback.port, password, (c) => c.info('replication'))).toContain('master_link_status:up'),
      { timeout: 20_000 },
    );
    for (const port of sentinelPorts) {
      await vi.waitFor(
        async () => {
          const replicas = await withDirect(port, sentinelPassword, (c) => c.call('SENTINEL', 'REPLICAS', 'mymaster'));
          expect(JSON.stringify(replicas)).toMatch(new RegExp(`"port","${comeback.port}".*"flags","slave"`));
        },
        { timeout: 30_000, interval: 200 },
      );
    }
    const url = `redis+sentinel://:${password}@127.0.0.1:${sentinelPorts[0] ?? 0}/mymaster?sentinelPassword=${sentinelPassword}`;
    await using workload = await startWorkload({ connect: (role) => createRedisConnection(url, { role }), prefix: 'kf-sentinel-planned' });
    workload.closeGate();
    await workload.enqueue(names(0, 30));
    await expect.poll(() => workload.running(), { timeout: 20_000 }).toBe(2 * 3 * 2);
    await withDirect(current.port, password, async (c) => {
      await c.set('kf-sentinel-planned:replication-mark', '1');
      expect(Number(await c.call('WAIT', '1', '10000'))).toBe(1);
    });

    await withDirect(sentinelPorts[1] ?? 0, sentinelPassword, (c) => c.call('SENTINEL', 'FAILOVER', 'mymaster'));
    workload.openGate();
    await workload.enqueue(names(0, 40), 40_000);
    await workload.settled(40_000);

    expect(workload.overlaps).toEqual([]);
    await vi.waitFor(
      async () => {
        for (const c of [workload.producerConnection, ...workload.workerConnections]) expect(await serverPort(c)).toBe(comeback.port);
      },
      { timeout: 20_000 },
    );
  });
});
