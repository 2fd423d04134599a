import { DynamicClient, Kubeconfig, type GroupVersionResource, type KubeObject } from '@kubefed/client';
import { startCluster, type SimCluster } from '@kubefed/kube-sim';
import {
  CacheSyncTimeoutError,
  InformerHolds,
  InformersStoppedError,
  Manager,
  SharedInformers,
  untilAborted,
  type SharedInformersOptions,
} from '@kubefed/runtime';
import { describe, expect, it } from 'vitest';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' } as const;
/** A resource plain kube-sim does not serve: its informer never syncs. */
const UNSERVED = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' } as const;
const POLL = { timeout: 10_000, interval: 50 };

/** The list and watch requests made through a client, by resource (`configmaps/default`). */
interface Requests {
  readonly lists: string[];
  readonly watches: string[];
}

/** `client` as the informers' source, recording each list and watch request it passes on to the server. */
function recording(client: DynamicClient): { client: SharedInformersOptions['client']; requests: Requests } {
  const requests: Requests = { lists: [], watches: [] };
  const id = (gvr: GroupVersionResource, ns: string | undefined): string => `${gvr.resource}/${ns ?? ''}`;
  return {
    requests,
    client: {
      resource: (gvr, ns) => {
        const r = client.resource(gvr, ns);
        return {
          list: (opts) => {
            requests.lists.push(id(gvr, ns));
            return r.list(opts);
          },
          watch: (opts) => {
            requests.watches.push(id(gvr, ns));
            return r.watch(opts);
          },
        };
      },
    },
  };
}

async function onSim(): Promise<{ sim: SimCluster; client: DynamicClient } & AsyncDisposable> {
  const sim = await startCluster({ name: 'runtime-shared-informers', tls: false });
  const client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()), { qps: 0 });
  return {
    sim,
    client,
    [Symbol.asyncDispose]: async () => {
      client.close();
      await sim[Symbol.asyncDispose]();
    },
  };
}

describe('SharedInformers', () => {
  it('lists and watches a resource once for every holder and stops the informer with the last release', async () => {
    await using env = await onSim();
    const { client, requests } = recording(env.client);
    const informers = new SharedInformers({ cluster: 'sim', client });
    const stop = new AbortController();
    const running = informers.start(stop.signal);
    try {
      const a = informers.acquire({ resource: CONFIGMAPS, namespace: 'default' });
      const b = informers.acquire({ resource: CONFIGMAPS, namespace: 'default' });
      const everywhere = informers.acquire({ resource: CONFIGMAPS, namespace: '' });
      expect(b.informer).toBe(a.informer);
      expect(informers.acquire({ resource: CONFIGMAPS }).informer).toBe(everywhere.informer);
      expect(informers.size).toBe(2);
      await env.client.resource(CONFIGMAPS, 'default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
      await expect.poll(() => b.informer.store.get('default/cm')?.metadata.name, POLL).toBe('cm');
      await expect.poll(() => requests.watches.filter((w) => w === 'configmaps/default').length, POLL).toBe(1);
      expect(requests.lists.filter((l) => l === 'configmaps/default')).toHaveLength(1);

      a.release();
      a.release();
      expect(informers.size).toBe(2);
      b.release();
      expect(informers.size).toBe(1);
      // The next holder gets a new informer, with a list and a watch of its own.
      const fresh = informers.acquire({ resource: CONFIGMAPS, namespace: 'default' });
      expect(fresh.informer).not.toBe(a.informer);
      await expect.poll(() => fresh.informer.store.get('default/cm')?.metadata.name, POLL).toBe('cm');
      expect(requests.lists.filter((l) => l === 'configmaps/default')).toHaveLength(2);
      // The released informer no longer follows the server.
      await env.client.resource(CONFIGMAPS, 'default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later' } });
      await expect.poll(() => fresh.informer.store.get('default/later')?.metadata.name, POLL).toBe('later');
      expect(a.informer.store.get('default/later')).toBeUndefined();
    } finally {
      stop.abort();
      await running;
    }
    expect(informers.size).toBe(0);
    expect(() => informers.acquire({ resource: CONFIGMAPS })).toThrow(InformersStoppedError);
  });

  it("starts a manager's shared informers held before start as caches, shares them with later holders and stops them last", async () => {
    await using env = await onSim();
    const { client, requests } = recording(env.client);
    const manager = new Manager({ healthAddress: null, metricsAddress: null });
    const early = manager.sharedInformers(client).acquire({ resource: CONFIGMAPS, namespace: 'kube-system' });
    expect(manager.sharedInformers(client)).toBe(manager.sharedInformers(client));
    const seenAtStop: boolean[] = [];
    manager.add({
      name: 'reader',
      needLeaderElection: false,
      start: async (signal) => {
        // Caches synced before any runnable starts; a holder added later shares the informer.
        const late = manager.sharedInformers(client).acquire({ resource: CONFIGMAPS, namespace: 'kube-system' });
        seenAtStop.push(early.informer.hasSynced(), late.informer === early.informer);
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        late.release();
      },
    });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await expect.poll(() => manager.cachesSynced, POLL).toBe(true);
    await expect.poll(() => seenAtStop, POLL).toEqual([true, true]);
    expect(requests.watches.filter((w) => w === 'configmaps/kube-system')).toHaveLength(1);
    stop.abort();
    await running;
    expect(manager.sharedInformers(client).size).toBe(0);
    expect(() => manager.sharedInformers(client).acquire({ resource: CONFIGMAPS })).toThrow(InformersStoppedError);
    early.release();
  });

  it('stops every shared informer set, also one first asked for while running, after the runnables that read them', async () => {
    await using env = await onSim();
    const manager = new Manager({ healthAddress: null, metricsAddress: null });
    const host = manager.sharedInformers(env.client);
    host.acquire({ resource: CONFIGMAPS, namespace: 'default' });
    // Another client object: a second set, first asked for by the leader-only runnable, which
    // starts after the other one (that reads the set too when it stops).
    const other = recording(env.client).client;
    const seenAtStop: string[] = [];
    const isRunning = (informers: SharedInformers): string => {
      try {
        informers.acquire({ resource: CONFIGMAPS, namespace: 'default' }).release();
        return 'running';
      } catch (err) {
        if (err instanceof InformersStoppedError) return 'stopped';
        throw err;
      }
    };
    const reader = (name: string, needLeaderElection: boolean) => ({
      name,
      needLeaderElection,
      start: async (signal: AbortSignal) => {
        const hold = needLeaderElection ? manager.sharedInformers(other, 'other').acquire({ resource: CONFIGMAPS }) : undefined;
        await untilAborted(signal);
        seenAtStop.push(`${name}: host ${isRunning(host)}, other ${isRunning(manager.sharedInformers(other, 'other'))}`);
        hold?.release();
      },
    });
    manager.add(new InformerHolds(host, 'holds')).add(reader('everywhere', false)).add(reader('leader-only', true));
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await expect.poll(() => manager.isLeader, POLL).toBe(true);
    await expect.poll(() => manager.sharedInformers(other).size, POLL).toBe(1);
    stop.abort();
    await running;
    expect(seenAtStop).toEqual(['leader-only: host running, other running', 'everywhere: host running, other running']);
    expect(() => host.acquire({ resource: CONFIGMAPS })).toThrow(InformersStoppedError);
    expect(() => manager.sharedInformers(other).acquire({ resource: CONFIGMAPS })).toThrow(InformersStoppedError);
  });

  it('awaits an informer while at least one of its holders wants it awaited', async () => {
    await using env = await onSim();
    const informers = new SharedInformers({ cluster: 'sim', client: env.client });
    const stop = new AbortController();
    const running = informers.start(stop.signal);
    try {
      const optional = informers.acquire({ resource: UNSERVED }, { awaitSync: false });
      informers.acquire({ resource: CONFIGMAPS, namespace: 'default' });
      await expect.poll(() => informers.hasSynced(), POLL).toBe(true);
      expect(await informers.waitForSync()).toBe(true);
      expect(optional.informer.hasSynced()).toBe(false);

      const awaiting = informers.acquire({ resource: UNSERVED });
      expect(awaiting.informer).toBe(optional.informer);
      expect(informers.hasSynced()).toBe(false);
      expect(await informers.waitForSync(AbortSignal.abort())).toBe(false);
      awaiting.release();
      expect(informers.hasSynced()).toBe(true);
      expect(await informers.waitForSync()).toBe(true);
    } finally {
      stop.abort();
      await running;
    }
  });

  it('syncs the caches of a manager whose host informers include one of an unserved resource held with awaitSync false', async () => {
    await using env = await onSim();
    // Before start, on the manager's own set, as the RSP controller holds the FederatedNamespace informer.
    const manager = new Manager({ healthAddress: null, metricsAddress: null, cacheSyncTimeoutMs: 10_000 });
    const optional = new InformerHolds(manager.sharedInformers(env.client), 'optional-informers');
    const unserved = optional.acquire({ resource: UNSERVED }, { awaitSync: false });
    const required = new InformerHolds(manager.sharedInformers(env.client), 'required-informers');
    const configMaps = required.acquire({ resource: CONFIGMAPS, namespace: 'default' });
    manager.add(optional).add(required);
    const stop = new AbortController();
    let failure: unknown;
    const running = manager.start(stop.signal).catch((err: unknown) => {
      failure = err;
    });
    try {
      // Far below the cache-sync timeout: the unserved informer is not waited for at all.
      await expect.poll(() => failure ?? manager.cachesSynced, { timeout: 15_000, interval: 50 }).toBe(true);
      expect(configMaps.hasSynced()).toBe(true);
      expect(unserved.hasSynced()).toBe(false);
    } finally {
      stop.abort();
      await running;
    }
    expect(failure).toBeUndefined();
  });

  it("fails a manager's cache sync naming the informer that cannot list and the server's answer", async () => {
    await using env = await onSim();
    const manager = new Manager({ healthAddress: null, metricsAddress: null, cacheSyncTimeoutMs: 5000 });
    const required = new InformerHolds(manager.sharedInformers(env.client), 'required-informers');
    required.acquire({ resource: CONFIGMAPS, namespace: 'default' });
    required.acquire({ resource: UNSERVED });
    manager.add(required);
    const stop = new AbortController();
    let failure: unknown;
    const running = manager.start(stop.signal).catch((err: unknown) => {
      failure = err;
    });
    try {
      await expect.poll(() => failure, { timeout: 15_000, interval: 50 }).toBeInstanceOf(CacheSyncTimeoutError);
      const message = (failure as Error).message;
      expect(message).toMatch(
        /^cache [^ ]+ did not sync within 5000 ms: informer [^ ]*federatednamespaces[^ ]*: its last list failed: .*NotFound/,
      );
      // Only the informer that did not sync is named.
      expect(message).not.toContain('configmaps');
    } finally {
      stop.abort();
      await running;
    }
  });

  it('keeps one informer per transform name, each caching what its transform keeps', async () => {
    await using env = await onSim();
    const informers = new SharedInformers({ cluster: 'sim', client: env.client });
    const stop = new AbortController();
    const running = informers.start(stop.signal);
    try {
      const dataKeys = {
        name: 'data-keys',
        transform: (obj: KubeObject): KubeObject => ({ metadata: obj.metadata, keys: Object.keys(obj.data as object) }),
      };
      const whole = informers.acquire({ resource: CONFIGMAPS, namespace: 'default' });
      const slim = informers.acquire({ resource: CONFIGMAPS, namespace: 'default', transform: dataKeys });
      expect(informers.acquire({ resource: CONFIGMAPS, namespace: 'default', transform: dataKeys }).informer).toBe(slim.informer);
      expect(slim.informer).not.toBe(whole.informer);
      await env.client
        .resource(CONFIGMAPS, 'default')
        .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(1000) } });
      await expect.poll(() => slim.informer.store.get('default/big')?.keys, POLL).toEqual(['a']);
      expect(slim.informer.store.get('default/big')?.data).toBeUndefined();
      await expect.poll(() => whole.informer.store.get('default/big')?.data, POLL).toEqual({ a: 'x'.repeat(1000) });
    } finally {
      stop.abort();
      await running;
    }
  });
});

describe('InformerHolds', () => {
  it('runs informers of their own without a shared set, and stops them when stopped', async () => {
    await using env = await onSim();
    const { client, requests } = recording(env.client);
    const holds = InformerHolds.onGivenOrOwn(undefined, 'own-informers', { cluster: 'sim', client });
    const configMaps = holds.acquire({ resource: CONFIGMAPS, namespace: 'default' });
    const stop = new AbortController();
    const running = holds.start(stop.signal);
    try {
      expect(await holds.waitForSync()).toBe(true);
      await env.client.resource(CONFIGMAPS, 'default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own' } });
      await expect.poll(() => configMaps.store.get('default/own')?.metadata.name, POLL).toBe('own');
      expect(requests.watches.filter((w) => w === 'configmaps/default').length).toBeGreaterThan(0);
    } finally {
      stop.abort();
      await running;
    }
    expect(() => holds.acquire({ resource: CONFIGMAPS })).toThrow(InformersStoppedError);
  });

  it('holds the given shared set, which they release but leave running when stopped', async () => {
    await using env = await onSim();
    const { client, requests } = recording(env.client);
    const informers = new SharedInformers({ cluster: 'sim', client });
    const stopInformers = new AbortController();
    const informersRunning = informers.start(stopInformers.signal);
    try {
      const holds = InformerHolds.onGivenOrOwn(informers, 'given-informers', { cluster: 'unused', client });
      const configMaps = holds.acquire({ resource: CONFIGMAPS, namespace: 'default' });
      expect(informers.acquire({ resource: CONFIGMAPS, namespace: 'default' }).informer).toBe(configMaps);
      const stop = new AbortController();
      const running = holds.start(stop.signal);
      expect(await holds.waitForSync()).toBe(true);
      stop.abort();
      await running;
      // The hold taken directly above remains; the set still runs and hands out informers.
      expect(informers.size).toBe(1);
      expect(informers.acquire({ resource: CONFIGMAPS, namespace: 'kube-system' }).informer).toBeDefined();
      expect(requests.lists.filter((l) => l === 'configmaps/default')).toHaveLength(1);
    } finally {
      stopInformers.abort();
      await informersRunning;
    }
  });
});
