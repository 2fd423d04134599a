import { spawn, type ChildProcess } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';
import { killOnExit } from '../kill-on-exit.js';
import { RealClusterStartError } from './real-cluster-error.js';

/** What {@link ComponentProcess.start} runs. */
export interface ComponentProcessOptions {
  /** Absolute path of the executable. */
  readonly binary: string;
  readonly args: readonly string[];
  /** stdout and stderr are appended to this file. */
  readonly logFile: string;
}

/**
 * One Kubernetes component (etcd, kube-apiserver, ...) run as a child process whose stdout and
 * stderr go to a log file. Unlike `ManagedProcess` (Node entry points, output kept in memory),
 * it runs any executable and keeps nothing in memory: the control plane logs a lot. Killed
 * with SIGKILL if the test process exits first.
 */
export class ComponentProcess {
  readonly #child: ChildProcess;
  #spawnError: Error | undefined;
  /** Resolves with the exit code (128 after a signal, -1 when it could not be spawned). */
  readonly exited: Promise<number>;

  private constructor(
    /** e.g. `kube-apiserver[member1]`: names it in errors. */
    readonly name: string,
    readonly logFile: string,
    child: ChildProcess,
  ) {
    this.#child = child;
    killOnExit(child);
    this.exited = new Promise((resolve) => {
      child.once('error', (err) => {
        this.#spawnError = err;
        resolve(-1);
      });
      child.once('exit', (code) => {
        resolve(code ?? 128);
      });
    });
  }

  /** Spawns `binary args...` with its output appended to `logFile`. */
  static async start(name: string, options: ComponentProcessOptions): Promise<ComponentProcess> {
    const log = await open(options.logFile, 'a');
    try {
      const child = spawn(options.binary, [...options.args], { stdio: ['ignore', log.fd, log.fd] });
      return new ComponentProcess(name, options.logFile, child);
    } finally {
      await log.close();
    }
  }

  /** The process id (undefined when it could not be spawned). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Whether it is still running. */
  get running(): boolean {
    return this.#spawnError === undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The last `lines` lines of its log. */
  async tail(lines = 30): Promise<string> {
    const text = await readFile(this.logFile, 'utf8').catch(() => '');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /**
   * @throws RealClusterStartError naming the component, its exit and the tail of its log, unless
   * it is running.
   */
  async assertRunning(): Promise<void> {
    if (this.running) return;
    const how =
      this.#spawnError !== undefined
        ? `could not be started (${this.#spawnError.message})`
        : `exited with ${this.#child.exitCode ?? this.#child.signalCode}`;
    throw new RealClusterStartError(`${this.name} ${how}; last lines of ${this.logFile}:\n${await this.tail()}`);
  }

  /** SIGTERM, then SIGKILL after `graceMs` (default 5000). Resolves once it has exited. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.#child.pid === undefined || !this.running) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
