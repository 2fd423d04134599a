import { ApiError, ConfigError } from '@kubefed/client';
import { stringify } from 'yaml';
import { KubefedctlError, causeMessage } from './errors.js';

/** Where the CLI writes and what it may read from its process (injected so tests run in memory). */
export interface CliIo {
  /** Writes text (already newline-terminated) to standard output. */
  stdout(text: string): void;
  /** Writes text (already newline-terminated) to standard error. */
  stderr(text: string): void;
  /** The environment (`KUBECONFIG`, `HOME` ...). */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * How much the CLI prints on stderr besides results, warnings and errors: `info` nothing more,
 * `debug` the `debug:` lines, `trace` also `trace:` lines and the stack and causes of an error.
 */
export type LogLevel = 'info' | 'debug' | 'trace';

/** The klog verbosity at and above which {@link levelForVerbosity} answers `debug`. */
const DEBUG_VERBOSITY = 2;
/** The klog verbosity at and above which {@link levelForVerbosity} answers `trace` (and bare `-v`). */
export const TRACE_VERBOSITY = 6;

/**
 * Maps a klog verbosity (`--v=N`, as KubeFed's kubefedctl takes it) to our level: 0 and 1
 * `info`, 2 to 5 `debug` (klog's V(2) detail and V(4) debug), 6 and above `trace` (where
 * kubectl starts to show requests).
 */
export function levelForVerbosity(verbosity: number): LogLevel {
  if (verbosity >= TRACE_VERBOSITY) return 'trace';
  return verbosity >= DEBUG_VERBOSITY ? 'debug' : 'info';
}

/**
 * The CLI's printer: `info` lines (results) go to stdout; `progress`, `warn`, `debug` (level
 * debug or trace) and `trace` (level trace) go to stderr. Never pass secret material to any of them.
 */
export class Output {
  constructor(
    private readonly io: CliIo,
    readonly level: LogLevel = 'info',
  ) {}

  /** Debug lines are shown (level `debug` or `trace`). */
  get verbose(): boolean {
    return this.level !== 'info';
  }

  /** A result line on stdout. */
  info(line: string): void {
    this.io.stdout(`${line}\n`);
  }

  /** Raw text on stdout (e.g. a YAML stream). */
  raw(text: string): void {
    this.io.stdout(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** A progress line on stderr. */
  progress(line: string): void {
    this.io.stderr(`${line}\n`);
  }

  /** A warning on stderr (`warning: ...`). */
  warn(line: string): void {
    this.io.stderr(`warning: ${line}\n`);
  }

  /** A debug line on stderr, only at level `debug` or `trace` (`--v=2` and above). */
  debug(line: string): void {
    if (this.verbose) this.io.stderr(`debug: ${line}\n`);
  }

  /** A trace line on stderr, only at level `trace` (`--v=6` and above, or `-v`). */
  trace(line: string): void {
    if (this.level === 'trace') this.io.stderr(`trace: ${line}\n`);
  }
}

/** One document of a multi-document YAML stream, preceded by `# <comment>` lines. */
export interface YamlDocument {
  comment: string;
  object: unknown;
}

/** Renders documents as one YAML stream (`---` separated), each with its comment above it. */
export function renderYamlDocuments(docs: readonly YamlDocument[]): string {
  return docs
    .map((d) => {
      const comment = d.comment
        .split('\n')
        .map((l) => `# ${l}`.trimEnd())
        .join('\n');
      return `---\n${comment}\n${stringify(d.object, { lineWidth: 0 })}`;
    })
    .join('');
}

/** A hint for an error thrown below the CLI (client, kubeconfig) or by kubefedctl itself. */
export function hintFor(e: unknown): string | undefined {
  if (e instanceof KubefedctlError) return e.hint ?? hintFor(e.cause);
  if (e instanceof ConfigError)
    return 'check the kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config) and the context names (kubectl config get-contexts)';
  if (e instanceof ApiError) {
    const cluster = e.request.cluster === undefined ? 'the cluster' : `cluster "${e.request.cluster}"`;
    switch (e.reason) {
      case 'NetworkError':
      case 'Timeout':
        return `check that the API server of ${cluster} is reachable from here (kubectl --context <context> version)`;
      case 'Unauthorized':
        return `the credentials of the context for ${cluster} were rejected: refresh them in the kubeconfig`;
      case 'Forbidden':
        return `the user of the context for ${cluster} lacks permission for this; use a context with cluster-admin rights`;
      default:
        return undefined;
    }
  }
  return undefined;
}

/**
 * The text printed for a failed command: `Error: <cause>` on one line (as KubeFed's kubefedctl
 * prints it) and, when known, `hint: <hint>`. With `verbose`, the stack and the chain of causes follow.
 */
export function formatError(e: unknown, options: { verbose: boolean }): string {
  let out = `Error: ${causeMessage(e)}\n`;
  const hint = hintFor(e);
  if (hint !== undefined) out += `hint: ${hint}\n`;
  if (options.verbose) {
    let cur: unknown = e;
    let depth = 0;
    while (cur instanceof Error && depth < 5) {
      out += `${depth === 0 ? '' : 'caused by: '}${cur.stack ?? cur.message}\n`;
      cur = cur.cause;
      depth++;
    }
  }
  return out;
}
