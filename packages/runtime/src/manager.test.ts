import { afterEach, describe, expect, it, vi } from 'vitest';
import { done } from './controller.js';
import { LeadershipLostError, RunnableFailedError } from './errors.js';
import { createLogger } from './logger.js';
import { Manager } from './manager.js';
import type { Runnable } from './runnable.js';
import { LeaseLock } from './resource-lock.js';
import { InMemoryLeaseClient } from './testing/in-memory-lease-client.js';
import { FakeApiError, InMemoryListerWatcher } from './testing/in-memory-lister-watcher.js';

const stops: AbortController[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await new Promise((r) => setImmediate(r));
});

function runManager(manager: Manager) {
  const ac = new AbortController();
  stops.push(ac);
  const result = manager.start(ac.signal).then(
    () => undefined,
    (err: unknown) => err,
  );
  return { ac, result };
}

function recorder(name: string, log: string[], needLeaderElection?: boolean): Runnable {
  const r: Runnable = {
    name,
    start: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`start ${name}`);
        signal.addEventListener('abort', () => {
          log.push(`stop ${name}`);
          resolve();
        });
      }),
  };
  return needLeaderElection === undefined ? r : { ...r, needLeaderElection };
}

describe('Manager', () => {
  it('reports ready only after caches synced, serves metrics, and stops runnables in reverse order', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert({ metadata: { name: 'a', namespace: 'ns' } });
    lw.failures.list.push(new FakeApiError(500, 'not yet'));
    const manager = new Manager();
    const log: string[] = [];
    const informer = manager.informer({ name: 'cm', listerWatcher: lw, backoff: { initialMs: 300, maxMs: 300 } });
    manager.add(recorder('first', log)).add(recorder('second', log));
    const reconciled: string[] = [];
    manager.controller({ name: 'ctl', reconciler: { reconcile: (k) => Promise.resolve(void reconciled.push(k)) } }).watch(informer);
    manager.addReadyCheck('custom', () => true);
    const { ac, result } = runManager(manager);
    const { health, metrics } = await manager.serving();
    expect(health).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const early = await fetch(`${health}/readyz`);
    expect(early.status).toBe(503);
    expect(await early.text()).toContain('[-]informer-sync failed');
    expect((await fetch(`${health}/healthz`)).status).toBe(200);
    expect(log).toEqual([]);
    await vi.waitFor(async () => expect((await fetch(`${health}/readyz`)).status).toBe(200), { timeout: 3000 });
    await vi.waitFor(() => expect(reconciled).toEqual(['ns/a']), { timeout: 2000 });
    expect(log).toEqual(['start first', 'start second']);
    const text = await (await fetch(`${metrics}/metrics`)).text();
    expect(text).toContain('kubefed_controller_reconcile_total{controller="ctl",result="success"} 1');
    expect(text).toContain('kubefed_informer_lists_total{informer="cm"} 1');
    ac.abort();
    expect(await result).toBeUndefined();
    expect(log).toEqual(['start first', 'start second', 'stop second', 'stop first']);
    await expect(fetch(`${health}/healthz`)).rejects.toThrow();
  });

  it('fails start with the error of a runnable that fails, after stopping the others', async () => {
    const manager = new Manager({ healthAddress: null, metricsAddress: null });
    const log: string[] = [];
    manager.add(recorder('ok', log));
    manager.add({ name: 'broken', start: () => Promise.reject(new Error('boom')) });
    const { result } = runManager(manager);
    const err = await result;
    expect(err).toBeInstanceOf(RunnableFailedError);
    expect((err as Error).message).toContain('broken');
    expect(log).toEqual(['start ok', 'stop ok']);
  });

  it("leaves reporting a runnable's failure to whoever awaits start: the manager logs no error line of its own", async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (line) => lines.push(line) } });
    const manager = new Manager({ healthAddress: null, metricsAddress: null, logger });
    manager.add({ name: 'broken', start: () => Promise.reject(new Error('boom')) });
    const err = await runManager(manager).result;
    expect(err).toBeInstanceOf(RunnableFailedError);
    expect((err as Error).cause).toMatchObject({ message: 'boom' });
    const records = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(records.filter((r) => r.level >= 50)).toEqual([]);
    expect(lines.join('\n')).not.toContain('boom');
  });

  it('reflects a failing registered ready check in /readyz', async () => {
    const manager = new Manager({ metricsAddress: null });
    let ok = false;
    manager.addReadyCheck('redis', () => ok);
    runManager(manager);
    const { health } = await manager.serving();
    await vi.waitFor(() => expect(manager.cachesSynced).toBe(true), { timeout: 1000 });
    const res = await fetch(`${health}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('[-]redis failed');
    ok = true;
    expect((await fetch(`${health}/readyz`)).status).toBe(200);
  });

  it('runs leader-only runnables only while leading and fails when leadership is lost', async () => {
    const leases = new InMemoryLeaseClient();
    const manager = new Manager({
      healthAddress: null,
      metricsAddress: null,
      leaderElection: {
        lock: new LeaseLock(leases, { name: 'lock', namespace: 'ns' }),
        identity: 'me',
        leaseDurationMs: 400,
        renewDeadlineMs: 300,
        retryPeriodMs: 50,
      },
    });
    const log: string[] = [];
    manager.add(recorder('everywhere', log, false));
    manager.add(recorder('leader-only', log));
    manager.controller({ name: 'ctl', reconciler: { reconcile: () => Promise.resolve(done()) } });
    const { result } = runManager(manager);
    await vi.waitFor(() => expect(log).toEqual(['start everywhere', 'start leader-only']), { timeout: 2000 });
    expect(manager.isLeader).toBe(true);
    leases.unavailable = true;
    await vi.waitFor(() => expect(log).toContain('stop leader-only'), { timeout: 2000 });
    expect(await result).toBeInstanceOf(LeadershipLostError);
    expect(manager.isLeader).toBe(false);
  });

  it('gives up on a runnable that does not stop within the graceful shutdown timeout', async () => {
    const manager = new Manager({ healthAddress: null, metricsAddress: null, gracefulShutdownMs: 100 });
    const log: string[] = [];
    manager.add(recorder('polite', log));
    manager.add({ name: 'stubborn', start: () => new Promise<void>(() => {}) });
    const { ac, result } = runManager(manager);
    await vi.waitFor(() => expect(log).toEqual(['start polite']), { timeout: 1000 });
    const stoppingAt = Date.now();
    ac.abort();
    expect(await result).toBeUndefined();
    expect(log).toEqual(['start polite', 'stop polite']);
    expect(Date.now() - stoppingAt).toBeLessThan(1000);
  });

  it('rejects a malformed address naming the option', async () => {
    const manager = new Manager({ healthAddress: 'localhost', metricsAddress: null });
    const { result } = runManager(manager);
    expect(String(await result)).toContain('healthAddress');
  });
});
