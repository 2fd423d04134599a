// Benchmark of propagation end to end through the real processes: the kube-sim CLI (host + M
// members), Redis, `kubefedctl join`/`enable`, and one kubefed-controller-manager process
// (`--mode all`). Prints figures, each ratio measured within the same run; asserts nothing about
// time; stops by itself.
//
//   npm run bench -- test/bench/propagation.bench.ts [--objects N] [--members M] [--changes C]
//     [--idle-seconds S] [--concurrency K] [--no-restart] [--no-kill] [--worker-processes 1,2,4]
//     [--sim-processes one|host-apart|per-cluster] [--phase-minutes P]
//
// Scenarios, in order:
//   1. propagation of N FederatedConfigMaps to M members, in two halves (memory is read once
//      each is idle: the marginal cost of a member copy is the difference of the two, not a
//      total divided by the count), and the raw direct-write bound on the same kube-sim, with the
//      ratio to it that a controller manager costing no CPU could reach (what the rest of the
//      propagation's CPU leaves of the machine's cores);
//   2. change latency (one object changed, until every member holds it), the first change after
//      the bulk propagation reported apart and as a ratio to the p50;
//   3. idle: member writes while nothing changes;
//   4. restart with everything converged: the controller manager stopped and a new one started;
//      member writes and the time until it is idle (every object reconciled, every sync queue
//      empty, for 2 s in a row), as objects/s;
//   5. SIGKILL of the controller manager a quarter into the propagation of N/2 more objects (a
//      namespace of their own) and a new one started: time from the kill to 99 % and to 100 % of
//      the member copies (the tail is the difference: jobs the dead worker held wait for their
//      lock to lapse), and repeated member writes;
//   6. with `--worker-processes W1,W2,..`: for each W, every controller manager stopped, one
//      started with `--mode controllers` (the leader) and W with `--mode workers` beside it, and N
//      more objects propagated into a namespace of their own: member writes/s and its ratio to
//      the raw bound of scenario 1.
//
// Positional `[objects] [members]` and the environment (BENCH_OBJECTS, BENCH_MEMBERS,
// BENCH_CHANGES, BENCH_IDLE_SECONDS, BENCH_CONCURRENCY, BENCH_WORKER_PROCESSES, BENCH_CM_ARGS:
// extra controller-manager flags, space separated; REDIS_URL) are accepted too; flags win.
// `--sim-processes` spreads the clusters over kube-sim processes (default `one`; `host-apart`:
// the host in a process of its own, so its requests no longer share the members' event loop).
// `--phase-minutes` bounds each wait (default 15).
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { RESOURCES } from '@kubefed/api';
import { isAlreadyExists, isNetworkError, type KubeObject, type ResourceClient } from '@kubefed/client';
import { BullMqJobProducer, createRedisConnection } from '@kubefed/queue';
import { type LocalFederation, type ManagedProcess, parseSimProcesses } from '@kubefed/testing';
import {
  configMapName,
  createFederatedConfigMaps,
  FEDERATED_CONFIG_MAPS,
  metricIn,
  metricValue,
  metricsText,
  MemberWriteRecorder,
  startProcessFederation,
  waitForReadyClusters,
} from '../../packages/controller-manager/test/process-federation.js';
import {
  alive,
  BENCH_LEASE,
  type CpuMeter,
  cpuMeter,
  cpuPer,
  createMoreFederatedConfigMaps,
  describeStages,
  latencySummary,
  pause,
  requestCountsIn,
  requestsPer,
  seriesSums,
  seconds,
  timeChange,
  until as untilWithin,
} from './bench-support.js';
import { describeMemory, HeapReader, kib, mib, type Memory } from './heap-reader.js';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    objects: { type: 'string' },
    members: { type: 'string' },
    changes: { type: 'string' },
    'idle-seconds': { type: 'string' },
    concurrency: { type: 'string' },
    'no-restart': { type: 'boolean', default: false },
    'no-kill': { type: 'boolean', default: false },
    'worker-processes': { type: 'string' },
    'sim-processes': { type: 'string', default: 'one' },
    'phase-minutes': { type: 'string' },
  },
});
const setting = (flag: string | undefined, position: number, env: string, fallback: number): number =>
  Number(flag ?? positionals[position] ?? process.env[env] ?? fallback);
const OBJECTS = setting(flags.objects, 0, 'BENCH_OBJECTS', 1000);
const MEMBERS = setting(flags.members, 1, 'BENCH_MEMBERS', 10);
const CHANGES = setting(flags.changes, 2, 'BENCH_CHANGES', 200);
const IDLE_SECONDS = setting(flags['idle-seconds'], 3, 'BENCH_IDLE_SECONDS', 60);
const CONCURRENCY = setting(flags.concurrency, 4, 'BENCH_CONCURRENCY', 10);
const WORKER_PROCESSES = (flags['worker-processes'] ?? process.env['BENCH_WORKER_PROCESSES'] ?? '')
  .split(',')
  .filter((w) => w !== '')
  .map(Number);
const SIM_PROCESSES = parseSimProcesses(flags['sim-processes']);
const CM_ARGS = (process.env['BENCH_CM_ARGS'] ?? '').split(' ').filter((a) => a !== '');
const CM_FLAGS = [...BENCH_LEASE, '--worker-concurrency', String(CONCURRENCY), ...CM_ARGS];
/** No phase waits longer than this (`--phase-minutes`, default 15: a run of 100 x 10,000 needs more). */
const PHASE_LIMIT_MS = setting(flags['phase-minutes'], 5, 'BENCH_PHASE_MINUTES', 15) * 60_000;
/** The namespace of the benchmark's federated objects. */
const NS = 'bench';

const until = (what: string, check: () => boolean | Promise<boolean>, limitMs = PHASE_LIMIT_MS, intervalMs = 5): Promise<void> =>
  untilWithin(what, check, limitMs, intervalMs);

/** Reads the controller managers' memory after a full GC. */
const heaps = await HeapReader.create();
/** Starts a controller manager that writes a heap snapshot on SIGUSR2. */
const startControllerManager = (fed: LocalFederation): Promise<ManagedProcess> => heaps.startControllerManager(fed, CM_FLAGS);
const memoryOf = (cm: ManagedProcess): Promise<Memory> => heaps.memoryOf(cm);

/**
 * Creates `obj`, trying again (at most 3 times) after a network failure: with 100 members the raw
 * loop opens 1,000 connections to one kube-sim process at once, and at a million stored objects
 * some TLS handshakes took longer than the client's 10 s. A try that landed before its answer was
 * lost makes the next one AlreadyExists: created.
 */
async function createOnce(resource: ResourceClient, obj: KubeObject): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await resource.create(obj);
      return;
    } catch (err) {
      if (attempt > 1 && isAlreadyExists(err)) return;
      if (attempt >= 3 || !isNetworkError(err)) throw err;
    }
  }
}

/**
 * The raw bound: the same member writes (OBJECTS ConfigMaps per member) by a plain client loop,
 * CONCURRENCY in flight per member. The copies carry a label of their own, not the managed label:
 * managed objects without a federated owner would be unlabelled by the control plane.
 */
async function rawWrites(fed: LocalFederation): Promise<number> {
  const ns = 'raw-bound';
  for (const m of fed.members)
    await fed
      .client(m)
      .resource(RESOURCES.namespaces)
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const t0 = performance.now();
  await Promise.all(
    fed.members.map(async (m) => {
      const cms = fed.client(m).resource(RESOURCES.configMaps, ns);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < OBJECTS) {
            const i = next++;
            await createOnce(cms, {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: configMapName(i), namespace: ns, labels: { app: 'raw-bound' } },
              data: { index: String(i), payload: 'x'.repeat(100) },
            });
          }
        }),
      );
    }),
  );
  return performance.now() - t0;
}

/** Waits until `cm` is idle ({@link waitForIdle}), then reads its memory into `into`. */
async function idleThenMemory(fed: LocalFederation, cm: ManagedProcess, into: Memory[]): Promise<void> {
  const connection = createRedisConnection(fed.redis.url, { role: 'producer' });
  const producer = new BullMqJobProducer({ connection, prefix: fed.queuePrefix });
  try {
    await waitForIdle(fed, cm, producer);
    into.push(await memoryOf(cm));
  } finally {
    await producer.close();
    connection.disconnect();
  }
}

/** Scenario 1: propagation in two halves, memory after each (once idle), and the raw bound. Returns the raw bound in writes/s. */
async function propagation(fed: LocalFederation, cm: ManagedProcess, writes: MemberWriteRecorder): Promise<number> {
  const ready = await memoryOf(cm);
  console.log(`controller manager leading, ${MEMBERS} clusters Ready: ${describeMemory(ready)}`);
  const half = Math.floor(OBJECTS / 2);
  let propagateMs = 0;
  const memory: Memory[] = [];
  const cpu = await cpuMeter(fed, cm);
  const metricsBefore = await metricsText(cm);
  for (const [from, to] of [
    [0, half],
    [half, OBJECTS],
  ] as const) {
    const t = performance.now();
    await cpu.start();
    if (from === 0) await createFederatedConfigMaps(fed, NS, to, 16);
    else await createMoreFederatedConfigMaps(fed, NS, { from, to });
    await until('propagation', () => alive(cm) && writes.count('ADDED') >= to * MEMBERS, PHASE_LIMIT_MS, 20);
    propagateMs += performance.now() - t;
    await cpu.stop();
    // Memory is read once the work of the half is done (statuses and version records too), not while it is in flight.
    await idleThenMemory(fed, cm, memory);
  }
  const total = OBJECTS * MEMBERS;
  const cmRate = total / (propagateMs / 1000);
  console.log(
    `propagation: ${total} member creates in ${seconds(propagateMs)} (two halves, host creates included): ${cmRate.toFixed(0)} member writes/s`,
  );
  const metricsAfter = await metricsText(cm);
  console.log(
    `API requests per member create (client method): ${requestsPer(requestCountsIn(metricsBefore), requestCountsIn(metricsAfter), total)}`,
  );
  const gc = (kind: string): string =>
    (
      ((metricIn(metricsAfter, 'kubefed_nodejs_gc_duration_seconds_sum', { kind }) -
        metricIn(metricsBefore, 'kubefed_nodejs_gc_duration_seconds_sum', { kind })) *
        1000) /
      total
    ).toFixed(2);
  // The heap snapshots of the memory readings are full collections: they fall into `major`.
  console.log(`controller-manager garbage collection per 1,000 member creates: minor ${gc('minor')} s, major ${gc('major')} s`);
  const [first, second] = memory as [Memory, Memory];
  const copies = (OBJECTS - half) * MEMBERS;
  const marginal = (m: keyof Memory): string => kib((second[m] - first[m]) / copies);
  console.log(
    `memory after ${half} / ${OBJECTS} objects, each once idle: live heap ${mib(first.live)} / ${mib(second.live)}, ` +
      `heap used ${mib(first.heap)} / ${mib(second.heap)}, RSS ${mib(first.rss)} / ${mib(second.rss)}; ` +
      `marginal per member copy (second half, ${copies} copies): live heap ${marginal('live')}, heap used ${marginal('heap')}, RSS ${marginal('rss')}`,
  );
  const rawCpu = await cpuMeter(fed, cm);
  await rawCpu.start();
  const rawMs = await rawWrites(fed);
  await rawCpu.stop();
  const rawRate = total / (rawMs / 1000);
  console.log(
    `raw bound: the same ${total} member creates by a client loop (${CONCURRENCY} in flight per member) in ${seconds(rawMs)}: ${rawRate.toFixed(0)} writes/s`,
  );
  console.log(`ratio controller manager / raw bound: ${(cmRate / rawRate).toFixed(2)}`);
  console.log(`CPU seconds per 1,000 member creates: propagation ${cpuPer(cpu, total)}; raw bound ${cpuPer(rawCpu, total)}`);
  console.log(zeroCostBound(cpu, total, rawRate));
  return rawRate;
}

/**
 * The ratio to the raw bound that a controller manager costing no CPU at all could reach here:
 * the rest of the propagation's CPU (kube-sim serving the member creates, their Events, status
 * and version records and watches; Redis; the benchmark's own watches) must still fit in the
 * machine's cores, and in one core for a single kube-sim process.
 */
function zeroCostBound(cpu: CpuMeter, total: number, rawRate: number): string {
  const cores = availableParallelism();
  const perCreate = (name: string): number => (cpu.used.get(name) ?? 0) / total;
  const rest = [...cpu.used].filter(([name]) => name !== 'controller manager').reduce((sum, [, s]) => sum + s, 0) / total;
  const bounds = [cores / rest];
  if (SIM_PROCESSES === 'one') bounds.push(1 / perCreate('kube-sim'));
  const rate = Math.min(...bounds);
  return (
    `ratio bound with a controller manager that costs no CPU (the rest of the propagation's CPU in ${cores} cores` +
    `${SIM_PROCESSES === 'one' ? ', kube-sim in one' : ''}): ${rate.toFixed(0)} writes/s, ${(rate / rawRate).toFixed(2)} of the raw bound`
  );
}

/** Scenario 2: one federated object changed at a time, until every member holds the change. */
async function changeLatency(fed: LocalFederation, cm: ManagedProcess, writes: MemberWriteRecorder): Promise<void> {
  const latencies: number[] = [];
  let before = '';
  for (let k = 0; k < CHANGES; k++) {
    // The stages are read over the changes after the first.
    if (k === 1) before = await metricsText(cm);
    const probe = { namespace: NS, name: configMapName(k % OBJECTS), value: `change-${k}`, clusters: fed.members };
    latencies.push(await timeChange(fed, writes, probe));
  }
  const firstMs = latencies[0] ?? NaN;
  const { p50, p99, max } = latencySummary(latencies.slice(1));
  console.log(
    `change of one federated object to all ${MEMBERS} members updated (${CHANGES} changes, one at a time; the first apart): p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms`,
  );
  console.log(`first change after the bulk propagation: ${firstMs.toFixed(0)} ms, ${(firstMs / p50).toFixed(1)}x the p50`);
  if (before !== '') printStages(before, await metricsText(cm));
}

/** Where the changes' time went in the controller manager, from its histograms over the changes' window. */
function printStages(before: string, after: string): void {
  console.log('  stages of those changes in the controller manager (its histograms over the same window):');
  for (const line of describeStages(before, after, { controller: 'sync-configmaps' })) console.log(`    ${line}`);
}

/** Scenario 3: nothing changes in the host; nothing may be written to any member. */
async function idle(cm: ManagedProcess, writes: MemberWriteRecorder): Promise<void> {
  await pause(2000);
  const before = writes.writes.length;
  await pause(IDLE_SECONDS * 1000);
  const idleWrites = writes.writes.length - before;
  console.log(`member writes during ${IDLE_SECONDS} s idle: ${idleWrites}${idleWrites === 0 ? '' : ' (expected 0!)'}`);
  const m = await memoryOf(cm);
  console.log(`controller manager at idle: ${describeMemory(m)}`);
}

/**
 * Whether the controller manager is idle: leading, every object of the benchmark reconciled
 * since it started, its work queue empty, and every member's sync queue empty.
 */
async function isIdle(cm: ManagedProcess, producer: BullMqJobProducer, objects = OBJECTS): Promise<boolean> {
  if (!alive(cm)) return false;
  // One scrape per look (the controller manager serializes every metric for each).
  const text = await metricsText(cm);
  if (metricIn(text, 'kubefed_leader_election_is_leader') < 1) return false;
  if (metricIn(text, 'kubefed_controller_reconcile_total', { controller: 'sync-configmaps' }) < objects) return false;
  if (metricIn(text, 'kubefed_workqueue_depth', { name: 'sync-configmaps' }) > 0) return false;
  for (let i = 1; i <= MEMBERS; i++) {
    const c = await producer.counts(`member${i}`);
    if (c.waiting + c.active + c.delayed > 0) return false;
  }
  return true;
}

/** `N (in C of M clusters, at most K in one; priority low L, normal N)` from `kubefed_sync_jobs_enqueued_total{cluster,priority}`. */
function describeJobs(text: string): string {
  const metric = 'kubefed_sync_jobs_enqueued_total';
  const byCluster = [...seriesSums(text, metric, (l) => l['cluster'] ?? '')].filter(([, n]) => n > 0);
  const byPriority = [...seriesSums(text, metric, (l) => l['priority'] ?? '')].filter(([, n]) => n > 0);
  const total = byCluster.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return '0';
  const priorities = byPriority.map(([p, n]) => `${p} ${n}`).join(', ');
  return `${total} (in ${byCluster.length} of ${MEMBERS} clusters, at most ${Math.max(...byCluster.map(([, n]) => n))} in one; priority ${priorities})`;
}

/** Scenario 4: a restart with everything converged. Returns the new controller manager. */
async function restart(fed: LocalFederation, cm: ManagedProcess, writes: MemberWriteRecorder): Promise<ManagedProcess> {
  await cm.stop();
  const connection = createRedisConnection(fed.redis.url, { role: 'producer' });
  const producer = new BullMqJobProducer({ connection, prefix: fed.queuePrefix });
  try {
    const before = writes.writes.length;
    const t0 = performance.now();
    const next = await startControllerManager(fed);
    await until('leadership', async () => (await metricValue(next, 'kubefed_leader_election_is_leader')) >= 1, 120_000, 50);
    const leadingMs = performance.now() - t0;
    // Idle once it has held for 2 s in a row; the time to idle is the start of that window.
    let idleSince: number | undefined;
    await until(
      'idle after restart',
      async () => {
        if (!(await isIdle(next, producer))) idleSince = undefined;
        else idleSince ??= performance.now();
        return idleSince !== undefined && performance.now() - idleSince >= 2000;
      },
      PHASE_LIMIT_MS,
      100,
    );
    const idleMs = (idleSince ?? NaN) - t0;
    const restartWrites = writes.writes.length - before;
    const jobs = describeJobs(await metricsText(next));
    console.log(
      `restart with ${OBJECTS} converged objects x ${MEMBERS} members: leading after ${seconds(leadingMs)}, idle after ${seconds(idleMs)} ` +
        `(${(OBJECTS / ((idleMs - leadingMs) / 1000)).toFixed(0)} objects/s from leadership to idle); member writes ${restartWrites}${restartWrites === 0 ? '' : ' (expected 0!)'}; ` +
        `sync jobs enqueued ${jobs}`,
    );
    return next;
  } finally {
    await producer.close();
    connection.disconnect();
  }
}

/** Scenario 5: SIGKILL mid-propagation. */
async function killMidPropagation(fed: LocalFederation, cm: ManagedProcess): Promise<void> {
  const ns = 'bench-kill';
  const count = Math.max(1, Math.floor(OBJECTS / 2));
  const total = count * MEMBERS;
  const writes = await MemberWriteRecorder.start(fed, ns);
  try {
    await createFederatedConfigMaps(fed, ns, count, 16);
    await until('a quarter of the propagation', () => alive(cm) && writes.count('ADDED') >= total / 4, PHASE_LIMIT_MS, 20);
    await cm.kill();
    const killed = performance.now();
    const atKill = writes.count('ADDED');
    const next = await startControllerManager(fed);
    // The dead leader's Lease has to expire first (the benchmark's Lease lasts 60 s).
    await until(
      'leadership after the kill',
      async () => (await metricValue(next, 'kubefed_leader_election_is_leader')) >= 1,
      PHASE_LIMIT_MS,
      100,
    );
    const leadingMs = performance.now() - killed;
    await until('99 % after the kill', () => alive(next) && writes.count('ADDED') >= 0.99 * total, PHASE_LIMIT_MS, 20);
    const p99Ms = performance.now() - killed;
    await until('100 % after the kill', () => alive(next) && writes.count('ADDED') >= total, PHASE_LIMIT_MS, 20);
    const allMs = performance.now() - killed;
    console.log(
      `SIGKILL at ${atKill} of ${total} member creates: new leader after ${seconds(leadingMs)}, 99 % after ${seconds(p99Ms)}, all after ${seconds(allMs)} (tail from 99 %: ${seconds(allMs - p99Ms)}); ` +
        `objects written more than once: ${writes.duplicates().length}`,
    );
  } finally {
    await writes.stop();
  }
}

/** Waits until `cm` has been idle ({@link isIdle}, every FederatedConfigMap of the host counted) for 2 s in a row. */
async function waitForIdle(fed: LocalFederation, cm: ManagedProcess, producer: BullMqJobProducer): Promise<void> {
  const objects = (await fed.client('host').resource(FEDERATED_CONFIG_MAPS).list()).items.length;
  let idleSince: number | undefined;
  await until(
    'idle',
    async () => {
      if (!(await isIdle(cm, producer, objects))) idleSince = undefined;
      else idleSince ??= performance.now();
      return idleSince !== undefined && performance.now() - idleSince >= 2000;
    },
    PHASE_LIMIT_MS,
    100,
  );
}

/**
 * Scenario 6: throughput with the sync workers in processes of their own. For each count W of
 * WORKER_PROCESSES: every running controller manager stopped, a leader in `--mode controllers`
 * and W processes in `--mode workers` started, the leader idle (the objects of the earlier
 * scenarios reconciled), then OBJECTS more FederatedConfigMaps in a namespace of their own.
 */
async function workerProcesses(fed: LocalFederation, rawRate: number): Promise<void> {
  const connection = createRedisConnection(fed.redis.url, { role: 'producer' });
  const producer = new BullMqJobProducer({ connection, prefix: fed.queuePrefix });
  try {
    for (const count of WORKER_PROCESSES) {
      for (const running of fed.controllerManagers.filter((p) => p.running)) await running.stop();
      const leader = await fed.startControllerManager([...CM_FLAGS, '--mode', 'controllers']);
      for (let i = 0; i < count; i++) await fed.startControllerManager([...CM_FLAGS, '--mode', 'workers']);
      const started = performance.now();
      await waitForIdle(fed, leader, producer);
      const idleMs = performance.now() - started;
      const ns = `bench-workers-${count}`;
      const writes = await MemberWriteRecorder.start(fed, ns);
      try {
        const t = performance.now();
        await createFederatedConfigMaps(fed, ns, OBJECTS, 16);
        await until(
          `propagation with ${count} worker processes`,
          () => alive(leader) && writes.count('ADDED') >= OBJECTS * MEMBERS,
          PHASE_LIMIT_MS,
          20,
        );
        const rate = (OBJECTS * MEMBERS) / ((performance.now() - t) / 1000);
        console.log(
          `--mode controllers + ${count} x --mode workers: ${OBJECTS * MEMBERS} member creates in ${seconds(performance.now() - t)}: ` +
            `${rate.toFixed(0)} member writes/s, ${(rate / rawRate).toFixed(2)} of the raw bound; objects written more than once: ${writes.duplicates().length} ` +
            `(before: idle after ${seconds(idleMs)} with the earlier objects)`,
        );
      } finally {
        await writes.stop();
      }
    }
  } finally {
    await producer.close();
    connection.disconnect();
  }
}

async function main(): Promise<void> {
  console.log(
    `propagation benchmark: ${OBJECTS} FederatedConfigMaps x ${MEMBERS} members, kube-sim processes: ${SIM_PROCESSES}, --worker-concurrency ${CONCURRENCY}${CM_ARGS.length > 0 ? ` ${CM_ARGS.join(' ')}` : ''}`,
  );
  const members = Array.from({ length: MEMBERS }, (_, i) => `member${i + 1}`);
  const t = performance.now();
  const fed = await startProcessFederation({ members, redisUrl: process.env['REDIS_URL'], simProcesses: SIM_PROCESSES });
  let recorder: MemberWriteRecorder | undefined;
  try {
    console.log(`setup: kube-sim, Redis, ${MEMBERS} joins and 2 enables in ${seconds(performance.now() - t)}`);
    const cm = await startControllerManager(fed);
    await waitForReadyClusters(fed, PHASE_LIMIT_MS);
    const writes = (recorder = await MemberWriteRecorder.start(fed, NS));
    const rawRate = await propagation(fed, cm, writes);
    await changeLatency(fed, cm, writes);
    await idle(cm, writes);
    const current = flags['no-restart'] === true ? cm : await restart(fed, cm, writes);
    if (flags['no-kill'] !== true) await killMidPropagation(fed, current);
    if (WORKER_PROCESSES.length > 0) await workerProcesses(fed, rawRate);
    if (writes.errors.length > 0) console.log(`member watches failed (figures may miss writes): ${writes.errors.join('; ')}`);
  } finally {
    await recorder?.stop();
    await fed.stop();
    await heaps.dispose();
  }
}

await main();
// Keep-alive sockets of closed clients must not hold the benchmark open.
process.exit(0);
