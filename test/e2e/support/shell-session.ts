/**
 * A terminal session for tests that run documented shell commands as a user types them
 * (test/e2e/user-guide-walkthrough.test.ts): every command runs in `bash` in one directory, and
 * what it exports (`export KUBECONFIG=...`) holds for the commands after it, as in one terminal.
 * Long-running commands (servers started "in another terminal") run as {@link ManagedProcess}es
 * that `stop()` ends, the last started first.
 */
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ManagedProcess } from '@kubefed/testing';

/** What a finished command did. */
export interface ShellResult {
  /** Exit code; -1 when it was killed at its timeout. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Variables bash sets for itself, which do not carry over from one command to the next. */
const SHELL_OWN = new Set(['_', 'SHLVL', 'PWD', 'OLDPWD', 'SHELL_SESSION_ENV_FILE']);

export class ShellSession {
  readonly #cwd: string;
  #env: NodeJS.ProcessEnv;
  readonly #background: ManagedProcess[] = [];

  /**
   * @param cwd the directory every command runs in.
   * @param env the environment of the first command; later ones see what earlier ones exported.
   */
  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.#cwd = cwd;
    this.#env = { ...env, PWD: cwd };
  }

  /** Sets a variable for the commands that follow, as `export name=value` would. */
  export(name: string, value: string): void {
    this.#env = { ...this.#env, [name]: value };
  }

  /**
   * Runs `command` with `bash -c` and resolves when it exits (never rejects: see `code`). A
   * command still running after `timeoutMs` (default 120 s) is killed and gets code -1.
   */
  async run(command: string, timeoutMs = 120_000): Promise<ShellResult> {
    const envFile = path.join(this.#cwd, '.session-env');
    // After the command, the shell writes its environment out, so that exports carry over.
    const script = `${command}\n__status=$?\nenv -0 > "$SHELL_SESSION_ENV_FILE"\nexit $__status\n`;
    const result = await new Promise<ShellResult>((resolve) => {
      execFile(
        'bash',
        ['-c', script],
        { cwd: this.#cwd, env: { ...this.#env, SHELL_SESSION_ENV_FILE: envFile }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
        },
      );
    });
    const written = await readFile(envFile, 'utf8').catch(() => undefined);
    if (written !== undefined) {
      const env: NodeJS.ProcessEnv = { PWD: this.#cwd };
      for (const entry of written.split('\0')) {
        const eq = entry.indexOf('=');
        if (eq > 0 && !SHELL_OWN.has(entry.slice(0, eq))) env[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
      this.#env = env;
      await rm(envFile, { force: true });
    }
    return result;
  }

  /**
   * Starts `command` in the background, as in a terminal of its own: `bash -c 'exec <command>'`,
   * so the process is the command itself and a signal reaches it. Its output is in `lines`.
   */
  start(name: string, command: string): ManagedProcess {
    const quotedCwd = `'${this.#cwd.replaceAll("'", "'\\''")}'`;
    const proc = new ManagedProcess(name, ['-c', `cd ${quotedCwd} && exec ${command}`], { env: this.#env, node: 'bash' });
    this.#background.push(proc);
    return proc;
  }

  /**
   * Stops the background processes, the last started first, with SIGINT (Ctrl-C in its terminal),
   * then SIGKILL after 15 s. Idempotent.
   */
  async stop(): Promise<void> {
    for (const proc of this.#background.reverse()) await proc.stop('SIGINT');
    this.#background.length = 0;
  }
}
