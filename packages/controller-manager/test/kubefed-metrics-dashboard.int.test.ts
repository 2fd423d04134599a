// The Grafana dashboard deploy/grafana/kubefed-controller-manager.json against a running controller
// manager (kube-sim members, real Redis): every metric its queries name is on /metrics with at
// least one series; and the standard, controller-runtime and KubeFed names docs/operations.md
// promises are served beside ours.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LocalFederation, type ManagedProcess, REPO_ROOT } from '@kubefed/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createFederatedConfigMaps,
  metricIn,
  metricSeries,
  metricsText,
  startProcessFederation,
  totalManagedCopies,
} from './process-federation.js';

const DASHBOARD = join(REPO_ROOT, 'deploy', 'grafana', 'kubefed-controller-manager.json');
const NS = 'dashboard-metrics';

interface Dashboard {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
  templating: { list: { type: string; query?: string | { query: string } }[] };
}

/** Words of PromQL that are not metric names. */
const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset']);

/**
 * The metric names a PromQL expression (or a Grafana `label_values(...)` query) reads: the
 * identifiers left once strings, label matchers, ranges, grouping clauses and function calls are
 * taken out.
 */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+-?[\w.]+/g, ' ')
    .replace(/\blabel_values\(\s*([a-zA-Z_:][\w:]*)?[^)]*\)/g, ' $1 ');
  const names = [...stripped.matchAll(/[a-zA-Z_:][\w:]*(?!\w|\s*\()/g)].map((m) => m[0]).filter((w) => !PROMQL_WORDS.has(w));
  return [...new Set(names)];
}

/** Every query of the dashboard: panel targets and query variables. */
function dashboardQueries(dashboard: Dashboard): string[] {
  const targets = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  const variables = dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => (typeof v.query === 'string' ? v.query : (v.query?.query ?? '')));
  return [...targets, ...variables];
}

/** The sample lines of `name` in an exposition; a histogram's `_bucket`/`_sum`/`_count` are samples of their family. */
function samplesOf(text: string, name: string): number {
  const family = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
  const histogram = family !== undefined && new RegExp(`^# TYPE ${family} histogram$`, 'm').test(text);
  if (!histogram && !new RegExp(`^# TYPE ${name} \\w+$`, 'm').test(text)) return 0;
  return metricSeries(text, name).length;
}

describe('metricNames', () => {
  it.each([
    [
      'sum by (controller, result) (rate(controller_runtime_reconcile_total{job=~"$job"}[$__rate_interval]))',
      ['controller_runtime_reconcile_total'],
    ],
    [
      'histogram_quantile(0.99, sum by (le) (rate(cluster_health_status_duration_seconds_bucket{instance=~"a|b"}[5m])))',
      ['cluster_health_status_duration_seconds_bucket'],
    ],
    [
      'process_resident_memory_bytes / on (instance) group_left nodejs_heap_size_total_bytes',
      ['process_resident_memory_bytes', 'nodejs_heap_size_total_bytes'],
    ],
    ['label_values(process_cpu_seconds_total{job=~"$job"}, instance)', ['process_cpu_seconds_total']],
    ['max(joined_cluster_total offset 5m)', ['joined_cluster_total']],
  ])('reads %s', (expr, names) => {
    expect(metricNames(expr)).toEqual(names);
  });
});

describe('samplesOf', () => {
  const text = [
    '# TYPE up gauge',
    'up 1',
    '# TYPE work_seconds histogram',
    'work_seconds_bucket{le="1"} 0',
    'work_seconds_count 0',
    '# TYPE silent_total counter',
  ].join('\n');
  it.each([
    ['up', 1],
    ['work_seconds_bucket', 1],
    ['work_seconds_count', 1],
    ['work_seconds_sum', 0],
    ['silent_total', 0],
    ['absent', 0],
    ['up_count', 0],
  ])('counts %s: %i', (name, count) => {
    expect(samplesOf(text, name)).toBe(count);
  });
});

describe('the Grafana dashboard over a running controller manager', () => {
  let fed: LocalFederation;
  let cm: ManagedProcess;
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;

  beforeAll(async () => {
    fed = await startProcessFederation({ fastLeaderElection: true });
    cm = await fed.startControllerManager();
    await fed.waitForReady(60_000);
    // Something to propagate, so the sync controllers and workers have reconciled and written.
    await createFederatedConfigMaps(fed, NS, 2);
    await vi.waitFor(
      async () => {
        if ((await totalManagedCopies(fed, NS)) !== 2 * fed.members.length) throw new Error('not propagated yet');
      },
      { timeout: 60_000, interval: 500 },
    );
  }, 180_000);

  afterAll(async () => {
    await fed?.stop();
  }, 60_000);

  it('loads as a dashboard whose panels all query something', () => {
    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    for (const p of panels) expect(p.targets?.length ?? 0, p.title).toBeGreaterThan(0);
  });

  it('names in its queries only metrics the controller manager serves, each with a series', async () => {
    const names = [...new Set(dashboardQueries(dashboard).flatMap(metricNames))].sort();
    // KubeFed's, controller-runtime's, client-go's, the process's and our own names are among them.
    expect(names).toEqual(
      expect.arrayContaining([
        'kubefedcluster_total',
        'joined_cluster_total',
        'dispatch_operation_duration_seconds_bucket',
        'controller_runtime_reconcile_total',
        'workqueue_depth',
        'rest_client_requests_total',
        'process_cpu_seconds_total',
        'nodejs_heap_size_used_bytes',
        'kubefed_sync_queue_jobs',
      ]),
    );
    // Collected series (Redis queue counts, cluster states) appear once the first scrapes found them.
    await expect
      .poll(
        async () => {
          const text = await metricsText(cm);
          return names.filter((n) => samplesOf(text, n) === 0);
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toEqual([]);
  }, 60_000);

  it("observes every member create of the sync workers in KubeFed's dispatch_operation_duration_seconds", async () => {
    // The FederatedNamespace's Namespace and 2 ConfigMaps in each member, each created once.
    const creates = metricIn(await metricsText(cm), 'dispatch_operation_duration_seconds_count', { action: 'create' });
    expect(creates).toBeGreaterThanOrEqual(3 * fed.members.length);
  });

  it("serves controller-runtime's controller_runtime_max_concurrent_reconciles for every controller, as configured", async () => {
    const text = await metricsText(cm);
    const byController = (name: string) => new Map(metricSeries(text, name).map((s) => [s.labels['controller'] ?? '', s.value] as const));
    const workers = byController('controller_runtime_active_workers');
    const max = byController('controller_runtime_max_concurrent_reconciles');
    expect([...max.keys()].sort()).toEqual([...workers.keys()].sort());
    // The cluster controller runs 10 workers; the sync controllers the KubeFedConfig's default of
    // 1 (spec.syncController.maxConcurrentReconciles), one per enabled type.
    expect(Object.fromEntries(max)).toEqual({
      kubefedconfig: 1,
      kubefedcluster: 10,
      federatedtypeconfig: 1,
      'sync-configmaps': 1,
      'sync-namespaces': 1,
    });
  });

  it("serves KubeFed's cluster metrics with its labels: every member ready, none offline", async () => {
    const text = await metricsText(cm);
    for (const member of fed.members) {
      expect(text).toContain(`kubefedcluster_total{cluster="${member}",state="ready"} 1`);
      expect(text).toContain(`kubefedcluster_total{cluster="${member}",state="offline"} 0`);
    }
    expect(text).toMatch(new RegExp(`^joined_cluster_total ${fed.members.length}$`, 'm'));
    expect(metricSeries(text, 'reconcile_federated_resources_duration_seconds_count')[0]?.value).toBeGreaterThan(0);
    expect(metricSeries(text, 'cluster_health_status_duration_seconds_count')[0]?.value).toBeGreaterThan(0);
  });
});
