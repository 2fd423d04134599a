/**
 * Cooperative turns of the event loop for loops that can run on promises alone.
 *
 * A controller's worker takes a key, reconciles it and takes the next. When a reconcile needs no
 * I/O (everything it reads is in an informer cache, its status write is batched for later), each
 * `await` resolves as a microtask, and the worker goes through its whole queue without the event
 * loop turning once: timers, sockets, health probes and every other controller wait until the
 * queue is empty. A member turning NotReady queues every federated object of each type at once,
 * and 5,000 of those reconciles held a controller manager's loop for 370 ms (measured with
 * `test/bench/member-outage.bench.ts --profile`). Goroutines are preempted; promises are not, so
 * the loop gives the turn itself.
 *
 * {@link yieldIfLong} resolves at once unless the event loop has not turned for `budgetMs`;
 * then it resolves on the next turn, after pending I/O. Awaiting it costs a `performance.now()`
 * in the common case. One instance per process: the event loop is the process's.
 */
export class EventLoopTurns {
  /** When the marker that notices the next turn was set; undefined when none is pending. */
  #markerAt: number | undefined;

  /** `budgetMs`: the longest the loop is held before a turn is given (default 10). */
  constructor(private readonly budgetMs = 10) {}

  /** Resolves now, or on the event loop's next turn when it has not had one for the budget. */
  yieldIfLong(): Promise<void> | undefined {
    const now = performance.now();
    if (this.#markerAt === undefined) {
      this.#markerAt = now;
      setImmediate(() => (this.#markerAt = undefined));
      return undefined;
    }
    if (now - this.#markerAt < this.budgetMs) return undefined;
    return this.next();
  }

  /** Resolves on the event loop's next turn, after pending I/O, however briefly it was held. */
  next(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }
}

/** The process's {@link EventLoopTurns}. */
export const eventLoopTurns = new EventLoopTurns();
