import { type Clock, type Runnable, splitKey, systemClock, type TimerHandle } from '@kubefed/runtime';
import type { ServiceStatusType } from './service-status-type.js';

/** Options of {@link StatusControllers}. */
export interface StatusControllersOptions {
  /** Builds the status controller runnable of a type. */
  readonly build: (type: ServiceStatusType) => Runnable;
  /** Checked before each start: a rejection counts as a failure of the controller (reported, retried after the backoff) and nothing starts. Default none. */
  readonly check?: ((type: ServiceStatusType) => Promise<void>) | undefined;
  /** Reports a status controller that failed (it is restarted after a backoff). Default none. */
  readonly onError?: ((name: string, err: unknown) => void) | undefined;
  /** Enqueues an FTC key again once a failed controller's backoff is over. Default none. */
  readonly requeue?: ((key: string) => void) | undefined;
  readonly clock?: Clock | undefined;
}

interface Child {
  /** The type it was started for, as JSON (a changed type restarts it). */
  readonly type: string;
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

/** Delay before restarting a status controller after its `count`-th failure in a row: 1 s doubling to 60 s. */
const restartDelayMs = (count: number): number => Math.min(1000 * 2 ** Math.min(count - 1, 6), 60_000);

/**
 * The status controllers run by the FederatedTypeConfig controller, one per FTC at most
 * (KubeFed keeps them under the key `<FTC name>/status`), each a child runnable with its own
 * AbortController. A controller that fails is reported and restarted after a backoff (1 s
 * doubling to 60 s; the FTC key is enqueued again then).
 */
export class StatusControllers {
  readonly #o: StatusControllersOptions;
  readonly #clock: Clock;
  readonly #children = new Map<string, Child>();
  readonly #failures = new Map<string, { readonly count: number; readonly untilMs: number; readonly type: string }>();
  readonly #timers = new Set<TimerHandle>();

  constructor(options: StatusControllersOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Runs the status controller of the FTC `key` for `type` (restarted when `type` changed), or
   * stops it when `type` is undefined. Returns whether it runs: false also while a failed
   * controller waits out its backoff.
   */
  async ensure(key: string, type: ServiceStatusType | undefined): Promise<boolean> {
    const { name } = splitKey(key);
    const wanted = type === undefined ? undefined : JSON.stringify(type);
    const running = this.#children.get(name);
    if (running !== undefined && running.type === wanted) return true;
    await this.stop(name);
    const failure = this.#failures.get(name);
    if (failure !== undefined && failure.type !== wanted) this.#failures.delete(name);
    if (type === undefined || wanted === undefined) return false;
    if (failure !== undefined && failure.type === wanted && this.#clock.now() < failure.untilMs) return false;
    try {
      await this.#o.check?.(type);
    } catch (err) {
      this.#failed(key, wanted, err);
      return false;
    }
    this.#start(key, type, wanted);
    return true;
  }

  /** Whether the status controller of the FTC `name` runs. */
  isRunning(name: string): boolean {
    return this.#children.has(name);
  }

  /** Stops the status controller of the FTC `name`, if it runs; resolves when it has stopped. */
  async stop(name: string): Promise<void> {
    const child = this.#children.get(name);
    if (child === undefined) return;
    this.#children.delete(name);
    child.abort.abort();
    await child.done;
  }

  /** Stops every status controller and pending restart. */
  async close(): Promise<void> {
    for (const timer of this.#timers) this.#clock.clearTimeout(timer);
    this.#timers.clear();
    await Promise.all([...this.#children.keys()].map((n) => this.stop(n)));
  }

  #start(key: string, type: ServiceStatusType, wanted: string): void {
    const { name } = splitKey(key);
    const abort = new AbortController();
    const runnable = this.#o.build(type);
    const done = runnable.start(abort.signal).then(
      () => {
        // A controller that returns without being stopped has stopped working all the same.
        if (!abort.signal.aborted) this.#failed(key, wanted, new Error('the status controller stopped by itself'));
      },
      (err: unknown) => {
        if (!abort.signal.aborted) this.#failed(key, wanted, err);
      },
    );
    this.#children.set(name, { type: wanted, abort, done });
  }

  #failed(key: string, type: string, err: unknown): void {
    const { name } = splitKey(key);
    this.#children.delete(name);
    const previous = this.#failures.get(name);
    const count = previous !== undefined && previous.type === type ? previous.count + 1 : 1;
    const delayMs = restartDelayMs(count);
    this.#failures.set(name, { count, untilMs: this.#clock.now() + delayMs, type });
    this.#o.onError?.(name, err);
    const timer = this.#clock.setTimeout(() => {
      this.#timers.delete(timer);
      this.#o.requeue?.(key);
    }, delayMs);
    this.#timers.add(timer);
  }
}
