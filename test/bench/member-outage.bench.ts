// Benchmark of one bad member among healthy ones, through the real processes: the kube-sim CLI
// (host + M members), Redis, `kubefedctl join`/`enable`, one kubefed-controller-manager
// (`--mode all`). N FederatedConfigMaps are placed in every member; the last member is the
// victim. Prints figures, each ratio measured within the same run; asserts nothing about time;
// stops by itself.
//
//   npm run bench -- test/bench/member-outage.bench.ts [--objects N] [--members M] [--changes C]
//     [--after-seconds S] [--concurrency K] [--latency-ms L] [--fault unreachable|hang]
//     [--resync-period D] [--sim-processes one|host-apart|per-cluster] [--baseline-seconds B]
//
// Phases, in order:
//   1. propagation of N objects to M members (the time is printed, not a figure of this benchmark);
//   2. baseline: C changes (after 10 not counted), and more until B seconds (default 40, about as
//      long as phase 4) have passed, one object at a time, each timed until the M-1 healthy members
//      hold it: its p99 is taken over about as many changes as phase 4's;
//   3. slow member: the victim answers every request L ms late (default 2,000); C changes timed
//      to the healthy members; p99 ÷ baseline p99;
//   4. the victim made unreachable (kube-sim `unreachable`: connections refused; `hang`:
//      accepted and never answered): changes timed to the healthy members from the moment of the
//      fault until C changes are done and S seconds (default 30) have passed since the victim's
//      KubeFedCluster became Ready=False (the readiness change re-reconciles every object, the
//      moment that used to stall the others); p99 ÷ baseline p99, and the time until the victim
//      was NotReady in probe periods (KubeFedConfig `clusterHealthCheck.period`).
// Phases 2 and 4 also print, per change made in them, the CPU seconds of the controller manager,
// kube-sim and Redis, the controller manager's API requests, and the victim's sync job attempts.
//
// `--resync-period` is the controller manager's `--sync-resync-period` (default 1h here, so that no
// periodic resync falls into a measured phase). `--sim-processes` spreads the clusters over
// kube-sim processes (default `one`: the host's requests share one event loop with every
// member's, which no production control plane does; `host-apart`: the host in a process of its own).
//
// Environment: BENCH_CM_ARGS (extra controller-manager flags, space separated), REDIS_URL.
import { parseArgs } from 'node:util';
import { RESOURCES } from '@kubefed/api';
import { BullMqJobProducer, createRedisConnection } from '@kubefed/queue';
import { type LocalFederation, type ManagedProcess, parseSimProcesses } from '@kubefed/testing';
import {
  configMapName,
  createFederatedConfigMaps,
  MemberWriteRecorder,
  metricsText,
  startProcessFederation,
  waitForReadyClusters,
} from '../../packages/controller-manager/test/process-federation.js';
import {
  alive,
  BENCH_LEASE,
  cpuMeter,
  cpuPer,
  type CpuMeter,
  histogramWindow,
  latencySummary,
  pause,
  requestCountsIn,
  requestsPer,
  seconds,
  timeChange,
  until,
} from './bench-support.js';

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
  },
});
const OBJECTS = Number(flags.objects);
const MEMBERS = Number(flags.members);
const CHANGES = Number(flags.changes);
const AFTER_MS = Number(flags['after-seconds']) * 1000;
const BASELINE_MS = Number(flags['baseline-seconds']) * 1000;
const CONCURRENCY = Number(flags.concurrency);
const LATENCY_MS = Number(flags['latency-ms']);
const FAULT = flags.fault;
const SIM_PROCESSES = parseSimProcesses(flags['sim-processes']);
if (FAULT !== 'unreachable' && FAULT !== 'hang') throw new Error(`--fault: expected unreachable or hang, got ${FAULT}`);
if (!(MEMBERS >= 2)) throw new Error(`--members: at least 2 (one healthy, one victim), got ${flags.members}`);
// The periodic resync (a job per object and member) is not what this benchmark measures: by
// default it comes after the run, so it cannot fall into one phase and not another.
const CM_ARGS = [
  '--sync-resync-period',
  flags['resync-period'],
  ...(process.env['BENCH_CM_ARGS'] ?? '').split(' ').filter((a) => a !== ''),
];
/** No phase waits longer than this. */
const PHASE_LIMIT_MS = 15 * 60_000;
const NS = 'bench';
/** Changes made and not counted before the baseline. */
const WARM_UP = 10;
/** KubeFed's default `clusterHealthCheck.period` (10 s), used when the KubeFedConfig sets none. */
const DEFAULT_PROBE_PERIOD_MS = 10_000;

/** One change after another to the healthy members; the latencies, in ms. */
class ChangeLoop {
  readonly latencies: number[] = [];
  /** When each change was made (`performance.now()`), in the order of {@link latencies}. */
  readonly starts: number[] = [];
  #k = 0;

  constructor(
    private readonly fed: LocalFederation,
    private readonly writes: MemberWriteRecorder,
    private readonly healthy: readonly string[],
  ) {}

  /** Makes changes, one at a time, while `more()` says so. */
  async run(more: () => boolean): Promise<void> {
    while (more()) {
      const k = this.#k++;
      const probe = {
        namespace: NS,
        name: configMapName(k % OBJECTS),
        value: `change-${k}`,
        clusters: this.healthy,
        limitMs: PHASE_LIMIT_MS,
      };
      this.starts.push(performance.now());
      this.latencies.push(await timeChange(this.fed, this.writes, probe));
    }
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

  constructor(
    private readonly fed: LocalFederation,
    private readonly cm: ManagedProcess,
    readonly victim: string,
  ) {}

  async start(): Promise<void> {
    this.#cpu = await cpuMeter(this.fed, this.cm);
    this.#metrics = await metricsText(this.cm);
    this.#requests = requestCountsIn(this.#metrics);
    await this.#cpu.start();
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
  }
}

function describe(label: string, latencies: readonly number[], baselineP99?: number): string {
  const { p50, p95, p99, max } = latencySummary(latencies);
  const ratio = baselineP99 === undefined ? '' : `; p99 ÷ baseline p99 = ${(p99 / baselineP99).toFixed(2)}`;
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

/** Resolves once the victim's sync queue is empty and it is Ready again (after a fault was lifted). */
async function recovered(fed: LocalFederation, cm: ManagedProcess, victim: string): Promise<void> {
  const connection = createRedisConnection(fed.redis.url, { role: 'producer' });
  const producer = new BullMqJobProducer({ connection, prefix: fed.queuePrefix });
  try {
    await until('victim Ready again', async () => alive(cm) && (await clusterReady(fed, victim)), PHASE_LIMIT_MS, 200);
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

/** Phase 4: the victim unreachable. */
async function outage(fed: LocalFederation, loop: ChangeLoop, meter: PhaseMeter, baselineP99: number): Promise<void> {
  const victim = meter.victim;
  const periodMs = await probePeriodMs(fed);
  await meter.start();
  const t0 = performance.now();
  await fed.fault(victim, FAULT === 'unreachable' ? { unreachable: true } : { hang: true });
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
  const before = loop.latencies.length;
  await loop.run(() => loop.latencies.length - before < CHANGES || notReadyAt === undefined || performance.now() - notReadyAt < AFTER_MS);
  await watching;
  const latencies = loop.latencies.slice(before);
  console.log(describe(`healthy members with ${victim} ${FAULT}`, latencies, baselineP99));
  await meter.stop(latencies.length);
  // Where the tail is: before the victim was NotReady, in the 10 s after (the readiness change's
  // status writes), or later.
  const starts = loop.starts.slice(before);
  const window = (from: number, to: number): number[] => latencies.filter((_, i) => (starts[i] ?? 0) >= from && (starts[i] ?? 0) < to);
  const at = notReadyAt ?? Infinity;
  for (const [label, part] of [
    ['before NotReady', window(t0, at)],
    ['0-10 s after NotReady', window(at, at + 10_000)],
    ['later', window(at + 10_000, Infinity)],
  ] as const)
    if (part.length > 0) console.log(`  ${describe(label, part, baselineP99)}`);
  const toNotReady = (notReadyAt ?? NaN) - t0;
  console.log(
    `${victim} NotReady ${seconds(toNotReady)} after the fault: ${(toNotReady / periodMs).toFixed(1)} probe periods of ${seconds(periodMs)} (target <= 3)`,
  );
}

async function main(): Promise<void> {
  console.log(
    `member outage benchmark: ${OBJECTS} FederatedConfigMaps x ${MEMBERS} members, kube-sim processes: ${SIM_PROCESSES}, --worker-concurrency ${CONCURRENCY}${CM_ARGS.length > 0 ? ` ${CM_ARGS.join(' ')}` : ''}`,
  );
  const members = Array.from({ length: MEMBERS }, (_, i) => `member${i + 1}`);
  const victim = members[MEMBERS - 1] ?? '';
  const healthy = members.slice(0, -1);
  const fed = await startProcessFederation({ members, redisUrl: process.env['REDIS_URL'], simProcesses: SIM_PROCESSES });
  let recorder: MemberWriteRecorder | undefined;
  try {
    const cm = await fed.startControllerManager([...BENCH_LEASE, '--worker-concurrency', String(CONCURRENCY), ...CM_ARGS]);
    await waitForReadyClusters(fed, PHASE_LIMIT_MS);
    const writes = (recorder = await MemberWriteRecorder.start(fed, NS));
    const t = performance.now();
    await createFederatedConfigMaps(fed, NS, OBJECTS, 16);
    await until('propagation', () => alive(cm) && writes.count('ADDED') >= OBJECTS * MEMBERS, PHASE_LIMIT_MS, 20);
    console.log(`propagation: ${OBJECTS * MEMBERS} member copies in ${seconds(performance.now() - t)}`);
    // Let the reporting writes of the bulk settle before the baseline.
    await pause(5000);
    const loop = new ChangeLoop(fed, writes, healthy);
    // Warm-up, not counted: the first changes after a bulk propagation are slower (propagation.bench.ts reports them).
    await loop.run(() => loop.latencies.length < WARM_UP);
    const meter = new PhaseMeter(fed, cm, victim);
    await meter.start();
    const baselineFrom = performance.now();
    await loop.run(() => loop.latencies.length < WARM_UP + CHANGES || performance.now() - baselineFrom < BASELINE_MS);
    const baselineLatencies = loop.latencies.slice(WARM_UP);
    const baseline = latencySummary(baselineLatencies).p99;
    console.log(describe(`baseline, to the ${healthy.length} healthy members`, baselineLatencies));
    await meter.stop(baselineLatencies.length);

    await fed.fault(victim, { latencyMs: LATENCY_MS });
    const slowFrom = loop.latencies.length;
    await loop.run(() => loop.latencies.length - slowFrom < CHANGES);
    console.log(describe(`healthy members with ${victim} answering ${LATENCY_MS} ms late`, loop.latencies.slice(slowFrom), baseline));
    await fed.fault(victim, { restore: true });
    await recovered(fed, cm, victim);

    await outage(fed, loop, meter, baseline);
    fed.restoreFaults();
    if (writes.errors.some((e) => !e.startsWith(`${victim}:`)))
      console.log(`member watches failed (figures may miss writes): ${writes.errors.join('; ')}`);
  } finally {
    await recorder?.stop();
    await fed.stop();
  }
}

await main();
// Keep-alive sockets of closed clients must not hold the benchmark open.
process.exit(0);
