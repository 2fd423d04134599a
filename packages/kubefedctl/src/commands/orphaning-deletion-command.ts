import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { type OrphaningAction, orphaningDeletion } from './orphaning.js';

const ACTIONS: Record<OrphaningAction, string> = {
  enable: 'Keep the member objects when the federated object is deleted',
  disable: 'Delete the member objects with the federated object (the default)',
  status: 'Print Enabled or Disabled',
};

async function runOrphaning(
  action: OrphaningAction,
  target: { type: string; name: string; namespace: string | undefined },
  cmd: Command,
  ctx: CommandContext,
): Promise<void> {
  const { host, out, ...connection } = ctx.connect(cmd);
  try {
    const dryRun = connection.dryRun && action !== 'status';
    await orphaningDeletion(
      host,
      { action, type: target.type, name: target.name, namespace: target.namespace ?? host.defaultNamespace ?? 'default', dryRun },
      out,
    );
    if (dryRun) out.info('dry run: nothing was written');
  } finally {
    host.close();
  }
}

/** Registers `kubefedctl orphaning-deletion enable|disable|status` (docs/kubefed-compatibility.md §3.7) on `program`. */
export function addOrphaningDeletionCommand(program: Command, ctx: CommandContext): void {
  const orphaning = program
    .command('orphaning-deletion')
    .summary('Keep or delete the member objects with a federated object')
    .description(
      'Manage the kubefed.io/orphan annotation of a federated object: when enabled, deleting it leaves its member objects in place.',
    );
  for (const action of ['enable', 'disable', 'status'] as const) {
    orphaning
      .command(action)
      .description(ACTIONS[action])
      .argument('<federated-type>', 'the federated type, e.g. federateddeployments')
      .argument('<name>', 'the federated object')
      .option('-n, --namespace <namespace>', "namespace of the object (default: the context's namespace, else default)")
      .action(async (type: string, name: string, flags: { namespace?: string }, cmd: Command) =>
        runOrphaning(action, { type, name, namespace: flags.namespace }, cmd, ctx),
      );
  }
}
