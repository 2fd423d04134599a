import { KubeSimError } from './util/status-error.js';

/** The `--pod-capacity` value of the CLI is malformed or names an unknown cluster. */
export class PodCapacityFlagError extends KubeSimError {}

function parseCapacity(text: string, flag: string): number {
  if (text === 'unlimited') return Infinity;
  if (!/^\d+$/.test(text))
    throw new PodCapacityFlagError(`--pod-capacity: "${flag}": capacity must be a non-negative integer or "unlimited"`);
  return Number(text);
}

/**
 * Parses the CLI's `--pod-capacity` value into a capacity per cluster: `N` applies to every
 * cluster; `name=N,...` to the named ones; a bare `N` among named entries is the default for the
 * rest. `unlimited` stands for no limit. Clusters not covered get none (Infinity). Throws
 * {@link PodCapacityFlagError} for a malformed entry, a duplicate or an unknown cluster name.
 */
export function parsePodCapacityFlag(value: string, clusters: readonly string[]): Map<string, number> {
  let fallback = Infinity;
  let fallbackSet = false;
  const named = new Map<string, number>();
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') throw new PodCapacityFlagError(`--pod-capacity: empty entry in "${value}"`);
    const eq = entry.indexOf('=');
    if (eq < 0) {
      if (fallbackSet) throw new PodCapacityFlagError(`--pod-capacity: more than one default capacity in "${value}"`);
      fallback = parseCapacity(entry, entry);
      fallbackSet = true;
      continue;
    }
    const name = entry.slice(0, eq).trim();
    if (!clusters.includes(name)) throw new PodCapacityFlagError(`--pod-capacity: "${entry}": no cluster named "${name}" in --clusters`);
    if (named.has(name)) throw new PodCapacityFlagError(`--pod-capacity: cluster "${name}" is given twice`);
    named.set(name, parseCapacity(entry.slice(eq + 1).trim(), entry));
  }
  return new Map(clusters.map((c) => [c, named.get(c) ?? fallback]));
}
