import path from 'node:path';
import tabtab from '@pnpm/tabtab';
import { Argument, type Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { completionScript } from '../completion-scripts.js';
import { kubeconfigCompletionSources } from '../completion-sources.js';
import { COMPLETE_FILES, completeWords } from '../completion.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

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
 * Registers \`completion <shell>\`, which prints the script (bash and zsh from @pnpm/tabtab's
 * templates, fish {@link FISH_COMPLETION_SCRIPT}), and the hidden \`completion-server -- <words>\`
 * the script calls with COMP_CWORD/SHELL set, which answers from the program tree ({@link completeWords}).
 */
export function addCompletionCommand(program: Command, ctx: CommandContext): void {
  const { io } = ctx;
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
