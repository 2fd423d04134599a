// The controller manager started without --health-addr and --metrics-addr, as one runs it out
// of a cluster: health and metrics listen on loopback only (deploy/ and the chart pass `:8080`
// and `:9090`). The default ports are fixed, so the test first makes sure nothing else holds them.
import { createConnection, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { createNamespace, ManagedProcess, type RedisHandle, sourceEntry, startInProcessFederation, startRedis } from '@kubefed/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let redis: RedisHandle;
beforeAll(async () => {
  redis = await startRedis({ url: process.env.REDIS_URL });
});
afterAll(async () => {
  await redis.stop();
});

/** Resolves when a loopback listener can take `port`; rejects naming it when something holds it. */
function assertFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', () => reject(new Error(`127.0.0.1:${port} is in use: this test needs the default port free`)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

/** Whether a TCP connection to `host:port` is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 5_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** An IPv4 address of this machine other than loopback, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
}

describe('kubefed-controller-manager without --health-addr and --metrics-addr', () => {
  it('serves health on 127.0.0.1:8080 and metrics on 127.0.0.1:9090, and on no other interface', async () => {
    await Promise.all([assertFree(8080), assertFree(9090)]);
    await using fed = await startInProcessFederation();
    await createNamespace(fed.hostClient, 'kube-federation-system');
    const cm = new ManagedProcess(
      'kubefed-controller-manager',
      [...sourceEntry('packages/controller-manager/src/main.ts'), '--kubeconfig', fed.kubeconfigPath, '--redis-url', redis.url],
      { env: { ...process.env, KUBECONFIG: '' } },
    );
    try {
      const line = await cm.waitForLine(/"msg":"serving health and metrics"/, { timeoutMs: 90_000 });
      expect(JSON.parse(line)).toMatchObject({ health: 'http://127.0.0.1:8080', metrics: 'http://127.0.0.1:9090' });
      expect((await fetch('http://127.0.0.1:8080/healthz')).status).toBe(200);
      expect((await fetch('http://127.0.0.1:9090/metrics')).status).toBe(200);
      const external = externalAddress();
      if (external !== undefined) {
        expect(await accepts(external, 8080)).toBe(false);
        expect(await accepts(external, 9090)).toBe(false);
      }
    } finally {
      await cm.stop();
    }
  }, 150_000);
});
