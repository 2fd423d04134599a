import { afterEach, describe, expect, it, vi } from 'vitest';
import { Controller, done, requeueAfter, retry, terminal, type ReconcileContext, type ReconcileOutcome } from './controller.js';
import { TerminalError } from './errors.js';
import { Informer } from './informer.js';
import { createLogger } from './logger.js';
import { RuntimeMetrics } from './metrics.js';
import { ExponentialFailureRateLimiter } from './rate-limiter.js';
import { FakeClock } from './testing/fake-clock.js';
import { InMemoryListerWatcher } from './testing/in-memory-lister-watcher.js';

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

function setup(reconcile: (key: string, ctx: ReconcileContext) => Promise<ReconcileOutcome | undefined>, maxConcurrentReconciles = 1) {
  const clock = new FakeClock();
  const metrics = new RuntimeMetrics();
  const lines: string[] = [];
  const logger = createLogger({ destination: { write: (l: string) => lines.push(l) }, level: 'debug' });
  const controller = new Controller({
    name: 'test',
    reconciler: { reconcile },
    maxConcurrentReconciles,
    clock,
    logger,
    rateLimiter: new ExponentialFailureRateLimiter(),
    metrics: { controller: metrics.controller('test'), queue: metrics.workQueue('test') },
  });
  const ac = new AbortController();
  stops.push(ac);
  const running = controller.start(ac.signal);
  const total = (result: string) => metrics.value('kubefed_controller_reconcile_total', { controller: 'test', result });
  return { clock, metrics, controller, ac, running, total, logs: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('Controller', () => {
  it('retries a throwing reconcile with per-key backoff until it succeeds, then forgets', async () => {
    const calls: number[] = [];
    let failures = 3;
    const t = setup((_key, ctx) => {
      calls.push(ctx.attempt);
      if (failures-- > 0) throw new Error('not yet');
      return Promise.resolve(done());
    });
    t.controller.queue.add('ns/a');
    await vi.waitFor(() => expect(calls).toEqual([0]), { timeout: 1000 });
    await t.clock.advance(5);
    await vi.waitFor(() => expect(calls).toEqual([0, 1]), { timeout: 1000 });
    await t.clock.advance(9);
    expect(calls).toEqual([0, 1]);
    await t.clock.advance(1);
    await vi.waitFor(() => expect(calls).toEqual([0, 1, 2]), { timeout: 1000 });
    await t.clock.advance(20);
    await vi.waitFor(() => expect(calls).toEqual([0, 1, 2, 3]), { timeout: 1000 });
    await vi.waitFor(async () => expect(await t.total('success')).toBe(1), { timeout: 1000 });
    expect(await t.total('error')).toBe(3);
    expect(t.controller.queue.numRequeues('ns/a')).toBe(0);
  });

  it('does not retry a terminal outcome or a TerminalError, and counts it', async () => {
    const calls: string[] = [];
    const t = setup((key) => {
      calls.push(key);
      if (key === 'ns/thrown') throw new TerminalError('bad spec');
      return Promise.resolve(terminal(new Error('invalid')));
    });
    t.controller.queue.add('ns/thrown');
    t.controller.queue.add('ns/returned');
    await vi.waitFor(async () => expect(await t.total('terminal')).toBe(2), { timeout: 1000 });
    await t.clock.advance(60_000);
    expect(calls).toEqual(['ns/thrown', 'ns/returned']);
    expect(await t.metrics.value('kubefed_controller_reconcile_errors_total', { controller: 'test' })).toBe(2);
    expect(t.logs().filter((l) => l.msg === 'reconcile failed terminally; not retrying')).toHaveLength(2);
  });

  it('requeues after the requested delay and retries with retry()', async () => {
    const calls: string[] = [];
    const t = setup((key) => {
      calls.push(key);
      if (key === 'ns/poll') return Promise.resolve(requeueAfter(1000));
      return Promise.resolve(calls.filter((k) => k === key).length === 1 ? retry('waiting') : done());
    });
    t.controller.queue.add('ns/poll');
    t.controller.queue.add('ns/retry');
    await vi.waitFor(() => expect(calls).toEqual(['ns/poll', 'ns/retry']), { timeout: 1000 });
    await t.clock.advance(5);
    await vi.waitFor(() => expect(calls).toEqual(['ns/poll', 'ns/retry', 'ns/retry']), { timeout: 1000 });
    await t.clock.advance(995);
    await vi.waitFor(() => expect(calls.filter((k) => k === 'ns/poll')).toHaveLength(2), { timeout: 1000 });
    expect(await t.total('requeue_after')).toBe(2);
  });

  it('never reconciles one key twice at once but runs different keys in parallel up to the limit', async () => {
    let running = 0;
    let maxRunning = 0;
    const perKey = new Map<string, number>();
    let overlap = false;
    const gates: (() => void)[] = [];
    const t = setup(async (key) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
      if ((perKey.get(key) ?? 0) > 1) overlap = true;
      await new Promise<void>((r) => gates.push(r));
      perKey.set(key, (perKey.get(key) ?? 0) - 1);
      running--;
      return done();
    }, 3);
    for (const k of ['a', 'b', 'c', 'd', 'a', 'b']) t.controller.queue.add(k);
    await vi.waitFor(() => expect(gates).toHaveLength(3), { timeout: 1000 });
    t.controller.queue.add('a');
    for (let i = 0; i < 10; i++) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await vi.waitFor(async () => expect(await t.total('success')).toBe(6), { timeout: 1000 });
    expect(maxRunning).toBe(3);
    expect(overlap).toBe(false);
  });

  it('gives each reconcile a child logger with controller, namespace, name and reconcileId', async () => {
    const t = setup((_key, ctx) => {
      ctx.logger.info('hello');
      return Promise.resolve(done());
    });
    t.controller.queue.add('ns1/web');
    await vi.waitFor(() => expect(t.logs().find((l) => l.msg === 'hello')).toBeDefined(), { timeout: 1000 });
    const line = t.logs().find((l) => l.msg === 'hello')!;
    expect(line).toMatchObject({ controller: 'test', namespace: 'ns1', name: 'web' });
    expect(typeof line.reconcileId).toBe('string');
  });

  it('lets a running reconcile finish on stop and aborts its signal', async () => {
    let release: (() => void) | undefined;
    let aborted = false;
    const t = setup(async (_key, ctx) => {
      await new Promise<void>((r) => (release = r));
      aborted = ctx.signal.aborted;
      return done();
    });
    t.controller.queue.add('ns/a');
    await vi.waitFor(() => expect(release).toBeDefined(), { timeout: 1000 });
    t.ac.abort();
    let stopped = false;
    void t.running.then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    release?.();
    await t.running;
    expect(aborted).toBe(true);
  });

  it('enqueues keys from informer events after the cache has synced', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert({ metadata: { name: 'a', namespace: 'ns' } });
    const informer = new Informer({ name: 'cm', listerWatcher: lw });
    const seen: string[] = [];
    const controller = new Controller({ name: 'c', reconciler: { reconcile: (key) => Promise.resolve(void seen.push(key)) } });
    controller.watch(informer, { map: (o) => [`owner/${o.metadata.name}`] });
    const ac = new AbortController();
    stops.push(ac);
    void informer.start(ac.signal);
    void controller.start(ac.signal);
    await vi.waitFor(() => expect(seen).toEqual(['owner/a']), { timeout: 2000 });
    await vi.waitFor(() => expect(lw.openWatches).toBe(1), { timeout: 2000 });
    lw.remove('ns/a');
    await vi.waitFor(() => expect(seen).toEqual(['owner/a', 'owner/a']), { timeout: 2000 });
  });
  it('reconciles nothing until startAfter resolves, then the keys queued meanwhile', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert({ metadata: { name: 'a', namespace: 'ns' } });
    const informer = new Informer({ name: 'cm', listerWatcher: lw });
    const seen: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let asked = false;
    const controller = new Controller({
      name: 'c',
      reconciler: { reconcile: (key) => Promise.resolve(void seen.push(key)) },
      startAfter: () => {
        asked = true;
        return gate;
      },
    }).watch(informer);
    const ac = new AbortController();
    stops.push(ac);
    void informer.start(ac.signal);
    void controller.start(ac.signal);
    await vi.waitFor(() => expect(asked).toBe(true), { timeout: 2000 });
    controller.queue.add('ns/b');
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([]);
    open();
    await vi.waitFor(() => expect([...seen].sort()).toEqual(['ns/a', 'ns/b']), { timeout: 2000 });
  });

  it('enqueues a periodic resync at low priority: a key changed meanwhile is reconciled first', async () => {
    const clock = new FakeClock();
    const lw = new InMemoryListerWatcher();
    for (const name of ['a', 'b', 'c']) lw.upsert({ metadata: { name, namespace: 'ns' } });
    const informer = new Informer({ name: 'cm', listerWatcher: lw, resyncPeriodMs: 1000, clock });
    // Not started: the test takes keys from its queue itself.
    const controller = new Controller({ name: 'c', reconciler: { reconcile: () => Promise.resolve(done()) }, clock });
    controller.watch(informer);
    const ac = new AbortController();
    stops.push(ac);
    void informer.start(ac.signal);
    await vi.waitFor(() => expect(lw.openWatches).toBe(1), { timeout: 2000 });
    for (let i = 0; i < 3; i++) controller.queue.done((await controller.queue.get()) ?? '');
    await clock.advance(1000);
    expect(controller.queue.length).toBe(3);
    lw.upsert({ metadata: { name: 'c', namespace: 'ns', labels: { changed: 'yes' } } });
    await vi.waitFor(() => expect(informer.store.get('ns/c')?.metadata.labels).toEqual({ changed: 'yes' }), { timeout: 2000 });
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) order.push(await controller.queue.get());
    expect(order).toEqual(['ns/c', 'ns/a', 'ns/b']);
  });
  it('tells the reconciler the priority its key was queued at', async () => {
    const seen: [string, string | undefined][] = [];
    const controller = new Controller({
      name: 'c',
      reconciler: { reconcile: (key, ctx) => Promise.resolve(void seen.push([key, ctx.priority])) },
    });
    controller.queue.add('fan-out', { priority: 'low' });
    controller.queue.add('change');
    const ac = new AbortController();
    stops.push(ac);
    void controller.start(ac.signal);
    await vi.waitFor(
      () =>
        expect(seen).toEqual([
          ['change', 'normal'],
          ['fan-out', 'low'],
        ]),
      { timeout: 2000 },
    );
  });

  it('gives the event loop a turn after each background key, so a change read meanwhile goes ahead of the rest', async () => {
    // The reconciles need no I/O and are quick: only the turn given after each background key
    // lets the callback (standing for a watch event) queue its change before the second of them.
    const order: string[] = [];
    const controller = new Controller({
      name: 'c',
      reconciler: {
        reconcile: (key) => {
          order.push(key);
          if (key === 'fan-out-0') setImmediate(() => controller.queue.add('change'));
          return Promise.resolve(done());
        },
      },
    });
    for (let i = 0; i < 5; i++) controller.queue.add(`fan-out-${i}`, { priority: 'low' });
    const ac = new AbortController();
    stops.push(ac);
    void controller.start(ac.signal);
    await vi.waitFor(() => expect(order).toHaveLength(6), { timeout: 2000 });
    expect(order).toEqual(['fan-out-0', 'change', 'fan-out-1', 'fan-out-2', 'fan-out-3', 'fan-out-4']);
  });

  it('gives the event loop a turn while reconciles that need no I/O keep it busy', async () => {
    // Each reconcile holds the thread for 1 ms and resolves without I/O: without a turn given,
    // a timer due now would wait until the last of them.
    let reconciled = 0;
    const t = setup(() => {
      const until = performance.now() + 1;
      while (performance.now() < until);
      reconciled++;
      return Promise.resolve(done());
    });
    for (let i = 0; i < 200; i++) t.controller.queue.add(`ns/k${i}`);
    const seenAt = await new Promise<number>((resolve) => setImmediate(() => resolve(reconciled)));
    expect(seenAt).toBeLessThan(100);
    await vi.waitFor(() => expect(reconciled).toBe(200), { timeout: 5000 });
  });
});
