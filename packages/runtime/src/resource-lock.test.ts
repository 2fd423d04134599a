import { describe, expect, it } from 'vitest';
import { AnnotationLock, LEADER_ANNOTATION, LeaseLock, MultiLock, UNKNOWN_LEADER, type LeaderElectionRecord } from './resource-lock.js';
import { InMemoryLeaseClient } from './testing/in-memory-lease-client.js';

const at = { namespace: 'kube-federation-system', name: 'kubefed-controller-manager' };
const T0 = Date.UTC(2026, 10, 21, 10, 0, 0, 123);
const record = (holderIdentity: string, over: Partial<LeaderElectionRecord> = {}): LeaderElectionRecord => ({
  holderIdentity,
  leaseDurationSeconds: 15,
  acquireTime: T0,
  renewTime: T0 + 5000,
  leaderTransitions: 2,
  ...over,
});

/** A ConfigMap written as client-go's ConfigMapLock writes it. */
async function clientGoConfigMap(objects: InMemoryLeaseClient, holder: string): Promise<void> {
  await objects.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      ...at,
      annotations: {
        [LEADER_ANNOTATION]: `{"holderIdentity":"${holder}","leaseDurationSeconds":15,"acquireTime":"2026-11-21T10:00:00Z","renewTime":"2026-11-21T10:00:05Z","leaderTransitions":2}`,
      },
    },
  });
}

/** A Lease written as client-go's LeaseLock writes it. */
async function clientGoLease(leases: InMemoryLeaseClient, holder: string): Promise<void> {
  await leases.create({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: at,
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      acquireTime: '2026-11-21T10:00:00.000000Z',
      renewTime: '2026-11-21T10:00:05.000000Z',
      leaseTransitions: 2,
    },
  });
}

describe('AnnotationLock', () => {
  it("writes client-go's LeaderElectionRecord JSON, fields in its order and times in whole seconds", async () => {
    const objects = new InMemoryLeaseClient();
    await new AnnotationLock('ConfigMap', objects, at).create(record('a'));
    const cm = await objects.get(at.name);
    expect(cm).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: at });
    expect(cm.metadata.annotations?.[LEADER_ANNOTATION]).toBe(
      '{"holderIdentity":"a","leaseDurationSeconds":15,"acquireTime":"2026-11-21T10:00:00Z","renewTime":"2026-11-21T10:00:05Z","leaderTransitions":2}',
    );
  });

  it('reads a record client-go wrote and updates only the annotation, keeping the rest of the object', async () => {
    const objects = new InMemoryLeaseClient();
    await clientGoConfigMap(objects, 'kubefed-pod_1234');
    const stored = await objects.get(at.name);
    await objects.update({ ...stored, metadata: { ...stored.metadata, labels: { keep: 'me' } }, data: { keep: 'me' } });
    const lock = new AnnotationLock('ConfigMap', objects, at);
    expect((await lock.get())?.record).toEqual({
      holderIdentity: 'kubefed-pod_1234',
      leaseDurationSeconds: 15,
      acquireTime: Date.UTC(2026, 10, 21, 10, 0, 0),
      renewTime: Date.UTC(2026, 10, 21, 10, 0, 5),
      leaderTransitions: 2,
    });
    await lock.update(record('ours', { acquireTime: undefined }));
    const after = await objects.get(at.name);
    expect(after.metadata.labels).toEqual({ keep: 'me' });
    expect(after['data']).toEqual({ keep: 'me' });
    expect(JSON.parse(after.metadata.annotations?.[LEADER_ANNOTATION] ?? '')).toEqual({
      holderIdentity: 'ours',
      leaseDurationSeconds: 15,
      acquireTime: null,
      renewTime: '2026-11-21T10:00:05Z',
      leaderTransitions: 2,
    });
  });

  it('reads an object without the annotation as free, and a missing object as absent', async () => {
    const objects = new InMemoryLeaseClient();
    const lock = new AnnotationLock('Endpoints', objects, at);
    expect(await lock.get()).toBeUndefined();
    await objects.create({ apiVersion: 'v1', kind: 'Endpoints', metadata: at });
    expect((await lock.get())?.record.holderIdentity).toBe('');
  });
});

describe('LeaseLock', () => {
  it('writes MicroTimes and keeps the spec fields it does not own', async () => {
    const leases = new InMemoryLeaseClient();
    await clientGoLease(leases, 'a');
    const stored = await leases.get(at.name);
    await leases.update({ ...stored, spec: { ...(stored.spec as object), strategy: 'OldestEmulationVersion' } });
    const lock = new LeaseLock(leases, at);
    expect((await lock.get())?.record).toMatchObject({ holderIdentity: 'a', leaderTransitions: 2 });
    await lock.update(record('b', { leaderTransitions: 3 }));
    expect((await leases.get(at.name)).spec).toEqual({
      holderIdentity: 'b',
      leaseDurationSeconds: 15,
      acquireTime: '2026-11-21T10:00:00.123000Z',
      renewTime: '2026-11-21T10:00:05.123000Z',
      leaseTransitions: 3,
      strategy: 'OldestEmulationVersion',
    });
  });
});

describe('MultiLock (configmapsleases)', () => {
  const setup = () => {
    const configMaps = new InMemoryLeaseClient();
    const leases = new InMemoryLeaseClient();
    const lock = new MultiLock(new AnnotationLock('ConfigMap', configMaps, at), new LeaseLock(leases, at), 'ours');
    return { configMaps, leases, lock };
  };

  it.each<[string, string | undefined, string | undefined, string | undefined]>([
    ['neither object exists: absent (to be created)', undefined, undefined, undefined],
    ['only a ConfigMap another candidate holds: its holder', 'kubefed-old', undefined, 'kubefed-old'],
    ['only a ConfigMap we hold: absent (the Lease is to be created)', 'ours', undefined, undefined],
    ['only a Lease another candidate holds: its holder', undefined, 'kubefed-new', 'kubefed-new'],
    ['only a released Lease: absent', undefined, '', undefined],
    ['both name the same holder: that holder', 'kubefed-old', 'kubefed-old', 'kubefed-old'],
    ['they name different holders: the unknown leader', 'kubefed-old', 'kubefed-new', UNKNOWN_LEADER],
    ['we hold the ConfigMap and another the Lease: the unknown leader', 'ours', 'kubefed-new', UNKNOWN_LEADER],
  ])('reads %s', async (_title, cmHolder, leaseHolder, expected) => {
    const { configMaps, leases, lock } = setup();
    if (cmHolder !== undefined) await clientGoConfigMap(configMaps, cmHolder);
    if (leaseHolder !== undefined) await clientGoLease(leases, leaseHolder);
    expect((await lock.get())?.record.holderIdentity).toBe(expected);
  });

  it('writes the same record to the ConfigMap and the Lease, creating whichever is missing', async () => {
    const { configMaps, leases, lock } = setup();
    await clientGoConfigMap(configMaps, '');
    expect((await lock.get())?.record.holderIdentity).toBe('');
    await lock.update(record('ours'));
    expect(JSON.parse((await configMaps.get(at.name)).metadata.annotations?.[LEADER_ANNOTATION] ?? '')).toMatchObject({
      holderIdentity: 'ours',
      leaderTransitions: 2,
    });
    expect((await leases.get(at.name)).spec).toMatchObject({ holderIdentity: 'ours', leaseTransitions: 2 });
    expect((await lock.get())?.record.holderIdentity).toBe('ours');
  });
});
