// The types of parse-prometheus-text-format, also for the programs of other packages that
// compile this file from source (kubefedctl), where a .d.ts beside it is not otherwise included.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./parse-prometheus-text-format.d.ts" />
import type { Logger } from '@kubefed/runtime';
import parsePrometheusText from 'parse-prometheus-text-format';
import { waitInterval, type QueueCountsSource } from './queue-counts.js';
import type { QueueCountsView } from './views.js';

/** One metric family of a Prometheus text exposition; sample values are the text as written. */
interface MetricFamily {
  readonly name: string;
  readonly metrics: readonly { readonly value?: string; readonly labels?: Readonly<Record<string, string>> }[];
}

// parse-prometheus-text-format is CommonJS without types (parse-prometheus-text-format.d.ts).
const parsePrometheusTextFormat: (text: string) => MetricFamily[] = parsePrometheusText;

/** The controller manager's gauge of sync queue jobs (docs/operations.md, Metrics). */
export const SYNC_QUEUE_JOBS = 'kubefed_sync_queue_jobs';

/**
 * The sync queue counts per cluster in a Prometheus text exposition, from
 * `kubefed_sync_queue_jobs{cluster,state}`; a cluster missing a state counts 0 for it. Pure.
 * @throws Error when the text has no such gauge (not the controller manager's metrics, or a
 *   process that runs no controllers).
 */
export function queueCountsFromMetrics(text: string): Map<string, QueueCountsView> {
  const family = parsePrometheusTextFormat(text).find((f) => f.name === SYNC_QUEUE_JOBS);
  if (family === undefined)
    throw new Error(`no ${SYNC_QUEUE_JOBS} gauge in the metrics (is this a controller manager running the controllers?)`);
  const out = new Map<string, { waiting: number; active: number; delayed: number; failed: number }>();
  for (const sample of family.metrics) {
    const cluster = sample.labels?.['cluster'];
    const state = sample.labels?.['state'];
    const value = Number(sample.value);
    if (cluster === undefined || !Number.isFinite(value)) continue;
    const counts = out.get(cluster) ?? { waiting: 0, active: 0, delayed: 0, failed: 0 };
    if (state === 'waiting' || state === 'active' || state === 'delayed' || state === 'failed') counts[state] = value;
    out.set(cluster, counts);
  }
  return out;
}

/** Options of {@link MetricsQueueCountsPoller}. */
export interface MetricsQueueCountsPollerOptions {
  /** The controller manager's metrics endpoint, e.g. `http://127.0.0.1:9090/metrics`. */
  readonly url: string;
  /** Called when a count changed or the endpoint became (un)readable. */
  readonly onChange: () => void;
  /** Default 1000 ms. */
  readonly intervalMs?: number;
  /** Per scrape; default 5000 ms. */
  readonly timeoutMs?: number;
  readonly logger: Logger;
}

/**
 * Reads the sync queue counts from the controller manager's `/metrics` every `intervalMs` (the
 * counts have no watch); the page is told only of changes. A failed scrape clears the counts
 * and sets `problem`, the next good one restores them.
 */
export class MetricsQueueCountsPoller implements QueueCountsSource {
  readonly #o: MetricsQueueCountsPollerOptions;
  #counts: ReadonlyMap<string, QueueCountsView> = new Map();
  #problem: string | undefined;

  constructor(options: MetricsQueueCountsPollerOptions) {
    this.#o = options;
  }

  get counts(): ReadonlyMap<string, QueueCountsView> {
    return this.#counts;
  }

  get problem(): string | undefined {
    return this.#problem;
  }

  /** Reads until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.#read(signal);
      await waitInterval(this.#o.intervalMs ?? 1000, signal);
    }
  }

  async #read(signal: AbortSignal): Promise<void> {
    let counts: ReadonlyMap<string, QueueCountsView> = new Map();
    let problem: string | undefined;
    try {
      const res = await fetch(this.#o.url, { signal: AbortSignal.any([signal, AbortSignal.timeout(this.#o.timeoutMs ?? 5000)]) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      counts = queueCountsFromMetrics(await res.text());
    } catch (err) {
      if (signal.aborted) return;
      problem = `${this.#o.url}: ${err instanceof Error ? err.message : String(err)}`;
      if (problem !== this.#problem) this.#o.logger.warn({ err }, 'cannot read the sync queue counts from the metrics');
    }
    const changed = problem !== this.#problem || !sameCounts(counts, this.#counts);
    this.#counts = counts;
    this.#problem = problem;
    if (changed) this.#o.onChange();
  }
}

function sameCounts(a: ReadonlyMap<string, QueueCountsView>, b: ReadonlyMap<string, QueueCountsView>): boolean {
  if (a.size !== b.size) return false;
  for (const [cluster, x] of a) {
    const y = b.get(cluster);
    if (y?.waiting !== x.waiting || y.active !== x.active || y.delayed !== x.delayed || y.failed !== x.failed) return false;
  }
  return true;
}
