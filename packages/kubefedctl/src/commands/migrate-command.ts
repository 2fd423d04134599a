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

  # Also replace the members' full-access roles by least-privilege ones (listed first)
  kubefedctl migrate --least-privilege --dry-run
  kubefedctl migrate --least-privilege
`;

interface MigrateFlags {
  leastPrivilege?: boolean;
}

async function runMigrate(flags: MigrateFlags, cmd: Command, ctx: CommandContext): Promise<void> {
  const { host, out, kubefedNamespace, dryRun, kubeconfig } = ctx.connect(cmd);
  const contexts = new Set(kubeconfig.contexts().map((c) => c.name));
  try {
    await migrate(
      host,
      {
        kubefedNamespace,
        dryRun,
        leastPrivilege: flags.leastPrivilege === true,
        adminClientFor: (cluster) => (contexts.has(cluster) ? ctx.client(kubeconfig, cluster, cluster) : undefined),
        timeoutMs: ctx.requestTimeoutMs,
      },
      out,
    );
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
      "Take a federation over from a stopped KubeFed v0.10.0 on the host: deletes KubeFed's admission webhook configurations, binds the member token Secrets to their KubeFedCluster, creates missing CRDs and replaces an installed one by ours where every stored object stays valid and reads the same; keeps every FederatedTypeConfig, federated object, RSP, KubeFedCluster and PropagatedVersion, and KubeFed's member roles unless --least-privilege. Refuses while KubeFed's leader holds its lock. --dry-run lists every change.",
    )
    .option(
      '--least-privilege',
      "Replace each member's full-access role of KubeFed's join by the least-privilege role of kubefedctl join --least-privilege (the enabled types only), through the member's own token (else a kubeconfig context named like the cluster), saying what it loses and gains",
    )
    .addHelpText('after', EXAMPLES)
    .action(async (flags: MigrateFlags, command: Command) => runMigrate(flags, command, ctx));
}
