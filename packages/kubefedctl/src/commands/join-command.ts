import { MIN_TOKEN_LIFETIME_SECONDS, type DynamicClient } from '@kubefed/client';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { parseBool, parseTimeout } from '../flag-parsers.js';
import { contextDetails, resolveContextName } from '../kubeconfig-contexts.js';
import { type Output, renderYamlDocuments } from '../output.js';
import { changeLine, kubectlRef } from '../resources.js';
import { join, type JoinResult, validateJoinNames } from './join.js';

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
  tokenLifetime?: number;
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

  # A member token that expires after 7 days and that the control plane renews (no legacy token Secret)
  kubefedctl join member1 --cluster-context member1 --token-lifetime 168h

  # Re-run safely: update what differs, create what is missing
  kubefedctl join member1 --cluster-context member1 --error-on-existing=false

  # Register a cluster that is already joined as member1 under a second name (own service account and token)
  kubefedctl join member1-batch --cluster-context member1 --allow-duplicate-endpoint
`;

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
            lines.push(
              flags.tokenLifetime === undefined
                ? "data.token (and data.ca.crt) are copied from the member's token secret at join time"
                : 'data.token is a token the member issues at join time (TokenRequest), renewed by the control plane',
            );
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
      // kubectl apply's words: `configured` for an object that exists (updated where it differs).
      out.info(changeLine(kubectlRef(p.object), p.exists ? 'configured' : 'created', p.cluster, true));
    }
    out.info(`dry run: nothing was written`);
    return;
  }
  for (const a of result.actions) out.info(changeLine(a.object, a.verb, a.cluster));
  out.info(`cluster "${names.cluster}" joined host cluster "${hostName}" (KubeFedCluster ${names.namespace}/${names.cluster})`);
}

/** `--token-lifetime`: a duration of whole seconds, at least the 10 minutes TokenRequest grants. */
function parseTokenLifetime(value: string): number {
  const ms = parseTimeout(value);
  if (ms < MIN_TOKEN_LIFETIME_SECONDS * 1000 || ms % 1000 !== 0)
    throw new InvalidArgumentError('expected a duration of whole seconds of at least 10m, such as 24h or 168h.');
  return ms;
}

async function runJoin(cluster: string, flags: JoinFlags, cmd: Command, ctx: CommandContext): Promise<void> {
  if (flags.clusterAdmin === true && flags.leastPrivilege === true)
    throw new UsageError('join: give either --cluster-admin or --least-privilege, not both');
  const globals = ctx.globals(cmd);
  const out = ctx.outputFor(globals);
  const kubeconfig = ctx.kubeconfig(cmd);
  const hostContext = resolveContextName(kubeconfig, globals.hostClusterContext, '--host-cluster-context');
  const hostName = flags.hostClusterName ?? hostContext;
  validateJoinNames(cluster, hostName, flags.hostClusterName !== undefined);
  const memberContext = resolveContextName(kubeconfig, flags.clusterContext ?? cluster, '--cluster-context');
  const details = contextDetails(kubeconfig, memberContext);
  const clients: DynamicClient[] = [];
  try {
    const host = ctx.client(kubeconfig, hostContext, hostName);
    clients.push(host);
    const member = ctx.client(kubeconfig, memberContext, cluster);
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
        tokenLifetimeSeconds: flags.tokenLifetime === undefined ? undefined : flags.tokenLifetime / 1000,
      },
      { host, hostContext, member, memberContext: details },
      out,
    );
    printJoin(result, { ...flags, dryRun }, hostName, out);
  } finally {
    for (const c of clients) c.close();
  }
}

/** Registers `kubefedctl join` (docs/kubefed-compatibility.md §3.2) on `program`. */
export function addJoinCommand(program: Command, ctx: CommandContext): void {
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
    .addOption(
      new Option(
        '--token-lifetime <duration>',
        "give the control plane a token of the member's service account that expires after this long (TokenRequest, at least 10m, e.g. 168h) and that it renews at half of it, instead of the never-expiring legacy token Secret KubeFed uses; the service account may then ask for tokens of itself only",
      ).argParser(parseTokenLifetime),
    )
    .addHelpText('after', JOIN_EXAMPLES)
    .action(async (cluster: string, flags: JoinFlags, cmd: Command) => runJoin(cluster, flags, cmd, ctx));
}
