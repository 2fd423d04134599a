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
  /**
   * Also collect the Node.js process metrics, under their standard names (`process_*`,
   * `nodejs_*`) and, deprecated, under the `kubefed_` prefix of earlier releases; default false.
   */
  processMetrics?: boolean;
}

const durationBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** controller-runtime's buckets of `controller_runtime_reconcile_time_seconds` (pkg/internal/controller/metrics). */
const reconcileTimeBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5,
  5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** client-go's work queue buckets as controller-runtime registers them: 10ns to 1000s by factors of 10. */
const workQueueBuckets = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));
/** Marks the HELP of a `kubefed_*` name that has a standard or KubeFed name beside it (docs/operations.md, Metrics). */
const deprecated = (standard: string): string => ` Deprecated: use ${standard}.`;

/**
 * The Prometheus metrics of one manager, in a registry of its own (never prom-client's global
 * one, so several managers in one test process do not collide). Our own names follow
 * `kubefed_<subsystem>_<name>_<unit>`; what controller-runtime and client-go also measure is
 * served under their names too (`controller_runtime_*`, `workqueue_*`, `rest_client_requests_total`,
 * `leader_election_master_status`), so their dashboards work; the `kubefed_*` twins of those stay,
 * deprecated (docs/operations.md, Metrics, has the table).
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
  readonly #standard: StandardMetrics;
  readonly #reconcileListeners = new Set<(controller: string, result: ReconcileResult, seconds: number) => void>();

  constructor(options: RuntimeMetricsOptions = {}) {
    const registers = [this.#registry];
    this.#reconcileTotal = new Counter({
      name: 'kubefed_controller_reconcile_total',
      help:
        'Reconciles by controller and result (success, error, requeue_after, terminal).' + deprecated('controller_runtime_reconcile_total'),
      labelNames: ['controller', 'result'],
      registers,
    });
    this.#reconcileErrors = new Counter({
      name: 'kubefed_controller_reconcile_errors_total',
      help: 'Reconciles that failed (retried or terminal).' + deprecated('controller_runtime_reconcile_errors_total'),
      labelNames: ['controller'],
      registers,
    });
    this.#reconcileDuration = new Histogram({
      name: 'kubefed_controller_reconcile_duration_seconds',
      help: 'Time per reconcile.' + deprecated('controller_runtime_reconcile_time_seconds'),
      labelNames: ['controller'],
      buckets: durationBuckets,
      registers,
    });
    this.#activeWorkers = new Gauge({
      name: 'kubefed_controller_active_workers',
      help: 'Reconciles running now.' + deprecated('controller_runtime_active_workers'),
      labelNames: ['controller'],
      registers,
    });
    this.#queueDepth = new Gauge({
      name: 'kubefed_workqueue_depth',
      help: 'Keys waiting in the work queue.' + deprecated('workqueue_depth'),
      labelNames: ['name'],
      registers,
    });
    this.#queueAdds = new Counter({
      name: 'kubefed_workqueue_adds_total',
      help: 'Keys added to the work queue.' + deprecated('workqueue_adds_total'),
      labelNames: ['name'],
      registers,
    });
    this.#queueLatency = new Histogram({
      name: 'kubefed_workqueue_queue_duration_seconds',
      help: 'Time a key waits in the queue before processing.' + deprecated('workqueue_queue_duration_seconds'),
      labelNames: ['name'],
      buckets: durationBuckets,
      registers,
    });
    this.#workDuration = new Histogram({
      name: 'kubefed_workqueue_work_duration_seconds',
      help: 'Time processing a key takes.' + deprecated('workqueue_work_duration_seconds'),
      labelNames: ['name'],
      buckets: durationBuckets,
      registers,
    });
    this.#queueRetries = new Counter({
      name: 'kubefed_workqueue_retries_total',
      help: 'Rate-limited re-queues.' + deprecated('workqueue_retries_total'),
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
      help: '1 while this process holds the Lease.' + deprecated('leader_election_master_status'),
      labelNames: ['lease'],
      registers,
    });
    this.#restRequests = new Counter({
      name: 'kubefed_rest_client_requests_total',
      help: 'API server requests (watches excepted) by cluster, client, method and HTTP status code (<error> when none came).',
      labelNames: ['cluster', 'client', 'method', 'code'],
      registers,
    });
    this.#standard = new StandardMetrics(registers);
    if (options.processMetrics === true) {
      collectDefaultMetrics({ register: this.#registry });
      collectDefaultMetrics({ register: this.#registry, prefix: 'kubefed_' });
    }
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

  /**
   * The metrics of the controller `name`: `controller_runtime_reconcile_total{controller,result}`
   * (result `success`, `error` — terminal errors too, as controller-runtime counts them —, or
   * `requeue_after`), `controller_runtime_reconcile_errors_total`,
   * `controller_runtime_terminal_reconcile_errors_total`, `controller_runtime_reconcile_time_seconds`,
   * `controller_runtime_active_workers`, `controller_runtime_max_concurrent_reconciles` when
   * `maxConcurrentReconciles` is given, and the deprecated `kubefed_controller_*` twins.
   */
  controller(name: string, options: { maxConcurrentReconciles?: number } = {}): ControllerMetrics {
    this.#activeWorkers.set({ controller: name }, 0);
    const standard = this.#standard.controller(name, options.maxConcurrentReconciles);
    return {
      reconciled: (result, seconds) => {
        this.#reconcileTotal.inc({ controller: name, result });
        if (result === 'error' || result === 'terminal') this.#reconcileErrors.inc({ controller: name });
        this.#reconcileDuration.observe({ controller: name }, seconds);
        standard.reconciled(result, seconds);
        for (const listener of this.#reconcileListeners) listener(name, result, seconds);
      },
      activeWorkers: (n) => {
        this.#activeWorkers.set({ controller: name }, n);
        standard.activeWorkers(n);
      },
    };
  }

  /**
   * Calls `listener` after every reconcile of every controller (name, result, seconds), for
   * metrics derived from reconciles; returns the function that removes it. A listener must not throw.
   */
  onReconciled(listener: (controller: string, result: ReconcileResult, seconds: number) => void): () => void {
    this.#reconcileListeners.add(listener);
    return () => this.#reconcileListeners.delete(listener);
  }

  /** The metrics of the work queue `name`: client-go's `workqueue_*{name,controller}` and the deprecated `kubefed_workqueue_*`. */
  workQueue(name: string): WorkQueueMetrics {
    this.#queueDepth.set({ name }, 0);
    const standard = this.#standard.workQueue(name);
    return {
      add: () => {
        this.#queueAdds.inc({ name });
        standard.add();
      },
      depth: (n) => {
        this.#queueDepth.set({ name }, n);
        standard.depth(n);
      },
      queueLatency: (s) => {
        this.#queueLatency.observe({ name }, s);
        standard.queueLatency(s);
      },
      workDuration: (s) => {
        this.#workDuration.observe({ name }, s);
        standard.workDuration(s);
      },
      retry: () => {
        this.#queueRetries.inc({ name });
        standard.retry();
      },
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
   * requests in `kubefed_rest_client_requests_total{cluster, client}` by method and code, and in
   * client-go's `rest_client_requests_total{code, method, host}`, whose `host` is the cluster's
   * name (`host` for the host cluster, the KubeFedCluster's name for a member).
   * `client` names the client's role (`sync`, `reporting`, `leader-election`, `member`, ...).
   */
  restClient(cluster: string, client: string): (method: string, code: string) => void {
    return (method, code) => {
      this.#restRequests.inc({ cluster, client, method, code });
      this.#standard.restRequests.inc({ code, method, host: cluster });
    };
  }

  /** Sets `leader_election_master_status{name}` (client-go's) and `kubefed_leader_election_is_leader{lease}`. */
  leader(lease: string, leading: boolean): void {
    this.#isLeader.set({ lease }, leading ? 1 : 0);
    this.#standard.leaderStatus.set({ name: lease }, leading ? 1 : 0);
  }

  /** Every series of a counter or gauge (empty if there is no such metric); for metrics derived from others on scrape. */
  async series(name: string): Promise<GaugeSample[]> {
    const metric = this.#registry.getSingleMetric(name);
    if (metric === undefined) return [];
    const data = await metric.get();
    return data.values.map((v) => ({
      labels: Object.fromEntries(Object.entries(v.labels).map(([k, l]) => [k, String(l)])),
      value: v.value,
    }));
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
    return this.histogramOf({ name, help, labelNames });
  }

  /**
   * Registers a histogram with buckets of its own (KubeFed's names keep KubeFed's buckets).
   * `zeroed` label sets have series (all zero) from the start, so dashboards and alerts find
   * them before the first observation.
   */
  histogramOf(options: {
    readonly name: string;
    readonly help: string;
    /** Default none. */
    readonly labelNames?: readonly string[];
    /** Default the duration buckets of the other histograms, 1 ms to 60 s. */
    readonly buckets?: readonly number[];
    /** Default none. */
    readonly zeroed?: readonly Readonly<Record<string, string>>[];
  }): HistogramMetric {
    const h = new Histogram({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames ?? [],
      buckets: [...(options.buckets ?? durationBuckets)],
      registers: [this.#registry],
    });
    for (const labels of options.zeroed ?? []) h.zero(labels);
    return { observe: (labels, value) => h.observe(labels, value) };
  }
}

/** The metrics controller-runtime and client-go serve under their own names, for what we measure the same way. */
class StandardMetrics {
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly terminalErrors: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly maxConcurrent: Gauge<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly queueDepth: Gauge<'name' | 'controller'>;
  readonly queueAdds: Counter<'name' | 'controller'>;
  readonly queueLatency: Histogram<'name' | 'controller'>;
  readonly workDuration: Histogram<'name' | 'controller'>;
  readonly queueRetries: Counter<'name' | 'controller'>;
  readonly restRequests: Counter<'code' | 'method' | 'host'>;
  readonly leaderStatus: Gauge<'name'>;

  constructor(registers: Registry[]) {
    const controller = ['controller'] as const;
    const queue = ['name', 'controller'] as const;
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: controller,
      registers,
    });
    this.terminalErrors = new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: controller,
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: controller,
      buckets: reconcileTimeBuckets,
      registers,
    });
    this.maxConcurrent = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: controller,
      registers,
    });
    this.activeWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: controller,
      registers,
    });
    this.queueDepth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: queue, registers });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: queue,
      registers,
    });
    this.queueLatency = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: queue,
      buckets: workQueueBuckets,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: queue,
      buckets: workQueueBuckets,
      registers,
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: queue,
      registers,
    });
    this.restRequests = new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host (here the name of the cluster).',
      labelNames: ['code', 'method', 'host'],
      registers,
    });
    this.leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
      labelNames: ['name'],
      registers,
    });
  }

  controller(name: string, maxConcurrentReconciles: number | undefined): ControllerMetrics {
    const controller = { controller: name };
    this.activeWorkers.set(controller, 0);
    if (maxConcurrentReconciles !== undefined) this.maxConcurrent.set(controller, maxConcurrentReconciles);
    // Every series from the start, as controller-runtime initialises them.
    for (const result of ['success', 'error', 'requeue_after']) this.reconcileTotal.inc({ controller: name, result }, 0);
    this.reconcileErrors.inc(controller, 0);
    this.terminalErrors.inc(controller, 0);
    return {
      reconciled: (result, seconds) => {
        this.reconcileTotal.inc({ controller: name, result: result === 'terminal' ? 'error' : result });
        if (result === 'error' || result === 'terminal') this.reconcileErrors.inc(controller);
        if (result === 'terminal') this.terminalErrors.inc(controller);
        this.reconcileTime.observe(controller, seconds);
      },
      activeWorkers: (n) => this.activeWorkers.set(controller, n),
    };
  }

  workQueue(name: string): WorkQueueMetrics {
    // controller-runtime labels its queues by name and by controller, both the controller's name.
    const labels = { name, controller: name };
    this.queueDepth.set(labels, 0);
    this.queueAdds.inc(labels, 0);
    this.queueRetries.inc(labels, 0);
    return {
      add: () => this.queueAdds.inc(labels),
      depth: (n) => this.queueDepth.set(labels, n),
      queueLatency: (s) => this.queueLatency.observe(labels, s),
      workDuration: (s) => this.workDuration.observe(labels, s),
      retry: () => this.queueRetries.inc(labels),
    };
  }
}
