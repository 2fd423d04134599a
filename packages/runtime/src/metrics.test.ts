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
    const standard = [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_terminal_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds',
      'controller_runtime_max_concurrent_reconciles',
      'controller_runtime_active_workers',
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_queue_duration_seconds',
      'workqueue_work_duration_seconds',
      'workqueue_retries_total',
      'rest_client_requests_total',
      'leader_election_master_status',
    ];
    expect(names).toEqual(expect.arrayContaining(standard));
    for (const name of names.filter((n) => !standard.includes(n))) expect(name).toMatch(/^kubefed_[a-z]+_[a-z_]+$/);
  });

  it('serves the process metrics under their standard names and, deprecated, under kubefed_', () => {
    const names = new RuntimeMetrics({ processMetrics: true }).names();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ])
      expect(names).toEqual(expect.arrayContaining([name, `kubefed_${name}`]));
    expect(new RuntimeMetrics().names().filter((n) => n.includes('process_') || n.includes('nodejs_'))).toEqual([]);
  });

  it("counts reconciles under controller-runtime's names: a terminal error is an error result, also counted as terminal", async () => {
    const m = new RuntimeMetrics();
    const c = m.controller('sync-configmaps', { maxConcurrentReconciles: 4 });
    const seen: string[] = [];
    const off = m.onReconciled((controller, result, seconds) => seen.push(`${controller} ${result} ${seconds}`));
    expect(await m.value('controller_runtime_reconcile_total', { controller: 'sync-configmaps', result: 'success' })).toBe(0);
    c.reconciled('success', 0.2);
    c.reconciled('terminal', 0.3);
    c.reconciled('requeue_after', 0.1);
    off();
    c.reconciled('error', 0.1);
    c.activeWorkers(2);
    const value = (name: string, labels: Record<string, string> = {}) => m.value(name, { controller: 'sync-configmaps', ...labels });
    expect(
      await Promise.all([
        value('controller_runtime_reconcile_total', { result: 'success' }),
        value('controller_runtime_reconcile_total', { result: 'error' }),
        value('controller_runtime_reconcile_total', { result: 'requeue_after' }),
        value('controller_runtime_reconcile_errors_total'),
        value('controller_runtime_terminal_reconcile_errors_total'),
        value('controller_runtime_max_concurrent_reconciles'),
        value('controller_runtime_active_workers'),
      ]),
    ).toEqual([1, 2, 1, 2, 1, 4, 2]);
    expect(await m.text()).toContain('controller_runtime_reconcile_time_seconds_count{controller="sync-configmaps"} 4');
    expect(seen).toEqual(['sync-configmaps success 0.2', 'sync-configmaps terminal 0.3', 'sync-configmaps requeue_after 0.1']);
  });

  it("reports work queues, API requests and leadership under client-go's names beside the kubefed_ ones", async () => {
    const m = new RuntimeMetrics();
    const q = m.workQueue('kubefedcluster');
    q.add();
    q.depth(3);
    q.retry();
    q.queueLatency(0.002);
    q.workDuration(0.5);
    m.restClient('member1', 'member')('GET', '200');
    m.leader('kubefed-controller-manager', true);
    const text = await m.text();
    for (const line of [
      'workqueue_depth{name="kubefedcluster",controller="kubefedcluster"} 3',
      'workqueue_adds_total{name="kubefedcluster",controller="kubefedcluster"} 1',
      'workqueue_retries_total{name="kubefedcluster",controller="kubefedcluster"} 1',
      'workqueue_queue_duration_seconds_bucket{le="0.01",name="kubefedcluster",controller="kubefedcluster"} 1',
      'workqueue_work_duration_seconds_count{name="kubefedcluster",controller="kubefedcluster"} 1',
      'rest_client_requests_total{code="200",method="GET",host="member1"} 1',
      'kubefed_rest_client_requests_total{cluster="member1",client="member",method="GET",code="200"} 1',
      'leader_election_master_status{name="kubefed-controller-manager"} 1',
      'kubefed_leader_election_is_leader{lease="kubefed-controller-manager"} 1',
      'kubefed_workqueue_depth{name="kubefedcluster"} 3',
    ])
      expect(text).toContain(line);
  });

  it('reads every series of a metric, and zeroes the given series of a histogram with buckets of its own', async () => {
    const m = new RuntimeMetrics();
    const g = m.gauge('kubefed_test_state', 'State.', ['cluster', 'state']);
    g.set({ cluster: 'a', state: 'ready' }, 1);
    g.set({ cluster: 'b', state: 'ready' }, 0);
    expect(await m.series('kubefed_test_state')).toEqual([
      { labels: { cluster: 'a', state: 'ready' }, value: 1 },
      { labels: { cluster: 'b', state: 'ready' }, value: 0 },
    ]);
    expect(await m.series('kubefed_absent')).toEqual([]);
    m.histogramOf({
      name: 'kubefed_test_seconds',
      help: 'Test.',
      labelNames: ['action'],
      buckets: [1, 10],
      zeroed: [{ action: 'create' }],
    });
    const text = await m.text();
    expect(text).toContain('kubefed_test_seconds_bucket{le="10",action="create"} 0');
    expect(text).not.toContain('le="0.001",action="create"');
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
