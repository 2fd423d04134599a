import {
  DEFAULT_FEDERATED_GROUP,
  DEFAULT_FEDERATED_VERSION,
  KUBEFED_NAMESPACE_DEFAULT,
  normalizeKlogFlags,
  parseGoDuration,
} from '@kubefed/api';
import { stringify } from 'yaml';
import type { DynamicClient } from '@kubefed/client';
import tabtab from '@pnpm/tabtab';
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import path from 'node:path';
import { COMPLETE_FILES, completeWords } from './completion.js';
import { kubeconfigCompletionSources } from './completion-sources.js';
import { completionScript } from './completion-scripts.js';
import { join, validateJoinNames } from './commands/join.js';
import type { JoinResult } from './commands/join.js';
import { rotateToken } from './commands/rotate-token.js';
import { unjoin } from './commands/unjoin.js';
import type { UnjoinResult } from './commands/unjoin.js';
import { formatVersion } from './commands/version.js';
import { DEFAULT_TYPE_NAMES, applyEnable, enableType } from './commands/enable.js';
import type { EnableOptions, EnableResult } from './commands/enable.js';
import { parseEnableTypeDirectives } from './enable-directive.js';
import type { EnableRequest } from './enable-directive.js';
import { disableType } from './commands/disable.js';
import { addFederateCommand } from './commands/federate-command.js';
import { addDashboardCommand } from './commands/dashboard-command.js';
import { addMigrateCommand } from './commands/migrate.js';
import { orphaningDeletion } from './commands/orphaning.js';
import type { OrphaningAction } from './commands/orphaning.js';
import { explainRsp, formatPlanJson, formatPlanTable, parseClusterList, parseClusterNumbers, parseRspYaml } from './commands/plan.js';
import { gatherLivePlan } from './commands/plan-live.js';
import { formatStatus, gatherStatus, terminalPaint } from './commands/status.js';
import { syncLeastPrivilegeRoles } from './sync-least-privilege.js';
import { TypeNotFoundError } from './type-lookup.js';
import { UsageError } from './errors.js';
import fs from 'node:fs';
import type { BuildInfo } from './commands/version.js';
import { KubefedctlError } from './errors.js';
import type { Kubeconfig } from '@kubefed/client';
import type { FederatedTypeConfig } from '@kubefed/api';
import { clientForContext, contextDetails, loadKubeconfig, resolveContextName } from './kubeconfig-contexts.js';
import { Output, TRACE_VERBOSITY, formatError, levelForVerbosity, renderYamlDocuments } from './output.js';
import { normalizeVerbosityArgs, parseVerbosity } from './klog-verbosity.js';
import { cobraStyleHelp } from './help-format.js';
import type { CliIo } from './output.js';
import { describeObject } from './resources.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** The process-facing inputs of {@link run}. */
export interface RunIo extends CliIo {
  /** Version information for `kubefedctl version`; default: unknown commit/date. */
  buildInfo?: () => BuildInfo;
  /** Timeout of each API request in ms; default 20 000. */
  requestTimeoutMs?: number;
  /** Colour in tables (stdout is a terminal and NO_COLOR is unset); default false. */
  color?: boolean;
  /** Subscribes to an interrupt (SIGINT/SIGTERM) while a command runs until stopped (`status --watch`); returns the unsubscribe function. Default none. */
  onInterrupt?: (handler: () => void) => () => void;
  /** The name help and usage show (`kubectl kubefed` as the kubectl plugin: `invocationName` in help-format.ts); default `kubefedctl`. */
  programName?: string;
}

/** Options every command inherits (KubeFed's global flags). */
interface GlobalOptions {
  kubeconfig?: string;
  hostClusterContext?: string;
  kubefedNamespace: string;
  /** `--v=N` (klog verbosity). */
  v?: number;
  /** `--verbose` (and bare `-v`): the same as `--v=6`. */
  verbose?: boolean;
  /** `--dry-run`: mutating commands write nothing and print what they would do. */
  dryRun?: boolean;
}

interface JoinFlags {
  clusterContext?: string;
  hostClusterName?: string;
  secretName?: string;
  errorOnExisting: boolean;
  leastPrivilege?: boolean;
  clusterAdmin?: boolean;
  allowDuplicateEndpoint?: boolean;
  output?: 'yaml';
  timeout: number;
}

interface UnjoinFlags {
  clusterContext?: string;
  hostClusterName?: string;
  force?: boolean;
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

  # Name the host explicitly (the member's RBAC is limited to the enabled federated types)
  kubefedctl join member1 --cluster-context member1 --host-cluster-context host

  # Grant the control plane full access in the member, as KubeFed does
  kubefedctl join member1 --cluster-context member1 --cluster-admin

  # Show every object join would create, write nothing
  kubefedctl join member1 --cluster-context member1 --dry-run -o yaml

  # Re-run safely: update what differs, create what is missing
  kubefedctl join member1 --cluster-context member1 --error-on-existing=false

  # Register a cluster that is already joined as member1 under a second name (own service account and token)
  kubefedctl join member1-batch --cluster-context member1 --allow-duplicate-endpoint
`;

const UNJOIN_EXAMPLES = `
Examples:
  # Remove member1 (host side and member side)
  kubefedctl unjoin member1 --cluster-context member1

  # The member is gone for good: remove the host side anyway and list what stayed behind
  kubefedctl unjoin member1 --force

  # A join of member3 failed half-way (no KubeFedCluster): remove only member3's leftovers in the member
  kubefedctl unjoin member3 --cluster-context member3 --force
`;

function globalsOf(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions & Record<string, unknown>>();
}

/** The printer at the level the global flags ask for (see {@link levelForVerbosity}). */
function outputFor(globals: GlobalOptions, io: RunIo): Output {
  return new Output(io, levelForVerbosity(Math.max(globals.v ?? 0, globals.verbose === true ? TRACE_VERBOSITY : 0)));
}

function kubeconfigFor(globals: GlobalOptions, io: RunIo): Kubeconfig {
  return loadKubeconfig({ kubeconfig: globals.kubeconfig, KUBECONFIG: io.env['KUBECONFIG'], home: io.env['HOME'] });
}

function printJoin(result: JoinResult, flags: JoinFlags & { dryRun: boolean }, hostName: string, out: Output): void {
  const { names } = result;
  if (flags.dryRun && flags.output === 'yaml') {
    out.raw(
      renderYamlDocuments(
        result.plan.map((p) => {
          const lines = [
            `${p.side === 'host' ? 'host' : 'member'} cluster "${p.cluster}"${p.exists ? ' (exists: join updates it where it differs)' : ''}`,
          ];
          if (p.side === 'host' && p.object.kind === 'Secret')
            lines.push("data.token (and data.ca.crt) are copied from the member's token secret at join time");
          if (
            p.side === 'host' &&
            p.object.kind === 'KubeFedCluster' &&
            p.object.metadata.name !== undefined &&
            flags.secretName === undefined &&
            !p.exists
          )
            lines.push('secretRef.name is the generated name of the secret above');
          return { comment: lines.join('\n'), object: p.object };
        }),
      ),
    );
    return;
  }
  if (flags.dryRun) {
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

/** The command being run and the process's input and output. */
interface Invocation {
  readonly cmd: Command;
  readonly io: RunIo;
}

async function runJoin(cluster: string, flags: JoinFlags, at: Invocation): Promise<void> {
  const { cmd, io } = at;
  if (flags.clusterAdmin === true && flags.leastPrivilege === true)
    throw new UsageError('join: give either --cluster-admin or --least-privilege, not both');
  const globals = globalsOf(cmd);
  const out = outputFor(globals, io);
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
    const dryRun = globals.dryRun === true || flags.output === 'yaml';
    const result = await join(
      {
        cluster,
        hostClusterName: hostName,
        kubefedNamespace: globals.kubefedNamespace,
        secretName: flags.secretName,
        errorOnExisting: flags.errorOnExisting,
        dryRun,
        access: flags.clusterAdmin === true ? 'clusterAdmin' : flags.leastPrivilege === true ? 'leastPrivilege' : undefined,
        allowDuplicateEndpoint: flags.allowDuplicateEndpoint === true,
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

async function runRotateToken(cluster: string, flags: { clusterContext?: string }, at: Invocation): Promise<void> {
  const { cmd, io } = at;
  const globals = globalsOf(cmd);
  const out = outputFor(globals, io);
  const kubeconfig = kubeconfigFor(globals, io);
  const hostContext = resolveContextName(kubeconfig, globals.hostClusterContext, '--host-cluster-context');
  const memberContext = resolveContextName(kubeconfig, flags.clusterContext ?? cluster, '--cluster-context');
  const timeoutMs = io.requestTimeoutMs ?? 20_000;
  using host = clientForContext(kubeconfig, hostContext, { clusterName: hostContext, timeoutMs });
  using member = clientForContext(kubeconfig, memberContext, { clusterName: cluster, timeoutMs });
  const result = await rotateToken({ cluster, kubefedNamespace: globals.kubefedNamespace }, { host, member }, out);
  out.info(`rotated the token of cluster "${cluster}": the old token is revoked, the new one is in host secret ${result.hostSecret}`);
}

async function runUnjoin(cluster: string, flags: UnjoinFlags, at: Invocation): Promise<void> {
  const { cmd, io } = at;
  const globals = globalsOf(cmd);
  const out = outputFor(globals, io);
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
        dryRun: globals.dryRun === true,
      },
      { host, member, memberProblem },
      out,
    );
    printUnjoin(result, globals.dryRun === true, hostName, out);
  } finally {
    for (const c of clients) c.close();
  }
}

interface EnableFlags {
  defaultTypes?: boolean;
  federatedGroup: string;
  federatedVersion: string;
  version?: string;
  output?: 'yaml';
  filename?: string;
}

interface DisableFlags {
  deleteCrd?: boolean;
  keepFtc?: boolean;
  federatedGroup?: string;
  version?: string;
}

interface PlanFlags {
  namespace?: string;
  filename?: string;
  clusters?: string;
  current?: string;
  capacity?: string;
  key?: string;
  output?: 'json' | 'table';
}

const ENABLE_EXAMPLES = `
Examples:
  # Federate Deployments: creates federateddeployments.types.kubefed.io and FTC deployments.apps
  kubefedctl enable deployments.apps

  # Enable KubeFed's default set of types
  kubefedctl enable --default-types

  # Print the FederatedTypeConfig and the CRD, write nothing
  kubefedctl enable configmaps -o yaml

  # Enable the type of a KubeFed EnableTypeDirective file
  kubefedctl enable -f config/enabletypedirectives/deployments.apps.yaml

  # Show what enable would write, write nothing
  kubefedctl enable deployments.apps --dry-run
`;

const DISABLE_EXAMPLES = `
Examples:
  # Stop propagating Deployments and delete the FTC deployments.apps (the CRD stays)
  kubefedctl disable deployments.apps

  # Stop propagating Deployments but keep the FTC, with propagation Disabled
  kubefedctl disable deployments.apps --keep-ftc

  # Also remove the FederatedDeployment CRD (refused while FederatedDeployments exist)
  kubefedctl disable deployments.apps --delete-crd

  # Show what disable would do, change nothing
  kubefedctl disable deployments.apps --dry-run
`;

const PLAN_EXAMPLES = `
Examples:
  # How would the RSP web in namespace demo divide its replicas right now?
  kubefedctl plan web -n demo

  # Offline, from a file: three clusters, 3 replicas running in a, capacity 5 in b
  kubefedctl plan -f rsp.yaml --clusters a,b,c --current a=3 --capacity b=5 -o json
`;

function hostClient(
  cmd: Command,
  io: RunIo,
): { globals: GlobalOptions; out: Output; kubeconfig: Kubeconfig; hostContext: string; host: DynamicClient } {
  const globals = globalsOf(cmd);
  const out = outputFor(globals, io);
  const kubeconfig = kubeconfigFor(globals, io);
  const hostContext = resolveContextName(kubeconfig, globals.hostClusterContext, '--host-cluster-context');
  const host = clientForContext(kubeconfig, hostContext, { timeoutMs: io.requestTimeoutMs ?? 20_000 });
  out.debug(`host context "${hostContext}" (${host.server})`);
  return { globals, out, kubeconfig, hostContext, host };
}

/** Least-privilege member roles follow the FTCs, plus `pending` ones about to be written (see `syncLeastPrivilegeRoles`). */
async function keepLeastPrivilegeInStep(
  ctx: ReturnType<typeof hostClient>,
  io: RunIo,
  pending?: readonly FederatedTypeConfig[],
): Promise<void> {
  const names = new Set(ctx.kubeconfig.contexts().map((c) => c.name));
  await syncLeastPrivilegeRoles(
    ctx.host,
    {
      kubefedNamespace: ctx.globals.kubefedNamespace,
      hostClusterName: ctx.hostContext,
      timeoutMs: io.requestTimeoutMs ?? 20_000,
      pendingFtcs: pending,
      adminClientFor: (cluster) =>
        names.has(cluster) ? clientForContext(ctx.kubeconfig, cluster, { timeoutMs: io.requestTimeoutMs ?? 20_000 }) : undefined,
    },
    ctx.out,
  );
}

/** The types `enable` was asked for: the argument, `--default-types` or the directives of `-f`. */
function enableRequests(type: string | undefined, flags: EnableFlags, cmd: Command): EnableRequest[] {
  if (flags.filename !== undefined) {
    const given = ['federatedGroup', 'federatedVersion', 'version', 'defaultTypes'].filter((o) => cmd.getOptionValueSource(o) === 'cli');
    if (type !== undefined || given.length > 0) {
      throw new UsageError(
        'enable -f: the type and its versions come from the file; give no type, --default-types, --version, --federated-group or --federated-version with it',
      );
    }
    return parseEnableTypeDirectives(readFileArg(flags.filename), flags.filename);
  }
  if (flags.defaultTypes === true && type !== undefined) throw new UsageError('enable: give either a type or --default-types, not both');
  if (flags.defaultTypes !== true && type === undefined) {
    throw new UsageError('enable: a type is required', {
      hint: 'e.g. kubefedctl enable deployments.apps, kubefedctl enable --default-types or kubefedctl enable -f <directive.yaml>',
    });
  }
  return (type === undefined ? DEFAULT_TYPE_NAMES : [type]).map((t) => ({
    type: t,
    targetVersion: flags.version,
    federatedGroup: flags.federatedGroup,
    federatedVersion: flags.federatedVersion,
  }));
}

/** The text of a file named on the command line, or a UsageError naming it. */
function readFileArg(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`-f ${file}: cannot read the file: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function runEnable(type: string | undefined, flags: EnableFlags, at: Invocation): Promise<void> {
  const { cmd, io } = at;
  const requests = enableRequests(type, flags, cmd);
  const ctx = hostClient(cmd, io);
  try {
    const dryRun = ctx.globals.dryRun === true || flags.output === 'yaml';
    const optionsOf = (r: EnableRequest): EnableOptions => ({
      ...r,
      kubefedNamespace: ctx.globals.kubefedNamespace,
      targetVersion: r.targetVersion,
      dryRun,
    });
    const results: { request: EnableRequest; result: EnableResult }[] = [];
    const missing: string[] = [];
    for (const request of requests) {
      try {
        results.push({ request, result: await enableType(ctx.host, request.type, { ...optionsOf(request), dryRun: true }, ctx.out) });
      } catch (e) {
        // --default-types carries on past a type the host does not serve, and fails at the end.
        if (!(e instanceof TypeNotFoundError) || flags.defaultTypes !== true) throw e;
        ctx.out.warn(`skipping ${request.type}: the host does not serve it`);
        missing.push(request.type);
      }
    }
    if (flags.output === 'yaml') {
      ctx.out.raw(
        results.map(({ result: r }) => `---\n${stringify(r.ftc, { lineWidth: 0 })}---\n${stringify(r.crd, { lineWidth: 0 })}`).join(''),
      );
      return;
    }
    await applyEnables(
      ctx,
      io,
      results.map((r) => ({ result: r.result, options: optionsOf(r.request) })),
      dryRun,
    );
    if (missing.length > 0) {
      throw new KubefedctlError(
        `enabled ${results.length} of ${DEFAULT_TYPE_NAMES.length} default types; the host does not serve: ${missing.join(', ')}`,
        {
          hint: 'list the served types with "kubectl api-resources"',
        },
      );
    }
  } finally {
    ctx.host.close();
  }
}

/** Writes the computed objects (or, in a dry run, prints what it would write), keeping least-privilege roles in step. */
async function applyEnables(
  ctx: ReturnType<typeof hostClient>,
  io: RunIo,
  work: { result: EnableResult; options: EnableOptions }[],
  dryRun: boolean,
): Promise<void> {
  if (dryRun) {
    for (const w of work) await applyEnable(ctx.host, w.result, w.options, ctx.out);
    ctx.out.info('dry run: nothing was written');
    return;
  }
  // Grant first: the controller manager watches a type in the members as soon as its FTC is Enabled.
  await keepLeastPrivilegeInStep(
    ctx,
    io,
    work.map((w) => w.result.ftc),
  );
  let applied = 0;
  try {
    for (const w of work) {
      await applyEnable(ctx.host, w.result, w.options, ctx.out);
      applied++;
    }
  } finally {
    // Take back the grants of types whose FTC was not written.
    if (applied < work.length) await keepLeastPrivilegeInStep(ctx, io);
  }
}

async function runDisable(type: string, flags: DisableFlags, at: Invocation): Promise<void> {
  const { cmd, io } = at;
  if (flags.deleteCrd !== true && flags.version !== undefined) throw new UsageError('--version flag valid only with --delete-crd');
  if (flags.deleteCrd !== true && flags.federatedGroup !== undefined)
    throw new UsageError('--federated-group flag valid only with --delete-crd');
  if (flags.deleteCrd === true && flags.keepFtc === true)
    throw new UsageError('give either --keep-ftc or --delete-crd, not both', {
      hint: 'the CRD is only deleted together with its FederatedTypeConfig',
    });
  const ctx = hostClient(cmd, io);
  const dryRun = ctx.globals.dryRun === true;
  try {
    await disableType(
      ctx.host,
      type,
      {
        kubefedNamespace: ctx.globals.kubefedNamespace,
        deleteCrd: flags.deleteCrd === true,
        keepFtc: flags.keepFtc === true,
        dryRun,
        federatedGroup: flags.federatedGroup,
        targetVersion: flags.version,
      },
      ctx.out,
    );
    if (dryRun) ctx.out.info('dry run: nothing was written');
    else await keepLeastPrivilegeInStep(ctx, io);
  } finally {
    ctx.host.close();
  }
}

async function runOrphaning(
  action: OrphaningAction,
  target: { type: string; name: string; flags: { namespace?: string } },
  at: Invocation,
): Promise<void> {
  const { type, name, flags } = target;
  const { cmd, io } = at;
  const ctx = hostClient(cmd, io);
  try {
    const dryRun = ctx.globals.dryRun === true && action !== 'status';
    await orphaningDeletion(
      ctx.host,
      { action, type, name, namespace: flags.namespace ?? ctx.host.defaultNamespace ?? 'default', dryRun },
      ctx.out,
    );
    if (dryRun) ctx.out.info('dry run: nothing was written');
  } finally {
    ctx.host.close();
  }
}

async function runPlan(rspName: string | undefined, flags: PlanFlags, at: Invocation): Promise<void> {
  const { cmd, io } = at;
  const globals = globalsOf(cmd);
  const out = outputFor(globals, io);
  let explanation;
  if (flags.filename !== undefined) {
    if (rspName !== undefined) throw new UsageError('plan: give either an RSP name or -f <file>, not both');
    if (flags.clusters === undefined)
      throw new UsageError('plan -f: --clusters is required (the available clusters, e.g. --clusters a,b,c)');
    let text: string;
    try {
      text = fs.readFileSync(flags.filename, 'utf8');
    } catch (e) {
      throw new UsageError(`-f ${flags.filename}: cannot read the file: ${e instanceof Error ? e.message : String(e)}`);
    }
    const rsp = parseRspYaml(text, flags.filename);
    const available = parseClusterList(flags.clusters);
    const current = flags.current === undefined ? undefined : parseClusterNumbers(flags.current, '--current');
    const capacity = flags.capacity === undefined ? undefined : parseClusterNumbers(flags.capacity, '--capacity');
    const ns = rsp.metadata.namespace ?? flags.namespace ?? 'default';
    explanation = explainRsp(rsp, { available, current, capacity, key: flags.key ?? `${ns}/${rsp.metadata.name ?? ''}` });
  } else {
    if (rspName === undefined) throw new UsageError('plan: an RSP name (live) or -f <file> (offline) is required');
    for (const f of ['clusters', 'current', 'capacity'] as const) {
      if (flags[f] !== undefined) throw new UsageError(`--${f} is only valid with -f (offline planning)`);
    }
    const ctx = hostClient(cmd, io);
    try {
      const live = await gatherLivePlan(
        ctx.host,
        {
          name: rspName,
          namespace: flags.namespace ?? ctx.host.defaultNamespace ?? 'default',
          kubefedNamespace: ctx.globals.kubefedNamespace,
        },
        ctx.out,
      );
      explanation = explainRsp(live.rsp, flags.key === undefined ? live.clusters : { ...live.clusters, key: flags.key });
    } finally {
      ctx.host.close();
    }
  }
  out.raw(flags.output === 'json' ? formatPlanJson(explanation) : formatPlanTable(explanation));
}

interface StatusFlags {
  namespace?: string;
  allNamespaces?: boolean;
  watch?: boolean;
  interval: number;
  output?: 'wide' | 'json';
}

const STATUS_EXAMPLES = `
Examples:
  # Every federated object in the current namespace, by cluster
  kubefedctl status

  # One type everywhere, with per-cluster rows, remote status and placement
  kubefedctl status deployments -A -o wide

  # One object, redrawn whenever it changes (Ctrl-C to stop)
  kubefedctl status federateddeployments web -n demo --watch

  # Machine-readable: {"items": [{kind, namespace, name, generation, observedGeneration,
  #   propagation, reason, placement, clusters: [{name, status, remote}]}]}
  kubefedctl status -A -o json

Cluster status values: OK; Pending (placed, not reported yet); NotJoined (no such KubeFedCluster); KubeFed's reasons such as
CreationFailed, UpdateFailed, ClusterNotReady, AlreadyExists, ApplyOverridesFailed,
WaitingForRemoval (see docs/troubleshooting.md).
`;

async function runStatus(
  target: { type: string | undefined; name: string | undefined },
  flags: StatusFlags,
  at: Invocation,
): Promise<void> {
  const { type, name } = target;
  const { cmd, io } = at;
  if (flags.namespace !== undefined && flags.allNamespaces === true)
    throw new UsageError('status: give either -n <namespace> or -A, not both');
  const ctx = hostClient(cmd, io);
  const namespace = flags.allNamespaces === true ? undefined : (flags.namespace ?? ctx.host.defaultNamespace ?? 'default');
  const render = async (): Promise<string> => {
    const objects = await gatherStatus(ctx.host, { kubefedNamespace: ctx.globals.kubefedNamespace, type, name, namespace });
    if (flags.output === 'json') return `${JSON.stringify({ items: objects }, null, 2)}\n`;
    return formatStatus(objects, {
      wide: flags.output === 'wide',
      allNamespaces: namespace === undefined,
      ...(io.color === true ? { paint: terminalPaint } : {}),
    });
  };
  try {
    let last = await render();
    ctx.out.raw(last);
    if (flags.watch !== true) return;
    const stop = new AbortController();
    const off = io.onInterrupt?.(() => stop.abort()) ?? (() => {});
    try {
      for (;;) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, flags.interval);
          stop.signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
        if (stop.signal.aborted) break;
        const next = await render();
        if (next === last) continue;
        last = next;
        // On a terminal the table is redrawn in place; otherwise each version follows the last.
        ctx.out.raw(io.color === true ? `\x1b[2J\x1b[H${next}` : `--- ${new Date().toISOString()}\n${next}`);
      }
    } finally {
      off();
    }
  } finally {
    ctx.host.close();
  }
}

/** Builds the commander program; actions write through `io`. Exposed for help-text tests. */
export function buildProgram(io: RunIo): Command {
  const program = rootCommand(io);
  addJoinCommand(program, io);
  addUnjoinCommand(program, io);
  addRotateTokenCommand(program, io);
  addEnableCommand(program, io);
  addDisableCommand(program, io);
  addFederateCommand(program, {
    output: (cmd) => outputFor(globalsOf(cmd), io),
    connect: (cmd) => {
      const ctx = hostClient(cmd, io);
      return {
        host: ctx.host,
        out: ctx.out,
        kubefedNamespace: ctx.globals.kubefedNamespace,
        dryRun: ctx.globals.dryRun === true,
        leastPrivilege: (pending) => keepLeastPrivilegeInStep(ctx, io, pending),
      };
    },
    readStdin: () => fs.readFileSync(0, 'utf8'),
  });
  addDashboardCommand(program, {
    connect: (cmd) => {
      const ctx = hostClient(cmd, io);
      return { host: ctx.host, out: ctx.out, kubefedNamespace: ctx.globals.kubefedNamespace };
    },
    onInterrupt: io.onInterrupt,
  });
  addMigrateCommand(program, {
    connect: (cmd) => {
      const ctx = hostClient(cmd, io);
      return { host: ctx.host, out: ctx.out, kubefedNamespace: ctx.globals.kubefedNamespace, dryRun: ctx.globals.dryRun === true };
    },
  });
  addOrphaningCommands(program, io);
  addPlanCommand(program, io);
  addStatusCommand(program, io);
  addVersionCommand(program, io);
  addCompletionCommands(program, io);
  return program;
}

/** The `kubefedctl` command with its global flags, writing to `io`, with our `Error: <message>` form. */
function rootCommand(io: RunIo): Command {
  return new Command(io.programName ?? 'kubefedctl')
    .configureHelp(cobraStyleHelp())
    .description(
      'kubefedctl controls a KubeFed-compatible federation control plane: it joins member clusters, enables federated types, shows where federated objects landed and explains replica scheduling.',
    )
    .option('--kubeconfig <path>', 'kubeconfig file to use (default: the files in KUBECONFIG, else ~/.kube/config)')
    .option('--host-cluster-context <context>', 'kubeconfig context of the host cluster (default: the current context)')
    .option('--kubefed-namespace <namespace>', 'namespace of the KubeFed control plane', KUBEFED_NAMESPACE_DEFAULT)
    .addOption(
      new Option(
        '-v, --v <level>',
        'log verbosity, as klog takes it (--v=2, -v 2): 2 and above print debug lines, 6 and above also stack traces of errors',
      ).argParser(parseVerbosity),
    )
    .option('--verbose', 'the same as --v=6 (bare -v means this too)')
    .option(
      '--dry-run',
      'only read: join, unjoin, enable, disable, federate, migrate and orphaning-deletion enable|disable print what they would do and write nothing (other commands write nothing anyway)',
    )
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderr(s),
      // commander's own messages follow our `Error: <message>` form too.
      outputError: (s, write) => write(s.replace(/^error: /, 'Error: ')),
    })
    .showHelpAfterError('hint: run the command with --help for its usage');
}

/** `kubefedctl join`. */
function addJoinCommand(program: Command, io: RunIo): void {
  program
    .command('join')
    .description(
      'Register a cluster as a member of the federation: create a service account with its token and least-privilege RBAC (or full access with --cluster-admin) in the member, and a Secret and KubeFedCluster in the host.',
    )
    .argument('<cluster-name>', 'name of the joining cluster (becomes the KubeFedCluster name)')
    .option('--cluster-context <context>', 'kubeconfig context of the joining cluster (default: the cluster name)')
    .option('--host-cluster-name <name>', 'host name used in generated names (default: the host context name); may not contain "/" or ":"')
    .option('--secret-name <name>', 'name of the host Secret holding the member token (default: generated <cluster-name>-xxxxx)')
    .addOption(
      new Option(
        '--error-on-existing [bool]',
        'fail when the cluster is already (partly) joined; false: update what differs and create what is missing',
      )
        .default(true)
        .preset('true')
        .argParser(parseBool),
    )
    .option(
      '--cluster-admin',
      "grant the control plane full access in the member (KubeFed's every verb on every resource) instead of least privilege; a re-join without a flag keeps the access the join has",
    )
    .option(
      '--least-privilege',
      "the default for a new join: grant only the enabled federated types, the pod reads of the replica scheduler and the health checks (enable/disable keep the role in step); on a re-join, reduces a join that has full access. Not a bound while RBAC or Secret types are enabled (KubeFed's default types include them): the token can then bind cluster-admin to itself, and join warns",
    )
    .option(
      '--allow-duplicate-endpoint',
      'join even if this host already has the cluster under another KubeFedCluster name (same API endpoint); without it join refuses and writes nothing',
    )
    .addOption(new Option('-o, --output <format>', 'print the objects instead of creating them (implies --dry-run)').choices(['yaml']))
    .addOption(
      new Option('--timeout <duration>', "how long to wait for the member's token controller")
        .default(30_000, '30s')
        .argParser(parseTimeout),
    )
    .addHelpText('after', JOIN_EXAMPLES)
    .action(async (cluster: string, flags: JoinFlags, cmd: Command) => runJoin(cluster, flags, { cmd, io }));
}

/** `kubefedctl unjoin`. */
function addUnjoinCommand(program: Command, io: RunIo): void {
  program
    .command('unjoin')
    .description(
      "Remove a member cluster: delete its KubeFedCluster and Secret in the host, and the service account, roles, bindings and token Secret this cluster's join created in the member (which revokes the token); the member's kubefed namespace only when join created it and no other join uses it. A name without a KubeFedCluster is refused.",
    )
    .argument('<cluster-name>', 'name of the cluster to remove')
    .option('--cluster-context <context>', 'kubeconfig context of the cluster to remove (default: the cluster name)')
    .option('--host-cluster-name <name>', 'host name used in generated names at join time (default: the host context name)')
    .option(
      '--force',
      "carry on when the member is unreachable: remove the host side and report what stayed in the member; for a name that is not joined (no KubeFedCluster), remove that name's leftover objects in the member (never another join's)",
    )
    .addHelpText('after', UNJOIN_EXAMPLES)
    .action(async (cluster: string, flags: UnjoinFlags, cmd: Command) => runUnjoin(cluster, flags, { cmd, io }));
}

/** `kubefedctl rotate-token`. */
function addRotateTokenCommand(program: Command, io: RunIo): void {
  program
    .command('rotate-token')
    .summary('Give a joined cluster a new token and revoke the old one')
    .description(
      "Give a joined cluster a new member token and revoke the old one: re-create the token Secret of the join's ServiceAccount in the member and write the new token into the host Secret of its KubeFedCluster (RBAC and the KubeFedCluster stay as they are). The cluster is unreachable for the few seconds in between.",
    )
    .argument('<cluster-name>', 'name of the joined cluster')
    .option('--cluster-context <context>', 'kubeconfig context of the member cluster (default: the cluster name)')
    .addHelpText(
      'after',
      '\nExamples:\n  # Rotate the token of member1, for instance on a schedule or when a copy may have leaked\n  kubefedctl rotate-token member1 --cluster-context member1\n',
    )
    .action(async (cluster: string, flags: { clusterContext?: string }, cmd: Command) => runRotateToken(cluster, flags, { cmd, io }));
}

/** `kubefedctl enable`. */
function addEnableCommand(program: Command, io: RunIo): void {
  program
    .command('enable')
    .description(
      'Enable federation of a type: create the Federated<Kind> CRD and the FederatedTypeConfig in the host (the type is looked up by plural, plural.group, singular, short name or kind).',
    )
    .argument('[type]', 'the target type, e.g. deployments.apps')
    .option(
      '--default-types',
      "enable KubeFed's default set of types; they include clusterroles, clusterrolebindings and secrets, which let a least-privilege member token grant itself cluster-admin (enable warns)",
    )
    .option(
      '-f, --filename <file>',
      'enable the types of KubeFed EnableTypeDirectives in this YAML file (the type and versions come from the file)',
    )
    .option('--federated-group <group>', 'API group of the federated type', DEFAULT_FEDERATED_GROUP)
    .option('--federated-version <version>', 'API version of the federated type', DEFAULT_FEDERATED_VERSION)
    .option('--version <version>', "version of the target type (default: the group's preferred version)")
    .addOption(
      new Option('-o, --output <format>', 'print the FederatedTypeConfig and CRD instead of writing them (implies --dry-run)').choices([
        'yaml',
      ]),
    )
    .addHelpText('after', ENABLE_EXAMPLES)
    .action(async (type: string | undefined, flags: EnableFlags, cmd: Command) => runEnable(type, flags, { cmd, io }));
}

/** `kubefedctl disable`. */
function addDisableCommand(program: Command, io: RunIo): void {
  program
    .command('disable')
    .description(
      'Disable propagation of a federated type: set spec.propagation Disabled, wait for the controller to stop, then delete the FederatedTypeConfig (the federated CRD, federated objects and member objects stay); --delete-crd also deletes the CRD.',
    )
    .argument('<type>', 'the FTC name (e.g. deployments.apps) or a type name to look up')
    .option('--delete-crd', 'also delete the federated CRD (refused while federated objects of the type exist)')
    .option(
      '--keep-ftc',
      'keep the FederatedTypeConfig, with propagation Disabled, instead of deleting it (re-enable by setting propagation: Enabled)',
    )
    .option(
      '--federated-group <group>',
      'group of the federated CRD when the FTC is missing (only with --delete-crd; default types.kubefed.io)',
    )
    .option('--version <version>', 'version of the target type for the lookup (only with --delete-crd)')
    .addHelpText('after', DISABLE_EXAMPLES)
    .action(async (type: string, flags: DisableFlags, cmd: Command) => runDisable(type, flags, { cmd, io }));
}

/** `kubefedctl orphaning-deletion enable|disable|status`. */
function addOrphaningCommands(program: Command, io: RunIo): void {
  const orphaning = program
    .command('orphaning-deletion')
    .summary('Keep or delete the member objects with a federated object')
    .description(
      'Manage the kubefed.io/orphan annotation of a federated object: when enabled, deleting it leaves its member objects in place.',
    );
  for (const action of ['enable', 'disable', 'status'] as const) {
    const what = {
      enable: 'Keep the member objects when the federated object is deleted',
      disable: 'Delete the member objects with the federated object (the default)',
      status: 'Print Enabled or Disabled',
    }[action];
    orphaning
      .command(action)
      .description(what)
      .argument('<federated-type>', 'the federated type, e.g. federateddeployments')
      .argument('<name>', 'the federated object')
      .option('-n, --namespace <namespace>', "namespace of the object (default: the context's namespace, else default)")
      .action(async (type: string, name: string, flags: { namespace?: string }, cmd: Command) =>
        runOrphaning(action, { type, name, flags }, { cmd, io }),
      );
  }
}

/** `kubefedctl plan`. */
function addPlanCommand(program: Command, io: RunIo): void {
  program
    .command('plan')
    .summary('Explain how a ReplicaSchedulingPreference divides replicas')
    .description(
      'Show how a ReplicaSchedulingPreference divides its replicas, and why: live (the RSP, Ready clusters and member workloads) or offline from a file.',
    )
    .argument('[rsp]', 'name of the ReplicaSchedulingPreference (live mode)')
    .option('-n, --namespace <namespace>', "namespace of the RSP (default: the context's namespace, else default)")
    .option('-f, --filename <file>', 'offline: read the RSP from this YAML file (no cluster access)')
    .option('--clusters <names>', 'offline: the available clusters, comma separated')
    .option('--current <pairs>', 'offline: replicas running per cluster, e.g. a=3,b=1')
    .option('--capacity <pairs>', 'offline: estimated capacity per cluster, e.g. a=5')
    .option('--key <key>', 'tie-break key (default: <namespace>/<name> of the RSP, as the controller uses)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .addHelpText('after', PLAN_EXAMPLES)
    .action(async (rsp: string | undefined, flags: PlanFlags, cmd: Command) => runPlan(rsp, flags, { cmd, io }));
}

/** `kubefedctl status`. */
function addStatusCommand(program: Command, io: RunIo): void {
  program
    .command('status')
    .description("Show federated objects by member cluster: the Propagation condition, each cluster's status and what its members report")
    .argument(
      '[type]',
      'a federated type: FTC name (deployments.apps), kind or plural of the federated or target type; default every enabled type',
    )
    .argument('[name]', 'one object of that type')
    .option('-n, --namespace <namespace>', "namespace to list (default: the context's namespace, else default)")
    .option('-A, --all-namespaces', 'list every namespace')
    .option('-w, --watch', 'keep running and print the table again whenever it changes')
    .addOption(new Option('--interval <duration>', 'how often --watch looks (Go duration)').argParser(parseTimeout).default(2000, '2s'))
    .addOption(
      new Option('-o, --output <format>', 'wide: a row per cluster with remote status and placement; json: machine-readable').choices([
        'wide',
        'json',
      ]),
    )
    .addHelpText('after', STATUS_EXAMPLES)
    .action(async (type: string | undefined, name: string | undefined, flags: StatusFlags, cmd: Command) =>
      runStatus({ type, name }, flags, { cmd, io }),
    );
}

/** `kubefedctl version`. */
function addVersionCommand(program: Command, io: RunIo): void {
  program
    .command('version')
    .summary('Print the version of kubefedctl')
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
}

const COMPLETION_EXAMPLES = `
Examples:
  # bash: load completion in this shell, or for every new one
  source <(kubefedctl completion bash)
  kubefedctl completion bash > /etc/bash_completion.d/kubefedctl

  # zsh
  source <(kubefedctl completion zsh)

  # fish
  kubefedctl completion fish > ~/.config/fish/completions/kubefedctl.fish
`;

/**
 * The fish script. @pnpm/tabtab's passes the tokens without the empty word being started and
 * reads the cursor with \`commandline -C\`, which is empty inside \`complete -C\`: it cannot tell
 * \`kubefedctl dis\` from \`kubefedctl dis \`. This one passes the tokens before the cursor and
 * the current token (empty after a space), and the index of that token.
 */
const FISH_COMPLETION_SCRIPT = `# kubefedctl completion for fish: kubefedctl completion fish > ~/.config/fish/completions/kubefedctl.fish
function __kubefedctl_complete
    set -l tokens (commandline -opc) (commandline -ct)
    set -l cword (math (count $tokens) - 1)
    set -l answers (env COMP_CWORD=$cword SHELL=fish kubefedctl completion-server -- $tokens)
    if test "$answers" = __tabtab_complete_files__
        __fish_complete_path (commandline -ct)
    else
        printf '%s\\n' $answers
    end
end
complete -c kubefedctl -f -a '(__kubefedctl_complete)'`;

/**
 * \`completion <shell>\` prints the script (bash and zsh from @pnpm/tabtab's templates, fish
 * {@link FISH_COMPLETION_SCRIPT}); the script calls the hidden \`completion-server -- <words>\`
 * with COMP_CWORD/SHELL set, which answers from the program tree ({@link completeWords}).
 */
function addCompletionCommands(program: Command, io: RunIo): void {
  program
    .command('completion')
    .description(
      'Print the shell completion script for bash, zsh or fish: subcommands, flags, kubeconfig contexts and federated type names',
    )
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText('after', COMPLETION_EXAMPLES)
    .action((shell: Shell) => {
      const script = shell === 'fish' ? FISH_COMPLETION_SCRIPT : completionScript(shell, 'kubefedctl');
      io.stdout(`${script}\n`);
    });
  program
    .command('completion-server', { hidden: true })
    .description('Answer a completion request of the completion script')
    .argument('[words...]', 'the words of the command line, the program name first')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (words: string[]) => {
      const shell = SHELLS.find((s) => s === path.basename(io.env['SHELL'] ?? '')) ?? 'bash';
      const cword = Number(io.env['COMP_CWORD'] ?? words.length - 1);
      const typed = words.slice(1, Math.max(1, cword + 1));
      while (typed.length < cword) typed.push('');
      const values = await completeWords(program, typed, kubeconfigCompletionSources(io.env));
      if (values === COMPLETE_FILES) io.stdout('__tabtab_complete_files__\n');
      // bash replaces only the part of the word after `=`: give it the value alone.
      else
        tabtab.log(shell === 'bash' ? values.map((v) => ({ ...v, name: v.name.replace(/^--[^=]*=/, '') })) : values, shell, (line) =>
          io.stdout(`${line}\n`),
        );
    });
}

/**
 * Runs kubefedctl with `argv` (the arguments after the program name) and returns the exit code:
 * 0 on success (and for help), 1 on any failure. Failures print `Error: <cause>` and, when
 * known, `hint: <hint>` to stderr (stack traces only at `--v=6` or bare `-v`); usage errors print
 * commander's message in the same form. Never throws, never exits.
 */
export async function run(argv: readonly string[], io: RunIo): Promise<number> {
  const program = buildProgram(io);
  if (argv.length === 0) {
    io.stdout(program.helpInformation());
    return 0;
  }
  // KubeFed's cobra/klog spellings (`--host_cluster_context`, `--logtostderr`, ...), not for the completion script's words.
  const klog = argv[0] === 'completion-server' ? { argv: [...argv], deprecation: undefined } : normalizeKlogFlags(argv);
  if (klog.deprecation !== undefined) io.stderr(`warning: ${klog.deprecation}\n`);
  try {
    await program.parseAsync(normalizeVerbosityArgs(klog.argv), { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1;
    io.stderr(formatError(e, { verbose: outputFor(program.opts<GlobalOptions>(), io).level === 'trace' }));
    return 1;
  }
}
