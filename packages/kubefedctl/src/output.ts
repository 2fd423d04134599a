import { stripVTControlCharacters } from 'node:util';
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
 * The CLI's printer: `info` lines (results) go to stdout; `progress`, `warn` and `debug`
 * (only with `-v`) go to stderr. Never pass secret material to any of them.
 */
export class Output {
  constructor(
    private readonly io: CliIo,
    readonly verbose: boolean,
  ) {}

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

  /** A debug line on stderr, only with `-v/--verbose`. */
  debug(line: string): void {
    if (this.verbose) this.io.stderr(`debug: ${line}\n`);
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
  if (e instanceof ConfigError) return 'check the kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config) and the context names (kubectl config get-contexts)';
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
 * The text printed for a failed command: `error: <cause>` on one line and, when known,
 * `hint: <hint>`. With `verbose`, the stack and the chain of causes follow.
 */
export function formatError(e: unknown, options: { verbose: boolean }): string {
  let out = `error: ${causeMessage(e)}\n`;
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

/**
 * Rows as kubectl prints them: every column padded to its widest cell (colour codes do not
 * count), three spaces between columns, no trailing blanks. Returns one line per row, each
 * ending in a newline.
 */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const width = (cell: string): number => stripVTControlCharacters(cell).length;
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, width(cell))), []);
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell)))).join('   ').trimEnd())
    .map((line) => `${line}\n`)
    .join('');
}
