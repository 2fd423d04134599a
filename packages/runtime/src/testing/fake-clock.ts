import type { Clock, TimerHandle } from '@kubefed/client';

interface FakeTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A manually advanced {@link Clock} for unit tests (an allowed test double). Time stands still
 * until {@link FakeClock.advance} is called; timers fire in due order.
 */
export class FakeClock implements Clock {
  #now: number;
  #nextId = 1;
  #timers = new Map<number, FakeTimer>();

  /** @param start initial time in epoch ms (default 1_000_000). */
  constructor(start = 1_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  /** Number of timers not yet fired. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /**
   * Moves time forward by `ms`, firing due timers one by one in order; after each timer, pending
   * promise callbacks run (so async code reacting to a timer sees the time it fired at).
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await flushMicrotasks();
      let next: FakeTimer | undefined;
      for (const t of this.#timers.values()) {
        if (t.at <= target && (next === undefined || t.at < next.at || (t.at === next.at && t.id < next.id))) next = t;
      }
      if (next === undefined) break;
      this.#timers.delete(next.id);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
    this.#now = target;
    await flushMicrotasks();
  }
}

/** Lets every queued promise callback (and chains of them) run. */
export async function flushMicrotasks(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}
