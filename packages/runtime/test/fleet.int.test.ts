import { DynamicClient, Kubeconfig } from '@kubefed/client';
import { startCluster } from '@kubefed/kube-sim';
import { CacheBudgetExceededError, Fleet, FleetStoppedError } from '@kubefed/runtime';
import { describe, expect, it } from 'vitest';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' } as const;
const POLL = { timeout: 10_000, interval: 50 };

interface Config {
  readonly kubeconfig: string;
  readonly generation: number;
}

async function fleetOnSim(): Promise<{ fleet: Fleet<Config>; kubeconfig: string; [Symbol.asyncDispose]: () => Promise<void> }> {
  const sim = await startCluster({ name: 'runtime-fleet', tls: false });
  const fleet = new Fleet<Config>({
    connect: (_name, config) => DynamicClient.fromKubeconfig(Kubeconfig.fromString(config.kubeconfig), { qps: 0 }),
  });
  const stop = new AbortController();
  const running = fleet.start(stop.signal);
  return {
    fleet,
    kubeconfig: sim.kubeconfigYaml(),
    [Symbol.asyncDispose]: async () => {
      stop.abort();
      await running;
      await sim[Symbol.asyncDispose]();
    },
  };
}

describe('Fleet', () => {
  it('engages a member once per config, replaces its client when the config changes and announces readiness changes only', async () => {
    await using env = await fleetOnSim();
    const { fleet } = env;
    const events: string[] = [];
    fleet.subscribe({
      onEngaged: (name) => events.push(`engaged ${name}`),
      onDisengaged: (name) => events.push(`disengaged ${name}`),
      onReadyChange: (ready) => events.push(`ready [${ready.join(',')}]`),
    });
    const first = fleet.engage('m1', { kubeconfig: env.kubeconfig, generation: 1 });
    expect(fleet.engage('m1', { kubeconfig: env.kubeconfig, generation: 1 })).toBe(first);
    expect(fleet.isReady('m1')).toBe(false);
    fleet.setReady('m1', true);
    fleet.setReady('m1', true);
    fleet.setReady('ghost', true);
    expect([...fleet.readyClusters()]).toEqual([['m1', first]]);

    const second = fleet.engage('m1', { kubeconfig: env.kubeconfig, generation: 2 });
    expect(second).not.toBe(first);
    expect(fleet.get('m1')).toMatchObject({ name: 'm1', client: second, ready: false, config: { generation: 2 } });
    fleet.setReady('m1', true);
    await fleet.disengage('m1');
    expect(fleet.members()).toEqual([]);
    expect(events).toEqual([
      'engaged m1',
      'ready [m1]',
      'ready []',
      'disengaged m1',
      'engaged m1',
      'ready [m1]',
      'ready []',
      'disengaged m1',
    ]);
  });

  it('leaves a member whose client cannot be built disengaged and throws why', async () => {
    await using env = await fleetOnSim();
    expect(() => env.fleet.engage('bad', { kubeconfig: 'not: [a kubeconfig', generation: 1 })).toThrow();
    expect(env.fleet.get('bad')).toBeUndefined();
  });

  it('disengages every member when stopped and engages none after that', async () => {
    const sim = await startCluster({ name: 'runtime-fleet-stop', tls: false });
    try {
      const fleet = new Fleet<string>({
        connect: (_name, config) => DynamicClient.fromKubeconfig(Kubeconfig.fromString(config), { qps: 0 }),
      });
      const stop = new AbortController();
      const running = fleet.start(stop.signal);
      fleet.engage('m1', sim.kubeconfigYaml());
      fleet.setReady('m1', true);
      const left: string[] = [];
      fleet.subscribe({ onDisengaged: (name) => left.push(name) });
      stop.abort();
      await running;
      expect(left).toEqual(['m1']);
      expect(fleet.readyClusters().size).toBe(0);
      expect(() => fleet.engage('m2', sim.kubeconfigYaml())).toThrow(FleetStoppedError);
      expect(fleet.members()).toEqual([]);
    } finally {
      await sim[Symbol.asyncDispose]();
    }
  });

  it('shares one informer per cluster and resource between its holders and stops it with the last one or the member', async () => {
    await using env = await fleetOnSim();
    const { fleet } = env;
    const client = fleet.engage('m1', { kubeconfig: env.kubeconfig, generation: 1 });
    const spec = { resource: CONFIGMAPS, namespace: 'default', labelSelector: 'app=fleet' };
    const a = fleet.informer('m1', spec);
    const b = fleet.informer('m1', spec);
    const other = fleet.informer('m1', { resource: CONFIGMAPS, namespace: 'default' });
    expect(a?.informer).toBe(b?.informer);
    expect(other?.informer).not.toBe(a?.informer);
    expect(fleet.informer('ghost', spec)).toBeUndefined();

    await client
      .resource(CONFIGMAPS, 'default')
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { app: 'fleet' } } });
    await expect.poll(() => a?.informer.store.get('default/cm')?.metadata.name, POLL).toBe('cm');

    a?.release();
    a?.release();
    const c = fleet.informer('m1', spec);
    expect(c?.informer).toBe(b?.informer);
    c?.release();
    b?.release();
    const fresh = fleet.informer('m1', spec);
    expect(fresh?.informer).not.toBe(b?.informer);
    await expect.poll(() => fresh?.informer.store.get('default/cm')?.metadata.name, POLL).toBe('cm');

    await fleet.disengage('m1');
    expect(fleet.informer('m1', spec)).toBeUndefined();
    fresh?.release();
    other?.release();
  });

  it('disengages a member whose informers pass its cache budget, refuses it for the retry delay, then engages it again', async () => {
    const sim = await startCluster({ name: 'runtime-fleet-budget', tls: false });
    try {
      const fleet = new Fleet<string>({
        connect: (_name, config) => DynamicClient.fromKubeconfig(Kubeconfig.fromString(config), { qps: 0 }),
        cacheBudget: { maxObjects: 6, maxBytes: 1024 * 1024, maxListPages: 100 },
        overBudgetRetryMs: 1500,
      });
      const stop = new AbortController();
      const running = fleet.start(stop.signal);
      const events: string[] = [];
      fleet.subscribe({ onDisengaged: (name) => events.push(`disengaged ${name}`) });
      const client = fleet.engage('m1', sim.kubeconfigYaml());
      const configMaps = client.resource(CONFIGMAPS, 'default');
      for (let i = 0; i < 6; i++) await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } });
      // The namespace holds 7 ConfigMaps with kube-root-ca.crt: past the budget at the first page.
      const held = fleet.informer('m1', { resource: CONFIGMAPS, namespace: 'default' });
      await expect.poll(() => events, POLL).toEqual(['disengaged m1']);
      expect(fleet.get('m1')).toBeUndefined();
      expect(fleet.overBudget('m1')?.message).toMatch(
        /member cluster m1 holds more than 6 objects .*\(7, listing or watching configmaps\/v1\/default@m1\)/,
      );
      expect(() => fleet.engage('m1', sim.kubeconfigYaml())).toThrow(CacheBudgetExceededError);
      held?.release();

      await configMaps.delete('cm-5');
      await expect.poll(() => fleet.overBudget('m1'), { timeout: 10_000, interval: 100 }).toBeUndefined();
      fleet.engage('m1', sim.kubeconfigYaml());
      const again = fleet.informer('m1', { resource: CONFIGMAPS, namespace: 'default' });
      await expect.poll(() => again?.informer.store.list().length, POLL).toBe(6);
      expect(fleet.get('m1')).toBeDefined();
      again?.release();
      stop.abort();
      await running;
    } finally {
      await sim[Symbol.asyncDispose]();
    }
  });
});
