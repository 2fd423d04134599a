import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisConnectionError } from '../src/queue-error.js';
import { createRedisConnection, pingRedis, type RedisConnection, type RedisConnectionOptions } from '../src/redis-connection.js';
import { freePorts, makeCertificates, RedisProcesses, tlsConfig, type TestCertificates } from './redis-processes.js';
import { startWorkload } from './sync-workload.js';

const password = randomBytes(12).toString('hex');
let processes: RedisProcesses;
let certs: TestCertificates;
/** TLS only (`port 0`), server certificate only. */
let tlsPort: number;
/** TLS only, and clients must present a certificate of the CA. */
let mutualPort: number;
/** A Sentinel group and a Cluster with TLS everywhere (also between the servers). */
let sentinelPort: number;
let clusterPorts: number[];

beforeAll(async () => {
  processes = await RedisProcesses.create();
  certs = await makeCertificates(processes.dir);
  const ports = await freePorts(7);
  [tlsPort = 0, mutualPort = 0, sentinelPort = 0, ...clusterPorts] = ports;
  const masterPort = clusterPorts.pop() ?? 0;
  const server = [...tlsConfig(certs), `requirepass ${password}`, `masterauth ${password}`, 'tls-replication yes'];
  await Promise.all([
    processes.start(tlsPort, { tls: true, config: [...tlsConfig(certs), `requirepass ${password}`] }),
    processes.start(mutualPort, { tls: true, config: [...tlsConfig(certs, true), `requirepass ${password}`] }),
    processes.start(masterPort, { tls: true, config: server }),
    ...clusterPorts.map((port) =>
      processes.start(port, {
        tls: true,
        config: [...server, 'tls-cluster yes', 'cluster-enabled yes', `cluster-config-file nodes-${port}.conf`],
      }),
    ),
  ]);
  await processes.start(sentinelPort, {
    tls: true,
    sentinel: true,
    config: [
      ...tlsConfig(certs),
      'tls-replication yes',
      `sentinel monitor mymaster 127.0.0.1 ${masterPort} 1`,
      `sentinel auth-pass mymaster ${password}`,
    ],
  });
  const tlsCli = ['--tls', '--cacert', certs.caFile, '-a', password, '--no-auth-warning'];
  await processes.cli([
    ...tlsCli,
    '--cluster',
    'create',
    ...clusterPorts.map((p) => `127.0.0.1:${p}`),
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ]);
  for (const port of clusterPorts) {
    await vi.waitFor(
      async () => {
        const client = new Redis({
          host: '127.0.0.1',
          port,
          password,
          tls: { ca: readFileSync(certs.caFile) },
          lazyConnect: true,
          retryStrategy: () => null,
        });
        client.on('error', () => undefined);
        try {
          expect(await client.call('CLUSTER', 'INFO')).toContain('cluster_state:ok');
        } finally {
          client.disconnect();
        }
      },
      { timeout: 30_000, interval: 200 },
    );
  }
}, 60_000);
afterAll(async () => {
  await processes[Symbol.asyncDispose]();
});

const connections: RedisConnection[] = [];
afterAll(() => {
  for (const c of connections) c.disconnect();
});
function open(url: string, options: RedisConnectionOptions): RedisConnection {
  const c = createRedisConnection(url, options);
  connections.push(c);
  return c;
}

function memoryLogger(): { logger: ReturnType<typeof pino>; text: () => string } {
  const lines: string[] = [];
  return { logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }), text: () => lines.join('') };
}

describe('Redis over TLS (rediss://)', () => {
  it('runs producer, workers and the outcome stream with the CA file given in the URL', async () => {
    const url = `rediss://:${password}@127.0.0.1:${tlsPort}/?tlsCaFile=${encodeURIComponent(certs.caFile)}`;
    await using workload = await startWorkload({ connect: (role) => createRedisConnection(url, { role }), prefix: 'kf-tls' });
    await workload.enqueue(Array.from({ length: 10 }, (_, i) => `app-${i}`));
    await workload.settled(20_000);
    expect(workload.overlaps).toEqual([]);
    await expect.poll(() => workload.outcomes.size, { timeout: 10_000 }).toBe(20);
  });

  it('takes the CA file as an option too (what --redis-ca-file sets)', async () => {
    const connection = open(`rediss://:${password}@127.0.0.1:${tlsPort}`, { role: 'producer', tls: { caFile: certs.caFile } });
    await expect(pingRedis(connection, 10_000)).resolves.toBeUndefined();
  });

  it.each([
    ['producer', 'no CA file (Node trusts only the public CAs)', () => ({})],
    ['worker', 'no CA file (Node trusts only the public CAs)', () => ({})],
    ['producer', 'the CA file of another CA', () => ({ caFile: certs.otherCaFile })],
    ['worker', 'the CA file of another CA', () => ({ caFile: certs.otherCaFile })],
  ] as const)(
    'fails a %s connection with %s, naming the URL and the certificate problem, never the password',
    async (role, _title, tls) => {
      const { logger, text } = memoryLogger();
      const url = `rediss://kubefed:${password}@127.0.0.1:${tlsPort}`;
      const connection = open(url, { role, tls: tls(), logger });
      const err = await pingRedis(connection, 3000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RedisConnectionError);
      const message = (err as Error).message;
      expect(message).toContain(`Redis at rediss://kubefed:***@127.0.0.1:${tlsPort} did not answer PING`);
      expect(message).toMatch(/certificate/);
      expect(text()).toContain('redis connection error');
      expect(text()).toMatch(/certificate/);
      expect(`${message}${text()}`).not.toContain(password);
    },
  );

  it('presents a client certificate from tlsCertFile and tlsKeyFile when the server requires one', async () => {
    const base = `rediss://:${password}@127.0.0.1:${mutualPort}/?tlsCaFile=${encodeURIComponent(certs.caFile)}`;
    const withCert = open(
      `${base}&tlsCertFile=${encodeURIComponent(certs.clientCertFile)}&tlsKeyFile=${encodeURIComponent(certs.clientKeyFile)}`,
      { role: 'producer' },
    );
    await expect(pingRedis(withCert, 10_000)).resolves.toBeUndefined();
    const withoutCert = open(base, { role: 'producer' });
    await expect(pingRedis(withoutCert, 3000)).rejects.toThrow(RedisConnectionError);
  });
});

describe('Sentinel and Cluster over TLS', () => {
  it.each([
    [
      'rediss+sentinel://',
      'kf-tls-sentinel',
      () => `rediss+sentinel://:${password}@127.0.0.1:${sentinelPort}/mymaster?tlsCaFile=${encodeURIComponent(certs.caFile)}`,
    ],
    [
      'rediss+cluster://',
      'kf-tls-cluster',
      () => `rediss+cluster://:${password}@127.0.0.1:${clusterPorts[0] ?? 0}?tlsCaFile=${encodeURIComponent(certs.caFile)}`,
    ],
  ])('runs producer, workers and the outcome stream through %s', async (_form, prefix, url) => {
    await using workload = await startWorkload({ connect: (role) => createRedisConnection(url(), { role }), prefix });
    await workload.enqueue(Array.from({ length: 10 }, (_, i) => `app-${i}`));
    await workload.settled(20_000);
    expect(workload.overlaps).toEqual([]);
    await expect.poll(() => workload.outcomes.size, { timeout: 10_000 }).toBe(20);
  });
});
