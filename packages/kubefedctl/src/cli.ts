import { KUBEFED_NAMESPACE_DEFAULT, parseGoDuration } from '@kubefed/api';
import type { DynamicClient } from '@kubefed/client';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { join, validateJoinNames } from './commands/join.js';
import type { JoinResult } from './commands/join.js';
import { unjoin } from './commands/unjoin.js';
import type { UnjoinResult } from './commands/unjoin.js';
import { formatVersion } from './commands/version.js';
import type { BuildInfo } from './commands/version.js';
import { KubefedctlError } from './errors.js';
import type { Kubeconfig } from '@kubefed/client';
import { clientForContext, contextDetails, loadKubeconfig, resolveContextName } from './kubeconfig-contexts.js';
import { Output, formatError, renderYamlDocuments } from './output.js';
import type { CliIo } from './output.js';
import { describeObject } from './resources.js';

/** The process-facing inputs of {@link run}. */
export interface RunIo extends CliIo {
  /** Version information for `kubefedctl version`; default: unknown commit/date. */
  buildInfo?: () => BuildInfo;
  /** Timeout of each API request in ms; default 20 000. */
  requestTimeoutMs?: number;
}

/** Options every command inherits (KubeFed's global flags). */
interface GlobalOptions {
  kubeconfig?: string;
  hostClusterContext?: string;
  kubefedNamespace: string;
  verbose?: boolean;
}

interface JoinFlags {
  clusterContext?: string;
  hostClusterName?: string;
  secretName?: string;
  errorOnExisting: boolean;
  leastPrivilege?: boolean;
  dryRun?: boolean;
  output?: 'yaml';
  timeout: number;
}

interface UnjoinFlags {
  clusterContext?: string;
  hostClusterName?: string;
  force?: boolean;
  dryRun?: boolean;
}

/** Parses `true`/`false` (for `--error-on-existing=false`). */
export function parseBool(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 't') return true;
  if (v === 'false' || v === '0' || v === 'f') return false;
  throw new InvalidArgumentError('expected true or false.');
}

/** Parses a positive Go duration (`30s`, `2m`) or a plain number of seconds into ms. */
export function parseTimeout(value: string): number {
  const ms = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) * 1000 : parseGoDuration(value.trim());
  if (ms === undefined || !(ms > 0)) throw new InvalidArgumentError('expected a positive duration such as 30s or 2m.');
  return ms;
}

const JOIN_EXAMPLES = `
Examples:
  # Join the cluster of context "member1" to the host of the current context
  kubefedctl join member1 --cluster-context member1

  # Name the host explicitly and keep the member's RBAC to the enabled federated types
  kubefedctl join member1 --cluster-context member1 --host-cluster-context host --least-privilege

  # Show every object join would create, write nothing
  kubefedctl join member1 --cluster-context member1 --dry-run -o yaml

  # Re-run safely: update what differs, create what is missing
  kubefedctl join member1 --cluster-context member1 --error-on-existing=false
`;

const UNJOIN_EXAMPLES = `
Examples:
  # Remove member1 (host side and member side)
  kubefedctl unjoin member1 --cluster-context member1

  # The member is gone for good: remove the host side anyway and list what stayed behind
  kubefedctl unjoin member1 --force
`;

function globalsOf(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions & Record<string, unknown>>();
}

function kubeconfigFor(globals: GlobalOptions, io: RunIo): Kubeconfig {
  return loadKubeconfig({ kubeconfig: globals.kubeconfig, KUBECONFIG: io.env['KUBECONFIG'], home: io.env['HOME'] });
}

function printJoin(result: JoinResult, flags: JoinFlags, hostName: string, out: Output): void {
  const { names } = result;
  if (flags.dryRun === true && flags.output === 'yaml') {
    out.raw(
      renderYamlDocuments(
        result.plan.map((p) => {
          const lines = [`${p.side === 'host' ? 'host' : 'member'} cluster "${p.cluster}"${p.exists ? ' (exists: join updates it where it differs)' : ''}`];
          if (p.side === 'host' && p.object.kind === 'Secret') lines.push("data.token (and data.ca.crt) are copied from the member's token secret at join time");
          if (p.side === 'host' && p.object.kind === 'KubeFedCluster' && p.object.metadata.name !== undefined && flags.secretName === undefined && !p.exists)
            lines.push('secretRef.name is the generated name of the secret above');
          return { comment: lines.join('\n'), object: p.object };
        }),
      ),
    );
    return;
  }
  if (flags.dryRun === true) {
    for (const p of result.plan) {
      if (p.object.kind === 'Namespace' && p.exists) continue;
      out.info(`${p.exists ? 'would update (if different)' : 'would create'} ${describeObject(p.object, p.cluster)}`);
    }
    out.info(`dry run: nothing was written`);
    return;
  }
  for (const a of result.actions) out.info(`${a.verb} ${a.what}`);
  out.info(`cluster "${names.cluster}" joined host cluster "${hostName}" (KubeFedCluster ${names.namespace}/${names.cluster})`);
}

function printUnjoin(result: UnjoinResult, dryRun: boolean, hostName: string, out: Output): void {
  for (const r of result.removed) out.info(`${dryRun ? 'would remove' : 'removed'} ${r}`);
  for (const a of result.absent) out.debug(`not found: ${a}`);
  for (const k of result.kept) out.info(`kept ${k}`);
  for (const n of result.notRemoved) out.warn(`could not remove ${n.what}: ${n.reason}`);
  if (dryRun) {
    out.info('dry run: nothing was removed');
    return;
  }
  const left = result.notRemoved.length === 0 ? '' : ` (${result.notRemoved.length} objects could not be removed, see the warnings)`;
  out.info(`cluster "${result.names.cluster}" unjoined from host cluster "${hostName}"${left}`);
}

async function runJoin(cluster: string, flags: JoinFlags, cmd: Command, io: RunIo): Promise<void> {
  const globals = globalsOf(cmd);
  const out = new Output(io, globals.verbose === true);
  const kubeconfig = kubeconfigFor(globals, io);
  const hostContext = resolveContextName(kubeconfig, globals.hostClusterContext, '--host-cluster-context');
  const hostName = flags.hostClusterName ?? hostContext;
  validateJoinNames(cluster, hostName, flags.hostClusterName !== undefined);
  const memberContext = resolveContextName(kubeconfig, flags.clusterContext ?? cluster, '--cluster-context');
  const details = contextDetails(kubeconfig, memberContext);
  const timeoutMs = io.requestTimeoutMs ?? 20_000;
  const clients: DynamicClient[] = [];
  try {
    const host = clientForContext(kubeconfig, hostContext, { clusterName: hostName, timeoutMs });
    clients.push(host);
    const member = clientForContext(kubeconfig, memberContext, { clusterName: cluster, timeoutMs });
    clients.push(member);
    out.debug(`host context "${hostContext}" (${host.server}), member context "${memberContext}" (${member.server})`);
    const dryRun = flags.dryRun === true || flags.output === 'yaml';
    const result = await join(
      {
        cluster,
        hostClusterName: hostName,
        kubefedNamespace: globals.kubefedNamespace,
        secretName: flags.secretName,
        errorOnExisting: flags.errorOnExisting,
        dryRun,
        leastPrivilege: flags.leastPrivilege === true,
        tokenTimeoutMs: flags.timeout,
      },
      { host, hostContext, member, memberContext: details },
      out,
    );
    printJoin(result, { ...flags, dryRun }, hostName, out);
  } finally {
    for (const c of clients) c.close();
  }
}

async function runUnjoin(cluster: string, flags: UnjoinFlags, cmd: Command, io: RunIo): Promise<void> {
  const globals = globalsOf(cmd);
  const out = new Output(io, globals.verbose === true);
  const kubeconfig = kubeconfigFor(globals, io);
  const hostContext = resolveContextName(kubeconfig, globals.hostClusterContext, '--host-cluster-context');
  const hostName = flags.hostClusterName ?? hostContext;
  validateJoinNames(cluster, hostName, flags.hostClusterName !== undefined);
  const timeoutMs = io.requestTimeoutMs ?? 20_000;
  const clients: DynamicClient[] = [];
  try {
    const host = clientForContext(kubeconfig, hostContext, { clusterName: hostName, timeoutMs });
    clients.push(host);
    let member: DynamicClient | undefined;
    let memberProblem: KubefedctlError | undefined;
    try {
      const memberContext = resolveContextName(kubeconfig, flags.clusterContext ?? cluster, '--cluster-context');
      member = clientForContext(kubeconfig, memberContext, { clusterName: cluster, timeoutMs });
      clients.push(member);
    } catch (e) {
      if (!(e instanceof KubefedctlError)) throw e;
      memberProblem = e;
    }
    const result = await unjoin(
      {
        cluster,
        hostClusterName: hostName,
        kubefedNamespace: globals.kubefedNamespace,
        force: flags.force === true,
        dryRun: flags.dryRun === true,
      },
      { host, member, memberProblem },
      out,
    );
    printUnjoin(result, flags.dryRun === true, hostName, out);
  } finally {
    for (const c of clients) c.close();
  }
}

/** Builds the commander program; actions write through `io`. Exposed for help-text tests. */
export function buildProgram(io: RunIo): Command {
  const program = new Command('kubefedctl')
    .description('kubefedctl controls a KubeFed-compatible federation control plane: it joins member clusters to the host and removes them.')
    .option('--kubeconfig <path>', 'kubeconfig file to use (default: the files in KUBECONFIG, else ~/.kube/config)')
    .option('--host-cluster-context <context>', 'kubeconfig context of the host cluster (default: the current context)')
    .option('--kubefed-namespace <namespace>', 'namespace of the KubeFed control plane', KUBEFED_NAMESPACE_DEFAULT)
    .option('-v, --verbose', 'print debug logs, and stack traces of errors, to stderr')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('join')
    .description(
      'Register a cluster as a member of the federation: create a service account with its RBAC and token in the member, and a Secret and KubeFedCluster in the host.',
    )
    .argument('<cluster-name>', 'name of the joining cluster (becomes the KubeFedCluster name)')
    .option('--cluster-context <context>', 'kubeconfig context of the joining cluster (default: the cluster name)')
    .option('--host-cluster-name <name>', 'host name used in generated names (default: the host context name); may not contain "/" or ":"')
    .option('--secret-name <name>', 'name of the host Secret holding the member token (default: generated <cluster-name>-xxxxx)')
    .addOption(
      new Option('--error-on-existing [bool]', 'fail when the cluster is already (partly) joined; false: update what differs and create what is missing')
        .default(true)
        .preset('true')
        .argParser(parseBool),
    )
    .option('--least-privilege', 'grant the control plane only the enabled federated types and health checks in the member, instead of full access')
    .option('--dry-run', 'only read: show what would be created, write nothing')
    .addOption(new Option('-o, --output <format>', 'print the objects instead of creating them (implies --dry-run)').choices(['yaml']))
    .addOption(new Option('--timeout <duration>', "how long to wait for the member's token controller").default(30_000, '30s').argParser(parseTimeout))
    .addHelpText('after', JOIN_EXAMPLES)
    .action(async (cluster: string, flags: JoinFlags, cmd: Command) => runJoin(cluster, flags, cmd, io));

  program
    .command('unjoin')
    .description(
      "Remove a member cluster: delete its KubeFedCluster and Secret in the host, and the service account, roles, bindings and token Secret join created in the member (which revokes the token).",
    )
    .argument('<cluster-name>', 'name of the cluster to remove')
    .option('--cluster-context <context>', 'kubeconfig context of the cluster to remove (default: the cluster name)')
    .option('--host-cluster-name <name>', 'host name used in generated names at join time (default: the host context name)')
    .option('--force', 'carry on when the member is unreachable: remove the host side and report what stayed in the member')
    .option('--dry-run', 'only read: show what would be removed, delete nothing')
    .addHelpText('after', UNJOIN_EXAMPLES)
    .action(async (cluster: string, flags: UnjoinFlags, cmd: Command) => runUnjoin(cluster, flags, cmd, io));

  program
    .command('version')
    .description('Print the kubefedctl version, the commit it was built from and the runtime')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['json']))
    .addHelpText('after', '\nExamples:\n  kubefedctl version\n  kubefedctl version -o json\n')
    .action((flags: { output?: 'json' }) => {
      const info = io.buildInfo?.() ?? {
        gitVersion: 'unknown',
        gitCommit: 'unknown',
        gitTreeState: 'unknown',
        buildDate: 'unknown',
        nodeVersion: 'unknown',
        platform: 'unknown',
      };
      io.stdout(formatVersion(info, flags.output === 'json' ? 'json' : 'text'));
    });

  return program;
}

/**
 * Runs kubefedctl with `argv` (the arguments after the program name) and returns the exit code:
 * 0 on success (and for help), 1 on any failure. Failures print `error: <cause>` and, when
 * known, `hint: <hint>` to stderr (stack traces only with `-v`); usage errors print commander's
 * message. Never throws, never exits.
 */
export async function run(argv: readonly string[], io: RunIo): Promise<number> {
  const program = buildProgram(io);
  if (argv.length === 0) {
    io.stdout(program.helpInformation());
    return 0;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1;
    const verbose = argv.includes('-v') || argv.includes('--verbose');
    io.stderr(formatError(e, { verbose }));
    return 1;
  }
}
