/** How long the demo may stay silent while it waits. */
const HEARTBEAT_MS = 2000;

/** The demo was stopped (Ctrl-C, SIGTERM) while it waited. */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}

/**
 * The demo's console: each line stamped with the seconds since the start, and waits that never
 * stay silent for more than {@link HEARTBEAT_MS}: while one runs, a line says what it waits for
 * and how far it is whenever nothing else was printed for that long.
 */
export class Progress {
  readonly #t0 = Date.now();
  #lastLine = Date.now();

  constructor(
    private readonly write: (line: string) => void,
    /** Aborted on Ctrl-C: every {@link wait} then rejects with {@link Interrupted}. */
    readonly interrupt: AbortSignal,
  ) {}

  /** Prints `line` with the time since the start. */
  say(line: string): void {
    this.#lastLine = Date.now();
    this.write(`[${((Date.now() - this.#t0) / 1000).toFixed(1).padStart(5)}s] ${line}`);
  }

  /**
   * Resolves like `work`, saying `waiting for <describe()> (<seconds>s)` whenever nothing was
   * printed for {@link HEARTBEAT_MS}; rejects with {@link Interrupted} as soon as the demo is
   * interrupted, unless `settle` (the wait itself cleans up when interrupted, and must be let end).
   */
  async wait<T>(describe: () => string | Promise<string>, work: Promise<T>, options: { settle?: boolean } = {}): Promise<T> {
    const t0 = Date.now();
    let describing = false;
    let done = false;
    const timer = setInterval(() => {
      if (describing || Date.now() - this.#lastLine < HEARTBEAT_MS) return;
      describing = true;
      void Promise.resolve()
        .then(describe)
        .catch(() => 'the next step')
        .then((what) => {
          describing = false;
          const seconds = Math.round((Date.now() - t0) / 1000);
          if (done) return;
          this.say(this.interrupt.aborted ? `… stopping: waiting for ${what} to end (${seconds}s)` : `… waiting for ${what} (${seconds}s)`);
        });
    }, 250);
    try {
      return await (options.settle === true ? work : this.untilInterrupted(work));
    } finally {
      done = true;
      clearInterval(timer);
    }
  }

  /** Resolves like `work`, or rejects with {@link Interrupted} when the demo is interrupted first. */
  untilInterrupted<T>(work: Promise<T>): Promise<T> {
    if (this.interrupt.aborted) return Promise.reject(new Interrupted());
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new Interrupted());
      this.interrupt.addEventListener('abort', onAbort, { once: true });
      void work.then(resolve, reject).finally(() => this.interrupt.removeEventListener('abort', onAbort));
    });
  }

  /** Resolves after `ms`; rejects with {@link Interrupted} at once when the demo is interrupted. */
  pause(ms: number): Promise<void> {
    return this.untilInterrupted(new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));
  }
}
