// A member admin who controls their API server can answer the control plane's lists and watches
// without end. Served here by a plain HTTP server that speaks just enough of the Kubernetes API,
// read through the real client, informers and Fleet with the default member cache budget.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamicClient, Kubeconfig } from '@kubefed/client';
import { DEFAULT_MEMBER_CACHE_BUDGET, Fleet } from '@kubefed/runtime';
import { afterEach, describe, expect, it } from 'vitest';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' } as const;
const PAGE = 500;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const configMap = (name: string): object => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: '1' },
});

/** A member API server whose lists always say there is another page, or whose watches add objects until the client hangs up. */
async function hostileMember(mode: 'endless-list' | 'endless-watch'): Promise<{ port: number; lists: () => number; sent: () => number }> {
  let lists = 0;
  let sent = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://member');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.searchParams.get('watch') === 'true') {
      const write = (): void => {
        while (!res.destroyed) {
          sent += 1;
          if (!res.write(`${JSON.stringify({ type: 'ADDED', object: configMap(`w-${sent}`) })}\n`)) {
            res.once('drain', write);
            return;
          }
        }
      };
      write();
      return;
    }
    lists += 1;
    const items = mode === 'endless-list' ? Array.from({ length: PAGE }, (_, i) => configMap(`p${lists}-${i}`)) : [];
    const metadata = mode === 'endless-list' ? { resourceVersion: '1', continue: `page-${lists}` } : { resourceVersion: '1' };
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMapList', metadata, items }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, lists: () => lists, sent: () => sent };
}

function fleetWith(port: number): Fleet<string> {
  const fleet = new Fleet<string>({
    connect: (_name, server) =>
      DynamicClient.fromKubeconfig(
        Kubeconfig.fromString(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
users: [{name: c, user: {}}]
contexts: [{name: c, context: {cluster: c, user: c}}]
current-context: c
`),
        { qps: 0 },
      ),
    cacheBudget: DEFAULT_MEMBER_CACHE_BUDGET,
  });
  const stop = new AbortController();
  const running = fleet.start(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    await running;
  });
  fleet.engage('evil', `http://127.0.0.1:${port}`);
  return fleet;
}

describe('a hostile member API server', () => {
  it('is disengaged at its object budget when its list never ends, after no more pages than the budget holds', async () => {
    const member = await hostileMember('endless-list');
    const fleet = fleetWith(member.port);
    const held = fleet.informer('evil', { resource: CONFIGMAPS });
    await expect
      .poll(() => fleet.overBudget('evil')?.message, { timeout: 60_000, interval: 100 })
      .toMatch(/member cluster evil holds more than 100000 objects/);
    expect(fleet.get('evil')).toBeUndefined();
    expect(member.lists()).toBe(DEFAULT_MEMBER_CACHE_BUDGET.maxObjects / PAGE + 1);
    held?.release();
  }, 90_000);

  it('is disengaged at its object budget when its watch never stops adding objects', async () => {
    const member = await hostileMember('endless-watch');
    const fleet = fleetWith(member.port);
    const held = fleet.informer('evil', { resource: CONFIGMAPS });
    await expect
      .poll(() => fleet.overBudget('evil')?.message, { timeout: 60_000, interval: 100 })
      .toMatch(/member cluster evil holds more than 100000 objects/);
    expect(held?.informer.store.list().length).toBe(DEFAULT_MEMBER_CACHE_BUDGET.maxObjects);
    held?.release();
  }, 90_000);
});
