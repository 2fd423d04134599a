import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { resolveContextName } from '../kubeconfig-contexts.js';
import { changeLine } from '../resources.js';
import { rotateToken } from './rotate-token.js';

const ROTATE_TOKEN_EXAMPLES =
  '\nExamples:\n  # Rotate the token of member1, for instance on a schedule or when a copy may have leaked\n  kubefedctl rotate-token member1 --cluster-context member1\n';

async function runRotateToken(cluster: string, flags: { clusterContext?: string }, cmd: Command, ctx: CommandContext): Promise<void> {
  const globals = ctx.globals(cmd);
  const out = ctx.outputFor(globals);
  const kubeconfig = ctx.kubeconfig(cmd);
  const hostContext = resolveContextName(kubeconfig, globals.hostClusterContext, '--host-cluster-context');
  const memberContext = resolveContextName(kubeconfig, flags.clusterContext ?? cluster, '--cluster-context');
  using host = ctx.client(kubeconfig, hostContext);
  using member = ctx.client(kubeconfig, memberContext, cluster);
  const result = await rotateToken({ cluster, kubefedNamespace: globals.kubefedNamespace }, { host, member }, out);
  out.info(changeLine(result.recreated, 'recreated', cluster));
  out.info(changeLine(`secret/${result.hostSecret}`, 'updated', hostContext));
  out.info(
    `rotated the token of cluster "${cluster}": the old token is revoked, the new one is in host secret ${globals.kubefedNamespace}/${result.hostSecret}`,
  );
}

/** Registers `kubefedctl rotate-token` on `program`. */
export function addRotateTokenCommand(program: Command, ctx: CommandContext): void {
  program
    .command('rotate-token')
    .summary('Give a joined cluster a new token and revoke the old one')
    .description(
      "Give a joined cluster a new member token and revoke the old one: re-create the token Secret of the join's ServiceAccount in the member and write the new token into the host Secret of its KubeFedCluster (RBAC and the KubeFedCluster stay as they are). The cluster is unreachable for the few seconds in between.",
    )
    .argument('<cluster-name>', 'name of the joined cluster')
    .option('--cluster-context <context>', 'kubeconfig context of the member cluster (default: the cluster name)')
    .addHelpText('after', ROTATE_TOKEN_EXAMPLES)
    .action(async (cluster: string, flags: { clusterContext?: string }, cmd: Command) => runRotateToken(cluster, flags, cmd, ctx));
}
