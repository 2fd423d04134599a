import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { disableType } from './disable.js';

interface DisableFlags {
  deleteCrd?: boolean;
  keepFtc?: boolean;
  federatedGroup?: string;
  version?: string;
}

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

async function runDisable(type: string, flags: DisableFlags, cmd: Command, ctx: CommandContext): Promise<void> {
  if (flags.deleteCrd !== true && flags.version !== undefined) throw new UsageError('--version flag valid only with --delete-crd');
  if (flags.deleteCrd !== true && flags.federatedGroup !== undefined)
    throw new UsageError('--federated-group flag valid only with --delete-crd');
  if (flags.deleteCrd === true && flags.keepFtc === true)
    throw new UsageError('give either --keep-ftc or --delete-crd, not both', {
      hint: 'the CRD is only deleted together with its FederatedTypeConfig',
    });
  const connection = ctx.connect(cmd);
  const { host, out, dryRun } = connection;
  try {
    await disableType(
      host,
      type,
      {
        kubefedNamespace: connection.kubefedNamespace,
        deleteCrd: flags.deleteCrd === true,
        keepFtc: flags.keepFtc === true,
        dryRun,
        federatedGroup: flags.federatedGroup,
        targetVersion: flags.version,
      },
      out,
    );
    if (dryRun) out.info('dry run: nothing was written');
    else await connection.leastPrivilege();
  } finally {
    host.close();
  }
}

/** Registers `kubefedctl disable` (docs/kubefed-compatibility.md §3.5) on `program`. */
export function addDisableCommand(program: Command, ctx: CommandContext): void {
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
    .action(async (type: string, flags: DisableFlags, cmd: Command) => runDisable(type, flags, cmd, ctx));
}
