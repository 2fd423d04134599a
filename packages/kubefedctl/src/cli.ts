import { KUBEFED_NAMESPACE_DEFAULT, normalizeKlogFlags } from '@kubefed/api';
import { Command, CommanderError, Option } from 'commander';
import { CommandContext, type GlobalOptions, type RunIo } from './command-context.js';
import { addCompletionCommand } from './commands/completion-command.js';
import { addDashboardCommand } from './commands/dashboard-command.js';
import { addDisableCommand } from './commands/disable-command.js';
import { addEnableCommand } from './commands/enable-command.js';
import { addFederateCommand } from './commands/federate-command.js';
import { addJoinCommand } from './commands/join-command.js';
import { addMigrateCommand } from './commands/migrate-command.js';
import { addOrphaningDeletionCommand } from './commands/orphaning-deletion-command.js';
import { addPlanCommand } from './commands/plan-command.js';
import { addRotateTokenCommand } from './commands/rotate-token-command.js';
import { addStatusCommand } from './commands/status-command.js';
import { addUnjoinCommand } from './commands/unjoin-command.js';
import { addVersionCommand } from './commands/version-command.js';
import { cobraStyleHelp } from './help-format.js';
import { normalizeVerbosityArgs, parseVerbosity } from './klog-verbosity.js';
import { formatError } from './output.js';

export type { RunIo } from './command-context.js';
export { parseBool, parseTimeout } from './flag-parsers.js';

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

/** Builds the commander program; actions write through `io`. Exposed for help-text tests. */
export function buildProgram(io: RunIo): Command {
  const program = rootCommand(io);
  const ctx = new CommandContext(io);
  addJoinCommand(program, ctx);
  addUnjoinCommand(program, ctx);
  addRotateTokenCommand(program, ctx);
  addEnableCommand(program, ctx);
  addDisableCommand(program, ctx);
  addFederateCommand(program, ctx);
  addDashboardCommand(program, ctx);
  addMigrateCommand(program, ctx);
  addOrphaningDeletionCommand(program, ctx);
  addPlanCommand(program, ctx);
  addStatusCommand(program, ctx);
  addVersionCommand(program, ctx);
  addCompletionCommand(program, ctx);
  return program;
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
    const verbose = new CommandContext(io).outputFor(program.opts<GlobalOptions>()).level === 'trace';
    io.stderr(formatError(e, { verbose }));
    return 1;
  }
}
