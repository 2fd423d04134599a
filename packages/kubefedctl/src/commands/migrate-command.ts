import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { migrate } from './migrate.js';

const EXAMPLES = `
Examples:
  # List every change, write nothing (run this first)
  kubefedctl migrate --dry-run

  # Take over the federation of KubeFed in kube-federation-system once KubeFed is stopped
  kubectl -n kube-federation-system scale deployment kubefed-controller-manager kubefed-admission-webhook --replicas=0
  kubefedctl migrate
`;

async function runMigrate(cmd: Command, ctx: CommandContext): Promise<void> {
  const { host, out, kubefedNamespace, dryRun } = ctx.connect(cmd);
  try {
    await migrate(host, { kubefedNamespace, dryRun }, out);
  } finally {
    host.close();
  }
}

/** Registers `kubefedctl migrate` on `program`. */
export function addMigrateCommand(program: Command, ctx: CommandContext): void {
  program
    .command('migrate')
    .summary('Take over a federation from a stopped KubeFed v0.10.0')
    .description(
      "Take a federation over from a stopped KubeFed v0.10.0 on the host: deletes KubeFed's admission webhook configurations, binds the member token Secrets to their KubeFedCluster, creates missing CRDs and replaces those whose differences validate nothing; keeps every FederatedTypeConfig, federated object, RSP, KubeFedCluster and PropagatedVersion. Refuses while KubeFed's leader holds its lock. --dry-run lists every change.",
    )
    .addHelpText('after', EXAMPLES)
    .action(async (_flags: unknown, command: Command) => runMigrate(command, ctx));
}
