import net from 'node:net';
import { buildFederatedTypeConfig, MANAGED_LABEL, MANAGED_LABEL_TRUE } from '@kubefed/api';
import { DynamicClient, Kubeconfig, type KubeObject } from '@kubefed/client';
import { MemberWatches, syncTypeOf } from '@kubefed/controllers';
import { startCluster } from '@kubefed/kube-sim';
import { Fleet, silentLogger, systemClock } from '@kubefed/runtime';
import { consistently } from '@kubefed/testing';
import { TARGET_TYPES } from '@kubefed/testing/fixtures';
import { describe, expect, it } from 'vitest';

const CONFIGMAPS = TARGET_TYPES.configMaps;
const POLL = { timeout: 10_000, interval: 50 };

type WatchesOptions = ConstructorParameters<typeof MemberWatches>[0];

/** MemberWatches of `type` over `fleet` as these tests make them (no status collected, silent, system clock), with `options`. */
function memberWatches(
  type: WatchesOptions['type'],
  fleet: WatchesOptions['fleet'],
  options: Partial<Pick<WatchesOptions, 'onChange' | 'onSettled' | 'settleLimitMs'>>,
): MemberWatches {
  return new MemberWatches({
    type,
    fleet,
    statusChanges: () => false,
    logger: silentLogger(),
    clock: systemClock,
    onChange: () => undefined,
    ...options,
  });
}

/** A started Fleet with the one Ready cluster `name` of `kubeconfig`; disposing it stops the Fleet. */
function readyFleet(name: string, kubeconfig: string): AsyncDisposable & { fleet: Fleet<string>; client: DynamicClient } {
  const fleet = new Fleet<string>({
    connect: (_name, config) => DynamicClient.fromKubeconfig(Kubeconfig.fromString(config), { qps: 0 }),
  });
  const stop = new AbortController();
  const running = fleet.start(stop.signal);
  const client = fleet.engage(name, kubeconfig);
  fleet.setReady(name, true);
  return {
    fleet,
    client,
    [Symbol.asyncDispose]: async () => {
      stop.abort();
      await running;
    },
  };
}

describe('MemberWatches over a Fleet', () => {
  it('shares one member informer between two watchers; a late one reports changes, not the copies already cached', async () => {
    await using member = await startCluster({ name: 'member-watches', tls: false });
    await using one = readyFleet('m1', member.kubeconfigYaml());
    const { fleet, client } = one;
    const type = syncTypeOf(buildFederatedTypeConfig(CONFIGMAPS, 'kube-federation-system'));
    const seen = { first: [] as string[], second: [] as string[] };
    const watches = (into: string[]): MemberWatches =>
      memberWatches(type, fleet, { onChange: (cluster, key) => into.push(`${cluster} ${key}`) });
    const cms = client.resource(type.targetGvr, 'default');
    const managed = (name: string, data: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels: { [MANAGED_LABEL]: MANAGED_LABEL_TRUE } },
      data,
    });
    const first = watches(seen.first);
    const second = watches(seen.second);
    try {
      first.sync(fleet.readyClusters());
      await expect.poll(() => first.hasManagedCopy('m1', 'default/a'), POLL).toBe(false);
      await cms.create(managed('a', { v: '1' }));
      await expect.poll(() => seen.first, POLL).toEqual(['m1 default/a']);

      second.sync(fleet.readyClusters());
      expect(second.hasManagedCopy('m1', 'default/a')).toBe(true);
      await consistently(() => expect(seen.second).toEqual([]), { durationMs: 500 });

      const current = await cms.get('a');
      await cms.update({ ...current, data: { v: '2' } });
      await expect.poll(() => seen.second, POLL).toEqual(['m1 default/a']);
      await expect.poll(() => seen.first, POLL).toEqual(['m1 default/a', 'm1 default/a']);

      // The first watcher leaves: the second keeps the shared informer and its events.
      await first.stop();
      await cms.delete('a');
      await expect.poll(() => seen.second, POLL).toEqual(['m1 default/a', 'm1 default/a']);
      expect(seen.first).toEqual(['m1 default/a', 'm1 default/a']);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it('caches slim copies, yet reports a change of a field it does not keep and no change of the status alone', async () => {
    await using member = await startCluster({ name: 'member-watches-slim', tls: false });
    await using one = readyFleet('m1', member.kubeconfigYaml());
    const { fleet, client } = one;
    // Services without status collection: the cache keeps the retained spec fields, not the selector nor the status.
    const type = syncTypeOf(buildFederatedTypeConfig(TARGET_TYPES.services, 'kube-federation-system'));
    const seen: string[] = [];
    const watches = memberWatches(type, fleet, { onChange: (cluster, key) => seen.push(`${cluster} ${key}`) });
    const services = client.resource(type.targetGvr, 'default');
    const ports = [{ name: 'http', protocol: 'TCP', port: 80 }];
    try {
      watches.sync(fleet.readyClusters());
      await expect.poll(() => watches.hasManagedCopy('m1', 'default/web'), POLL).toBe(false);
      const created = await services.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web', labels: { [MANAGED_LABEL]: MANAGED_LABEL_TRUE } },
        spec: { selector: { app: 'web' }, ports },
      });
      await expect.poll(() => seen, POLL).toEqual(['m1 default/web']);
      const cached = watches.managedCopy('m1', 'default/web');
      expect(cached?.metadata).toMatchObject({ name: 'web', resourceVersion: created.metadata.resourceVersion });
      // A Service has no generation: its version is its resourceVersion, and the uid is not kept.
      expect(created.metadata.generation ?? 0).toBe(0);
      expect(cached?.metadata.uid).toBeUndefined();
      expect(cached?.metadata.managedFields).toBeUndefined();
      const createdSpec = created.spec as { clusterIP: string; clusterIPs: string[] };
      expect(cached?.spec).toEqual({
        clusterIP: createdSpec.clusterIP,
        clusterIPs: createdSpec.clusterIPs,
        ports: [expect.objectContaining(ports[0])],
      });

      // The status alone (not kept: the type collects no status) is no change.
      const withStatus = await services.updateStatus({ ...created, status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } } });
      await expect
        .poll(() => watches.managedCopy('m1', 'default/web')?.metadata.resourceVersion, POLL)
        .toBe(withStatus.metadata.resourceVersion);
      expect(watches.managedCopy('m1', 'default/web')?.status).toBeUndefined();
      await consistently(() => expect(seen).toEqual(['m1 default/web']), { durationMs: 500 });

      // A hand edit of the selector, which the cache does not keep, is a change.
      await services.patch('web', { spec: { selector: { app: 'other' } } }, 'merge');
      await expect.poll(() => seen, POLL).toEqual(['m1 default/web', 'm1 default/web']);
      expect(watches.managedCopy('m1', 'default/web')?.spec).not.toHaveProperty('selector');
    } finally {
      await watches.stop();
    }
  });
});

describe('MemberWatches settling', () => {
  const type = syncTypeOf(buildFederatedTypeConfig(CONFIGMAPS, 'kube-federation-system'));

  it('counts a cluster as settling while its cache is listed, then tells onSettled once', async () => {
    await using member = await startCluster({ name: 'member-watches-settle', tls: false });
    await using one = readyFleet('m1', member.kubeconfigYaml());
    const { fleet, client } = one;
    await client.resource(type.targetGvr, 'default').create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', labels: { [MANAGED_LABEL]: MANAGED_LABEL_TRUE } },
    });
    const settled: { cluster: string; cached: boolean | undefined }[] = [];
    const watches = memberWatches(type, fleet, {
      onSettled: (cluster) => settled.push({ cluster, cached: watches.hasManagedCopy(cluster, 'default/a') }),
    });
    try {
      expect(watches.settling('m1')).toBe(false); // not engaged
      watches.sync(fleet.readyClusters());
      expect(watches.settling('m1')).toBe(true);
      expect(watches.hasManagedCopy('m1', 'default/a')).toBeUndefined();
      // Told once the cache holds the copies, and then no longer settling.
      await expect.poll(() => settled, POLL).toEqual([{ cluster: 'm1', cached: true }]);
      expect(watches.settling('m1')).toBe(false);
      await consistently(() => expect(settled).toHaveLength(1), { durationMs: 300 });
    } finally {
      await watches.stop();
    }
  });

  /** A MemberWatches over a Fleet of one cluster `m` at `server` (no credentials), with a settle limit of `limitMs`; `settled` holds the ms from the start to each onSettled. */
  function watchingOne(server: string, limitMs: number): AsyncDisposable & { watches: MemberWatches; settled: number[] } {
    const kubeconfig = `apiVersion: v1
kind: Config
current-context: c
clusters: [{ name: c, cluster: { server: '${server}' } }]
users: [{ name: u, user: {} }]
contexts: [{ name: c, context: { cluster: c, user: u } }]
`;
    const one = readyFleet('m', kubeconfig);
    const { fleet } = one;
    const settled: number[] = [];
    const started = Date.now();
    const watches = memberWatches(type, fleet, { onSettled: () => settled.push(Date.now() - started), settleLimitMs: limitMs });
    watches.sync(fleet.readyClusters());
    return {
      watches,
      settled,
      [Symbol.asyncDispose]: async () => {
        await watches.stop();
        await one[Symbol.asyncDispose]();
      },
    };
  }

  it('ends the settling of a cluster at once when its list fails', async () => {
    // Nothing listens on port 1: every list is refused (and retried with backoff).
    await using one = watchingOne('http://127.0.0.1:1', 60_000);
    expect(one.watches.settling('m')).toBe(true);
    await expect.poll(() => one.settled.length, POLL).toBe(1);
    expect(one.settled[0]).toBeLessThan(10_000);
    expect(one.watches.settling('m')).toBe(false);
    expect(one.watches.hasManagedCopy('m', 'default/a')).toBeUndefined();
  });

  it('ends the settling of a cluster whose list does not answer after the settle limit', async () => {
    // A server that accepts connections and never answers.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      await using one = watchingOne(`http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, 300);
      expect(one.watches.settling('m')).toBe(true);
      await expect.poll(() => one.settled.length, POLL).toBe(1);
      expect(one.settled[0]).toBeGreaterThanOrEqual(250);
      expect(one.watches.settling('m')).toBe(false);
    } finally {
      silent.close();
    }
  });
});
