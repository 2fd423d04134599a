import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TestingError } from './testing-error.js';
import { killOnExit } from './kill-on-exit.js';

/** The repository root (packages/testing/src → ../../..). */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Node arguments that run a TypeScript entry point of this repository on its sources (no build). */
export function sourceEntry(relativePath: string): string[] {
  return ['--conditions=@kubefed/source', '--import', 'tsx', relativePath];
}

/** Result of a finished command. */
export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node <sourceEntry(entry)> ...args` in the repository root and resolves when it exits
 * (never rejects: a failure is a non-zero `code`; a timeout kills it and gives code -1).
 */
export function runSourceEntry(
  entry: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...sourceEntry(entry), ...args],
      { cwd: REPO_ROOT, timeout: options.timeoutMs ?? 120_000, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * A long-running child process with its output kept line by line: `lines` (stdout and stderr
 * merged, newest last) and `waitForLine`. Killed with SIGKILL if the parent exits first.
 */
export class ManagedProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  readonly #waiters = new Set<() => void>();

  constructor(
    readonly name: string,
    args: readonly string[],
    /** `node`: the Node binary to run `args` with; default this process's (`process.execPath`). */
    options: { env?: NodeJS.ProcessEnv; node?: string } = {},
  ) {
    this.child = spawn(options.node ?? process.execPath, [...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
    });
    killOnExit(this.child);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        resolve(code ?? (signal === null ? null : 128));
        this.#notify();
      }),
    );
    for (const stream of [this.child.stdout, this.child.stderr]) {
      let buffered = '';
      stream?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const parts = buffered.split('\n');
        buffered = parts.pop() ?? '';
        if (parts.length > 0) {
          this.lines.push(...parts);
          if (this.lines.length > 20_000) this.lines.splice(0, this.lines.length - 20_000);
          this.#notify();
        }
      });
    }
  }

  /** Whether it is still running. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Resolves with the first line (from now on, or already seen when `fromStart`) matching `pattern`.
   *
   * @throws TestingError when the process exits first or `timeoutMs` passes; the message shows the last lines.
   */
  async waitForLine(pattern: RegExp, options: { timeoutMs?: number; fromStart?: boolean } = {}): Promise<string> {
    let index = options.fromStart === true ? 0 : this.lines.length;
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    for (;;) {
      for (; index < this.lines.length; index++) {
        const line = this.lines[index] ?? '';
        if (pattern.test(line)) return line;
      }
      if (!this.running) throw new TestingError(`${this.name} exited before printing ${String(pattern)}; last lines:\n${this.tail()}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new TestingError(
          `${this.name} did not print ${String(pattern)} within ${options.timeoutMs ?? 30_000}ms; last lines:\n${this.tail()}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 1000));
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.#waiters.add(done);
      });
      this.#waiters.clear();
    }
  }

  /** The last `n` lines of output. */
  tail(n = 20): string {
    return this.lines.slice(-n).join('\n');
  }

  /** Sends `signal` (default SIGTERM) and waits for the exit; SIGKILL after `timeoutMs`. Resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<number | null> {
    if (!this.running) return this.exited;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL, as a crash. */
  kill(): Promise<number | null> {
    return this.stop('SIGKILL');
  }

  #notify(): void {
    for (const w of this.#waiters) w();
  }
}
