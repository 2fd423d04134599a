// Benchmark of one bad member among healthy ones, through the real processes: the kube-sim CLI
// (host + M members; with `--substrate real`, real control planes), Redis, `kubefedctl join`/`enable`, one kubefed-controller-manager
// (`--mode all`). N FederatedConfigMaps are placed in every member; the last member is the
// victim. Prints figures, each ratio measured within the same run; asserts nothing about time;
// stops by itself.
//
//   npm run bench -- test/bench/member-outage.bench.ts [--objects N] [--members M] [--changes C]
//     [--after-seconds S] [--concurrency K] [--latency-ms L] [--fault unreachable|hang]
//     [--resync-period D] [--sim-processes one|host-apart|per-cluster] [--baseline-seconds B]
//     [--cycles K] [--change-rate R] [--profile DIR] [--watch-host] [--substrate sim|real] [--control]
//     [--control-rate W]
//
// Phases, in order:
//   1. propagation of N objects to M members (the time is printed, not a figure of this benchmark);
//   2. baseline: C changes (after 10 not counted), and more until B seconds (default 40, about as
//      long as phase 4) have passed, R a second (default 10; each to another object, made on time
//      whether or not the ones before have been seen: an open loop, as users' changes come;
//      `--change-rate 0`: one at a time, each as soon as the one before was seen, which keeps the
//      machine's cores busy with the changes alone), each timed until the M-1 healthy members
//      hold it: its p99 is taken over about as many changes as phase 4's;
//   3. slow member: the victim answers every request L ms late (default 2,000); C changes timed
//      to the healthy members; p99 ÷ baseline p99 (kube-sim only: skipped on `real`);
//   4. the victim made unreachable (kube-sim `unreachable`: connections refused; `hang`:
//      accepted and never answered; on `real` either stops its kube-apiserver with SIGSTOP, so
//      the kernel accepts connections and nothing answers, as `hang`): changes timed to the healthy members from the moment of the
//      fault until C changes are done and S seconds (default 30) have passed since the victim's
//      KubeFedCluster became Ready=False (the readiness change re-reconciles every object, the
//      moment that used to stall the others) and the controller manager has written that fan-out
//      (a status write per object); p99 ÷ baseline p99, and the time until the victim was
//      NotReady in probe periods (KubeFedConfig `clusterHealthCheck.period`);
//   4a. with `--control`, before phase 4 in each cycle: a process of the benchmark's own makes what a readiness
//      fan-out writes to the host (a status write per object, one at a time, and a Warning Event
//      per object through the controller manager's bounded event queue) with every member Ready, and times changes until they are done:
//      p99 ÷ baseline p99 of what the contract's writes cost on this machine with no member down
//      (the entries are removed again after it); `--control-rate W`: W status writes a second
//      instead, each object's Event recorded after its status write (what a paced fan-out would
//      write);
//   5. the victim back (Ready, the fan-out of that reconciled, its queue empty); with
//      `--cycles K` (default 1), phases 2 and 4 again until K outages were measured, each after a
//      baseline of its own. The speed of a shared machine drifts over a run by more than the 10 %
//      the target allows, so the figures to read are those over every cycle: the median of the
//      cycles' ratios, and the p99 of every outage change ÷ the p99 of every baseline change;
//      and each baseline's p99 ÷ the one before it, two phases with nothing to find between them.
// Every p99 ÷ baseline p99 comes with a 90 % bootstrap interval (`p99RatioInterval`): how far the
// ratio moves with which changes happened to be the slowest, not with the machine's drift.
// Phases 2 and 4 also print, per change made in them, the CPU seconds of the controller manager,
// kube-sim and Redis, the controller manager's API requests, and the victim's sync job attempts;
// the stages of the sync path in the controller manager (one healthy member's jobs; in phase 4
// also over the fan-out's window and the one after it); per window the host's answer to each
// patch, each healthy member's time to report the change and the benchmark's own event-loop
// delay; and when phase 4's slowest changes were made, relative to NotReady.
//
// `--resync-period` is the controller manager's `--sync-resync-period` (default 1h here, so that no
// periodic resync falls into a measured phase). `--sim-processes` spreads the clusters over
// kube-sim processes (default `one`: the host's requests share one event loop with every
// member's, which no production control plane does; `host-apart`: the host in a process of its own).
//
// `--substrate real` (default `KUBEFED_TEST_SUBSTRATE`, else `sim`): the host and the members are
// real control planes built by `npm run kube:build` (kube-apiserver, kube-controller-manager,
// kube-scheduler, kwok; one etcd for all, see docs/development.md), in place of kube-sim; the CPU
// figures then count all their processes together. `--sim-processes` and `--latency-ms` do not apply.
//
// `--watch-host`: a watch of the host's FederatedConfigMaps in the benchmark; each window then
// also prints when it delivered the changes (the host's side of the controller manager's watch).
//
// `--profile DIR`: a CPU profile of the controller manager and kube-sim per phase 2 and 4,
// written into DIR (open in Chrome DevTools), with the three longest stretches in which each never
// went idle and the functions they were spent in, and for phase 4's five slowest changes what each
// process did meanwhile (profiling slows both: read the latencies of a run without it).
//
// Environment: BENCH_CM_ARGS (extra controller-manager flags, space separated),
// BENCH_CM_NODE_OPTIONS and BENCH_SIM_NODE_OPTIONS (Node options of the controller manager, of
// the kube-sim processes; e.g. `--max-semi-space-size=64`), REDIS_URL.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { RESOURCES } from '@kubefed/api';
import { BullMqJobProducer, createRedisConnection } from '@kubefed/queue';
import { type LocalFederation, type ManagedProcess, parseSimProcesses, substrateFromEnvironment } from '@kubefed/testing';
import {
  configMapName,
  createFederatedConfigMaps,
  MemberWriteRecorder,
  metricIn,
  metricsText,
  startProcessFederation,
  waitForReadyClusters,
} from '../../packages/controller-manager/test/process-federation.js';
import {
  alive,
  BENCH_LEASE,
  cpuMeter,
  cpuPer,
  describeStages,
  type CpuMeter,
  histogramWindow,
  latencySummary,
  p99RatioInterval,
  pause,
  requestCountsIn,
  requestsPer,
  seconds,
  seriesSums,
  type ChangeTiming,
  HostChangeWatch,
  timeChangeStages,
  until,
  withNodeOptions,
} from './bench-support.js';
import { activityIn, type CpuProfile, CpuProfiler, describeBusy, INSPECTABLE, longestBusy } from './cpu-profiler.js';
import { FanOutWriterProcess } from './fan-out-writes.js';

const { values: flags } = parseArgs({
  options: {
    objects: { type: 'string', default: '5000' },
    members: { type: 'string', default: '10' },
    changes: { type: 'string', default: '200' },
    'after-seconds': { type: 'string', default: '30' },
    concurrency: { type: 'string', default: '10' },
    'latency-ms': { type: 'string', default: '2000' },
    fault: { type: 'string', default: 'unreachable' },
    'resync-period': { type: 'string', default: '1h' },
    'sim-processes': { type: 'string', default: 'one' },
    'baseline-seconds': { type: 'string', default: '40' },
    cycles: { type: 'string', default: '1' },
    'change-rate': { type: 'string', default: '10' },
    profile: { type: 'string', default: '' },
    'watch-host': { type: 'boolean', default: false },
    substrate: { type: 'string', default: '' },
    control: { type: 'boolean', default: false },
    'control-rate': { type: 'string', default: '0' },
  },
});
const OBJECTS = Number(flags.objects);
const MEMBERS = Number(flags.members);
const CHANGES = Number(flags.changes);
const AFTER_MS = Number(flags['after-seconds']) * 1000;
const BASELINE_MS = Number(flags['baseline-seconds']) * 1000;
const CONCURRENCY = Number(flags.concurrency);
const CYCLES = Number(flags.cycles);
const CHANGE_RATE = Number(flags['change-rate']);
const LATENCY_MS = Number(flags['latency-ms']);
const FAULT = flags.fault;
const PROFILE_DIR = flags.profile;
const WATCH_HOST = flags['watch-host'];
const CONTROL = flags.control;
const CONTROL_RATE = Number(flags['control-rate']);
const SIM_PROCESSES = parseSimProcesses(flags['sim-processes']);
const SUBSTRATE = substrateFromEnvironment(flags.substrate || undefined);
/** What the host's `/healthz` probe is called in the figures. */
const HOST_NAME = SUBSTRATE === 'sim' ? 'kube-sim (host)' : 'kube-apiserver (host)';
if (FAULT !== 'unreachable' && FAULT !== 'hang') throw new Error(`--fault: expected unreachable or hang, got ${FAULT}`);
if (!(CONTROL_RATE >= 0)) throw new Error(`--control-rate: status writes per second, 0 (unpaced) or more, got ${flags['control-rate']}`);
if (!(CHANGE_RATE >= 0)) throw new Error(`--change-rate: changes per second, 0 or more, got ${flags['change-rate']}`);
if (!(Number.isInteger(CYCLES) && CYCLES >= 1)) throw new Error(`--cycles: a whole number of at least 1, got ${flags.cycles}`);
if (!(MEMBERS >= 2)) throw new Error(`--members: at least 2 (one healthy, one victim), got ${flags.members}`);
// The periodic resync (a job per object and member) is not what this benchmark measures: by
// default it comes after the run, so it cannot fall into one phase and not another.
const CM_ARGS = [
  '--sync-resync-period',
  flags['resync-period'],
  ...(process.env['BENCH_CM_ARGS'] ?? '').split(' ').filter((a) => a !== ''),
];
/** The Node options of the processes `variable` names (kube-sim's or the controller manager's), and an inspector with `--profile`. */
function nodeOptions(variable: 'BENCH_SIM_NODE_OPTIONS' | 'BENCH_CM_NODE_OPTIONS'): string {
  return `${process.env[variable] ?? ''} ${PROFILE_DIR === '' ? '' : INSPECTABLE}`;
}
/** No phase waits longer than this. */
const PHASE_LIMIT_MS = 15 * 60_000;
const NS = 'bench';
/** The sync controller of the FederatedConfigMaps changed (its work-queue and reconcile metrics carry this name). */
const SYNC_CONTROLLER = 'sync-configmaps';
/** Changes made and not counted before the baseline. */
const WARM_UP = 10;
/** KubeFed's default `clusterHealthCheck.period` (10 s), used when the KubeFedConfig sets none. */
const DEFAULT_PROBE_PERIOD_MS = 10_000;

/** Changes to the healthy members (an open loop at `--change-rate`, or one after another); the latencies, in ms. */
class ChangeLoop {
  /** In the order the changes were seen (with an open loop, not always the order they were made). */
  readonly latencies: number[] = [];
  /** When each change was made (`performance.now()`), in the order of {@link latencies}. */
  readonly starts: number[] = [];
  /** Where each change's time went, in the order of {@link latencies}. */
  readonly timings: ChangeTiming[] = [];
  #k = 0;

  constructor(
    private readonly fed: LocalFederation,
    private readonly writes: MemberWriteRecorder,
    private readonly healthy: readonly string[],
    private readonly hostWatch?: HostChangeWatch,
  ) {}

  /**
   * Makes changes while `more()` says so: `CHANGE_RATE` a second, each started on time whether
   * or not the ones before have been seen (an open loop, as users' changes come), or with
   * `CHANGE_RATE` 0 one at a time, each as soon as the one before was seen.
   */
  async run(more: () => boolean): Promise<void> {
    if (CHANGE_RATE <= 0) {
      while (more()) await this.#change();
      return;
    }
    const inFlight = new Set<Promise<void>>();
    let next = performance.now();
    while (more()) {
      const change = this.#change();
      inFlight.add(change);
      void change.finally(() => inFlight.delete(change)).catch(() => undefined);
      next += 1000 / CHANGE_RATE;
      await pause(Math.max(0, next - performance.now()));
    }
    await Promise.all(inFlight);
  }

  async #change(): Promise<void> {
    const k = this.#k++;
    const probe = {
      namespace: NS,
      name: configMapName(k % OBJECTS),
      value: `change-${k}`,
      clusters: this.healthy,
      limitMs: PHASE_LIMIT_MS,
      hostWatch: this.hostWatch,
    };
    const start = performance.now();
    const timing = await timeChangeStages(this.fed, this.writes, probe);
    this.starts.push(start);
    this.latencies.push(timing.ms);
    this.timings.push(timing);
  }
}

/**
 * Times a trivial request to a process every 25 ms, one at a time: how long its event loop kept
 * a request waiting (a garbage collection, a long task). A pause there delays every change
 * whose path crosses it, so a change's tail is read against these.
 */
class StallProbe {
  #samples: number[] = [];
  #stopped = false;
  #running: Promise<void> | undefined;

  constructor(
    readonly name: string,
    private readonly request: () => Promise<unknown>,
  ) {}

  start(): void {
    this.#running = (async () => {
      while (!this.#stopped) {
        const t = performance.now();
        await this.request().catch(() => undefined);
        this.#samples.push(performance.now() - t);
        await pause(25);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }

  /** `kube-sim max 12 ms, > 50 ms: 0, > 100 ms: 0` over the samples since the last call. */
  take(): string {
    const samples = this.#samples;
    this.#samples = [];
    const over = (ms: number): number => samples.filter((d) => d > ms).length;
    return `${this.name} max ${Math.max(0, ...samples).toFixed(0)} ms, > 50 ms: ${over(50)}, > 100 ms: ${over(100)}`;
  }
}

/**
 * What the controller manager spent over one phase, per change made in it: CPU seconds (its own,
 * kube-sim's, Redis's), its API requests, and the attempts of the victim's sync jobs by result.
 */
class PhaseMeter {
  #cpu: CpuMeter | undefined;
  #requests = new Map<string, number>();
  #metrics = '';
  #phase = 0;
  /** The profiles of the phase stopped last, by process name (with `--profile`). */
  readonly profiles = new Map<string, CpuProfile>();
  /** `performance.now()` at {@link start}. */
  startedAt = 0;

  /** `profilers`: a CPU profile per phase of each process named, written into `PROFILE_DIR`. */
  constructor(
    private readonly fed: LocalFederation,
    readonly cm: ManagedProcess,
    readonly victim: string,
    private readonly o: { stalls?: readonly StallProbe[]; profilers?: ReadonlyMap<string, CpuProfiler> } = {},
  ) {}

  /** A healthy member, whose sync jobs stand for every healthy member's in the stages printed. */
  get healthy(): string {
    return this.fed.members.find((m) => m !== this.victim) ?? this.victim;
  }

  private get stalls(): readonly StallProbe[] {
    return this.o.stalls ?? [];
  }

  /** The controller manager's API requests by `<host|member> <client> <method>` at {@link start}. */
  get requestsAtStart(): ReadonlyMap<string, number> {
    return this.#requests;
  }

  async start(): Promise<void> {
    this.#cpu = await cpuMeter(this.fed, this.cm);
    this.#metrics = await metricsText(this.cm);
    this.#requests = requestCountsIn(this.#metrics);
    for (const probe of this.stalls) probe.take();
    for (const profiler of this.o.profilers?.values() ?? []) await profiler.start();
    await this.#cpu.start();
    this.startedAt = performance.now();
  }

  /** Prints the phase's figures per change, `changes` having been made in it. */
  async stop(changes: number): Promise<void> {
    const cpu = this.#cpu;
    if (cpu === undefined) throw new Error('PhaseMeter.stop() without start()');
    await cpu.stop();
    const metrics = await metricsText(this.cm);
    const requests = requestCountsIn(metrics);
    const attempts = (result: string): number =>
      histogramWindow(this.#metrics, metrics, 'kubefed_sync_job_duration_seconds', { cluster: this.victim, result }).count;
    console.log(`  per change: CPU seconds ${cpuPer(cpu, changes, 1)}`);
    console.log(`  per change: API requests (client method) ${requestsPer(this.#requests, requests, changes)}`);
    console.log(`  ${this.victim}'s sync job attempts: ${attempts('success')} succeeded, ${attempts('error')} failed`);
    // A pause of the controller manager's one thread delays every change that meets it.
    // prom-client's buckets of GC pauses: 1, 10, 100 ms, 1 s, ...
    const gc = (kind: string): string => {
      const w = histogramWindow(this.#metrics, metrics, 'kubefed_nodejs_gc_duration_seconds', { kind });
      return `${w.count}, mean ${w.meanMs.toFixed(1)} ms, > 10 ms: ${w.above['10']}, > 100 ms: ${w.above['100']}`;
    };
    // A major collection marks the live heap: its size is what such a pause grows with.
    const heapMiB = metricIn(metrics, 'kubefed_nodejs_heap_size_used_bytes') / 2 ** 20;
    console.log(
      `  controller manager garbage collections: major ${gc('major')}; minor ${gc('minor')}; heap used ${heapMiB.toFixed(0)} MiB at the phase's end`,
    );
    for (const line of describeStages(this.#metrics, metrics, { controller: SYNC_CONTROLLER, cluster: this.healthy }))
      console.log(`  ${line}`);
    if (this.stalls.length > 0) console.log(`  a request every 25 ms waited: ${this.stalls.map((p) => p.take()).join('; ')}`);
    await this.#profile();
  }

  /** Where the profiled processes' longest stretches without a break went. */
  async #profile(): Promise<void> {
    this.#phase++;
    for (const [name, profiler] of this.o.profilers ?? []) {
      const file = join(PROFILE_DIR, `${name.replace(/\W+/g, '-')}-phase-${this.#phase}.cpuprofile`);
      const profile = await profiler.stop(file);
      this.profiles.set(name, profile);
      console.log(`  ${name} CPU profile ${file}; its longest busy stretches:\n${describeBusy(longestBusy(profile, 3))}`);
    }
  }
}

/** The status writes of federated objects (host reporting PUTs) among a controller manager's API requests ({@link requestCountsIn}). */
function statusWritesIn(requests: ReadonlyMap<string, number>): number {
  return requests.get('host reporting PUT') ?? 0;
}

/** Keys waiting in the sync controllers' work queues, from a controller manager's scrape. */
function syncQueueDepth(metrics: string): number {
  return [...seriesSums(metrics, 'kubefed_workqueue_depth', (l) => l['name'] ?? '')]
    .filter(([name]) => name.startsWith('sync-'))
    .reduce((sum, [, n]) => sum + n, 0);
}

/**
 * How often {@link FanOutWatch} scrapes the controller manager's metrics: rendering them costs
 * it milliseconds of CPU per scrape (every series of every member; 10–20 ms under a profiler),
 * which changes in flight compete with, so the watch looks seldom; the fan-out's end is known to
 * within this.
 */
const FAN_OUT_POLL_MS = 2000;

/**
 * When the readiness change's fan-out has been written: the controller manager's sync work queues
 * are empty and it has made at least one status write (host reporting PUT) per object since the
 * fault (every object's status gets the victim's `ClusterNotReady` entry).
 */
class FanOutWatch {
  doneAt: number | undefined;

  /** `statusWritesBefore`: the controller manager's status writes (host reporting PUTs) before the readiness change. */
  constructor(
    private readonly cm: ManagedProcess,
    private readonly statusWritesBefore: number,
  ) {}

  /** Polls the controller manager's metrics once `started()` holds until the fan-out is done. */
  async watch(started: () => boolean): Promise<void> {
    await until(
      'readiness fan-out written',
      async () => {
        if (!started()) return false;
        const metrics = await metricsText(this.cm);
        const depth = syncQueueDepth(metrics);
        const puts = statusWritesIn(requestCountsIn(metrics)) - this.statusWritesBefore;
        if (depth === 0 && puts >= OBJECTS) this.doneAt = performance.now();
        return this.doneAt !== undefined;
      },
      PHASE_LIMIT_MS,
      FAN_OUT_POLL_MS,
    );
  }
}

/**
 * The benchmark's own event-loop delay in consecutive windows: a change is "seen" when the
 * benchmark handles the member's watch event, so a benchmark busy with something else (a
 * scrape's parsing) would make the changes in flight look slow. `split()` ends a window.
 */
class BenchLoopDelay {
  readonly #histogram = monitorEventLoopDelay({ resolution: 1 });

  constructor() {
    this.#histogram.enable();
  }

  /** The delay since the last split (or the start): p99 and max in ms. */
  split(): string {
    const h = this.#histogram;
    const text = `the benchmark's event loop delay p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms, max ${(h.max / 1e6).toFixed(1)} ms`;
    h.reset();
    return text;
  }

  stop(): void {
    this.#histogram.disable();
  }
}

/** `latencies`' percentiles, and against `baseline` the ratio of the p99s with its 90 % bootstrap interval. */
function describe(label: string, latencies: readonly number[], baseline?: readonly number[]): string {
  const { p50, p95, p99, max } = latencySummary(latencies);
  let ratio = '';
  if (baseline !== undefined) {
    const { low, high } = p99RatioInterval(baseline, latencies);
    ratio = `; p99 ÷ baseline p99 = ${(p99 / latencySummary(baseline).p99).toFixed(2)} (resampled, 90 %: ${low.toFixed(2)}-${high.toFixed(2)})`;
  }
  return `${label} (${latencies.length} changes): p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms${ratio}`;
}

async function clusterReady(fed: LocalFederation, name: string): Promise<boolean> {
  const cluster = await fed.client('host').resource(RESOURCES.kubeFedClusters, fed.namespace).get(name);
  const conditions = (cluster.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

async function probePeriodMs(fed: LocalFederation): Promise<number> {
  const config = await fed.client('host').resource(RESOURCES.kubeFedConfigs, fed.namespace).get('kubefed');
  const period = (config.spec as { clusterHealthCheck?: { period?: string } } | undefined)?.clusterHealthCheck?.period;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(period ?? '');
  if (m === null) return DEFAULT_PROBE_PERIOD_MS;
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
}

/** Resolves once the victim is Ready again (after a fault was lifted), the fan-out of that written and the victim's sync queue empty. */
async function recovered(fed: LocalFederation, cm: ManagedProcess, victim: string, o: { wasNotReady: boolean }): Promise<void> {
  const connection = createRedisConnection(fed.redis.url, { role: 'producer' });
  const producer = new BullMqJobProducer({ connection, prefix: fed.queuePrefix });
  try {
    // Read before the victim is Ready again: the fan-out's status writes are counted from here.
    const fanOut = o.wasNotReady ? new FanOutWatch(cm, statusWritesIn(requestCountsIn(await metricsText(cm)))) : undefined;
    await until('victim Ready again', async () => alive(cm) && (await clusterReady(fed, victim)), PHASE_LIMIT_MS, 200);
    // The readiness change's fan-out: a status write per object (the victim's entry is no longer
    // ClusterNotReady) and jobs to the victim.
    await fanOut?.watch(() => true);
    await until(
      'victim queue drained',
      async () => {
        const c = await producer.counts(victim);
        return c.waiting + c.active + c.delayed === 0;
      },
      PHASE_LIMIT_MS,
      200,
    );
  } finally {
    await producer.close();
    connection.disconnect();
  }
}

/**
 * When the slowest changes of a phase were made (relative to NotReady), and with `--profile` what
 * each profiled process did during each.
 */
function describeSlowest(
  profiles: ReadonlyMap<string, CpuProfile>,
  phase: { starts: readonly number[]; latencies: readonly number[]; notReadyAt: number; moment?: string },
): void {
  const moment = phase.moment ?? 'NotReady';
  const slowest = phase.latencies
    .map((ms, i) => ({ ms, start: phase.starts[i] ?? 0 }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 8);
  const when = slowest.map((c) => `${c.ms.toFixed(0)} ms at ${seconds(c.start - phase.notReadyAt)}`).join(', ');
  console.log(`  slowest changes, made relative to ${moment}: ${when}`);
  for (const change of profiles.size === 0 ? [] : slowest.slice(0, 5)) {
    console.log(`  a change of ${change.ms.toFixed(0)} ms, made ${seconds(change.start - phase.notReadyAt)} after ${moment}:`);
    for (const [name, profile] of profiles) {
      const a = activityIn(profile, change.start, change.start + change.ms);
      const top = a.self.map(([f, ms]) => `${f} ${ms.toFixed(0)}`).join('; ');
      console.log(`    ${name}: busy ${a.busyMs.toFixed(0)} ms, garbage collection ${a.gcMs.toFixed(0)} ms; ${top}`);
    }
  }
}

/**
 * The control phase (`--control`): changes timed while {@link FanOutWriterProcess} makes a fan-out's
 * writes with every member healthy; the entries are removed again after it.
 */
async function controlPhase(fed: LocalFederation, loop: ChangeLoop, meter: PhaseMeter, baseline: readonly number[]): Promise<number[]> {
  const writer = await FanOutWriterProcess.start(fed.kubeconfigPath, NS, CONTROL_RATE);
  try {
    await meter.start();
    const benchDelay = new BenchLoopDelay();
    const t0 = performance.now();
    // Settled either way before the changes stop, so that a failed write ends the phase (and the
    // entries written so far are removed) instead of leaving the changes running.
    let settled = false;
    const writing = writer.write().finally(() => (settled = true));
    writing.catch(() => undefined);
    const before = loop.latencies.length;
    try {
      await loop.run(() => !settled);
      const written = await writing;
      const delay = benchDelay.split();
      const latencies = loop.latencies.slice(before);
      console.log(
        describe("control: healthy members while another process makes a fan-out's writes, every member Ready", latencies, baseline),
      );
      console.log(`  ${describeTimings(loop.timings.slice(before))}; ${delay}`);
      await meter.stop(latencies.length);
      describeSlowest(meter.profiles, { starts: loop.starts.slice(before), latencies, notReadyAt: t0, moment: 'the start of the writes' });
      console.log(
        `  the fan-out's writes done ${seconds(written.doneAt - t0)} after they started${CONTROL_RATE > 0 ? ` (paced at ${CONTROL_RATE} status writes a second)` : ''}: ${writer.objects} status writes, ${written.eventsWritten} Events (the rest dropped by the bounded queue, as in the controller manager); the writing process used ${written.cpuSeconds.toFixed(1)} CPU seconds (${(written.cpuSeconds / Math.max(1, latencies.length)).toFixed(3)} per change, not in the figures above)`,
      );
      return latencies;
    } finally {
      benchDelay.stop();
    }
  } finally {
    await writer.undo();
  }
}

/** Phase 4: the victim unreachable. */
async function outage(fed: LocalFederation, loop: ChangeLoop, meter: PhaseMeter, baseline: readonly number[]): Promise<number[]> {
  const victim = meter.victim;
  const periodMs = await probePeriodMs(fed);
  await meter.start();
  const t0 = performance.now();
  const benchDelay = new BenchLoopDelay();
  // Real control planes: SIGSTOP to the victim's kube-apiserver (its one fault of this kind, a hang).
  await fed.fault(victim, FAULT === 'unreachable' || SUBSTRATE === 'real' ? { unreachable: true } : { hang: true });
  let notReadyAt: number | undefined;
  const watching = until(
    'victim NotReady',
    async () => {
      if (!(await clusterReady(fed, victim))) notReadyAt = performance.now();
      return notReadyAt !== undefined;
    },
    PHASE_LIMIT_MS,
    100,
  );
  const fanOut = new FanOutWatch(meter.cm, statusWritesIn(meter.requestsAtStart));
  const fanOutDone = fanOut.watch(() => notReadyAt !== undefined);
  // The stages of the fan-out's window and of the one after it, from scrapes taken when the
  // victim was seen NotReady and when the fan-out was written.
  const notReadyScrape = watching.then(() => metricsText(meter.cm));
  const afterScrape = fanOutDone.then(() => metricsText(meter.cm));
  const benchDelays = [watching.then(() => benchDelay.split()), fanOutDone.then(() => benchDelay.split())];
  const before = loop.latencies.length;
  await loop.run(
    () =>
      loop.latencies.length - before < CHANGES ||
      notReadyAt === undefined ||
      performance.now() - notReadyAt < AFTER_MS ||
      fanOut.doneAt === undefined,
  );
  await watching;
  await fanOutDone;
  const windowDelays = [...(await Promise.all(benchDelays)), benchDelay.split()];
  benchDelay.stop();
  const latencies = loop.latencies.slice(before);
  console.log(describe(`healthy members with ${victim} ${FAULT}`, latencies, baseline));
  await meter.stop(latencies.length);
  // Where the tail is: before the victim was NotReady, while the readiness change's status
  // writes were being made, or after them.
  const starts = loop.starts.slice(before);
  const timings = loop.timings.slice(before);
  const inWindow = (from: number, to: number) => (_: unknown, i: number) => (starts[i] ?? 0) >= from && (starts[i] ?? 0) < to;
  const at = notReadyAt ?? Infinity;
  const written = fanOut.doneAt ?? Infinity;
  for (const [i, [label, from, to]] of (
    [
      ['before NotReady', t0, at],
      ['from NotReady until its fan-out was written', at, written],
      ['after the fan-out', written, Infinity],
    ] as const
  ).entries()) {
    const part = latencies.filter(inWindow(from, to));
    if (part.length === 0) continue;
    console.log(`  ${describe(label, part, baseline)}`);
    console.log(`    ${describeTimings(timings.filter(inWindow(from, to)))}; ${windowDelays[i] ?? ''}`);
  }
  const of = { controller: SYNC_CONTROLLER, cluster: meter.healthy };
  for (const line of describeStages(await notReadyScrape, await afterScrape, of)) console.log(`    during the fan-out: ${line}`);
  for (const line of describeStages(await afterScrape, await metricsText(meter.cm), of)) console.log(`    after the fan-out: ${line}`);
  const toNotReady = (notReadyAt ?? NaN) - t0;
  describeSlowest(meter.profiles, { starts, latencies, notReadyAt: at });
  console.log(`  NotReady seen ${seconds((notReadyAt ?? NaN) - meter.startedAt)} after the phase started`);
  console.log(
    `  readiness fan-out (a status write per object) done ${seconds((fanOut.doneAt ?? NaN) - (notReadyAt ?? NaN))} after NotReady`,
  );
  console.log(
    `${victim} NotReady ${seconds(toNotReady)} after the fault: ${(toNotReady / periodMs).toFixed(1)} probe periods of ${seconds(periodMs)} (target <= 3)`,
  );
  return latencies;
}

/**
 * Where changes' time went as the benchmark saw it: the host's answer to the patch, and per
 * healthy member the time until its copy was reported (p50 / p95): a member that lags behind the
 * others shows here, a wait in front of every member in the patch or in all of them alike.
 */
function describeTimings(timings: readonly ChangeTiming[]): string {
  const q = (values: number[]): string => {
    const s = latencySummary(values);
    return `${s.p50.toFixed(0)}/${s.p95.toFixed(0)}`;
  };
  const clusters = [...new Set(timings.flatMap((t) => [...t.seenMs.keys()]))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const perMember = clusters.map((c) => `${c} ${q(timings.flatMap((t) => t.seenMs.get(c) ?? []))}`);
  const hostWatch = timings.flatMap((t) => t.hostWatchMs ?? []);
  const delivered = hostWatch.length === 0 ? '' : `; the benchmark's host watch delivered it ${q(hostWatch)}`;
  return `p50/p95 ms: host patch answered ${q(timings.map((t) => t.patchMs))}${delivered}; member copy seen: ${perMember.join(', ')}`;
}

/** Phase 2: changes for `BASELINE_MS` (and at least `CHANGES`) with every member healthy; their latencies. */
async function baselinePhase(loop: ChangeLoop, meter: PhaseMeter, healthy: number): Promise<number[]> {
  await meter.start();
  const from = loop.latencies.length;
  const t0 = performance.now();
  const benchDelay = new BenchLoopDelay();
  await loop.run(() => loop.latencies.length - from < CHANGES || performance.now() - t0 < BASELINE_MS);
  const delay = benchDelay.split();
  benchDelay.stop();
  const latencies = loop.latencies.slice(from);
  console.log(describe(`baseline, to the ${healthy} healthy members`, latencies));
  console.log(`  ${describeTimings(loop.timings.slice(from))}; ${delay}`);
  await meter.stop(latencies.length);
  return latencies;
}

/**
 * The outages against the baselines over every cycle: each cycle's ratio, their median, and the
 * ratio of the p99s of all the outages' and all the baselines' changes together. A baseline
 * taken just before each outage, cycle after cycle, cancels the drift of the machine's speed
 * over a run that one baseline and one outage cannot.
 */
function summarize(baselines: readonly number[][], outages: readonly number[][], controls: readonly number[][]): void {
  const baselineP99s = baselines.map((b) => latencySummary(b).p99);
  const ratios = outages.map((o, i) => latencySummary(o).p99 / (baselineP99s[i] ?? NaN));
  const sorted = [...ratios].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  console.log(
    `over ${outages.length} cycles: p99 ÷ baseline p99 per cycle ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${median.toFixed(2)}`,
  );
  console.log(describe('every cycle together: baselines', baselines.flat()));
  // Two phases with nothing different between them: how far apart the ratio of two p99s falls
  // on this machine when there is nothing to find.
  const drift = baselineP99s.slice(1).map((p99, i) => p99 / (baselineP99s[i] ?? NaN));
  console.log(
    `the baselines against each other (no fault in either): p99 ÷ the previous baseline's p99 ${drift.map((r) => r.toFixed(2)).join(', ')}`,
  );
  console.log(describe(`every cycle together: healthy members with the victim ${FAULT}`, outages.flat(), baselines.flat()));
  if (controls.length > 0)
    console.log(describe("every cycle together: control (a fan-out's writes, every member Ready)", controls.flat(), baselines.flat()));
}

async function main(): Promise<void> {
  console.log(
    `member outage benchmark: ${OBJECTS} FederatedConfigMaps x ${MEMBERS} members, ${SUBSTRATE === 'sim' ? `kube-sim processes: ${SIM_PROCESSES}` : 'real control planes'}, --worker-concurrency ${CONCURRENCY}${CM_ARGS.length > 0 ? ` ${CM_ARGS.join(' ')}` : ''}`,
  );
  const members = Array.from({ length: MEMBERS }, (_, i) => `member${i + 1}`);
  const victim = members[MEMBERS - 1] ?? '';
  const healthy = members.slice(0, -1);
  const start = (): Promise<LocalFederation> =>
    startProcessFederation({ members, redisUrl: process.env['REDIS_URL'], simProcesses: SIM_PROCESSES, substrate: SUBSTRATE });
  const fed = await withNodeOptions(nodeOptions('BENCH_SIM_NODE_OPTIONS'), start);
  let recorder: MemberWriteRecorder | undefined;
  let hostWatch: HostChangeWatch | undefined;
  const stalls: StallProbe[] = [];
  const profilers = new Map<string, CpuProfiler>();
  try {
    const cmArgs = [...BENCH_LEASE, '--worker-concurrency', String(CONCURRENCY), ...CM_ARGS];
    const startCm = (): Promise<ManagedProcess> => fed.startControllerManager(cmArgs);
    const cm = await withNodeOptions(nodeOptions('BENCH_CM_NODE_OPTIONS'), startCm);
    if (PROFILE_DIR !== '') {
      await mkdir(PROFILE_DIR, { recursive: true });
      profilers.set('controller manager', await CpuProfiler.attach(cm));
      if (fed.kubeSim !== undefined) profilers.set('kube-sim', await CpuProfiler.attach(fed.kubeSim));
    }
    await waitForReadyClusters(fed, PHASE_LIMIT_MS);
    const writes = (recorder = await MemberWriteRecorder.start(fed, NS));
    const t = performance.now();
    await createFederatedConfigMaps(fed, NS, OBJECTS, 16);
    await until('propagation', () => alive(cm) && writes.count('ADDED') >= OBJECTS * MEMBERS, PHASE_LIMIT_MS, 20);
    console.log(`propagation: ${OBJECTS * MEMBERS} member copies in ${seconds(performance.now() - t)}`);
    // Let the reporting writes of the bulk settle before the baseline.
    await pause(5000);
    hostWatch = WATCH_HOST ? await HostChangeWatch.start(fed, NS) : undefined;
    const loop = new ChangeLoop(fed, writes, healthy, hostWatch);
    // Warm-up, not counted: the first changes after a bulk propagation are slower (propagation.bench.ts reports them).
    await loop.run(() => loop.latencies.length < WARM_UP);
    const health = (JSON.parse(await cm.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true })) as { health: string })
      .health;
    stalls.push(
      new StallProbe(`${HOST_NAME} /healthz`, () => fed.client('host').raw('/healthz')),
      new StallProbe('controller manager /healthz', () => fetch(`${health}/healthz`).then((r) => r.text())),
    );
    for (const probe of stalls) probe.start();
    const meter = new PhaseMeter(fed, cm, victim, { stalls, profilers });
    const baselines: number[][] = [];
    const outages: number[][] = [];
    const controls: number[][] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      if (CYCLES > 1) console.log(`cycle ${cycle} of ${CYCLES}`);
      const baseline = await baselinePhase(loop, meter, healthy.length);
      if (cycle === 1 && SUBSTRATE === 'real') console.log('victim answering late: skipped (a kube-sim fault; not on real control planes)');
      if (cycle === 1 && SUBSTRATE === 'sim') {
        await fed.fault(victim, { latencyMs: LATENCY_MS });
        const slowFrom = loop.latencies.length;
        await loop.run(() => loop.latencies.length - slowFrom < CHANGES);
        console.log(describe(`healthy members with ${victim} answering ${LATENCY_MS} ms late`, loop.latencies.slice(slowFrom), baseline));
        await fed.fault(victim, { restore: true });
        await recovered(fed, cm, victim, { wasNotReady: false });
      }
      baselines.push(baseline);
      if (CONTROL) {
        controls.push(await controlPhase(fed, loop, meter, baseline));
        await pause(5000);
      }
      outages.push(await outage(fed, loop, meter, baseline));
      // kube-sim restores the faults of a cluster that does not answer on a signal; real: SIGCONT.
      fed.restoreFaults();
      await recovered(fed, cm, victim, { wasNotReady: true });
      await pause(5000);
    }
    if (CYCLES > 1) summarize(baselines, outages, controls);
    if (writes.errors.some((e) => !e.startsWith(`${victim}:`)))
      console.log(`member watches failed (figures may miss writes): ${writes.errors.join('; ')}`);
  } finally {
    for (const probe of stalls) await probe.stop();
    for (const profiler of profilers.values()) profiler.close();
    hostWatch?.stop();
    await recorder?.stop();
    await fed.stop();
  }
}

await main();
// Keep-alive sockets of closed clients must not hold the benchmark open.
process.exit(0);
