#!/usr/bin/env node
/**
 * `npm run demo`: a whole federation on this machine. Starts a host and three members in
 * distinct regions (kube-sim, or with `--substrate real` real control planes built by `npm run
 * kube:build`), Redis and the controller manager, joins the members with `kubefedctl
 * join`, enables the default types, applies the samples in `packages/demo/samples`, waits until
 * everything has converged, prints `kubefedctl status` and the replicas per member, starts
 * `kubefedctl dashboard` and prints its URL, and keeps
 * running until Ctrl-C (or exits with `--exit-when-ready`). No wait stays silent for more than
 * two seconds, and Ctrl-C at any moment stops every process the demo started and removes its
 * temporary files (the kubeconfig with the clusters' credentials among them).
 */
import { fileURLToPath } from 'node:url';
import { alignColumns, parseGoDuration, RESOURCES } from '@kubefed/api';
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
import { Interrupted, Progress } from './progress.js';

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

const KUBEFEDCTL = 'packages/kubefedctl/src/main.ts';

const interrupt = new AbortController();
const progress = new Progress((line) => console.log(line), interrupt.signal);
const say = (line: string): void => progress.say(line);

/** The child processes the demo runs itself (kubefedctl); the federation's own are stopped by `fed.stop()`. */
const children = new Set<ManagedProcess>();

function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['KUBECONFIG'];
  return env;
}

/** Starts `kubefedctl --kubeconfig <the federation's> ...args` as a child the demo stops on Ctrl-C. */
function startKubefedctl(fed: LocalFederation, args: readonly string[]): ManagedProcess {
  const name = `kubefedctl ${args.find((a) => !a.startsWith('-')) ?? ''}`.trim();
  const child = new ManagedProcess(name, [...sourceEntry(KUBEFEDCTL), '--kubeconfig', fed.kubeconfigPath, ...args], { env: childEnv() });
  children.add(child);
  void child.exited.then(() => children.delete(child));
  return child;
}

/** Runs kubefedctl to its end; resolves with its output, or rejects naming the command and its last lines. */
async function kubefedctl(fed: LocalFederation, args: readonly string[]): Promise<string> {
  const child = startKubefedctl(fed, args);
  const code = await progress.untilInterrupted(child.exited);
  if (code !== 0) throw new Error(`kubefedctl ${args.join(' ')} exited ${code ?? 'on a signal'}:\n${child.tail(10)}`);
  return child.lines.join('\n');
}

/** `kubefedctl join` of every member at once, saying how many have joined. */
async function joinMembers(fed: LocalFederation): Promise<void> {
  let joined = 0;
  const joinOne = async (member: string): Promise<void> => {
    const t0 = Date.now();
    await kubefedctl(fed, ['join', member, '--cluster-context', member, '--host-cluster-context', 'host']);
    joined++;
    say(`✓ joined ${member} (${((Date.now() - t0) / 1000).toFixed(1)}s; ${joined}/${MEMBERS.length} joined)`);
  };
  await progress.wait(
    () => `kubefedctl join of ${MEMBERS.length - joined} more member(s): ${joined}/${MEMBERS.length} joined`,
    Promise.all(MEMBERS.map(joinOne)),
  );
}

/** `kubefedctl enable --default-types`, saying how many FederatedTypeConfigs it has written. */
async function enableDefaultTypes(fed: LocalFederation): Promise<void> {
  const host = fed.client('host');
  const t0 = Date.now();
  const written = async (): Promise<string> => {
    const ftcs = await host.resource(RESOURCES.federatedTypeConfigs, fed.namespace).list();
    return `kubefedctl enable --default-types: ${ftcs.items.length} FederatedTypeConfig(s) written so far`;
  };
  await progress.wait(written, kubefedctl(fed, ['enable', '--default-types', '--host-cluster-context', 'host']));
  say(`✓ enabled the default types (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
}

/** Polls until every member's KubeFedCluster is Ready, saying how many are. */
async function waitForReadyMembers(fed: LocalFederation, timeoutMs: number): Promise<void> {
  const host = fed.client('host');
  let ready = 0;
  const poll = async (): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const clusters = await host.resource(RESOURCES.kubeFedClusters, fed.namespace).list();
      const readyNames = new Set(
        clusters.items
          .filter((c) =>
            ((c.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
              (x) => x.type === 'Ready' && x.status === 'True',
            ),
          )
          .map((c) => c.metadata.name),
      );
      ready = MEMBERS.filter((m) => readyNames.has(m)).length;
      if (ready === MEMBERS.length) return;
      if (Date.now() > deadline)
        throw new Error(`members not Ready within ${timeoutMs / 1000}s: ${MEMBERS.filter((m) => !readyNames.has(m)).join(', ')}`);
      await progress.pause(250);
    }
  };
  await progress.wait(() => `${ready}/${MEMBERS.length} members Ready`, poll());
  say(`✓ every member Ready (${MEMBERS.length}/${MEMBERS.length})`);
}

async function waitForConvergence(host: DynamicClient, members: ReadonlyMap<string, DynamicClient>, timeoutMs: number): Promise<DemoState> {
  const deadline = Date.now() + timeoutMs;
  let summary = 'the first look at the samples';
  const poll = async (): Promise<DemoState> => {
    let last = '';
    for (;;) {
      const state = await demoState(host, members);
      if (state.pending.length === 0) return state;
      const done = state.total - state.pending.length;
      summary = `${done}/${state.total} checks: ${state.pending[0] ?? ''}${state.pending.length > 1 ? ', ...' : ''}`;
      if (summary !== last) say(`waiting for ${summary}`);
      last = summary;
      if (Date.now() > deadline) return state;
      await progress.pause(1000);
    }
  };
  return progress.wait(() => summary, poll());
}

async function printSummary(fed: LocalFederation, state: DemoState): Promise<void> {
  const status = await progress.wait(
    () => 'kubefedctl status',
    kubefedctl(fed, ['status', '-n', DEMO_NAMESPACE, '--host-cluster-context', 'host']).catch((err: unknown) =>
      err instanceof Interrupted ? Promise.reject(err) : String(err instanceof Error ? err.message : err),
    ),
  );
  console.log(`\n$ kubefedctl status -n ${DEMO_NAMESPACE}\n${status.trimEnd()}`);
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

/** Starts `kubefedctl dashboard` on the federation (with its Redis queues) and resolves with the URL it printed. */
async function startDashboard(fed: LocalFederation): Promise<string> {
  const dashboard = startKubefedctl(fed, [
    '--host-cluster-context',
    'host',
    'dashboard',
    '--redis-url',
    fed.redis.url,
    '--queue-prefix',
    fed.queuePrefix,
  ]);
  const line = await progress.wait(
    () => 'kubefedctl dashboard to serve',
    dashboard.waitForLine(/Dashboard of the federation at .*: http:\/\//, { fromStart: true, timeoutMs: 60_000 }),
  );
  return /(http:\/\/\S+)/.exec(line)?.[1] ?? '';
}

/** What to try, printed as soon as the kubeconfig exists (before the long waits). */
function printTry(fed: LocalFederation): void {
  const k = `--kubeconfig ${fed.kubeconfigPath}`;
  console.log(
    [
      '',
      `Kubeconfig: ${fed.kubeconfigPath} (contexts host, ${MEMBERS.join(', ')})`,
      'Try, once the members have joined:',
      `  kubectl ${k} --context host get kubefedclusters -n kube-federation-system`,
      `  kubectl ${k} --context host get federateddeployments -n ${DEMO_NAMESPACE} -o yaml`,
      `  kubectl ${k} --context member1 get deployments,configmaps -n ${DEMO_NAMESPACE}`,
      `  npx kubefedctl ${k} status -A --watch`,
      `  kubectl ${k} --context host patch replicaschedulingpreference web -n ${DEMO_NAMESPACE} --type merge -p '{"spec":{"totalReplicas":9}}'`,
      'Ctrl-C stops the demo at any moment: every process it started ends and its temporary files are removed.',
      '',
    ].join('\n'),
  );
}

/** The steps after the federation's start, up to the dashboard; returns the exit code when the demo ends here. */
async function runDemo(fed: LocalFederation, flags: Flags): Promise<number | undefined> {
  printTry(fed);
  await joinMembers(fed);
  await enableDefaultTypes(fed);
  await waitForReadyMembers(fed, 60_000);
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
    return 1;
  }
  say('✓ everything has converged');
  await printSummary(fed, state);
  if (flags.exitWhenReady === true) return 0;
  const url = await startDashboard(fed);
  console.log(
    [
      '',
      `The federation keeps running. Kubeconfig: ${fed.kubeconfigPath} (contexts host, ${MEMBERS.join(', ')})`,
      `Dashboard (kubefedctl dashboard): ${url}`,
      'Press Ctrl-C to stop every process the demo started.',
    ].join('\n'),
  );
  return undefined;
}

/** Stops the kubefedctl children, then the federation (its processes and temporary files). */
async function stopEverything(fed: LocalFederation | undefined): Promise<void> {
  await Promise.all([...children].map((c) => c.stop()));
  await fed?.stop();
}

async function main(): Promise<number> {
  program.parse(process.argv);
  const flags = program.opts<Flags>();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupt.signal.aborted) {
        say(`${signal} again: quitting at once`);
        process.exit(130);
      }
      say(`${signal}: stopping every process the demo started and removing its temporary files`);
      interrupt.abort();
    });
  }
  const substrate = flags.substrate ?? substrateFromEnvironment();
  say(`starting the local federation (${substrate === 'real' ? 'real control planes' : 'kube-sim'}, Redis, kubefed-controller-manager)`);
  let lastStep = 'nothing yet';
  let fed: LocalFederation | undefined;
  try {
    fed = await progress.wait(
      () => `the local federation to start (done so far: ${lastStep})`,
      startLocalFederation({
        substrate,
        members: MEMBERS,
        redisUrl: process.env['REDIS_URL'],
        ...(flags.kubeconfig === undefined ? {} : { kubeconfigPath: flags.kubeconfig }),
        // The demo joins and enables itself, to say how far it is.
        join: false,
        types: [],
        signal: interrupt.signal,
        onProgress: (line) => {
          lastStep = line.replace(/ \([\d.]+s\)$/, '');
          say(`✓ ${line}`);
        },
      }),
      // On Ctrl-C the start stops what it started itself, at the end of the step it is in.
      { settle: true },
    );
    if (interrupt.signal.aborted) throw new Interrupted();
    const code = await runDemo(fed, flags);
    if (code !== undefined) return code;
    await new Promise<void>((resolve) => interrupt.signal.addEventListener('abort', () => resolve(), { once: true }));
    return 0;
  } catch (err) {
    if (interrupt.signal.aborted) return 130;
    throw err;
  } finally {
    await stopEverything(fed);
    if (interrupt.signal.aborted) say('stopped: every process the demo started has ended, its temporary files are removed');
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
