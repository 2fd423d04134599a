// Helpers shared by the process-level benchmarks (propagation.bench.ts, member-outage.bench.ts):
// polling with a limit, percentiles, the change-latency probe (one federated object changed,
// timed until the named member clusters report the change on their watches), and what the
// controller manager spent over a window (CPU seconds, API requests, histogram observations).
import { readFile } from 'node:fs/promises';
import type { ResourceClient } from '@kubefed/client';
import { createRedisConnection } from '@kubefed/queue';
import type { LocalFederation, ManagedProcess } from '@kubefed/testing';
import {
  configMapName,
  FEDERATED_CONFIG_MAPS,
  followWatch,
  metricSeries,
  type MemberWriteRecorder,
} from '../../packages/controller-manager/test/process-federation.js';

/**
 * Leader-election flags of the benchmarks' controller managers: a long Lease. On a loaded machine
 * even the default 15 s Lease was lost under bulk work or during a heap snapshot (the renewals
 * have their own client, but share the event loop), which ends the process.
 */
export const BENCH_LEASE = [
  '--leader-elect-lease-duration',
  '60s',
  '--leader-elect-renew-deadline',
  '45s',
  '--leader-elect-retry-period',
  '2s',
];

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `start()`, every Node process it starts given `options` besides this process's `NODE_OPTIONS`. */
export async function withNodeOptions<T>(options: string, start: () => Promise<T>): Promise<T> {
  if (options.trim() === '') return start();
  const before = process.env['NODE_OPTIONS'];
  process.env['NODE_OPTIONS'] = `${before ?? ''} ${options}`.trim();
  try {
    return await start();
  } finally {
    if (before === undefined) delete process.env['NODE_OPTIONS'];
    else process.env['NODE_OPTIONS'] = before;
  }
}

/** Polls `check` every `intervalMs` until it holds; throws naming `what` after `limitMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, limitMs: number, intervalMs = 5): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${limitMs} ms`);
    await pause(intervalMs);
  }
}

/** The `p`-th percentile (nearest rank) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** p50, p95, p99 and max of `latencies` (any order), in ms. */
export function latencySummary(latencies: readonly number[]): { p50: number; p95: number; p99: number; max: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

/** Options of {@link p99RatioInterval}. */
export interface IntervalOptions {
  /** Resamples drawn; default 2,000. */
  readonly resamples?: number;
  /** Share of the resampled ratios inside the interval; default 0.9. */
  readonly confidence?: number;
  /** Seed of the resampling, so that the same latencies always print the same interval; default 1. */
  readonly seed?: number;
}

/**
 * A bootstrap interval of p99(`outage`) ÷ p99(`baseline`): both samples are redrawn with
 * replacement `resamples` times and the ratio's central `confidence` share is returned. It says
 * how far the ratio moves with which changes happened to be the slowest (a p99 of 400 changes
 * rests on its 4 slowest), not how far it moves from run to run on a machine whose speed drifts:
 * read it beside the per-cycle ratios.
 */
export function p99RatioInterval(
  baseline: readonly number[],
  outage: readonly number[],
  options: IntervalOptions = {},
): { low: number; high: number } {
  const resamples = options.resamples ?? 2_000;
  const confidence = options.confidence ?? 0.9;
  const random = mulberry32(options.seed ?? 1);
  const p99Of = (sample: readonly number[]): number => {
    const drawn = new Float64Array(sample.length);
    for (let i = 0; i < drawn.length; i++) drawn[i] = sample[Math.floor(random() * sample.length)] ?? NaN;
    return percentile(drawn.sort(), 99);
  };
  const ratios = Array.from({ length: resamples }, () => p99Of(outage) / p99Of(baseline)).sort((a, b) => a - b);
  const tail = ((1 - confidence) / 2) * 100;
  return { low: percentile(ratios, tail), high: percentile(ratios, 100 - tail) };
}

/** A small seeded pseudo-random generator (mulberry32): uniform in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** True while `cm` runs; throws with the end of its log once it has exited. */
export function alive(cm: ManagedProcess): boolean {
  if (!cm.running) throw new Error(`the controller manager exited; its last lines:\n${cm.tail(40)}`);
  return true;
}

/** What {@link timeChange} changes and waits for. */
export interface ChangeProbe {
  /** Namespace and name of the FederatedConfigMap to change. */
  readonly namespace: string;
  readonly name: string;
  /** The new value of its template's `data.index` (unique per change). */
  readonly value: string;
  /** The members whose update ends the measurement. */
  readonly clusters: readonly string[];
  /** Give up after this long; default 60 s. */
  readonly limitMs?: number;
  /** A watch of the host's FederatedConfigMaps: when it delivered the change (`--watch-host`). */
  readonly hostWatch?: HostChangeWatch | undefined;
}

/**
 * When a watch of the host's FederatedConfigMaps of one namespace, in the benchmark, delivered
 * each change (by object name and template `data.index`): the host's side of the delivery that
 * the controller manager's informer gets on its own watch, status writes' echoes included.
 */
export class HostChangeWatch {
  readonly #at = new Map<string, number>();
  readonly #abort = new AbortController();
  #error: string | undefined;

  private constructor() {}

  static async start(fed: LocalFederation, namespace: string): Promise<HostChangeWatch> {
    const watch = new HostChangeWatch();
    const resource = fed.client('host').resource(FEDERATED_CONFIG_MAPS, namespace);
    const rv = (await resource.list({ limit: 1 })).metadata.resourceVersion;
    void watch.#follow(resource, rv);
    return watch;
  }

  /** When the change of `name` to `value` was delivered (`performance.now()`); undefined if not (yet). */
  at(name: string, value: string): number | undefined {
    if (this.#error !== undefined) throw new Error(`host watch: ${this.#error}`);
    return this.#at.get(`${name}\u0000${value}`);
  }

  stop(): void {
    this.#abort.abort();
  }

  /** Records when each change was delivered (see {@link followWatch}). */
  async #follow(resource: ResourceClient, rv: string | undefined): Promise<void> {
    this.#error = await followWatch(resource, rv, this.#abort.signal, (event) => {
      const index = (event.object.spec as { template?: { data?: { index?: unknown } } } | undefined)?.template?.data?.index;
      const key = `${event.object.metadata.name ?? ''}\u0000${String(index)}`;
      if (event.type === 'MODIFIED' && typeof index === 'string' && !this.#at.has(key)) this.#at.set(key, performance.now());
    });
  }
}

/** Where one change's time went, as the benchmark saw it (milliseconds from the change). */
export interface ChangeTiming {
  /** Until every cluster of the probe reported the change. */
  readonly ms: number;
  /** Until the host answered the change's patch. */
  readonly patchMs: number;
  /** Until each cluster of the probe reported it, by cluster. */
  readonly seenMs: ReadonlyMap<string, number>;
  /** Until the probe's {@link HostChangeWatch} delivered it; undefined without one. */
  readonly hostWatchMs?: number | undefined;
}

/**
 * Changes one FederatedConfigMap (a merge patch of `spec.template.data.index`) and returns the
 * milliseconds until every cluster of `probe.clusters` reported a MODIFIED of that ConfigMap on
 * `writes` (woken by its watches: many changes in flight cost the benchmark no CPU while they
 * wait). Throws naming the members not seen within the limit and the recorder's watch errors.
 */
export async function timeChange(fed: LocalFederation, writes: MemberWriteRecorder, probe: ChangeProbe): Promise<number> {
  return (await timeChangeStages(fed, writes, probe)).ms;
}

/** {@link timeChange}, with the host's answer to the patch and each member's report timed apart. */
export async function timeChangeStages(fed: LocalFederation, writes: MemberWriteRecorder, probe: ChangeProbe): Promise<ChangeTiming> {
  const seen = writes.writes.length;
  const t = performance.now();
  await fed
    .client('host')
    .resource(FEDERATED_CONFIG_MAPS, probe.namespace)
    .patch(probe.name, { spec: { template: { data: { index: probe.value } } } }, 'merge');
  const patchMs = performance.now() - t;
  try {
    await writes.modified(probe.name, probe.clusters, { from: seen, limitMs: probe.limitMs ?? 60_000 });
  } catch (err) {
    throw new Error(`change of ${probe.name} to ${probe.value}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const ms = performance.now() - t;
  const seenMs = new Map<string, number>();
  for (const w of writes.writes.slice(seen))
    if (w.type === 'MODIFIED' && w.name === probe.name && !seenMs.has(w.cluster)) seenMs.set(w.cluster, w.at - t);
  const hostAt = probe.hostWatch?.at(probe.name, probe.value);
  return { ms, patchMs, seenMs, hostWatchMs: hostAt === undefined ? undefined : hostAt - t };
}

/**
 * FederatedConfigMaps `cm-<from>`..`cm-<to - 1>` in `ns`, placed in every member, 16 creates at a
 * time, as `createFederatedConfigMaps` (process-federation.ts) makes them; that one also creates
 * the namespace and its FederatedNamespace: call it first.
 */
export async function createMoreFederatedConfigMaps(fed: LocalFederation, ns: string, range: { from: number; to: number }): Promise<void> {
  const fedCms = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
  const placement = { clusters: fed.members.map((name) => ({ name })) };
  let next = range.from;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < range.to) {
        const i = next++;
        await fedCms.create({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedConfigMap',
          metadata: { name: configMapName(i), namespace: ns },
          spec: { template: { data: { index: String(i), payload: 'x'.repeat(100) } }, placement },
        });
      }
    }),
  );
}

/** CPU seconds (user + system) a process has used so far, from `/proc/<pid>/stat` (Linux). */
export async function cpuSecondsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (in parentheses, which may hold spaces): utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Linux's USER_HZ, the unit of `/proc/<pid>/stat` times, on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU seconds used by named processes over the windows between {@link start} and {@link stop}
 * (summed over several windows), the benchmark's own process included as `benchmark`. A process
 * that has exited counts what it used until its last reading.
 */
export class CpuMeter {
  readonly #pids: ReadonlyMap<string, readonly number[]>;
  readonly #used = new Map<string, number>();
  #started: Map<string, number> | undefined;

  /** `pids`: each name's processes (their CPU is added up). */
  constructor(pids: Readonly<Record<string, readonly number[]>>) {
    this.#pids = new Map(Object.entries(pids));
  }

  async start(): Promise<void> {
    this.#started = await this.#read();
  }

  async stop(): Promise<void> {
    const started = this.#started;
    if (started === undefined) throw new Error('CpuMeter.stop() without start()');
    const now = await this.#read();
    for (const [name, seconds] of now) this.#used.set(name, (this.#used.get(name) ?? 0) + seconds - (started.get(name) ?? 0));
    this.#started = undefined;
  }

  /** CPU seconds per name over the windows measured so far. */
  get used(): ReadonlyMap<string, number> {
    return this.#used;
  }

  async #read(): Promise<Map<string, number>> {
    const read = new Map<string, number>();
    for (const [name, pids] of this.#pids) {
      let sum = 0;
      for (const pid of pids) sum += await cpuSecondsOf(pid).catch(() => 0);
      read.set(name, sum);
    }
    const own = process.cpuUsage();
    read.set('benchmark', (own.user + own.system) / 1e6);
    return read;
  }
}

/** The pid of the Redis server behind `url` (its INFO), when it runs on this machine. */
export async function redisPid(url: string): Promise<number | undefined> {
  const connection = createRedisConnection(url, { role: 'producer' });
  try {
    const info = await connection.info('server');
    const pid = /process_id:(\d+)/.exec(info)?.[1];
    return pid === undefined ? undefined : Number(pid);
  } finally {
    connection.disconnect();
  }
}

/** A histogram's observations over a window: how many, their mean, and how many were above each bound (ms). */
export interface HistogramWindow {
  readonly count: number;
  readonly meanMs: number;
  /** Observations above 10, 25, 50 and 100 ms (the bucket bounds of the controller manager's duration histograms). */
  readonly above: Readonly<Record<'10' | '25' | '50' | '100', number>>;
}

/** Sums the series of histogram `name` matching `labels` in a Prometheus text: its count, sum and cumulative buckets by `le`. */
function histogramIn(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>>,
): { count: number; sum: number; le: Map<string, number> } {
  const matches = (l: Record<string, string>): boolean => Object.entries(labels).every(([k, v]) => l[k] === v);
  const le = new Map<string, number>();
  for (const s of metricSeries(text, `${name}_bucket`))
    if (matches(s.labels)) le.set(s.labels['le'] ?? '', (le.get(s.labels['le'] ?? '') ?? 0) + s.value);
  const total = (suffix: string): number =>
    metricSeries(text, `${name}${suffix}`).reduce((a, s) => a + (matches(s.labels) ? s.value : 0), 0);
  return { count: total('_count'), sum: total('_sum'), le };
}

/** The observations of histogram `name` (seconds) between two scrapes of the same process. */
export function histogramWindow(
  before: string,
  after: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): HistogramWindow {
  const [b, a] = [histogramIn(before, name, labels), histogramIn(after, name, labels)];
  const count = a.count - b.count;
  const atMost = (bound: string): number => (a.le.get(bound) ?? 0) - (b.le.get(bound) ?? 0);
  return {
    count,
    meanMs: count === 0 ? 0 : ((a.sum - b.sum) / count) * 1000,
    above: { '10': count - atMost('0.01'), '25': count - atMost('0.025'), '50': count - atMost('0.05'), '100': count - atMost('0.1') },
  };
}

/** `n 200, mean 3.1 ms, > 10 ms: 4, > 25 ms: 1, > 50 ms: 0, > 100 ms: 0` */
export const describeWindow = (w: HistogramWindow): string =>
  `n ${w.count}, mean ${w.meanMs.toFixed(1)} ms, > 10 ms: ${w.above['10']}, > 25 ms: ${w.above['25']}, > 50 ms: ${w.above['50']}, > 100 ms: ${w.above['100']}`;

/**
 * Where the sync path's time went between two scrapes of a controller manager, a line per stage
 * (its own histograms): the work-queue wait of the sync controller `controller`, its reconcile,
 * a sync job's wait from enqueue to its first attempt, and an attempt's run; `cluster` narrows the
 * two job stages to that member's queue (for example a healthy member while another fails).
 */
export function describeStages(before: string, after: string, o: { controller: string; cluster?: string }): string[] {
  const jobs: Record<string, string> = o.cluster === undefined ? {} : { cluster: o.cluster };
  const of = o.cluster === undefined ? '' : ` (${o.cluster})`;
  const stages: [string, string, Record<string, string>][] = [
    ['host event to reconcile start (work queue)', 'kubefed_workqueue_queue_duration_seconds', { name: o.controller }],
    ['reconcile', 'kubefed_controller_reconcile_duration_seconds', { controller: o.controller }],
    [`sync job enqueue to start${of}`, 'kubefed_sync_job_queue_duration_seconds', jobs],
    [`sync job run${of}`, 'kubefed_sync_job_duration_seconds', jobs],
  ];
  return stages.map(([what, name, labels]) => `${what}: ${describeWindow(histogramWindow(before, after, name, labels))}`);
}

/** The values of every series of the metric `name` in a Prometheus text, added up by `keyOf` their labels. */
export function seriesSums(text: string, name: string, keyOf: (labels: Record<string, string>) => string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const { labels, value } of metricSeries(text, name)) {
    const key = keyOf(labels);
    sums.set(key, (sums.get(key) ?? 0) + value);
  }
  return sums;
}

/** `kubefed_rest_client_requests_total` of a controller manager's scrape by `<host|member> <client> <method>`. */
export function requestCountsIn(text: string): Map<string, number> {
  return seriesSums(
    text,
    'kubefed_rest_client_requests_total',
    (l) => `${l['cluster'] === 'host' ? 'host' : 'member'} ${l['client']} ${l['method']}`,
  );
}

/** The requests made between two {@link requestCountsIn}, each per one of `count`, most first. */
export function requestsPer(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, count: number): string {
  const made = [...after].map(([key, n]) => [key, n - (before.get(key) ?? 0)] as const).filter(([, n]) => n > 0);
  return made
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ${(n / count).toFixed(2)}`)
    .join(', ');
}

/** A {@link CpuMeter} of the controller manager, the kube-sim processes, Redis (when local) and the benchmark. */
export async function cpuMeter(fed: LocalFederation, cm: ManagedProcess): Promise<CpuMeter> {
  const pid = (p: ManagedProcess): number[] => (p.child.pid === undefined ? [] : [p.child.pid]);
  const redis = await redisPid(fed.redis.url);
  const clusters =
    fed.realClusters === undefined
      ? { 'kube-sim': fed.kubeSims.flatMap(pid) }
      : { 'Kubernetes components': fed.realClusters.processes().flatMap((p) => (p.pid === undefined ? [] : [p.pid])) };
  return new CpuMeter({ 'controller manager': pid(cm), ...clusters, Redis: redis === undefined ? [] : [redis] });
}

/** `name s, ...` of `meter`'s CPU seconds per `unit` of `count` (default 1,000), and their total. */
export function cpuPer(meter: CpuMeter, count: number, unit = 1000): string {
  const per = (s: number): string => (s / (count / unit)).toFixed(unit === 1 ? 3 : 2);
  const parts = [...meter.used].map(([name, s]) => `${name} ${per(s)}`);
  const total = [...meter.used.values()].reduce((a, b) => a + b, 0);
  return `${parts.join(', ')}; total ${per(total)} s`;
}
