import type { DynamicClient } from '@kubefed/client';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { KubefedctlError } from '../errors.js';
import { resolveContextName } from '../kubeconfig-contexts.js';
import type { Output } from '../output.js';
import { changeLine } from '../resources.js';
import { validateJoinNames } from './join.js';
import { unjoin, type UnjoinResult } from './unjoin.js';

interface UnjoinFlags {
  clusterContext?: string;
  hostClusterName?: string;
  force?: boolean;
}

const UNJOIN_EXAMPLES = `
Examples:
  # Remove member1 (host side and member side)
  kubefedctl unjoin member1 --cluster-context member1

  # The member is gone for good: remove the host side anyway and list what stayed behind
  kubefedctl unjoin member1 --force

  # A join of member3 failed half-way (no KubeFedCluster): remove only member3's leftovers in the member
  kubefedctl unjoin member3 --cluster-context member3 --force
`;

function printUnjoin(result: UnjoinResult, dryRun: boolean, hostName: string, out: Output): void {
  for (const r of result.removed) out.info(changeLine(r.ref, 'deleted', r.cluster, dryRun));
  for (const a of result.absent) out.debug(`not found: ${a}`);
  for (const k of result.kept) out.info(`${changeLine(k.ref, 'kept', k.cluster)} (${k.reason})`);
  for (const n of result.notRemoved) out.warn(`could not remove ${n.what}: ${n.reason}`);
  if (dryRun) {
    out.info('dry run: nothing was removed');
    return;
  }
  const left = result.notRemoved.length === 0 ? '' : ` (${result.notRemoved.length} objects could not be removed, see the warnings)`;
  out.info(`cluster "${result.names.cluster}" unjoined from host cluster "${hostName}"${left}`);
}

async function runUnjoin(cluster: string, flags: UnjoinFlags, cmd: Command, ctx: CommandContext): Promise<void> {
  const globals = ctx.globals(cmd);
  const out = ctx.outputFor(globals);
  const kubeconfig = ctx.kubeconfig(cmd);
  const hostContext = resolveContextName(kubeconfig, globals.hostClusterContext, '--host-cluster-context');
  const hostName = flags.hostClusterName ?? hostContext;
  validateJoinNames(cluster, hostName, flags.hostClusterName !== undefined);
  const clients: DynamicClient[] = [];
  try {
    const host = ctx.client(kubeconfig, hostContext, hostName);
    clients.push(host);
    let member: DynamicClient | undefined;
    let memberProblem: KubefedctlError | undefined;
    try {
      const memberContext = resolveContextName(kubeconfig, flags.clusterContext ?? cluster, '--cluster-context');
      member = ctx.client(kubeconfig, memberContext, cluster);
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

/** Registers `kubefedctl unjoin` (docs/kubefed-compatibility.md §3.3) on `program`. */
export function addUnjoinCommand(program: Command, ctx: CommandContext): void {
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
    .action(async (cluster: string, flags: UnjoinFlags, cmd: Command) => runUnjoin(cluster, flags, cmd, ctx));
}
