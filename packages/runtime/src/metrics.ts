import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { eventLoopTurns } from './event-loop-turns.js';
import type { WorkQueueMetrics } from './work-queue.js';

/** Result label of `kubefed_controller_reconcile_total`. */
export type ReconcileResult = 'success' | 'error' | 'requeue_after' | 'terminal';

/** What a controller reports per reconcile (implemented by {@link RuntimeMetrics.controller}). */
export interface ControllerMetrics {
  reconciled(result: ReconcileResult, seconds: number): void;
  /** Reconciles currently running. */
  activeWorkers(n: number): void;
}

/** What an informer reports (implemented by {@link RuntimeMetrics.informer}). */
export interface InformerMetrics {
  /** One watch event (ADDED/MODIFIED/DELETED/BOOKMARK) or a relist/resync delivery. */
  event(type: string): void;
  /** The watch was re-established; `reason` is e.g. `closed`, `error`, `gone`. */
  watchRestart(reason: string): void;
  /** A full list was fetched. */
  list(): void;
}

/** A counter a controller can register for its own domain metrics. */
export interface CounterMetric {
  inc(labels?: Record<string, string>, value?: number): void;
}
/** A gauge a controller can register. */
export interface GaugeMetric {
  set(labels: Record<string, string>, value: number): void;
}
/** A histogram a controller can register (values in the unit of its name, usually seconds). */
export interface HistogramMetric {
  observe(labels: Record<string, string>, value: number): void;
}

/** One series of a gauge read on scrape (see {@link RuntimeMetrics.collectedGauge}). */
export interface GaugeSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Options of {@link RuntimeMetrics.collectedGauge}. */
export interface CollectedGaugeOptions {
  /** `kubefed_<subsystem>_<name>_<unit>`. */
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /**
   * Reads every current series; called on each scrape. Series it no longer returns disappear.
   * It should report its own failures and return what it could read: if it throws, the gauge
   * has no series in that scrape (the rest of the scrape is unaffected).
   */
  readonly read: () => Promise<readonly GaugeSample[]>;
}

/** Options of {@link RuntimeMetrics}. */
export interface RuntimeMetricsOptions {
  /** Also collect Node process metrics (`kubefed_process_*`); default false. */
  processMetrics?: boolean;
}

const durationBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The Prometheus metrics of one manager, in a registry of its own (never prom-client's global
 * one, so several managers in one test process do not collide). Names follow
 * `kubefed_<subsystem>_<name>_<unit>`.
 */
export class RuntimeMetrics {
  readonly #registry = new Registry();
  readonly #reconcileTotal: Counter<'controller' | 'result'>;
  readonly #reconcileErrors: Counter<'controller'>;
  readonly #reconcileDuration: Histogram<'controller'>;
  readonly #activeWorkers: Gauge<'controller'>;
  readonly #queueDepth: Gauge<'name'>;
  readonly #queueAdds: Counter<'name'>;
  readonly #queueLatency: Histogram<'name'>;
  readonly #workDuration: Histogram<'name'>;
  readonly #queueRetries: Counter<'name'>;
  readonly #informerEvents: Counter<'informer' | 'type'>;
  readonly #watchRestarts: Counter<'informer' | 'reason'>;
  readonly #informerLists: Counter<'informer'>;
  readonly #isLeader: Gauge<'lease'>;
  readonly #restRequests: Counter<'cluster' | 'client' | 'method' | 'code'>;

  constructor(options: RuntimeMetricsOptions = {}) {
    const registers = [this.#registry];
    this.#reconcileTotal = new Counter({
      name: 'kubefed_controller_reconcile_total',
      help: 'Reconciles by controller and result (success, error, requeue_after, terminal).',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.#reconcileErrors = new Counter({
      name: 'kubefed_controller_reconcile_errors_total',
      help: 'Reconciles that failed (retried or terminal).',
      labelNames: ['controller'],
      registers,
    });
    this.#reconcileDuration = new Histogram({
      name: 'kubefed_controller_reconcile_duration_seconds',
      help: 'Time per reconcile.',
      labelNames: ['controller'],
      buckets: durationBuckets,
      registers,
    });
    this.#activeWorkers = new Gauge({
      name: 'kubefed_controller_active_workers',
      help: 'Reconciles running now.',
      labelNames: ['controller'],
      registers,
    });
    this.#queueDepth = new Gauge({
      name: 'kubefed_workqueue_depth',
      help: 'Keys waiting in the work queue.',
      labelNames: ['name'],
      registers,
    });
    this.#queueAdds = new Counter({
      name: 'kubefed_workqueue_adds_total',
      help: 'Keys added to the work queue.',
      labelNames: ['name'],
      registers,
    });
    this.#queueLatency = new Histogram({
      name: 'kubefed_workqueue_queue_duration_seconds',
      help: 'Time a key waits in the queue before processing.',
      labelNames: ['name'],
      buckets: durationBuckets,
      registers,
    });
    this.#workDuration = new Histogram({
      name: 'kubefed_workqueue_work_duration_seconds',
      help: 'Time processing a key takes.',
      labelNames: ['name'],
      buckets: durationBuckets,
      registers,
    });
    this.#queueRetries = new Counter({
      name: 'kubefed_workqueue_retries_total',
      help: 'Rate-limited re-queues.',
      labelNames: ['name'],
      registers,
    });
    this.#informerEvents = new Counter({
      name: 'kubefed_informer_events_total',
      help: 'Watch events received by type.',
      labelNames: ['informer', 'type'],
      registers,
    });
    this.#watchRestarts = new Counter({
      name: 'kubefed_informer_watch_restarts_total',
      help: 'Watch re-connections by reason.',
      labelNames: ['informer', 'reason'],
      registers,
    });
    this.#informerLists = new Counter({
      name: 'kubefed_informer_lists_total',
      help: 'Full lists fetched.',
      labelNames: ['informer'],
      registers,
    });
    this.#isLeader = new Gauge({
      name: 'kubefed_leader_election_is_leader',
      help: '1 while this process holds the Lease.',
      labelNames: ['lease'],
      registers,
    });
    this.#restRequests = new Counter({
      name: 'kubefed_rest_client_requests_total',
      help: 'API server requests (watches excepted) by cluster, client, method and HTTP status code (<error> when none came).',
      labelNames: ['cluster', 'client', 'method', 'code'],
      registers,
    });
    if (options.processMetrics === true) collectDefaultMetrics({ register: this.#registry, prefix: 'kubefed_' });
  }

  /**
   * The Prometheus text exposition of every metric, as prom-client's `Registry.metrics()` renders
   * it, but one metric at a time with a turn of the event loop after each: rendering them all
   * at once runs on promises alone and held a controller manager with 10 members for 10–20 ms
   * (more with more members, whose series every per-cluster metric has), which every request,
   * watch event and lease renewal in flight had to wait out at each scrape.
   */
  async text(): Promise<string> {
    const parts: string[] = [];
    for (const metric of this.#registry.getMetricsAsArray()) {
      parts.push(await this.#registry.getSingleMetricAsString(metric.name));
      await eventLoopTurns.next();
    }
    return `${parts.join('\n\n')}\n`;
  }

  /** Content-Type of {@link text}. */
  get contentType(): string {
    return this.#registry.contentType;
  }

  /** Names of every registered metric. */
  names(): string[] {
    return this.#registry.getMetricsAsArray().map((m) => m.name);
  }

  /** The current value of a counter or gauge series (undefined if absent); for tests and status. */
  async value(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
    const metric = this.#registry.getSingleMetric(name);
    if (metric === undefined) return undefined;
    const data = await metric.get();
    const match = data.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
    return match?.value;
  }

  controller(name: string): ControllerMetrics {
    this.#activeWorkers.set({ controller: name }, 0);
    return {
      reconciled: (result, seconds) => {
        this.#reconcileTotal.inc({ controller: name, result });
        if (result === 'error' || result === 'terminal') this.#reconcileErrors.inc({ controller: name });
        this.#reconcileDuration.observe({ controller: name }, seconds);
      },
      activeWorkers: (n) => this.#activeWorkers.set({ controller: name }, n),
    };
  }

  workQueue(name: string): WorkQueueMetrics {
    this.#queueDepth.set({ name }, 0);
    return {
      add: () => this.#queueAdds.inc({ name }),
      depth: (n) => this.#queueDepth.set({ name }, n),
      queueLatency: (s) => this.#queueLatency.observe({ name }, s),
      workDuration: (s) => this.#workDuration.observe({ name }, s),
      retry: () => this.#queueRetries.inc({ name }),
    };
  }

  informer(name: string): InformerMetrics {
    return {
      event: (type) => this.#informerEvents.inc({ informer: name, type }),
      watchRestart: (reason) => this.#watchRestarts.inc({ informer: name, reason }),
      list: () => this.#informerLists.inc({ informer: name }),
    };
  }

  /**
   * The `onRequestDone` of an API client (`@kubefed/client`'s TransportOptions): counts its
   * requests in `kubefed_rest_client_requests_total{cluster, client}` by method and code.
   * `client` names the client's role (`sync`, `reporting`, `leader-election`, `member`, ...).
   */
  restClient(cluster: string, client: string): (method: string, code: string) => void {
    return (method, code) => this.#restRequests.inc({ cluster, client, method, code });
  }

  /** Sets `kubefed_leader_election_is_leader{lease}`. */
  leader(lease: string, leading: boolean): void {
    this.#isLeader.set({ lease }, leading ? 1 : 0);
  }

  /** Registers a domain counter (name must follow `kubefed_<subsystem>_<name>_total`). */
  counter(name: string, help: string, labelNames: readonly string[] = []): CounterMetric {
    const c = new Counter({ name, help, labelNames, registers: [this.#registry] });
    return { inc: (labels = {}, value = 1) => c.inc(labels, value) };
  }

  /** Registers a domain gauge. */
  gauge(name: string, help: string, labelNames: readonly string[] = []): GaugeMetric {
    const g = new Gauge({ name, help, labelNames, registers: [this.#registry] });
    return { set: (labels, value) => g.set(labels, value) };
  }

  /** Registers a gauge whose values are read when the metrics are scraped (state held elsewhere, e.g. queue lengths in Redis). */
  collectedGauge(options: CollectedGaugeOptions): void {
    const gauge: Gauge = new Gauge({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames,
      registers: [this.#registry],
      collect: async () => {
        const samples = await options.read().catch(() => []);
        gauge.reset();
        for (const s of samples) gauge.set(s.labels, s.value);
      },
    });
  }

  /** Registers a domain histogram with duration buckets (seconds). */
  histogram(name: string, help: string, labelNames: readonly string[] = []): HistogramMetric {
    const h = new Histogram({ name, help, labelNames, buckets: durationBuckets, registers: [this.#registry] });
    return { observe: (labels, value) => h.observe(labels, value) };
  }
}
