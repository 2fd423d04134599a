// Our controller manager side by side with KubeFed v0.10.0's, on its own workload. Runs alternate
// (ours, KubeFed, ours, KubeFed, ...), each on a fresh federation: the kube-sim CLI serving the
// host and M members in one process, a private redis-server, `kubefedctl join` and `enable` of
// namespaces and configmaps, the KubeFedConfig of KubeFed's chart (compared-controller.ts), one
// controller manager. Ours runs compiled on the production Node (`npm run build` first); KubeFed
// is `npm run kubefed:build`'s. The same measuring code serves both: member writes are counted
// from watches of the members, CPU from `/proc/<pid>/stat` (ours: the controller manager and
// Redis), RSS from `/proc/<pid>/status`, convergence from the host (every FederatedConfigMap with
// Propagation True for every member at its current generation). Prints every figure of every run,
// the medians of each controller and ours ÷ KubeFed, with each run's load average; asserts nothing.
//
//   npm run bench -- test/bench/versus-kubefed.bench.ts [--members M] [--objects N] [--runs R]
//     [--changes C] [--idle-seconds S] [--outage-seconds O] [--controllers ours,kubefed]
//     [--profile DIR] [--phase-minutes P]
//
// Phases of a run, in order:
//   1. bulk: N FederatedConfigMaps placed in every member created (16 at a time): member writes/s
//      until the last member copy, CPU per 1,000 member writes until convergence, RSS then;
//   2. changes: C changes, one at a time, each until every member holds it (the first not
//      counted): p50 / p99;
//   3. idle: S seconds (default 60) with nothing changing: CPU, member writes, RSS;
//   4. restart with everything converged: SIGTERM, a new process; time until it leads, until it
//      is quiet (3 s in a row under 10 % of a core, counted from the start), CPU from its start
//      to leading and over the S seconds after, member writes;
//   5. one member unreachable (kube-sim refuses its connections), half a probe period after
//      the victim's last probe: the time until its KubeFedCluster is Ready=False, and changes one at a time to the healthy members until O
//      seconds (default 20) after that: their p50 / p99.
// `--profile DIR` takes a CPU profile of our controller manager over each bulk phase (V8
// inspector, cpu-profiler.ts), writes it into DIR and prints its 15 functions with the most self
// time (profiling slows it: read the other figures from a run without). `--controllers ours`
// runs one kind only. Every wait stops after `--phase-minutes` (default 15).
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseGoDuration, RESOURCES } from '@kubefed/api';
import { getOrUndefined, type KubeObject } from '@kubefed/client';
import { type LocalFederation, startRedis } from '@kubefed/testing';
import {
  configMapName,
  createFederatedConfigMaps,
  FEDERATED_CONFIG_MAPS,
  MemberWriteRecorder,
  residentBytes,
  startProcessFederation,
} from '../../packages/controller-manager/test/process-federation.js';
import {
  CpuMeter,
  cpuSecondsOf,
  createMoreFederatedConfigMaps,
  latencySummary,
  pause,
  redisPid,
  seconds,
  timeChange,
  until,
} from './bench-support.js';
import {
  BENCH_KUBEFED_CONFIG,
  type ControllerKind,
  kubeFed,
  oursCompiled,
  productionNode,
  type RunningController,
  writeBenchKubeFedConfig,
} from './compared-controller.js';
import { activityIn, CpuProfiler } from './cpu-profiler.js';

const { values: flags } = parseArgs({
  options: {
    members: { type: 'string', default: '10' },
    objects: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '2' },
    changes: { type: 'string', default: '200' },
    'idle-seconds': { type: 'string', default: '60' },
    'outage-seconds': { type: 'string', default: '20' },
    controllers: { type: 'string', default: 'ours,kubefed' },
    profile: { type: 'string' },
    'phase-minutes': { type: 'string', default: '15' },
  },
});

/** `flags[name]` as an integer of at least `min`; a clear error otherwise. */
function count(name: keyof typeof flags, min: number): number {
  const raw = flags[name];
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(n) || n < min)
    throw new Error(`--${name}: expected an integer >= ${min}, got ${String(raw)}`);
  return n;
}
const MEMBERS = count('members', 2);
const OBJECTS = count('objects', 1);
const RUNS = count('runs', 1);
const CHANGES = count('changes', 2);
const IDLE_SECONDS = count('idle-seconds', 1);
const OUTAGE_SECONDS = count('outage-seconds', 0);
const PHASE_LIMIT_MS = count('phase-minutes', 1) * 60_000;
/** Both controllers' health-check period. */
const PROBE_PERIOD_MS = parseGoDuration(BENCH_KUBEFED_CONFIG.clusterHealthCheck?.period ?? '') ?? 10_000;
const KINDS = flags.controllers.split(',').map((k) => k.trim());
for (const k of KINDS) if (k !== 'ours' && k !== 'kubefed') throw new Error(`--controllers: expected ours and/or kubefed, got ${k}`);
/** The namespace of the benchmark's federated objects. */
const NS = 'bench';
/** A controller using less than this share of a core over {@link QUIET_SAMPLES} one-second samples in a row is quiet. */
const QUIET_CORES = 0.1;
const QUIET_SAMPLES = 3;

/** One run's figures by name (the order of first appearance is the order printed). */
type Figures = Map<string, number>;

const mib = (bytes: number): number => bytes / 1024 / 1024;

/** Whether every FederatedConfigMap of NS is propagated (Propagation True, a status entry per member) at its current generation. */
async function converged(fed: LocalFederation): Promise<boolean> {
  const { items } = await fed.client('host').resource(FEDERATED_CONFIG_MAPS, NS).list();
  return items.length === OBJECTS && items.every(propagated);
}

function propagated(obj: KubeObject): boolean {
  const status = obj['status'] as
    { observedGeneration?: number; conditions?: { type?: string; status?: string }[]; clusters?: unknown[] } | undefined;
  return (
    status?.observedGeneration === obj.metadata.generation &&
    status?.conditions?.some((c) => c.type === 'Propagation' && c.status === 'True') === true &&
    status.clusters?.length === MEMBERS
  );
}

/**
 * Whether the controller runs the sync controller of FederatedConfigMaps: the FederatedTypeConfig
 * `configmaps` says `propagationController: Running` for its current generation (both write it),
 * so that the bulk phase does not time the controller's start.
 */
async function syncRunning(fed: LocalFederation): Promise<boolean> {
  const ftc = await fed.client('host').resource(RESOURCES.federatedTypeConfigs, fed.namespace).get('configmaps');
  const status = ftc['status'] as { observedGeneration?: number; propagationController?: string } | undefined;
  return status?.observedGeneration === ftc.metadata.generation && status?.propagationController === 'Running';
}

async function namespaceEverywhere(fed: LocalFederation): Promise<boolean> {
  for (const m of fed.members) if ((await getOrUndefined(fed.client(m).resource(RESOURCES.namespaces), NS)) === undefined) return false;
  return true;
}

/** The Ready condition of the KubeFedCluster `name`, if it has one. */
async function readyCondition(
  fed: LocalFederation,
  name: string,
): Promise<{ status?: string; reason?: string; lastProbeTime?: string } | undefined> {
  const cluster = await fed.client('host').resource(RESOURCES.kubeFedClusters, fed.namespace).get(name);
  const conditions = (
    cluster['status'] as { conditions?: { type?: string; status?: string; reason?: string; lastProbeTime?: string }[] } | undefined
  )?.conditions;
  return conditions?.find((c) => c.type === 'Ready');
}

/** CPU seconds of the controller and of each of its helpers, over windows (`start`/`stop`). */
const meterOf = (c: RunningController): CpuMeter => new CpuMeter({ controller: [c.pid], ...c.helpers });
const used = (meter: CpuMeter, name: string): number => meter.used.get(name) ?? 0;

/** One run of every phase with one controller kind; returns its figures. */
async function run(kind: ControllerKind, label: string): Promise<Figures> {
  const figures: Figures = new Map();
  const put = (name: string, value: number): void => void figures.set(name, value);
  const loadBefore = loadavg();
  const redis = await startRedis({ forcePrivate: true });
  const fed = await startProcessFederation({ members: Array.from({ length: MEMBERS }, (_, i) => `member${i + 1}`), redisUrl: redis.url });
  const writes = await MemberWriteRecorder.start(fed, NS);
  const running: RunningController[] = [];
  try {
    await writeBenchKubeFedConfig(fed);
    const start = async (inspect: boolean): Promise<RunningController> => {
      const c = await kind.start(fed, { redisPid: await redisPid(redis.url), inspect, limitMs: PHASE_LIMIT_MS });
      running.push(c);
      return c;
    };
    const first = await start(flags.profile !== undefined && kind.name === 'ours');
    await fed.waitForReady(PHASE_LIMIT_MS);
    await until(
      'the configmaps sync controller running',
      async () => (await first.alive()) && (await syncRunning(fed)),
      PHASE_LIMIT_MS,
      200,
    );
    await bulk(fed, first, writes, { put, label });
    await changes(fed, first, writes, put);
    await idle(first, writes, put);
    await first.stop();
    const second = await restart(start, writes, put);
    await unreachable(fed, second, writes, put);
    // The unreachable member's watch ends with the fault, after its last counted write.
    const failed = writes.errors.filter((e) => !e.startsWith(`${fed.members.at(-1) ?? ''}: `));
    if (failed.length > 0) console.log(`  member watches failed (figures may miss writes): ${failed.join('; ')}`);
  } finally {
    fed.restoreFaults();
    for (const c of running) await c.stop().catch(() => undefined);
    await writes.stop();
    await fed.stop();
    await redis.stop();
  }
  const loadAfter = loadavg();
  put('load average (1 min) at the start', loadBefore[0] ?? NaN);
  put('load average (1 min) at the end', loadAfter[0] ?? NaN);
  return figures;
}

/** Phase 1: bulk creation until convergence. */
async function bulk(
  fed: LocalFederation,
  c: RunningController,
  writes: MemberWriteRecorder,
  o: { put: (name: string, value: number) => void; label: string },
): Promise<void> {
  const total = OBJECTS * MEMBERS;
  // The namespace first (its FederatedNamespace, in every member), so that the bulk times the objects, not a retry of objects sent before their namespace.
  await createFederatedConfigMaps(fed, NS, 0);
  await until('the namespace in every member', async () => (await c.alive()) && (await namespaceEverywhere(fed)), PHASE_LIMIT_MS, 200);
  const profiler = c.node === undefined || flags.profile === undefined ? undefined : await CpuProfiler.attach(c.node);
  const meter = meterOf(c);
  const before = writes.writes.length;
  await profiler?.start();
  await meter.start();
  const t0 = performance.now();
  await createMoreFederatedConfigMaps(fed, NS, { from: 0, to: OBJECTS });
  await until('bulk: every member copy', async () => (await c.alive()) && writes.count('ADDED') >= total, PHASE_LIMIT_MS, 20);
  const copiesMs = performance.now() - t0;
  await until('bulk: convergence', async () => (await c.alive()) && (await converged(fed)), PHASE_LIMIT_MS, 1000);
  const convergedMs = performance.now() - t0;
  await meter.stop();
  const t1 = performance.now();
  const memberWrites = writes.writes.length - before;
  o.put('bulk: member writes/s (until the last member copy)', total / (copiesMs / 1000));
  o.put('bulk: seconds until converged (status of every object)', convergedMs / 1000);
  o.put('bulk: controller CPU s per 1,000 member writes (until converged)', used(meter, 'controller') / (memberWrites / 1000));
  o.put('bulk: Redis CPU s per 1,000 member writes (ours)', used(meter, 'Redis') / (memberWrites / 1000));
  o.put(
    'bulk: controller + Redis CPU s per 1,000 member writes',
    (used(meter, 'controller') + used(meter, 'Redis')) / (memberWrites / 1000),
  );
  o.put('RSS after convergence, MiB', mib(await residentBytes(c.pid)));
  if (profiler !== undefined && flags.profile !== undefined) {
    await mkdir(flags.profile, { recursive: true });
    const file = join(flags.profile, `${o.label}-bulk.cpuprofile`);
    const profile = await profiler.stop(file);
    profiler.close();
    const activity = activityIn(profile, t0, t1, 15);
    console.log(
      `  CPU profile of the bulk phase in ${file}: busy ${seconds(activity.busyMs)}, garbage collection ${seconds(activity.gcMs)}; most self time:`,
    );
    for (const [frame, ms] of activity.self) console.log(`    ${ms.toFixed(0).padStart(6)} ms  ${frame}`);
  }
}

/** Phase 2: one change at a time until every member holds it. */
async function changes(
  fed: LocalFederation,
  c: RunningController,
  writes: MemberWriteRecorder,
  put: (n: string, v: number) => void,
): Promise<void> {
  const latencies: number[] = [];
  for (let k = 0; k < CHANGES; k++) {
    await c.alive();
    latencies.push(
      await timeChange(fed, writes, { namespace: NS, name: configMapName(k % OBJECTS), value: `change-${k}`, clusters: fed.members }),
    );
  }
  const { p50, p99 } = latencySummary(latencies.slice(1));
  put(`change to all members: p50 ms`, p50);
  put(`change to all members: p99 ms`, p99);
  await until('converged after the changes', async () => (await c.alive()) && (await converged(fed)), PHASE_LIMIT_MS, 1000);
}

/** Phase 3: nothing changes. */
async function idle(c: RunningController, writes: MemberWriteRecorder, put: (n: string, v: number) => void): Promise<void> {
  await pause(2000);
  const meter = meterOf(c);
  const before = writes.writes.length;
  await meter.start();
  await pause(IDLE_SECONDS * 1000);
  await meter.stop();
  await c.alive();
  put(`idle: controller CPU s over ${IDLE_SECONDS} s`, used(meter, 'controller'));
  put(`idle: Redis CPU s over ${IDLE_SECONDS} s (ours)`, used(meter, 'Redis'));
  put('idle: member writes', writes.writes.length - before);
  put('RSS idle, MiB', mib(await residentBytes(c.pid)));
}

/** Phase 4: a new controller manager with everything converged (the old one stopped). Returns it. */
async function restart(
  start: (inspect: boolean) => Promise<RunningController>,
  writes: MemberWriteRecorder,
  put: (n: string, v: number) => void,
): Promise<RunningController> {
  const before = writes.writes.length;
  const t0 = performance.now();
  const c = await start(false);
  const leadingMs = performance.now() - t0;
  const atLeading = await cpuSecondsOf(c.pid);
  const helpers = new CpuMeter(c.helpers);
  await helpers.start();
  // One-second samples of the controller's CPU from leading on: quiet is the start of the first QUIET_SAMPLES in a row under QUIET_CORES.
  let quietMs = NaN;
  let calm = 0;
  let last = atLeading;
  const end = performance.now() + IDLE_SECONDS * 1000;
  while (performance.now() < end) {
    const sampleStart = performance.now();
    await pause(1000);
    const now = await cpuSecondsOf(c.pid);
    const cores = (now - last) / ((performance.now() - sampleStart) / 1000);
    last = now;
    if (calm >= QUIET_SAMPLES) continue;
    calm = cores < QUIET_CORES ? calm + 1 : 0;
    if (calm === 1) quietMs = sampleStart - t0;
  }
  await helpers.stop();
  await c.alive();
  put('restart: leading after s', leadingMs / 1000);
  put(
    `restart: quiet after s (from the start; NaN: not within ${IDLE_SECONDS} s of leading)`,
    calm >= QUIET_SAMPLES ? quietMs / 1000 : NaN,
  );
  put('restart: controller CPU s from its start to leading', atLeading);
  put(`restart: controller CPU s in the ${IDLE_SECONDS} s after leading`, last - atLeading);
  put(`restart: Redis CPU s in the ${IDLE_SECONDS} s after leading (ours)`, used(helpers, 'Redis'));
  put('restart: member writes', writes.writes.length - before);
  return c;
}

/** Phase 5: the last member unreachable; changes to the others one at a time. */
async function unreachable(
  fed: LocalFederation,
  c: RunningController,
  writes: MemberWriteRecorder,
  put: (n: string, v: number) => void,
): Promise<void> {
  const victim = fed.members.at(-1) ?? '';
  const healthy = fed.members.filter((m) => m !== victim);
  // From Ready: on a loaded machine a health probe may time out and a restarted controller may not have probed yet.
  await fed.waitForReady(PHASE_LIMIT_MS);
  // The fault lands half a probe period after the victim's last probe, for both controllers: the
  // phases before take fixed times from the start of leading, so a fault right after them fell
  // at the same point of each controller's probe schedule, and that point decided the figure.
  const probedAt = (await readyCondition(fed, victim))?.lastProbeTime;
  await until(
    'a new probe of the victim',
    async () => (await readyCondition(fed, victim))?.lastProbeTime !== probedAt,
    PHASE_LIMIT_MS,
    100,
  );
  await pause(PROBE_PERIOD_MS / 2);
  await fed.fault(victim, { unreachable: true });
  const t0 = performance.now();
  let notReadyAt: number | undefined;
  const watching = until(
    'the unreachable member NotReady',
    async () => {
      const ready = await readyCondition(fed, victim);
      if (ready?.status === 'True') return false;
      notReadyAt = performance.now();
      console.log(`  ${victim} no longer Ready: status ${ready?.status ?? 'none'}, reason ${(ready?.reason ?? 'none').slice(0, 80)}`);
      return true;
    },
    PHASE_LIMIT_MS,
    200,
  );
  const latencies: number[] = [];
  for (let k = 0; notReadyAt === undefined || performance.now() - notReadyAt < OUTAGE_SECONDS * 1000 || k < 20; k++) {
    await c.alive();
    const probe = { namespace: NS, name: configMapName(k % OBJECTS), value: `outage-${k}`, clusters: healthy };
    latencies.push(await timeChange(fed, writes, probe));
    if (performance.now() - t0 > PHASE_LIMIT_MS) throw new Error('unreachable member: not NotReady within the phase limit');
  }
  await watching;
  const { p50, p99 } = latencySummary(latencies);
  put('one member unreachable: seconds until NotReady', ((notReadyAt ?? NaN) - t0) / 1000);
  put('one member unreachable: healthy members p50 ms', p50);
  put('one member unreachable: healthy members p99 ms', p99);
}

const median = (values: readonly number[]): number => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
};
const show = (v: number): string => (Number.isNaN(v) ? '-' : Math.abs(v) >= 100 || Number.isInteger(v) ? v.toFixed(0) : v.toFixed(2));

/** The summary: a Markdown table of every figure, each controller's runs, and the ratio of their medians. */
function summary(results: ReadonlyMap<string, Figures[]>): string {
  const ours = results.get('ours') ?? [];
  const theirs = results.get('KubeFed') ?? [];
  const names = [...new Set([...ours, ...theirs].flatMap((f) => [...f.keys()]))];
  const lines = [
    `| figure (${OBJECTS} FederatedConfigMaps x ${MEMBERS} members) | ours | KubeFed | ours ÷ KubeFed (medians) |`,
    '|---|---|---|---|',
  ];
  for (const name of names) {
    const a = ours.map((f) => f.get(name) ?? NaN);
    const b = theirs.map((f) => f.get(name) ?? NaN);
    const ratio = median(a) / median(b);
    lines.push(`| ${name} | ${a.map(show).join(', ')} | ${b.map(show).join(', ')} | ${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const node = KINDS.includes('ours') ? await productionNode() : '';
  const kinds = KINDS.map((k) => (k === 'ours' ? oursCompiled(node) : kubeFed));
  console.log(
    `versus KubeFed v0.10.0: ${OBJECTS} FederatedConfigMaps x ${MEMBERS} members, ${RUNS} run(s) of each of ${kinds.map((k) => k.name).join(', ')} alternating, ` +
      `${CHANGES} changes, idle ${IDLE_SECONDS} s, outage ${OUTAGE_SECONDS} s after NotReady; ours on ${node || '-'}`,
  );
  const results = new Map<string, Figures[]>();
  for (let r = 1; r <= RUNS; r++) {
    for (const kind of kinds) {
      const label = `${kind.name}-${r}`;
      console.log(`run ${r} of ${RUNS}: ${kind.name}`);
      const figures = await run(kind, label);
      for (const [name, value] of figures) console.log(`  ${name}: ${show(value)}`);
      results.set(kind.name, [...(results.get(kind.name) ?? []), figures]);
    }
    // After every round, so that a run stopped early still has the table of the rounds done.
    console.log(`after round ${r} of ${RUNS}:\n${summary(results)}`);
  }
}

await main();
// Keep-alive sockets of closed clients must not hold the benchmark open.
process.exit(0);
