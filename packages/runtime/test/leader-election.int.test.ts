import { DynamicClient, Kubeconfig, type ResourceClient } from '@kubefed/client';
import { startCluster, type SimCluster } from '@kubefed/kube-sim';
import {
  LEADER_ANNOTATION,
  LeaderElector,
  Manager,
  newResourceLock,
  UNKNOWN_LEADER,
  type ResourceLockClients,
  type ResourceLockType,
  type Runnable,
} from '@kubefed/runtime';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const LOCK = 'kubefed-controller-manager';
let sim: SimCluster;
let client: DynamicClient;
let clients: ResourceLockClients & { configMaps: ResourceClient; endpoints: ResourceClient; leases: ResourceClient };
const running: { ac: AbortController; done: Promise<unknown> }[] = [];

beforeEach(async () => {
  sim = await startCluster({ name: 'runtime-leader', tls: false });
  client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()), { qps: 0 });
  clients = {
    leases: client.resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }, 'default'),
    configMaps: client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'default'),
    endpoints: client.resource({ group: '', version: 'v1', resource: 'endpoints' }, 'default'),
  };
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
function candidate(identity: string, releaseOnCancel = true, lockType: ResourceLockType = 'leases') {
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
      lock: newResourceLock(lockType, { name: LOCK, namespace: 'default', identity, clients }),
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

/** The holder stored in the Lease. */
async function holder(): Promise<string | undefined> {
  try {
    const lease = await clients.leases.get(LOCK);
    return (lease.spec as { holderIdentity?: string }).holderIdentity;
  } catch {
    return undefined;
  }
}

/** The record in the leader annotation of the ConfigMap or Endpoints `LOCK`, parsed, and its raw JSON. */
async function annotationRecord(objects: ResourceClient): Promise<{ raw: string; record: Record<string, unknown> } | undefined> {
  try {
    const raw = (await objects.get(LOCK)).metadata.annotations?.[LEADER_ANNOTATION];
    return raw === undefined ? undefined : { raw, record: JSON.parse(raw) as Record<string, unknown> };
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

describe.each(['configmaps', 'endpoints'] as const)("leader election on client-go's %s lock against kube-sim", (lockType) => {
  const objects = (): ResourceClient => (lockType === 'configmaps' ? clients.configMaps : clients.endpoints);

  it('lets one manager lead, writes the record as client-go does, and hands over when the leader stops', async () => {
    const a = candidate('a', false, lockType);
    await vi.waitFor(() => expect(a.manager.isLeader && a.state.working).toBe(true), { timeout: 5000 });
    const b = candidate('b', true, lockType);
    const first = await annotationRecord(objects());
    expect(Object.keys(first?.record ?? {})).toEqual([
      'holderIdentity',
      'leaseDurationSeconds',
      'acquireTime',
      'renewTime',
      'leaderTransitions',
    ]);
    expect(first?.record).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 2,
      acquireTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      renewTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      leaderTransitions: 0,
    });
    // The renewals change only the renew time: b, watching, never leads beside a.
    await holdsFor(1500, () => expect(b.manager.isLeader || b.state.working).toBe(false));
    expect(await holder()).toBeUndefined();
    await a.stop();
    const stoppedAt = Date.now();
    await vi.waitFor(() => expect(b.manager.isLeader && b.state.working).toBe(true), { timeout: 5000, interval: 10 });
    expect(Date.now() - stoppedAt).toBeLessThan(2000 + 2 * 300);
    await vi.waitFor(
      async () => expect((await annotationRecord(objects()))?.record).toMatchObject({ holderIdentity: 'b', leaderTransitions: 1 }),
      {
        timeout: 2000,
      },
    );
  });
});

/** Checks `check` every 50 ms for `ms` (a "stays true" window). */
async function holdsFor(ms: number, check: () => unknown): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await check();
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A candidate of client-go's making, renewing its record every 250 ms as a KubeFed controller manager would. */
function foreignHolder(write: () => Promise<void>): { stop: () => Promise<void> } {
  let stopped = false;
  let last: Promise<void> = write();
  const timer = setInterval(() => {
    if (!stopped) last = last.then(write, write);
  }, 250);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await last.catch(() => undefined);
    },
  };
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

describe("leader election on client-go's configmapsleases MultiLock against kube-sim", () => {
  function elector() {
    const e = new LeaderElector({
      lock: newResourceLock('configmapsleases', { name: LOCK, namespace: 'default', identity: 'ours', clients }),
      identity: 'ours',
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 250,
    });
    const ac = new AbortController();
    const done = e.run(ac.signal);
    running.push({ ac, done });
    return e;
  }

  /** Holds the lock for 1.5 lease durations, then stops renewing: `ours` must wait, then take both objects. */
  async function expectWaitsThenTakesOver(foreign: { stop: () => Promise<void> }, meanwhile?: () => Promise<void>): Promise<void> {
    const e = elector();
    await holdsFor(3000, async () => {
      expect(e.isLeader).toBe(false);
      await meanwhile?.();
    });
    expect(e.observedLeader).toBe('kubefed-other');
    await foreign.stop();
    await vi.waitFor(() => expect(e.isLeader).toBe(true), { timeout: 2000 + 2 * 300 + 1000 });
    expect((await annotationRecord(clients.configMaps))?.record['holderIdentity']).toBe('ours');
    expect(await holder()).toBe('ours');
  }

  it('refuses to lead while another candidate renews the ConfigMap record, and no Lease exists', async () => {
    let acquire: number | undefined;
    const foreign = foreignHolder(async () => {
      const now = Date.now();
      acquire ??= now;
      const annotations = {
        [LEADER_ANNOTATION]: JSON.stringify({
          holderIdentity: 'kubefed-other',
          leaseDurationSeconds: 2,
          acquireTime: rfc3339(acquire),
          renewTime: rfc3339(now),
          leaderTransitions: 0,
        }),
      };
      try {
        const cm = await clients.configMaps.get(LOCK);
        await clients.configMaps.update({ ...cm, metadata: { ...cm.metadata, annotations } });
      } catch {
        await clients.configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: LOCK, annotations } });
      }
    });
    await vi.waitFor(async () => expect((await annotationRecord(clients.configMaps))?.record['holderIdentity']).toBe('kubefed-other'), {
      timeout: 2000,
    });
    await expectWaitsThenTakesOver(foreign);
  });

  it('refuses to lead while another candidate renews the Lease, and writes no ConfigMap meanwhile', async () => {
    let acquire: number | undefined;
    const foreign = foreignHolder(async () => {
      const now = Date.now();
      acquire ??= now;
      const spec = {
        holderIdentity: 'kubefed-other',
        leaseDurationSeconds: 2,
        acquireTime: microTime(acquire),
        renewTime: microTime(now),
        leaseTransitions: 0,
      };
      try {
        const lease = await clients.leases.get(LOCK);
        await clients.leases.update({ ...lease, spec });
      } catch {
        await clients.leases.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: LOCK }, spec });
      }
    });
    await vi.waitFor(async () => expect(await holder()).toBe('kubefed-other'), { timeout: 2000 });
    await expectWaitsThenTakesOver(foreign, async () => expect(await annotationRecord(clients.configMaps)).toBeUndefined());
  });

  it('reads the lock as held by an unknown leader while the ConfigMap and the Lease name different holders', async () => {
    const now = Date.now();
    await clients.configMaps.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: LOCK,
        annotations: {
          [LEADER_ANNOTATION]: JSON.stringify({
            holderIdentity: 'kubefed-other',
            leaseDurationSeconds: 2,
            acquireTime: rfc3339(now),
            renewTime: rfc3339(now),
            leaderTransitions: 0,
          }),
        },
      },
    });
    await clients.leases.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: LOCK },
      spec: {
        holderIdentity: 'someone-else',
        leaseDurationSeconds: 2,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      },
    });
    const e = elector();
    await vi.waitFor(() => expect(e.observedLeader).toBe(UNKNOWN_LEADER), { timeout: 2000 });
    expect(e.isLeader).toBe(false);
  });
});
