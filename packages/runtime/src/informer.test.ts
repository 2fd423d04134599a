import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeletedFinalStateUnknown, deletedObject, Informer } from './informer.js';
import type { KubeObject } from './kube-types.js';
import { FakeClock } from './testing/fake-clock.js';
import { FakeApiError, InMemoryListerWatcher } from './testing/in-memory-lister-watcher.js';

function cm(name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', labels }, data };
}

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

function run(informer: Informer): Promise<void> {
  const ac = new AbortController();
  stops.push(ac);
  return informer.start(ac.signal);
}

function names(informer: Informer): string[] {
  return informer.store
    .list()
    .map((o) => `${o.metadata.name}@${JSON.stringify(o.data)}`)
    .sort();
}

describe('Informer', () => {
  it('lists, syncs, then applies watch events to the cache and the handlers', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a'));
    const informer = new Informer({ name: 'cm', listerWatcher: lw });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => seen.push(`add ${o.metadata.name}`),
      onUpdate: (_o, n) => seen.push(`update ${n.metadata.name}`),
      onDelete: (o) => seen.push(`delete ${(o instanceof DeletedFinalStateUnknown ? o.obj : o).metadata.name}`),
    });
    void run(informer);
    expect(await informer.waitForSync()).toBe(true);
    expect(informer.hasSynced()).toBe(true);
    await vi.waitFor(() => expect(lw.openWatches).toBe(1), { timeout: 2000 });
    lw.upsert(cm('b'));
    lw.upsert(cm('a', { x: '1' }));
    lw.remove('ns/b');
    await vi.waitFor(() => expect(seen).toEqual(['add a', 'add b', 'update a', 'delete b']), { timeout: 2000 });
    expect(names(informer)).toEqual(['a@{"x":"1"}']);
  });

  it('resumes from the last resourceVersion after the watch ends, without relisting', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a'));
    const informer = new Informer({ name: 'cm', listerWatcher: lw, backoff: { initialMs: 1, maxMs: 5 } });
    void run(informer);
    await vi.waitFor(() => expect(lw.openWatches).toBe(1), { timeout: 2000 });
    lw.closeWatches();
    lw.upsert(cm('b'));
    await vi.waitFor(() => expect(names(informer)).toEqual(['a@{}', 'b@{}']), { timeout: 2000 });
    expect(lw.calls.list).toBe(1);
    expect(lw.calls.watch).toBeGreaterThanOrEqual(2);
  });

  it('relists on 410 Gone and turns objects missing from the new list into deletes', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a'));
    lw.upsert(cm('b'));
    const informer = new Informer({ name: 'cm', listerWatcher: lw, backoff: { initialMs: 1, maxMs: 5 } });
    const deleted: unknown[] = [];
    informer.addEventHandler({ onDelete: (o) => deleted.push(o) });
    void run(informer);
    await vi.waitFor(() => expect(lw.openWatches).toBe(1), { timeout: 2000 });
    // Changes the informer misses (its watch is cut first), then history compaction.
    lw.failures.watch.push(new FakeApiError(500, 'down'));
    lw.closeWatches();
    lw.remove('ns/a');
    lw.upsert(cm('c'));
    lw.compact();
    await vi.waitFor(() => expect(names(informer)).toEqual(['b@{}', 'c@{}']), { timeout: 3000 });
    expect(lw.calls.list).toBe(2);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toBeInstanceOf(DeletedFinalStateUnknown);
    expect((deleted[0] as DeletedFinalStateUnknown).key).toBe('ns/a');
  });

  it('keeps retrying after list failures and never stops silently', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a'));
    for (let i = 0; i < 3; i++) lw.failures.list.push(new FakeApiError(503, 'unavailable'));
    const informer = new Informer({ name: 'cm', listerWatcher: lw, backoff: { initialMs: 1, maxMs: 4 } });
    void run(informer);
    await vi.waitFor(() => expect(informer.hasSynced()).toBe(true), { timeout: 2000 });
    expect(lw.calls.list).toBe(4);
  });

  it('lists in pages of the configured size', async () => {
    const lw = new InMemoryListerWatcher();
    for (let i = 0; i < 5; i++) lw.upsert(cm(`o${i}`));
    const informer = new Informer({ name: 'cm', listerWatcher: lw, pageSize: 2 });
    void run(informer);
    await informer.waitForSync();
    expect(informer.store.size).toBe(5);
    expect(lw.calls.list).toBe(3);
    expect(informer.resourceVersion).toBe('5');
  });

  it('resumes from the resourceVersion of the last bookmark', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a'));
    const informer = new Informer({ name: 'cm', listerWatcher: lw, backoff: { initialMs: 1, maxMs: 5 } });
    void run(informer);
    await vi.waitFor(() => expect(lw.openWatches).toBe(1), { timeout: 2000 });
    for (let i = 0; i < 3; i++) lw.advanceVersion();
    lw.bookmark();
    // History before the bookmark is gone: resuming from the old resourceVersion would get 410.
    lw.compact();
    lw.closeWatches();
    await vi.waitFor(() => expect(lw.calls.watch).toBe(2), { timeout: 2000 });
    await vi.waitFor(() => expect(lw.openWatches).toBe(1), { timeout: 2000 });
    expect(lw.calls.list).toBe(1);
  });

  it('re-delivers every cached object as an update on each resync period', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a'));
    lw.upsert(cm('b'));
    const informer = new Informer({ name: 'cm', listerWatcher: lw, resyncPeriodMs: 20 });
    const updates: string[] = [];
    informer.addEventHandler({ onUpdate: (o, n) => o === n && updates.push(n.metadata.name ?? '') });
    void run(informer);
    await vi.waitFor(() => expect(updates.filter((u) => u === 'a').length).toBeGreaterThanOrEqual(2), { timeout: 2000 });
    expect(updates).toContain('b');
  });

  it('re-delivers every cached object to a handler with a resync period of its own, and to no other handler', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a'));
    const clock = new FakeClock();
    const informer = new Informer({ name: 'cm', listerWatcher: lw, clock });
    const resyncs: string[] = [];
    const others: string[] = [];
    informer.addEventHandler({ onUpdate: (o, n) => o === n && others.push(n.metadata.name ?? '') });
    const remove = informer.addEventHandler({ onUpdate: (o, n) => o === n && resyncs.push(n.metadata.name ?? '') }, { resyncPeriodMs: 20 });
    void run(informer);
    await informer.waitForSync();
    await clock.advance(20);
    await clock.advance(20);
    expect(resyncs).toEqual(['a', 'a']);
    expect(others).toEqual([]);
    remove();
    await clock.advance(200);
    expect(resyncs).toEqual(['a', 'a']);
  });

  it('delivers existing objects as adds to a handler registered after sync, frozen', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a', { k: 'v' }));
    const informer = new Informer({ name: 'cm', listerWatcher: lw });
    void run(informer);
    await informer.waitForSync();
    const added: KubeObject[] = [];
    informer.addEventHandler({ onAdd: (o) => added.push(o) });
    expect(added.map((o) => o.metadata.name)).toEqual(['a']);
    expect(Object.isFrozen(added[0]?.data)).toBe(true);
  });

  it('resolves waitForSync with false when the signal aborts first', async () => {
    const lw = new InMemoryListerWatcher();
    lw.failures.list.push(new FakeApiError(500, 'x'));
    const informer = new Informer({ name: 'cm', listerWatcher: lw, backoff: { initialMs: 10_000 } });
    const ac = new AbortController();
    const wait = informer.waitForSync(ac.signal);
    const running = informer.start(ac.signal);
    ac.abort();
    expect(await wait).toBe(false);
    await running;
  });

  it('resolves waitForListAttempt at a failed list, with the error kept until a list succeeds', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a'));
    lw.failures.list.push(new FakeApiError(403, 'forbidden'));
    const informer = new Informer({ name: 'cm', listerWatcher: lw, backoff: { initialMs: 1, maxMs: 5 } });
    const failedFirst = informer.waitForListAttempt();
    void run(informer);
    expect(await failedFirst).toBe(true);
    expect(informer.hasSynced()).toBe(false);
    expect(informer.listError).toMatchObject({ code: 403 });
    // The reflector retries; the next list succeeds and clears the error.
    expect(await informer.waitForSync()).toBe(true);
    expect(informer.listError).toBeUndefined();
    expect(await informer.waitForListAttempt()).toBe(true);
  });

  it('stores and hands out what its transform keeps, for listed, watched and deleted objects', async () => {
    const lw = new InMemoryListerWatcher();
    lw.upsert(cm('a', { big: 'x'.repeat(100) }));
    const keepMetadata = (obj: KubeObject): KubeObject => ({ metadata: obj.metadata, kept: Object.keys(obj.data as object) });
    const informer = new Informer({ name: 'cm', listerWatcher: lw, transform: keepMetadata });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => seen.push(`add ${JSON.stringify(o.kept)} ${String(o.data)}`),
      onUpdate: (_o, n) => seen.push(`update ${JSON.stringify(n.kept)} ${String(n.data)}`),
      onDelete: (o) => seen.push(`delete ${JSON.stringify(deletedObject(o).kept)} ${String(deletedObject(o).data)}`),
    });
    void run(informer);
    await informer.waitForSync();
    await vi.waitFor(() => expect(lw.openWatches).toBe(1), { timeout: 2000 });
    lw.upsert(cm('a', { big: 'y', other: 'z' }));
    lw.remove('ns/a');
    await vi.waitFor(
      () => expect(seen).toEqual(['add ["big"] undefined', 'update ["big","other"] undefined', 'delete ["big","other"] undefined']),
      {
        timeout: 2000,
      },
    );
    expect(informer.store.size).toBe(0);
  });
});
