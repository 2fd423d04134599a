import { DynamicClient, Kubeconfig, type KubeObject, type ResourceClient } from '@kubefed/client';
import { startCluster, type SimCluster } from '@kubefed/kube-sim';
import { Informer, RuntimeMetrics, listerWatcherFor, DeletedFinalStateUnknown, type ListerWatcher } from '@kubefed/runtime';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

interface Env {
  sim: SimCluster;
  client: DynamicClient;
  cms: ResourceClient;
  informer: Informer;
  metrics: RuntimeMetrics;
  stop: AbortController;
  deletes: string[];
  /** While set, new watches wait for it: holds the informer disconnected after a cut. */
  gate: Promise<void> | undefined;
}

let env: Env;

beforeEach(async () => {
  const sim = await startCluster({ name: 'runtime-informer', tls: false });
  const client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()), { qps: 0 });
  const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'default');
  const metrics = new RuntimeMetrics();
  const real = listerWatcherFor(cms, { labelSelector: 'test=informer' });
  const gated: ListerWatcher = {
    list: (opts) => real.list(opts),
    watch: (opts) =>
      (async function* () {
        await env.gate;
        yield* real.watch(opts);
      })(),
  };
  const informer = new Informer({
    name: 'configmaps',
    listerWatcher: gated,
    backoff: { initialMs: 200, maxMs: 1000 },
    metrics: metrics.informer('configmaps'),
  });
  const deletes: string[] = [];
  informer.addEventHandler({
    onDelete: (o) => deletes.push(o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : `deleted ${o.metadata.name}`),
  });
  const stop = new AbortController();
  void informer.start(stop.signal);
  env = { sim, client, cms, informer, metrics, stop, deletes, gate: undefined };
  await informer.waitForSync();
});

afterEach(async () => {
  env.stop.abort();
  env.client.close();
  await env.sim.stop();
});

function cm(name: string, value: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { test: 'informer' } }, data: { value } };
}

async function serverState(): Promise<Record<string, string>> {
  const list = await env.cms.listAll({ labelSelector: 'test=informer' });
  return Object.fromEntries(list.items.map((o) => [o.metadata.name ?? '', o.metadata.resourceVersion ?? '']));
}

function cacheState(): Record<string, string> {
  return Object.fromEntries(env.informer.store.list().map((o) => [o.metadata.name ?? '', o.metadata.resourceVersion ?? '']));
}

async function expectConverged(timeout = 10_000): Promise<void> {
  const expected = await serverState();
  await vi.waitFor(() => expect(cacheState()).toEqual(expected), { timeout, interval: 50 });
}

async function update(name: string, value: string): Promise<void> {
  const current = await env.cms.get(name);
  await env.cms.update({ ...current, data: { value } });
}

async function restarts(reason: string): Promise<number> {
  return (await env.metrics.value('kubefed_informer_watch_restarts_total', { informer: 'configmaps', reason })) ?? 0;
}

describe('Informer against kube-sim', () => {
  it('converges to the server state across a server restart', async () => {
    await env.cms.create(cm('a', '1'));
    await env.cms.create(cm('b', '1'));
    await expectConverged();
    await env.sim.restart();
    // Requests on pooled keep-alive sockets the restart closed fail once; wait until one gets through.
    await vi.waitFor(() => env.cms.list({ limit: 1 }), { timeout: 5000 });
    await env.cms.create(cm('c', '1'));
    await update('a', '2');
    await env.cms.delete('b');
    await expectConverged();
    expect(env.deletes).toEqual(['deleted b']);
  });

  it('relists after 410 Gone when history was compacted while it was disconnected, delivering missed deletes', async () => {
    await env.cms.create(cm('keep', '1'));
    await env.cms.create(cm('gone', '1'));
    await expectConverged();
    let reconnect: () => void = () => {};
    env.gate = new Promise<void>((resolve) => (reconnect = resolve));
    env.sim.faults.unreachable();
    await vi.waitFor(async () => expect((await restarts('error')) + (await restarts('closed'))).toBeGreaterThanOrEqual(1), {
      timeout: 10_000,
    });
    env.sim.faults.restore();
    // The informer is cut off now: change state and drop the history meanwhile.
    await vi.waitFor(() => env.cms.list({ limit: 1 }), { timeout: 5000 });
    await env.cms.delete('gone');
    await update('keep', '2');
    await env.cms.create(cm('new', '1'));
    env.sim.compactHistory();
    reconnect();
    await expectConverged();
    expect(await restarts('gone')).toBeGreaterThanOrEqual(1);
    expect(await env.metrics.value('kubefed_informer_lists_total', { informer: 'configmaps' })).toBe(2);
    expect(env.deletes).toEqual(['tombstone default/gone']);
  });

  it('reconnects after a network cut and catches up with changes made after it', async () => {
    await env.cms.create(cm('a', '1'));
    await expectConverged();
    env.sim.faults.unreachable();
    await vi.waitFor(async () => expect(await restarts('error')).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    env.sim.faults.restore();
    await update('a', '2');
    await env.cms.create(cm('b', '1'));
    await expectConverged();
    expect(env.informer.store.get('default/a')?.data).toEqual({ value: '2' });
  });

  it('keeps up with a burst of 10k changes', async () => {
    const names = Array.from({ length: 2500 }, (_, i) => `burst-${i}`);
    const parallel = async (fn: (name: string) => Promise<unknown>): Promise<void> => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < names.length) await fn(names[next++]!);
        }),
      );
    };
    await parallel((n) => env.cms.create(cm(n, '0')));
    await parallel((n) => env.cms.patch(n, { data: { value: '1' } }, 'merge'));
    await parallel((n) => env.cms.patch(n, { data: { value: '2' } }, 'merge'));
    await parallel(async (n) => (Number(n.slice(6)) % 2 === 0 ? env.cms.delete(n) : env.cms.patch(n, { data: { value: '3' } }, 'merge')));
    await expectConverged(20_000);
    expect(env.informer.store.size).toBe(1250);
  }, 60_000);
});
