import type { Command, Help, HelpConfiguration } from 'commander';

/**
 * The name kubefedctl shows in its help for the program file it runs as (`process.argv[1]`,
 * which a single executable gets from its own argv[0]): `kubectl kubefed` for the kubectl
 * plugin `kubectl-kubefed` (kubectl's plugin naming: `-` separates words, `_` stands for `-`),
 * else `kubefedctl`.
 */
export function invocationName(programFile: string | undefined): string {
  const base = (programFile ?? '').split(/[\\/]/).pop() ?? '';
  const m = /^kubectl-([^.]+)/.exec(base);
  if (m === null) return 'kubefedctl';
  return `kubectl ${(m[1] ?? '').split('-').join(' ').replace(/_/g, '-')}`;
}

/** The first clause of a description: up to the first `:`, `;` or `.` that ends a phrase. */
function firstClause(description: string): string {
  return (/^(.*?)(?:[:;.](?:\s|$)|$)/s.exec(description)?.[1] ?? description).trim();
}

/** `text` cut at a word boundary so that it is at most `width` characters, ending in `…` if cut. */
function fit(text: string, width: number): string {
  if (text.length <= width) return text;
  const cut = text.slice(0, Math.max(1, width - 1));
  const space = cut.lastIndexOf(' ');
  return `${(space > 0 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** `kubefedctl orphaning-deletion`: the names of the command and the commands above it. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The one line a command gets in its parent's list: its `summary()`, else the first clause of its description. */
function summaryOf(cmd: Command, width: number): string {
  const summary = cmd.summary();
  return summary !== '' ? summary : fit(firstClause(cmd.description()), width);
}

/**
 * Help laid out as cobra lays it out for KubeFed's kubefedctl: usage, the command's own
 * description in full, its arguments, `Available Commands:` with one line each (the command's
 * `summary()`, else the first clause of its description, never wrapped), `Flags:` (its own) and
 * `Global Flags:` (those of every command above it: `--kubeconfig`, `--host-cluster-context`,
 * `--dry-run`, ...), and a pointer to the subcommands' help. Examples added with
 * `addHelpText('after', ...)` follow. Configured on the root before its subcommands are added,
 * so that every subcommand inherits it.
 */
export function cobraStyleHelp(): HelpConfiguration {
  return {
    showGlobalOptions: true,
    formatHelp(cmd: Command, helper: Help): string {
      const width = helper.helpWidth ?? 80;
      const own = helper.visibleOptions(cmd);
      const global = helper.visibleGlobalOptions(cmd);
      const args = helper.visibleArguments(cmd);
      const commands = helper.visibleCommands(cmd);
      const termWidth = Math.max(
        0,
        ...[...own, ...global].map((o) => helper.displayWidth(helper.optionTerm(o))),
        ...args.map((a) => helper.displayWidth(helper.argumentTerm(a))),
      );
      const section = (title: string, items: string[]): string[] => (items.length === 0 ? [] : [helper.styleTitle(title), ...items, '']);
      const optionItems = (options: typeof own): string[] =>
        options.map((o) =>
          helper.formatItem(
            helper.styleOptionTerm(helper.optionTerm(o)),
            termWidth,
            helper.styleOptionDescription(helper.optionDescription(o)),
            helper,
          ),
        );
      const nameWidth = Math.max(0, ...commands.map((c) => c.name().length));
      const description = helper.commandDescription(cmd);
      return [
        `${helper.styleTitle('Usage:')} ${helper.styleUsage(helper.commandUsage(cmd))}`,
        '',
        ...(description === '' ? [] : [helper.boxWrap(helper.styleCommandDescription(description), width), '']),
        ...section(
          'Arguments:',
          args.map((a) =>
            helper.formatItem(
              helper.styleArgumentTerm(helper.argumentTerm(a)),
              termWidth,
              helper.styleArgumentDescription(helper.argumentDescription(a)),
              helper,
            ),
          ),
        ),
        ...section(
          'Available Commands:',
          commands.map(
            (c) =>
              `  ${helper.styleSubcommandTerm(c.name().padEnd(nameWidth))}  ${helper.styleSubcommandDescription(summaryOf(c, width - nameWidth - 4))}`,
          ),
        ),
        ...section('Flags:', optionItems(own)),
        ...section('Global Flags:', optionItems(global)),
        ...(commands.length === 0 ? [] : [`Use "${commandPath(cmd)} [command] --help" for more information about a command.`, '']),
      ].join('\n');
    },
  };
}
