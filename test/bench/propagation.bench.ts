// Benchmark of propagation end to end through the real processes: the kube-sim CLI (host + M
// members), Redis, `kubefedctl join`/`enable`, and one kubefed-controller-manager process
// (`--mode all`). Prints figures; asserts nothing about time; stops by itself.
//
//   npm run bench -- test/bench/propagation.bench.ts [objects] [members]
//
// Environment (arguments win): BENCH_OBJECTS (default 1000), BENCH_MEMBERS (default 10),
// BENCH_CHANGES (latency samples, default 200), BENCH_IDLE_SECONDS (default 60),
// BENCH_CONCURRENCY (sync jobs in parallel per member, `--worker-concurrency`, default 10),
// BENCH_CM_ARGS (extra controller-manager flags, space separated), REDIS_URL.
import { RESOURCES } from '@kubefed/api';
import type { LocalFederation, ManagedProcess } from '@kubefed/testing';
import {
  configMapName,
  createFederatedConfigMaps,
  FEDERATED_CONFIG_MAPS,
  MemberWriteRecorder,
  residentBytes,
  startControllerManager,
  startProcessFederation,
  waitForReadyClusters,
} from '../../packages/controller-manager/test/process-federation.js';

const arg = (i: number, env: string, fallback: number): number => Number(process.argv[2 + i] ?? process.env[env] ?? fallback);
const OBJECTS = arg(0, 'BENCH_OBJECTS', 1000);
const MEMBERS = arg(1, 'BENCH_MEMBERS', 10);
const CHANGES = Number(process.env['BENCH_CHANGES'] ?? 200);
const IDLE_SECONDS = Number(process.env['BENCH_IDLE_SECONDS'] ?? 60);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 10);
const CM_ARGS = (process.env['BENCH_CM_ARGS'] ?? '').split(' ').filter((a) => a !== '');
/** No phase waits longer than this. */
const PHASE_LIMIT_MS = 15 * 60_000;

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function until(what: string, check: () => boolean, limitMs = PHASE_LIMIT_MS, intervalMs = 5): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * The raw bound: the same member writes (OBJECTS ConfigMaps per member) by a plain client loop,
 * CONCURRENCY in flight per member. The copies carry a label of their own, not the managed label:
 * managed objects without a federated owner would be unlabelled by the control plane.
 */
async function rawWrites(fed: LocalFederation): Promise<number> {
  const ns = 'raw-bound';
  for (const m of fed.members) await fed.client(m).resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const t0 = performance.now();
  await Promise.all(
    fed.members.map(async (m) => {
      const cms = fed.client(m).resource(RESOURCES.configMaps, ns);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < OBJECTS) {
            const i = next++;
            await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMapName(i), namespace: ns, labels: { app: 'raw-bound' } }, data: { index: String(i), payload: 'x'.repeat(100) } });
          }
        }),
      );
    }),
  );
  return performance.now() - t0;
}

async function main(): Promise<void> {
  console.log(`propagation benchmark: ${OBJECTS} FederatedConfigMaps x ${MEMBERS} members, --worker-concurrency ${CONCURRENCY}${CM_ARGS.length > 0 ? ` ${CM_ARGS.join(' ')}` : ''}`);
  const members = Array.from({ length: MEMBERS }, (_, i) => `member${i + 1}`);
  let t = performance.now();
  const fed = await startProcessFederation({ members, redisUrl: process.env['REDIS_URL'] });
  let recorder: MemberWriteRecorder | undefined;
  try {
    console.log(`setup: kube-sim, Redis, ${MEMBERS} joins and 2 enables in ${seconds(performance.now() - t)}`);
    const cm: ManagedProcess = await startControllerManager(fed, ['--worker-concurrency', String(CONCURRENCY), ...CM_ARGS]);
    const pid = cm.child.pid ?? 0;
    await waitForReadyClusters(fed, 120_000);
    const rssReady = await residentBytes(pid);
    console.log(`controller manager leading, ${MEMBERS} clusters Ready: RSS ${mib(rssReady)} (${mib(rssReady / MEMBERS)} per member cluster)`);

    const ns = 'bench';
    const writes = (recorder = await MemberWriteRecorder.start(fed, ns));
    const total = OBJECTS * MEMBERS;
    t = performance.now();
    await createFederatedConfigMaps(fed, ns, OBJECTS, 16);
    const hostMs = performance.now() - t;
    await until('propagation', () => writes.count('ADDED') >= total, PHASE_LIMIT_MS, 20);
    const propagateMs = performance.now() - t;
    const cmRate = total / (propagateMs / 1000);
    console.log(
      `propagation: ${total} member creates in ${seconds(propagateMs)} (host creates of the federated objects took ${seconds(hostMs)} of it): ` +
        `${cmRate.toFixed(0)} member writes/s`,
    );
    const rssLoaded = await residentBytes(pid);
    console.log(`controller manager RSS after propagation: ${mib(rssLoaded)} (${mib(rssLoaded / MEMBERS)} per member cluster; +${mib(rssLoaded - rssReady)} for ${OBJECTS} objects)`);

    const rawMs = await rawWrites(fed);
    const rawRate = total / (rawMs / 1000);
    console.log(`raw bound: the same ${total} member creates by a client loop (${CONCURRENCY} in flight per member) in ${seconds(rawMs)}: ${rawRate.toFixed(0)} writes/s`);
    console.log(`ratio controller manager / raw bound: ${(cmRate / rawRate).toFixed(2)}`);

    // Latency: one federated object changed, until every member holds the change.
    const fedCms = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
    const latencies: number[] = [];
    for (let k = 0; k < CHANGES; k++) {
      const name = configMapName(k % OBJECTS);
      const seen = writes.writes.length;
      t = performance.now();
      await fedCms.patch(name, { spec: { template: { data: { index: `change-${k}` } } } }, 'merge');
      const updated = (): Set<string> => new Set(writes.writes.slice(seen).filter((w) => w.type === 'MODIFIED' && w.name === name).map((w) => w.cluster));
      try {
        await until('change', () => updated().size >= MEMBERS, 60_000, 1);
      } catch (err) {
        const missing = fed.members.filter((m) => !updated().has(m));
        throw new Error(`change ${k} of ${name}: not seen in ${missing.join(', ')} within 60 s; member watch errors: ${writes.errors.join('; ') || 'none'}`, { cause: err });
      }
      latencies.push(performance.now() - t);
    }
    const slowest = latencies.indexOf(Math.max(...latencies));
    latencies.sort((a, b) => a - b);
    console.log(`change of one federated object to all ${MEMBERS} members updated (${CHANGES} changes, one at a time): p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(0)} ms (change ${slowest})`);

    // Idle: nothing changes in the host; nothing may be written to any member.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const before = writes.writes.length;
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idleWrites = writes.writes.length - before;
    console.log(`member writes during ${IDLE_SECONDS} s idle: ${idleWrites}${idleWrites === 0 ? '' : ' (expected 0!)'}`);
    const rssIdle = await residentBytes(pid);
    console.log(`controller manager RSS at idle: ${mib(rssIdle)} (${mib(rssIdle / MEMBERS)} per member cluster)`);
    if (writes.errors.length > 0) console.log(`member watches failed (figures may miss writes): ${writes.errors.join('; ')}`);
  } finally {
    await recorder?.stop();
    await fed.stop();
  }
}

await main();
// Keep-alive sockets of closed clients must not hold the benchmark open.
process.exit(0);
