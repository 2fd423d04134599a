// Propagation failure modes through the real processes: the kube-sim CLI (host + 2 members), a
// private restartable redis-server, `kubefedctl join`/`enable`, and controller-manager processes
// that are killed, restarted or run side by side. Member writes are counted from watches on the
// members: every federated ConfigMap must be created once per member and never written again.
import { consistently, type LocalFederation, type ManagedProcess, POLL } from '@kubefed/testing';
import { describe, expect, it } from 'vitest';
import {
  configMapName,
  createFederatedConfigMaps,
  FEDERATED_CONFIG_MAPS,
  managedCopies,
  MemberWriteRecorder,
  metricsText,
  metricValue,
  processFederationFixtures,
  totalManagedCopies,
} from './process-federation.js';

const { federation, afterTest, redis } = processFederationFixtures({ fastLeaderElection: true });

async function recorder(fed: LocalFederation, ns: string): Promise<MemberWriteRecorder> {
  const r = await MemberWriteRecorder.start(fed, ns);
  afterTest(() => r.stop());
  return r;
}

/** Every object created exactly once in every member, nothing modified or deleted, no watch lost. */
function expectEachWrittenOnce(writes: MemberWriteRecorder, fed: LocalFederation, count: number): void {
  expect(writes.errors).toEqual([]);
  expect(writes.duplicates()).toEqual([]);
  expect(writes.count('MODIFIED')).toBe(0);
  expect(writes.count('DELETED')).toBe(0);
  expect(writes.count('ADDED')).toBe(count * fed.members.length);
}

/** Waits until every member holds `count` managed copies, then checks that no further write happens for `windowMs`. */
async function expectConverged(
  fed: LocalFederation,
  ns: string,
  writes: MemberWriteRecorder,
  count: number,
  timeoutMs: number,
): Promise<void> {
  await expect
    .poll(() => managedCopies(fed, ns), { timeout: timeoutMs, interval: 500 })
    .toEqual(Object.fromEntries(fed.members.map((m) => [m, count])));
  // The recorder's watches trail the list above: wait until they have seen every copy arrive
  // before taking the count that must stay unchanged.
  await expect.poll(() => writes.count('ADDED'), POLL).toBeGreaterThanOrEqual(count * fed.members.length);
  const settled = writes.writes.length;
  await consistently(() => expect(writes.writes.length).toBe(settled), {
    durationMs: 5000,
    intervalMs: 100,
    message: 'member writes after convergence',
  });
}

const PROPAGATING = 200;
// Slow enough (jobs per second per member, across processes) that a fault lands mid-propagation.
const RATE = ['--worker-rate-limit', '40'];

describe('propagation through controller-manager processes under failures', () => {
  it('converges with no lost and no repeated member write after the controller manager is killed with SIGKILL mid-propagation', async () => {
    const fed = await federation();
    const ns = 'killed';
    const writes = await recorder(fed, ns);
    const first = await fed.startControllerManager(RATE);
    await fed.waitForReady(30_000);
    await createFederatedConfigMaps(fed, ns, PROPAGATING);
    await expect.poll(() => writes.count('ADDED'), { timeout: 60_000, interval: 20 }).toBeGreaterThanOrEqual(40);
    await first.kill();
    const atKill = writes.count('ADDED');
    expect(atKill).toBeLessThan(PROPAGATING * fed.members.length);

    await fed.startControllerManager(RATE);
    await expectConverged(fed, ns, writes, PROPAGATING, 120_000);
    expectEachWrittenOnce(writes, fed, PROPAGATING);
  }, 240_000);

  it('keeps its lease while its host requests are saturated: renewals have their own client and budget', async () => {
    const fed = await federation();
    const ns = 'saturated';
    await createFederatedConfigMaps(fed, ns, PROPAGATING);
    // 2 host requests per second for everything else: far less than the propagation needs, and
    // with a 500 ms renewal period and a 2 s renew deadline a shared budget loses the lease.
    const cm = await fed.startControllerManager(['--kube-api-qps', '2', '--kube-api-burst', '2']);
    // The default lock (KubeFed's): the leader record in the annotation of a ConfigMap.
    const configMaps = fed.client('host').resource({ group: '', version: 'v1', resource: 'configmaps' }, fed.namespace);
    const holder = async (): Promise<string> => {
      const cm = await configMaps.get('kubefed-controller-manager').catch(() => undefined);
      const record = JSON.parse(cm?.metadata.annotations?.['control-plane.alpha.kubernetes.io/leader'] ?? '{}') as {
        holderIdentity?: string;
      };
      return record.holderIdentity ?? '';
    };
    await expect.poll(holder, { timeout: 20_000, interval: 100 }).not.toBe('');
    const leader = await holder();
    await consistently(
      async () => {
        expect(cm.running).toBe(true);
        expect(await holder()).toBe(leader);
      },
      { durationMs: 10_000, intervalMs: 250, message: 'leadership under a saturated host client' },
    );
    expect(cm.lines.filter((l) => l.includes('leader election lost'))).toEqual([]);
  }, 120_000);

  it('converges with every object in every member after Redis is restarted (its queues lost) mid-propagation', async () => {
    const fed = await federation();
    const ns = 'redis-restart';
    const writes = await recorder(fed, ns);
    await fed.startControllerManager(RATE);
    await fed.waitForReady(30_000);
    await createFederatedConfigMaps(fed, ns, PROPAGATING);
    await expect.poll(() => writes.count('ADDED'), { timeout: 60_000, interval: 20 }).toBeGreaterThanOrEqual(40);
    await redis().restart();
    expect(writes.count('ADDED')).toBeLessThan(PROPAGATING * fed.members.length);

    // The default resync (5 m) is far beyond the timeout: the jobs lost with Redis must be sent again.
    await expectConverged(fed, ns, writes, PROPAGATING, 90_000);
    expectEachWrittenOnce(writes, fed, PROPAGATING);
  }, 240_000);

  it('writes nothing to the members at steady state, across resyncs and across a restart of the controller manager and Redis', async () => {
    const fed = await federation();
    const ns = 'steady';
    const objects = 50;
    const resync = ['--sync-resync-period', '2s'];
    let cm: ManagedProcess = await fed.startControllerManager(resync);
    await fed.waitForReady(30_000);
    await createFederatedConfigMaps(fed, ns, objects);
    await expect.poll(() => totalManagedCopies(fed, ns), { timeout: 60_000, interval: 500 }).toBe(objects * fed.members.length);
    // Every version recorded: each ConfigMap's PropagatedVersion names every member.
    await expect
      .poll(
        async () => {
          const pvs = await fed
            .client('host')
            .resource({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'propagatedversions' }, ns)
            .list();
          return pvs.items.filter(
            (pv) =>
              pv.metadata.name?.startsWith('configmap-') === true &&
              ((pv.status as { clusterVersions?: unknown[] } | undefined)?.clusterVersions ?? []).length === fed.members.length,
          ).length;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(objects);

    const writes = await recorder(fed, ns);
    const reconciles = () => metricValue(cm, 'kubefed_controller_reconcile_total', { controller: 'sync-configmaps' });
    const before = await reconciles();
    // At least two resyncs of every object happen in this window; none may write.
    await consistently(() => expect(writes.writes).toEqual([]), {
      durationMs: 6000,
      intervalMs: 100,
      message: 'member writes across resyncs',
    });
    expect(await reconciles()).toBeGreaterThanOrEqual(before + 2 * objects);

    // Every process but the simulated clusters restarts: Redis comes back empty, the controller
    // manager has no memory; the PropagatedVersions in the host say nothing needs writing.
    expect(await cm.stop()).toBe(0);
    await redis().restart();
    cm = await fed.startControllerManager(resync);
    await expect.poll(() => reconciles(), { timeout: 60_000, interval: 250 }).toBeGreaterThanOrEqual(2 * objects);
    await consistently(() => expect(writes.writes).toEqual([]), {
      durationMs: 6000,
      intervalMs: 100,
      message: 'member writes after the restart',
    });
    expect(writes.errors).toEqual([]);
    // Nor any job: every copy was found current in the caches, the first reconciles included
    // (they wait for the member caches to be listed instead of sending a job per object and member).
    expect(await metricsText(cm)).toContain('# TYPE kubefed_sync_jobs_enqueued_total counter');
    const enqueued = (await metricsText(cm)).split('\n').filter((l) => l.startsWith('kubefed_sync_jobs_enqueued_total'));
    expect(await metricValue(cm, 'kubefed_sync_jobs_enqueued_total'), `${enqueued.join('\n')}\n${cm.tail(80)}`).toBe(0);

    // The pipeline is live (the silence above is not a dead watch): one change, one write per member.
    await fed
      .client('host')
      .resource(FEDERATED_CONFIG_MAPS, ns)
      .patch(configMapName(7), { spec: { template: { data: { index: 'changed' } } } }, 'merge');
    await expect.poll(() => writes.count('MODIFIED'), POLL).toBe(fed.members.length);
    expect(await metricValue(cm, 'kubefed_sync_jobs_enqueued_total', { priority: 'normal' })).toBeGreaterThanOrEqual(fed.members.length);
    await consistently(() => expect(writes.writes.length).toBe(fed.members.length), {
      durationMs: 4000,
      intervalMs: 100,
      message: 'member writes after one change',
    });
    expect(new Set(writes.writes.map((w) => `${w.cluster}/${w.name}`))).toEqual(
      new Set(fed.members.map((m) => `${m}/${configMapName(7)}`)),
    );
  }, 240_000);

  it('shares each member queue between two worker processes without writing any object twice (--mode controllers + 2 x --mode workers)', async () => {
    const fed = await federation();
    const ns = 'two-workers';
    const writes = await recorder(fed, ns);
    await fed.startControllerManager(['--mode', 'controllers']);
    const workers = [await fed.startControllerManager(['--mode', 'workers']), await fed.startControllerManager(['--mode', 'workers'])];
    await fed.waitForReady(30_000);
    await createFederatedConfigMaps(fed, ns, PROPAGATING);
    await expectConverged(fed, ns, writes, PROPAGATING, 120_000);
    expectEachWrittenOnce(writes, fed, PROPAGATING);
    for (const w of workers) expect(w.running).toBe(true);
  }, 240_000);
});
