import { afterEach, describe, expect, it, vi } from 'vitest';
import { approximateJsonBytes, CacheBudget, CacheBudgetExceededError, type CacheBudgetLimits } from './cache-budget.js';
import { Informer } from './informer.js';
import type { KubeObject, WatchEvent } from './kube-types.js';
import type { ListerWatcher } from './list-watcher.js';

function cm(name: string, annotation = ''): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns', resourceVersion: '1', annotations: { big: annotation } },
    data: { a: 'b' },
  };
}

const limits = (l: Partial<CacheBudgetLimits>): CacheBudgetLimits => ({ maxObjects: 1e9, maxBytes: 1e12, maxListPages: 1e9, ...l });

/** A member's API server that answers every list page with `continue` (an endless paged list). */
function endlessPagedList(pageSize: number): ListerWatcher & { pages: number } {
  const lw = {
    pages: 0,
    list() {
      lw.pages += 1;
      const items = Array.from({ length: pageSize }, (_, i) => cm(`p${lw.pages}-${i}`));
      return Promise.resolve({ items, resourceVersion: '1', continue: `page-${lw.pages}` });
    },
    watch(): AsyncIterable<WatchEvent> {
      throw new Error('not reached: the list never ends');
    },
  };
  return lw;
}

/** A member's API server whose watch adds a new object forever (an endless watch). */
function endlessWatch(annotation: string): ListerWatcher & { sent: number } {
  const lw = {
    sent: 0,
    list: () => Promise.resolve({ items: [], resourceVersion: '1' }),
    async *watch(opts: { signal?: AbortSignal }): AsyncIterable<WatchEvent> {
      while (opts.signal?.aborted !== true) {
        lw.sent += 1;
        yield { type: 'ADDED', object: cm(`w${lw.sent}`, annotation) };
        if (lw.sent % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
  return lw;
}

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

function run(informer: Informer): void {
  const ac = new AbortController();
  stops.push(ac);
  void informer.start(ac.signal);
}

describe('approximateJsonBytes', () => {
  it.each([
    ['a ConfigMap', cm('web', 'x'.repeat(1000))],
    ['nested arrays and objects', { a: [1, 2, { b: 'c', d: [true, null] }], e: { f: { g: 'h'.repeat(50) } } }],
    ['an empty object', {}],
  ])('is within 15 percent of the JSON length of %s', (_name, value) => {
    const exact = JSON.stringify(value).length;
    expect(Math.abs(approximateJsonBytes(value) - exact)).toBeLessThanOrEqual(Math.max(4, exact * 0.15));
  });
});

describe('CacheBudget', () => {
  it('sums the shares of every informer, tells its owner once when a limit is passed, and never refuses a share that shrinks', () => {
    const exceeded: string[] = [];
    const budget = new CacheBudget('member1', limits({ maxObjects: 10 }), (err) => exceeded.push(err.message));
    const a = budget.account('configmaps/v1@member1');
    const b = budget.account('secrets/v1@member1');
    a.hold('store', 6, 600);
    b.hold('list', 4, 400);
    expect([budget.objects, budget.bytes]).toEqual([10, 1000]);
    expect(() => b.hold('list', 5, 500)).toThrow(
      /member cluster member1 holds more than 10 objects .*\(11, listing or watching secrets\/v1@member1\)/,
    );
    expect(() => a.hold('store', 7, 700)).toThrow(CacheBudgetExceededError);
    expect([budget.objects, budget.bytes]).toEqual([10, 1000]);
    expect(exceeded).toHaveLength(1);
    expect(() => b.hold('list', 0, 0)).not.toThrow();
    a.release();
    expect([budget.objects, budget.bytes]).toEqual([0, 0]);
  });

  it('names the byte limit and what is held when the bytes are passed', () => {
    const budget = new CacheBudget('member2', limits({ maxBytes: 2 * 1024 * 1024 }), () => {});
    expect(() => budget.account('configmaps/v1@member2').hold('store', 3, 3 * 1024 * 1024)).toThrow(
      /member cluster member2 holds more than 2\.0 MiB in this controller manager's caches \(3\.0 MiB/,
    );
  });
});

describe('an informer with a cache budget', () => {
  it('stops an endless paged list at the page limit, holding none of its objects', async () => {
    const errors: CacheBudgetExceededError[] = [];
    const budget = new CacheBudget('member1', limits({ maxListPages: 20 }), (err) => errors.push(err));
    const lw = endlessPagedList(50);
    const informer = new Informer({ name: 'configmaps/v1@member1', listerWatcher: lw, budget: budget.account('configmaps/v1@member1') });
    run(informer);
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 5000 });
    expect(errors[0]?.message).toMatch(/member cluster member1 answered more than 20 pages for one list of configmaps\/v1@member1/);
    expect(lw.pages).toBe(21);
    expect(informer.hasSynced()).toBe(false);
    expect(budget.objects).toBe(0);
  });

  it('stops applying an endless watch once the member holds its maximum of objects', async () => {
    const errors: CacheBudgetExceededError[] = [];
    const budget = new CacheBudget('member1', limits({ maxObjects: 500 }), (err) => errors.push(err));
    const lw = endlessWatch('');
    const informer = new Informer({ name: 'configmaps/v1@member1', listerWatcher: lw, budget: budget.account('configmaps/v1@member1') });
    run(informer);
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 5000 });
    expect(informer.store.list()).toHaveLength(500);
    expect(budget.objects).toBe(500);
  });

  it('stops caching watched copies with huge annotations at the byte limit', async () => {
    const errors: CacheBudgetExceededError[] = [];
    const budget = new CacheBudget('member1', limits({ maxBytes: 4 * 1024 * 1024 }), (err) => errors.push(err));
    const lw = endlessWatch('a'.repeat(256 * 1024));
    const informer = new Informer({ name: 'configmaps/v1@member1', listerWatcher: lw, budget: budget.account('configmaps/v1@member1') });
    run(informer);
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 5000 });
    expect(errors[0]?.message).toMatch(/holds more than 4\.0 MiB/);
    expect(budget.bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(informer.store.list().length).toBeLessThan(17);
  });

  it('counts what a delete and an update give back or add', async () => {
    const budget = new CacheBudget('member1', limits({}), () => {});
    const events: WatchEvent[] = [
      { type: 'ADDED', object: cm('a', 'x'.repeat(1000)) },
      { type: 'ADDED', object: cm('b') },
      { type: 'MODIFIED', object: cm('a') },
      { type: 'DELETED', object: cm('b') },
    ];
    const lw: ListerWatcher = {
      list: () => Promise.resolve({ items: [cm('listed', 'y'.repeat(500))], resourceVersion: '1' }),
      async *watch(opts) {
        yield* events;
        await new Promise((resolve) => opts.signal?.addEventListener('abort', resolve));
      },
    };
    const informer = new Informer({ name: 'configmaps/v1@member1', listerWatcher: lw, budget: budget.account('configmaps/v1@member1') });
    run(informer);
    await vi.waitFor(
      () =>
        expect(
          informer.store
            .list()
            .map((o) => o.metadata.name)
            .sort(),
        ).toEqual(['a', 'listed']),
      { timeout: 5000 },
    );
    expect(budget.objects).toBe(2);
    expect(budget.bytes).toBe(approximateJsonBytes(cm('a')) + approximateJsonBytes(cm('listed', 'y'.repeat(500))));
  });
});
