import { type Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { type BuildInfo, formatVersion } from './version.js';

const UNKNOWN_BUILD: BuildInfo = {
  gitVersion: 'unknown',
  gitCommit: 'unknown',
  gitTreeState: 'unknown',
  buildDate: 'unknown',
  nodeVersion: 'unknown',
  platform: 'unknown',
};

/** Registers `kubefedctl version` (docs/kubefed-compatibility.md §3.8) on `program`. */
export function addVersionCommand(program: Command, ctx: CommandContext): void {
  program
    .command('version')
    .summary('Print the version of kubefedctl')
    .description('Print the kubefedctl version, the commit it was built from and the runtime')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['json']))
    .addHelpText('after', '\nExamples:\n  kubefedctl version\n  kubefedctl version -o json\n')
    .action((flags: { output?: 'json' }) => {
      const info = ctx.io.buildInfo?.() ?? UNKNOWN_BUILD;
      ctx.io.stdout(formatVersion(info, flags.output === 'json' ? 'json' : 'text'));
    });
}
