import { readFile, rm, writeFile } from 'node:fs/promises';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { TestingError } from './testing-error.js';

/**
 * How the clusters of substrate `sim` are spread over kube-sim CLI processes:
 * - `one`: a single process serves every cluster, so the host's requests share one Node event
 *   loop with every member's (cheapest; the default of tests and the demo);
 * - `host-apart`: the host in a process of its own, the members together in another;
 * - `per-cluster`: a process per cluster, as each cluster has an API server of its own in production.
 */
export type SimProcesses = 'one' | 'host-apart' | 'per-cluster';

const SIM_PROCESSES: readonly SimProcesses[] = ['one', 'host-apart', 'per-cluster'];

/**
 * The {@link SimProcesses} named by `value` (a command-line flag's value).
 *
 * @throws TestingError naming `field` and the accepted values for any other value.
 */
export function parseSimProcesses(value: string, field = '--sim-processes'): SimProcesses {
  const found = SIM_PROCESSES.find((s) => s === value);
  if (found === undefined) throw new TestingError(`${field} must be one of ${SIM_PROCESSES.join(', ')}, got "${value}"`);
  return found;
}

/** The cluster names of each kube-sim process, in start order; `names[0]` is the host. */
export function simProcessGroups(names: readonly string[], mode: SimProcesses): string[][] {
  if (names.length === 0) return [];
  switch (mode) {
    case 'one':
      return [[...names]];
    case 'host-apart':
      return names.length === 1 ? [[...names]] : [names.slice(0, 1), names.slice(1)];
    case 'per-cluster':
      return names.map((n) => [n]);
  }
}

/** The parts of a kubeconfig that {@link mergeKubeconfigFiles} concatenates. */
interface KubeconfigLists {
  clusters?: unknown[];
  users?: unknown[];
  contexts?: unknown[];
}

/**
 * Writes to `target` one kubeconfig holding the clusters, users and contexts of every file of
 * `parts` (in order; current-context `currentContext`), mode 0600, and removes the parts.
 *
 * @throws TestingError naming a part that is not a kubeconfig.
 */
export async function mergeKubeconfigFiles(parts: readonly string[], target: string, currentContext: string): Promise<void> {
  const merged = { clusters: [] as unknown[], users: [] as unknown[], contexts: [] as unknown[] };
  for (const part of parts) {
    const config = parseYaml(await readFile(part, 'utf8')) as KubeconfigLists | null;
    if (config === null || typeof config !== 'object' || !Array.isArray(config.contexts))
      throw new TestingError(`${part}: not a kubeconfig (no contexts list)`);
    merged.clusters.push(...(config.clusters ?? []));
    merged.users.push(...(config.users ?? []));
    merged.contexts.push(...config.contexts);
  }
  const yaml = toYaml({ apiVersion: 'v1', kind: 'Config', preferences: {}, ...merged, 'current-context': currentContext });
  await writeFile(target, yaml, { mode: 0o600 });
  await Promise.all(parts.map((p) => rm(p, { force: true })));
}
