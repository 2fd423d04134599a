// CPU seconds per call of the installed `kubefedctl` (node_modules/.bin/kubefedctl, as `npx
// kubefedctl` runs it: the compiled dist/ when current, else the sources), side by side with
// kubectl in the same run: `version`, `--help` and `status` against a running local federation,
// beside `kubectl version --client` and `kubectl get kubefedclusters` on the same host.
//   npm run bench -- test/bench/cli.bench.ts [--runs 5] [--members 2]
// Each call runs under bash, whose `times` gives the CPU of the call and its children. Prints the
// median of the runs per command and its ratio to `kubectl version --client`.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KUBEFED_NAMESPACE_DEFAULT } from '@kubefed/api';
import { startLocalFederation } from '@kubefed/testing';
import { percentile } from './bench-support.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, members: { type: 'string', default: '2' } } });
const runs = Number(values.runs);
const members = Array.from({ length: Number(values.members) }, (_, i) => `member${i + 1}`);
const repoRoot = join(import.meta.dirname, '..', '..');
const KUBEFEDCTL = join(repoRoot, 'node_modules/.bin/kubefedctl');

/** Seconds from bash's `times` line `0m1.230s 0m0.210s` (user, system). */
function cpuOf(line: string): number {
  return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, m, s]) => sum + Number(m) * 60 + Number(s), 0);
}

/** CPU and wall seconds of one call of `argv` (its output discarded). */
function measure(argv: readonly string[]): Promise<{ cpu: number; wall: number }> {
  const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', `${quoted} >/dev/null 2>&1 || exit 3; times`], { cwd: repoRoot, timeout: 120_000 }, (error, stdout) => {
      if (error !== null) return reject(new Error(`${argv.join(' ')} failed: ${error.message}`));
      const children = stdout.trim().split('\n')[1] ?? '';
      resolve({ cpu: cpuOf(children), wall: (performance.now() - started) / 1000 });
    });
  });
}

const median = (xs: number[]): number =>
  percentile(
    xs.sort((a, b) => a - b),
    50,
  );

const fed = await startLocalFederation({ members });
try {
  const kubeconfig = ['--kubeconfig', fed.kubeconfigPath];
  const commands: [string, string[]][] = [
    ['kubectl version --client', ['kubectl', 'version', '--client']],
    ['kubectl get kubefedclusters', ['kubectl', ...kubeconfig, '-n', KUBEFED_NAMESPACE_DEFAULT, 'get', 'kubefedclusters']],
    ['kubefedctl version', [KUBEFEDCTL, 'version']],
    ['kubefedctl --help', [KUBEFEDCTL, '--help']],
    ['kubefedctl status', [KUBEFEDCTL, ...kubeconfig, 'status']],
  ];
  const medians = new Map<string, { cpu: number; wall: number }>();
  for (const [name, argv] of commands) {
    await measure(argv); // warm: file cache, tsx's cache when the sources run
    const samples = [];
    for (let i = 0; i < runs; i++) samples.push(await measure(argv));
    medians.set(name, { cpu: median(samples.map((s) => s.cpu)), wall: median(samples.map((s) => s.wall)) });
  }
  const base = medians.get('kubectl version --client')!.cpu;
  console.log(`median of ${runs} calls each, ${members.length} members; ratio = CPU ÷ kubectl version --client's`);
  for (const [name, m] of medians) {
    console.log(
      `${name.padEnd(28)} CPU ${m.cpu.toFixed(2)} s  wall ${m.wall.toFixed(2)} s  ratio ${(m.cpu / Math.max(base, 0.001)).toFixed(1)}`,
    );
  }
} finally {
  await fed.stop();
}
