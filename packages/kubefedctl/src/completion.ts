import type { Command, Option } from 'commander';
import { normalizeVerbosityArgs } from './klog-verbosity.js';

/** One completion candidate; the description is shown by zsh and fish. */
interface Candidate {
  name: string;
  description?: string;
}

/** Where the host is, as the words typed so far say (`--kubeconfig`, `--host-cluster-context`, `--kubefed-namespace`). */
export interface CompletionConnection {
  kubeconfig: string | undefined;
  hostClusterContext: string | undefined;
  kubefedNamespace: string | undefined;
}

/** What the host knows, for values that are names of things. Each may fail; failures give no candidates. */
export interface CompletionSources {
  /** Context names of the kubeconfig. */
  contexts(conn: CompletionConnection): string[];
  /** Types the host serves (`plural.group`), for `enable`. */
  targetTypes(conn: CompletionConnection): Promise<string[]>;
  /** Names of the FederatedTypeConfigs, for `disable`, `federate` and `status`. */
  enabledTypes(conn: CompletionConnection): Promise<string[]>;
  /** Plurals of the federated types, for `orphaning-deletion`. */
  federatedTypes(conn: CompletionConnection): Promise<string[]>;
  /** Names of the KubeFedClusters, for `unjoin` and `rotate-token`. */
  joinedClusters(conn: CompletionConnection): Promise<string[]>;
}

/** Completes the file name (the shell does it). */
export const COMPLETE_FILES = Symbol('complete files');

type Values = Candidate[] | typeof COMPLETE_FILES;

interface Position {
  cmd: Command;
  /** Index of the positional argument being typed. */
  positional: number;
  /** An option whose value is being typed. */
  pending: Option | undefined;
  conn: CompletionConnection;
}

function optionsInScope(cmd: Command): Option[] {
  const all: Option[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) all.push(...c.options.filter((o) => !o.hidden));
  return all;
}

function findOption(cmd: Command, flag: string): Option | undefined {
  return optionsInScope(cmd).find((o) => o.long === flag || o.short === flag);
}

function remember(conn: CompletionConnection, option: Option, value: string): void {
  const name = option.attributeName();
  if (name === 'kubeconfig' || name === 'hostClusterContext' || name === 'kubefedNamespace') conn[name] = value;
}

/** Walks the words before the one being completed through the program tree. */
function positionOf(program: Command, before: readonly string[]): Position {
  const pos: Position = {
    cmd: program,
    positional: 0,
    pending: undefined,
    conn: { kubeconfig: undefined, hostClusterContext: undefined, kubefedNamespace: undefined },
  };
  const words = normalizeVerbosityArgs(before);
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    if (word === '--') {
      pos.positional += words.length - i - 1;
      break;
    }
    if (word.startsWith('-') && word.length > 1) {
      const [flag = '', value] = word.split(/=(.*)/s, 2);
      const option = findOption(pos.cmd, flag);
      if (option === undefined || !option.required) continue;
      // bash without bash-completion splits `--flag=value` into `--flag`, `=`, `value`.
      if (value === undefined && words[i + 1] === '=') i++;
      if (value !== undefined) remember(pos.conn, option, value);
      else if (i + 1 < words.length) remember(pos.conn, option, words[++i] ?? '');
      else pos.pending = option;
      continue;
    }
    const sub = pos.positional === 0 ? pos.cmd.commands.find((c) => c.name() === word || c.aliases().includes(word)) : undefined;
    if (sub !== undefined) pos.cmd = sub;
    else pos.positional++;
  }
  return pos;
}

function names(values: readonly string[]): Candidate[] {
  return values.map((name) => ({ name }));
}

function commandPath(cmd: Command): string {
  const parts: string[] = [];
  for (let c: Command | null = cmd; c?.parent != null; c = c.parent) parts.unshift(c.name());
  return parts.join(' ');
}

function optionValues(option: Option, pos: Position, sources: CompletionSources): Values {
  if (option.argChoices !== undefined) return names(option.argChoices);
  switch (option.attributeName()) {
    case 'hostClusterContext':
    case 'clusterContext':
      return names(sources.contexts(pos.conn));
    case 'kubeconfig':
    case 'filename':
      return COMPLETE_FILES;
    default:
      return [];
  }
}

async function argumentValues(pos: Position, sources: CompletionSources): Promise<Candidate[]> {
  const args = pos.cmd.registeredArguments;
  const arg = args[pos.positional] ?? (args.at(-1)?.variadic === true ? args.at(-1) : undefined);
  if (arg === undefined) return [];
  if (arg.argChoices !== undefined) return names(arg.argChoices);
  const path = commandPath(pos.cmd);
  if (path === 'join' && pos.positional === 0) return names(sources.contexts(pos.conn));
  if ((path === 'unjoin' || path === 'rotate-token') && pos.positional === 0) return names(await sources.joinedClusters(pos.conn));
  if (path === 'enable' && pos.positional === 0) return names(await sources.targetTypes(pos.conn));
  if (['disable', 'federate', 'status'].includes(path) && pos.positional === 0) return names(await sources.enabledTypes(pos.conn));
  if (path.startsWith('orphaning-deletion ') && pos.positional === 0) return names(await sources.federatedTypes(pos.conn));
  return [];
}

function flagCandidates(cmd: Command): Candidate[] {
  const flags = optionsInScope(cmd).flatMap((o) => (o.long === undefined ? [] : [{ name: o.long, description: o.description }]));
  return [...flags, { name: '--help', description: 'help of the command' }];
}

/**
 * The candidates for the last of `words` (the words after the program name up to the cursor;
 * the last one is being typed and may be empty), from the commander program tree: subcommands,
 * flags of the command and its parents, choices of options and arguments, kubeconfig contexts
 * for the context flags and `join`, and names from the host for type and cluster arguments.
 * Returns {@link COMPLETE_FILES} when the shell should complete a file name.
 */
export async function completeWords(program: Command, words: readonly string[], sources: CompletionSources): Promise<Values> {
  const current = words.at(-1) ?? '';
  const pos = positionOf(program, words.slice(0, -1));
  let values: Values;
  let prefix = '';
  if (pos.pending !== undefined) {
    values = optionValues(pos.pending, pos, sources);
  } else if (current.startsWith('--') && current.includes('=')) {
    const flag = current.slice(0, current.indexOf('='));
    const option = findOption(pos.cmd, flag);
    prefix = `${flag}=`;
    values = option?.required === true ? optionValues(option, pos, sources) : [];
  } else if (current.startsWith('-')) {
    values = flagCandidates(pos.cmd);
  } else {
    const subcommands =
      pos.positional === 0
        ? pos.cmd
            .createHelp()
            .visibleCommands(pos.cmd)
            .filter((c) => c.name() !== 'help')
        : [];
    values = [
      ...subcommands.map((c) => ({ name: c.name(), description: c.summary() || c.description().split('. ')[0] || '' })),
      ...(await argumentValues(pos, sources)),
    ];
  }
  if (values === COMPLETE_FILES) return values;
  const typed = current.slice(prefix.length);
  return values.filter((v) => v.name.startsWith(typed)).map((v) => ({ ...v, name: `${prefix}${v.name}` }));
}
