import { describe, expect, it } from 'vitest';
import { RuntimeMetrics } from './metrics.js';

describe('RuntimeMetrics', () => {
  it('registers every runtime metric under kubefed_<subsystem>_<name>_<unit>', () => {
    const names = new RuntimeMetrics().names();
    expect(names).toEqual(
      expect.arrayContaining([
        'kubefed_controller_reconcile_total',
        'kubefed_controller_reconcile_errors_total',
        'kubefed_controller_reconcile_duration_seconds',
        'kubefed_workqueue_depth',
        'kubefed_workqueue_adds_total',
        'kubefed_workqueue_queue_duration_seconds',
        'kubefed_workqueue_work_duration_seconds',
        'kubefed_workqueue_retries_total',
        'kubefed_informer_events_total',
        'kubefed_informer_watch_restarts_total',
      ]),
    );
    for (const name of names) expect(name).toMatch(/^kubefed_[a-z]+_[a-z_]+$/);
  });

  it('keeps a registry per instance so two managers do not collide', async () => {
    const a = new RuntimeMetrics();
    const b = new RuntimeMetrics();
    a.controller('sync').reconciled('success', 0.01);
    expect(await a.value('kubefed_controller_reconcile_total', { controller: 'sync', result: 'success' })).toBe(1);
    expect(await b.value('kubefed_controller_reconcile_total', { controller: 'sync', result: 'success' })).toBeUndefined();
  });

  it('counts errors and terminal results as reconcile errors and exposes them as text', async () => {
    const m = new RuntimeMetrics();
    const c = m.controller('status');
    c.reconciled('error', 0.1);
    c.reconciled('terminal', 0.1);
    c.reconciled('requeue_after', 0.1);
    expect(await m.value('kubefed_controller_reconcile_errors_total', { controller: 'status' })).toBe(2);
    const q = m.workQueue('status');
    q.depth(3);
    m.informer('pods').watchRestart('gone');
    const text = await m.text();
    expect(text).toContain('kubefed_workqueue_depth{name="status"} 3');
    expect(text).toContain('kubefed_informer_watch_restarts_total{informer="pods",reason="gone"} 1');
    expect(m.contentType).toContain('text/plain');
  });
  it('renders the metrics one at a time, giving the event loop a turn between them, in the exposition format', async () => {
    const m = new RuntimeMetrics();
    m.controller('status').reconciled('success', 0.1);
    m.workQueue('status').depth(2);
    let turns = 0;
    let counting = true;
    const count = (): void => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const text = await m.text();
    counting = false;
    expect(turns).toBeGreaterThanOrEqual(m.names().length - 1);
    expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true);
    expect(text).toContain('kubefed_workqueue_depth{name="status"} 2\n\n# HELP ');
    expect(text).toContain('kubefed_controller_reconcile_total{controller="status",result="success"} 1');
    expect(text).not.toContain('\n\n\n');
  });
  it('reads a collected gauge on each scrape, dropping series no longer read and surviving a failed read', async () => {
    const m = new RuntimeMetrics();
    let samples: { labels: Record<string, string>; value: number }[] | Error = [
      { labels: { cluster: 'a', state: 'waiting' }, value: 3 },
      { labels: { cluster: 'b', state: 'waiting' }, value: 1 },
    ];
    m.collectedGauge({
      name: 'kubefed_test_jobs',
      help: 'Jobs.',
      labelNames: ['cluster', 'state'],
      read: () => (samples instanceof Error ? Promise.reject(samples) : Promise.resolve(samples)),
    });
    expect(await m.text()).toContain('kubefed_test_jobs{cluster="a",state="waiting"} 3');
    samples = [{ labels: { cluster: 'a', state: 'waiting' }, value: 5 }];
    const text = await m.text();
    expect(text).toContain('kubefed_test_jobs{cluster="a",state="waiting"} 5');
    expect(text).not.toContain('cluster="b"');
    samples = new Error('redis down');
    const failed = await m.text();
    expect(failed).toContain('# TYPE kubefed_test_jobs gauge');
    expect(failed).not.toContain('kubefed_test_jobs{');
  });
});
