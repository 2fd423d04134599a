#!/usr/bin/env node
/**
 * `npm run demo`: a whole federation on this machine. Starts a host and three members in
 * distinct regions (kube-sim, or with `--substrate real` real control planes built by `npm run
 * kube:build`), Redis and the controller manager, joins the members with `kubefedctl
 * join`, enables the default types, applies the samples in `packages/demo/samples`, waits until
 * everything has converged, prints `kubefedctl status` and the replicas per member, starts
 * `kubefedctl dashboard` and prints its URL, and keeps
 * running until Ctrl-C (or exits with `--exit-when-ready`).
 */
import { fileURLToPath } from 'node:url';
import { alignColumns, parseGoDuration } from '@kubefed/api';
import type { DynamicClient } from '@kubefed/client';
import {
  DEFAULT_REGIONS,
  ManagedProcess,
  sourceEntry,
  startLocalFederation,
  substrateFromEnvironment,
  type LocalFederation,
  type Substrate,
} from '@kubefed/testing';
import { Command, InvalidArgumentError, Option } from 'commander';
import { applyObject, DEMO_NAMESPACE, demoState, labelRegions, readSamples, type DemoState } from './demo.js';

const SAMPLES = fileURLToPath(new URL('../samples', import.meta.url));
const MEMBERS = ['member1', 'member2', 'member3'];

interface Flags {
  substrate?: Substrate;
  kubeconfig?: string;
  exitWhenReady?: boolean;
  timeout: number;
}

const program = new Command('npm run demo --')
  .description(
    'Runs a local federation: host and member clusters (kube-sim, or real control\n' +
      'planes with --substrate real), Redis, the controller manager, kubefedctl join\n' +
      'of three members, the default federated types and the sample workload in\n' +
      'packages/demo/samples; prints where everything landed, then keeps running\n' +
      'until Ctrl-C.',
  )
  .addOption(
    new Option(
      '--substrate <substrate>',
      'what the clusters run on: sim (kube-sim) or real (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from npm run kube:build); default $KUBEFED_TEST_SUBSTRATE, else sim',
    ).choices(['sim', 'real']),
  )
  .option('--kubeconfig <path>', 'write the kubeconfig (contexts host, member1, member2, member3) here instead of a temporary file')
  .option('--exit-when-ready', 'exit 0 once everything has converged (1 with what is missing if not within --timeout)')
  .addOption(
    new Option('--timeout <duration>', 'how long to wait for convergence (Go duration)')
      .argParser((v) => {
        const ms = parseGoDuration(v);
        if (ms === undefined || ms <= 0) throw new InvalidArgumentError('expected a duration such as 90s or 3m.');
        return ms;
      })
      .default(180_000, '3m'),
  )
  .addHelpText(
    'after',
    '\nExamples:\n  npm run demo\n  npm run demo -- --kubeconfig ./demo.kubeconfig\n  npm run demo -- --substrate real\n  npm run demo -- --exit-when-ready --timeout 3m',
  );

const started = Date.now();
const say = (line: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}`);

async function waitForConvergence(host: DynamicClient, members: ReadonlyMap<string, DynamicClient>, timeoutMs: number): Promise<DemoState> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const state = await demoState(host, members);
    if (state.pending.length === 0) return state;
    const summary = `waiting for ${state.pending.length} thing(s): ${state.pending[0] ?? ''}${state.pending.length > 1 ? ', ...' : ''}`;
    if (summary !== last) say(summary);
    last = summary;
    if (Date.now() > deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function printSummary(fed: LocalFederation, state: DemoState): Promise<void> {
  const status = await fed.kubefedctl(['status', '-n', DEMO_NAMESPACE, '--host-cluster-context', 'host']);
  console.log(`\n$ kubefedctl status -n ${DEMO_NAMESPACE}\n${(status.code === 0 ? status.stdout : status.stderr).trimEnd()}`);
  const rows = [['CLUSTER', 'REGION', 'PLANNED', 'REPLICAS', 'READY', 'IMAGE']];
  for (const m of fed.members) {
    const r = state.replicas.get(m);
    rows.push([
      m,
      DEFAULT_REGIONS[m] ?? '',
      String(state.planned[m] ?? 0),
      String(r?.desired ?? 0),
      String(r?.ready ?? 0),
      r?.image ?? '-',
    ]);
  }
  console.log(
    `\nReplicas of ${DEMO_NAMESPACE}/web (ReplicaSchedulingPreference: 6 replicas, weights member1=2 member2=1, US/EU clusters only):\n${alignColumns(rows).trimEnd()}`,
  );
}

/** Starts `kubefedctl dashboard` on the federation (with its Redis queues) and resolves with the process and the URL it printed. */
async function startDashboard(fed: LocalFederation): Promise<{ process: ManagedProcess; url: string }> {
  const env = { ...process.env };
  delete env['KUBECONFIG'];
  const args = [
    '--kubeconfig',
    fed.kubeconfigPath,
    '--host-cluster-context',
    'host',
    'dashboard',
    '--redis-url',
    fed.redis.url,
    '--queue-prefix',
    fed.queuePrefix,
  ];
  const dashboard = new ManagedProcess('kubefedctl-dashboard', [...sourceEntry('packages/kubefedctl/src/main.ts'), ...args], { env });
  const line = await dashboard.waitForLine(/Dashboard of the federation at .*: http:\/\//, { fromStart: true, timeoutMs: 60_000 });
  return { process: dashboard, url: /(http:\/\/\S+)/.exec(line)?.[1] ?? '' };
}

async function main(): Promise<number> {
  program.parse(process.argv);
  const flags = program.opts<Flags>();
  const substrate = flags.substrate ?? substrateFromEnvironment();
  say(`starting the local federation (${substrate === 'real' ? 'real control planes' : 'kube-sim'}, Redis, kubefed-controller-manager)`);
  const fed = await startLocalFederation({
    substrate,
    members: MEMBERS,
    redisUrl: process.env['REDIS_URL'],
    ...(flags.kubeconfig === undefined ? {} : { kubeconfigPath: flags.kubeconfig }),
    onProgress: (line) => say(`✓ ${line}`),
  });
  let stopping = false;
  let dashboard: ManagedProcess | undefined;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    say('stopping every process the demo started');
    await dashboard?.stop();
    await fed.stop();
  };
  try {
    const host = fed.client('host');
    await labelRegions(host, fed.namespace, Object.fromEntries(MEMBERS.map((m) => [m, DEFAULT_REGIONS[m] ?? `region-${m}`])));
    say(`✓ labelled the KubeFedClusters with their region (${MEMBERS.map((m) => `${m}=${DEFAULT_REGIONS[m] ?? ''}`).join(', ')})`);
    for (const { file, objects } of await readSamples(SAMPLES)) {
      for (const obj of objects) await applyObject(host, obj);
      say(`✓ applied samples/${file}: ${objects.map((o) => `${o.kind ?? ''} ${o.metadata.name ?? ''}`).join(', ')}`);
    }
    const members = new Map(MEMBERS.map((m) => [m, fed.client(m)]));
    const state = await waitForConvergence(host, members, flags.timeout);
    if (state.pending.length > 0) {
      console.error(`\ndemo: not converged within ${flags.timeout / 1000}s:\n${state.pending.map((p) => `  - ${p}`).join('\n')}`);
      console.error(`controller manager log (last lines):\n${fed.controllerManagers[0]?.tail(15) ?? ''}`);
      await stop();
      return 1;
    }
    say('✓ everything has converged');
    await printSummary(fed, state);
    if (flags.exitWhenReady === true) {
      await stop();
      return 0;
    }
    const k = `--kubeconfig ${fed.kubeconfigPath}`;
    const served = await startDashboard(fed);
    dashboard = served.process;
    console.log(
      [
        '',
        `The federation keeps running. Kubeconfig: ${fed.kubeconfigPath} (contexts host, ${MEMBERS.join(', ')})`,
        `Dashboard (kubefedctl dashboard): ${served.url}`,
        'Try:',
        `  kubectl ${k} --context host get kubefedclusters -n kube-federation-system`,
        `  kubectl ${k} --context host get federateddeployments -n ${DEMO_NAMESPACE} -o yaml`,
        `  kubectl ${k} --context member1 get deployments,configmaps -n ${DEMO_NAMESPACE}`,
        `  npx kubefedctl ${k} status -A --watch`,
        `  kubectl ${k} --context host patch replicaschedulingpreference web -n ${DEMO_NAMESPACE} --type merge -p '{"spec":{"totalReplicas":9}}'`,
        'Press Ctrl-C to stop every process the demo started.',
      ].join('\n'),
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await stop();
    return 0;
  } catch (err) {
    await stop();
    throw err;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
