import { DynamicClient, Kubeconfig, type ResourceClient } from '@kubefed/client';
import { startCluster, type SimCluster } from '@kubefed/kube-sim';
import { Manager, type Runnable } from '@kubefed/runtime';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const LEASE = 'kubefed-controller-manager';
let sim: SimCluster;
let client: DynamicClient;
let leases: ResourceClient;
const running: { ac: AbortController; done: Promise<unknown> }[] = [];

beforeEach(async () => {
  sim = await startCluster({ name: 'runtime-leader', tls: false });
  client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()), { qps: 0 });
  leases = client.resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }, 'default');
});

afterEach(async () => {
  for (const r of running.splice(0)) {
    r.ac.abort();
    await r.done;
  }
  client.close();
  await sim.stop();
});

/** A manager candidate whose leader-only runnable records whether it is running. */
function candidate(identity: string, releaseOnCancel = true) {
  const state = { working: false };
  const worker: Runnable = {
    name: 'worker',
    start: (signal) =>
      new Promise<void>((resolve) => {
        state.working = true;
        signal.addEventListener('abort', () => {
          state.working = false;
          resolve();
        });
      }),
  };
  const manager = new Manager({
    healthAddress: null,
    metricsAddress: null,
    leaderElection: {
      leases,
      name: LEASE,
      namespace: 'default',
      identity,
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 250,
      releaseOnCancel,
    },
  });
  manager.add(worker);
  const ac = new AbortController();
  const done = manager.start(ac.signal).catch((err: unknown) => err);
  const entry = { ac, done };
  running.push(entry);
  return {
    manager,
    state,
    stop: async () => {
      ac.abort();
      await done;
      running.splice(running.indexOf(entry), 1);
    },
  };
}

async function holder(): Promise<string | undefined> {
  try {
    const lease = await leases.get(LEASE);
    return (lease.spec as { holderIdentity?: string }).holderIdentity;
  } catch {
    return undefined;
  }
}

describe('leader election against kube-sim', () => {
  it('never lets two managers lead at once, and a graceful release hands over in under a second', async () => {
    const a = candidate('a');
    const b = candidate('b');
    await vi.waitFor(() => expect(a.manager.isLeader || b.manager.isLeader).toBe(true), { timeout: 5000 });
    const samples: { a: boolean; b: boolean; holder: string | undefined }[] = [];
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      const h = await holder();
      samples.push({ a: a.manager.isLeader || a.state.working, b: b.manager.isLeader || b.state.working, holder: h });
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(samples.length).toBeGreaterThan(20);
    expect(samples.filter((s) => s.a && s.b)).toEqual([]);
    const leader = a.manager.isLeader ? a : b;
    const standby = leader === a ? b : a;
    expect(samples.every((s) => s.holder === (leader === a ? 'a' : 'b'))).toBe(true);
    await leader.stop();
    const releasedAt = Date.now();
    await vi.waitFor(() => expect(standby.manager.isLeader && standby.state.working).toBe(true), { timeout: 5000, interval: 10 });
    expect(Date.now() - releasedAt).toBeLessThan(1000);
    expect(await holder()).toBe(leader === a ? 'b' : 'a');
  });

  it('lets the standby take over within the lease duration when the leader is killed without releasing', async () => {
    const a = candidate('a', false);
    await vi.waitFor(() => expect(a.manager.isLeader).toBe(true), { timeout: 5000 });
    const b = candidate('b');
    await vi.waitFor(async () => expect(await holder()).toBe('a'), { timeout: 5000 });
    await new Promise((r) => setTimeout(r, 600)); // let b observe a few renewals
    expect(b.manager.isLeader).toBe(false);
    await a.stop();
    const killedAt = Date.now();
    expect(await holder()).toBe('a');
    await vi.waitFor(() => expect(b.manager.isLeader && b.state.working).toBe(true), { timeout: 5000, interval: 10 });
    const takeover = Date.now() - killedAt;
    // b measures the 2 s lease from when it last saw a's renewal (up to one retry period after it).
    expect(takeover).toBeLessThan(2000 + 2 * 300);
    expect(takeover).toBeGreaterThan(1000);
  });
});
