#!/usr/bin/env node
/**
 * kube-sim CLI: starts simulated clusters, writes one kubeconfig with a context per cluster, and
 * runs until SIGINT/SIGTERM (exit 0). SIGUSR2 restores the faults of every cluster (the HTTP
 * control endpoint cannot, while a cluster is unreachable).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildKubeconfig, type SimCluster, startCluster } from './index.js';
import { parsePodCapacityFlag } from './pod-capacity-flag.js';

const usage = `Usage: kube-sim --clusters host,member1,member2 --kubeconfig ./sim.kubeconfig [--http] [--base-port N] [--pod-capacity N|name=N,...] [--regions name=region,...]

Starts one simulated Kubernetes API server per cluster on 127.0.0.1 and writes a kubeconfig
with one context per cluster (current-context = the first). Runs until SIGINT/SIGTERM.

Options:
  --clusters <names>     comma-separated cluster names (required)
  --kubeconfig <path>    where to write the kubeconfig (required)
  --http                 serve plain HTTP instead of HTTPS with a generated CA
  --base-port <N>        listen on N, N+1, ... (default: free ports)
  --version <v>          gitVersion served at /version (default v1.31.0)
  --pod-capacity <c>     pods that can be scheduled (Running) per cluster: N for every cluster,
                         or name=N,... (a bare N among them = the rest); default unlimited
  --regions <r>          region of each cluster's Nodes, name=region,... (zones <region>-a and
                         <region>-b); default region-<name>
  -h, --help             show this help

Faults: POST /kube-sim/faults (admin token) with {"unreachable":true} | {"hang":true} | {"latencyMs":100} |
{"failRate":0.5,"code":500} | {"podCapacity":N|null} | {"restore":true}; SIGUSR2 restores every
cluster's faults (not its pod capacity).`;

/** Bad command-line input: printed with the `kube-sim:` prefix, exit code 2. */
class UsageError extends Error {}

/** The validated command line. */
interface CliConfig {
  names: string[];
  kubeconfig: string;
  http: boolean;
  basePort: number | undefined;
  version: string | undefined;
  capacities: Map<string, number> | undefined;
  regions: Map<string, string>;
}

function parseCommandLine(args: string[]): CliConfig | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        clusters: { type: 'string' },
        kubeconfig: { type: 'string' },
        http: { type: 'boolean', default: false },
        'base-port': { type: 'string' },
        version: { type: 'string' },
        'pod-capacity': { type: 'string' },
        regions: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (e) {
    throw new UsageError(`${e instanceof Error ? e.message : String(e)}\n\n${usage}`);
  }
  if (values.help) return 'help';
  const names = splitList(values.clusters ?? '');
  if (names.length === 0 || values.kubeconfig === undefined) throw new UsageError(`--clusters and --kubeconfig are required\n\n${usage}`);
  if (new Set(names).size !== names.length) throw new UsageError('cluster names must be unique');
  const basePort = values['base-port'] === undefined ? undefined : Number(values['base-port']);
  if (basePort !== undefined && (!Number.isInteger(basePort) || basePort < 1 || basePort + names.length > 65535))
    throw new UsageError(`--base-port must be a port number, got ${values['base-port']}`);
  let capacities: Map<string, number> | undefined;
  try {
    capacities = values['pod-capacity'] === undefined ? undefined : parsePodCapacityFlag(values['pod-capacity'], names);
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const regions = parseRegions(values.regions ?? '', names);
  return { names, kubeconfig: values.kubeconfig, http: values.http, basePort, version: values.version, capacities, regions };
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function parseRegions(value: string, names: string[]): Map<string, string> {
  const regions = new Map<string, string>();
  for (const part of splitList(value)) {
    const [name, region] = part.split('=');
    if (name === undefined || region === undefined || region === '' || !names.includes(name))
      throw new UsageError(`--regions: "${part}" is not <cluster>=<region> for one of ${names.join(', ')}`);
    regions.set(name, region);
  }
  return regions;
}

/** Starts the clusters one by one and writes the kubeconfig; on a failure stops those started and rethrows. */
async function startClusters(config: CliConfig): Promise<SimCluster[]> {
  const { basePort, version, capacities, regions } = config;
  const clusters: SimCluster[] = [];
  try {
    for (const [i, name] of config.names.entries()) {
      clusters.push(
        await startCluster({
          name,
          tls: !config.http,
          ...(basePort !== undefined ? { port: basePort + i } : {}),
          ...(version !== undefined ? { version } : {}),
          ...(capacities !== undefined ? { podCapacity: capacities.get(name) ?? Infinity } : {}),
          ...(regions.has(name) ? { region: regions.get(name) ?? '' } : {}),
        }),
      );
    }
    writeFileSync(config.kubeconfig, buildKubeconfig(clusters), { mode: 0o600 });
    return clusters;
  } catch (e) {
    await Promise.all(clusters.map((c) => c.stop()));
    throw e;
  }
}

async function main(): Promise<number> {
  let config: CliConfig | 'help';
  try {
    config = parseCommandLine(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`kube-sim: ${e.message}`);
    return 2;
  }
  if (config === 'help') {
    console.log(usage);
    return 0;
  }
  let clusters: SimCluster[];
  try {
    clusters = await startClusters(config);
  } catch (e) {
    console.error(`kube-sim: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  for (const c of clusters) console.log(`cluster ${c.name} ready at ${c.url}`);
  // Signal handlers keep no event loop alive: without this timer the process would exit while
  // every one of its clusters is unreachable (listener closed), and could never be restored.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    process.on('SIGUSR2', () => {
      for (const c of clusters) c.faults.restore();
    });
  });
  clearInterval(keepAlive);
  await Promise.all(clusters.map((c) => c.stop()));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`kube-sim: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
