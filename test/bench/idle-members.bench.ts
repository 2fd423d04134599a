// Benchmark of what an idle member cluster costs the controller manager, measured in one run:
// kube-sim serves the host and the largest fleet's members, the first fleet size is joined and
// one kubefed-controller-manager (`--mode all`) started; then, for each larger size, the members
// up to it are joined with `kubefedctl join` and, once every joined KubeFedCluster is Ready and
// the process has settled, its memory is read after a full GC. The marginal cost of a member is
// the difference between two sizes divided by the members added, never a total divided by a
// count. Prints figures; asserts nothing; stops by itself.
//
//   npm run bench -- test/bench/idle-members.bench.ts [--members 10,100] [--settle-seconds 10]
//     [--sim-processes one|host-apart|per-cluster]
//
// Every member is joined with namespaces and configmaps enabled (as the propagation benchmark),
// so each holds a health probe, a client, two member watches and a sync queue with its worker.
import { parseArgs } from 'node:util';
import { KUBEFED_NAMESPACE_DEFAULT, RESOURCES } from '@kubefed/api';
import { type LocalFederation, type ManagedProcess, parseSimProcesses } from '@kubefed/testing';
import { startProcessFederation } from '../../packages/controller-manager/test/process-federation.js';
import { alive, BENCH_LEASE, pause, seconds, until } from './bench-support.js';
import { describeMemory, HeapReader, kib, type Memory } from './heap-reader.js';

const { values: flags } = parseArgs({
  options: {
    members: { type: 'string', default: '10,100' },
    'settle-seconds': { type: 'string', default: '10' },
    'sim-processes': { type: 'string', default: 'one' },
  },
});
const SIZES = flags.members
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
if (SIZES.length < 2 || SIZES.some((n) => !Number.isInteger(n) || n < 1)) {
  console.error(`--members: give two or more fleet sizes, e.g. 10,100 (got "${flags.members}")`);
  process.exit(1);
}
const SETTLE_MS = Number(flags['settle-seconds']) * 1000;
const SIM_PROCESSES = parseSimProcesses(flags['sim-processes']);
/** No wait lasts longer than this. */
const PHASE_LIMIT_MS = 15 * 60_000;
/** `kubefedctl join` processes at once (as the test harness runs them). */
const JOINS_AT_ONCE = 8;

const memberName = (i: number): string => `member${i + 1}`;

/** The number of KubeFedClusters with Ready=True. */
async function readyCount(fed: LocalFederation): Promise<number> {
  const clusters = await fed.client('host').resource(RESOURCES.kubeFedClusters, KUBEFED_NAMESPACE_DEFAULT).list();
  return clusters.items.filter((c) =>
    ((c.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
      (x) => x.type === 'Ready' && x.status === 'True',
    ),
  ).length;
}

/** Joins members `from`..`to - 1`, {@link JOINS_AT_ONCE} at a time. */
async function join(fed: LocalFederation, from: number, to: number): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: Math.min(JOINS_AT_ONCE, to - from) }, async () => {
      for (let i = next++; i < to; i = next++) {
        const m = memberName(i);
        const r = await fed.kubefedctl(['join', m, '--cluster-context', m, '--host-cluster-context', 'host']);
        if (r.code !== 0) throw new Error(`kubefedctl join ${m} exited ${r.code}: ${r.stderr.trim()}`);
      }
    }),
  );
}

/** Waits until `size` clusters are Ready and the process has had {@link SETTLE_MS} to list their watches, then reads its memory. */
async function memoryAt(fed: LocalFederation, cm: ManagedProcess, heaps: HeapReader, size: number): Promise<Memory> {
  const t = performance.now();
  await until(`${size} clusters Ready`, async () => alive(cm) && (await readyCount(fed)) >= size, PHASE_LIMIT_MS, 500);
  await pause(SETTLE_MS);
  const m = await heaps.memoryOf(cm);
  console.log(`${size} members Ready (${seconds(performance.now() - t)}): ${describeMemory(m)}`);
  return m;
}

async function main(): Promise<void> {
  const largest = SIZES.at(-1) ?? 0;
  console.log(`idle members benchmark: fleets of ${SIZES.join(', ')} members, kube-sim processes: ${SIM_PROCESSES}`);
  const members = Array.from({ length: largest }, (_, i) => memberName(i));
  const t = performance.now();
  const fed = await startProcessFederation({ members, simProcesses: SIM_PROCESSES, join: members.slice(0, SIZES[0]) });
  const heaps = await HeapReader.create();
  try {
    console.log(
      `setup: kube-sim with ${largest + 1} clusters, Redis, ${SIZES[0]} joins and 2 enables in ${seconds(performance.now() - t)}`,
    );
    const cm = await heaps.startControllerManager(fed, BENCH_LEASE);
    const memory: Memory[] = [await memoryAt(fed, cm, heaps, SIZES[0] ?? 0)];
    for (let s = 1; s < SIZES.length; s++) {
      const tj = performance.now();
      await join(fed, SIZES[s - 1] ?? 0, SIZES[s] ?? 0);
      console.log(`joined members ${(SIZES[s - 1] ?? 0) + 1}..${SIZES[s]} in ${seconds(performance.now() - tj)}`);
      memory.push(await memoryAt(fed, cm, heaps, SIZES[s] ?? 0));
    }
    const marginal = (a: number, b: number): string => {
      const added = (SIZES[b] ?? 0) - (SIZES[a] ?? 0);
      const [ma, mb] = [memory[a], memory[b]] as [Memory, Memory];
      return `live heap ${kib((mb.live - ma.live) / added)}, heap used ${kib((mb.heap - ma.heap) / added)}, RSS ${kib((mb.rss - ma.rss) / added)}`;
    };
    for (let s = 1; s < SIZES.length; s++)
      console.log(`marginal memory per idle member, ${SIZES[s - 1]} -> ${SIZES[s]}: ${marginal(s - 1, s)}`);
    if (SIZES.length > 2) console.log(`marginal memory per idle member, ${SIZES[0]} -> ${largest}: ${marginal(0, SIZES.length - 1)}`);
  } finally {
    await fed.stop();
    await heaps.dispose();
  }
}

await main();
// Keep-alive sockets of closed clients must not hold the benchmark open.
process.exit(0);
