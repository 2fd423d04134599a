import { KubeFedError } from '@kubefed/api';
import { systemClock, type Clock } from '@kubefed/runtime';

/** A create refused by {@link VanishingCopies}: the member deleted the copy again and again right after its creation. */
export class VanishingCopyError extends KubeFedError {
  constructor(cluster: string, refusal: VanishingCopyRefusal) {
    super(
      `cluster "${cluster}" deleted the copy ${refusal.creates} times within ${Math.round(refusal.windowMs / 1000)} s of its creation ` +
        '(its garbage collector removes an object whose owner is missing; an admission policy or a controller of the member may too): ' +
        `not creating it again for ${Math.ceil(refusal.retryInMs / 1000)} s`,
    );
  }
}

/** Why {@link VanishingCopies.refusal} refuses a create. */
export interface VanishingCopyRefusal {
  /** Creates within the window, each copy gone again since. */
  readonly creates: number;
  readonly windowMs: number;
  /** When the next create may go. */
  readonly retryInMs: number;
}

/** Options of {@link VanishingCopies}. */
export interface VanishingCopiesOptions {
  /** How long a create is remembered; default 60 s. */
  readonly windowMs?: number;
  /** Creates of one request within the window before the next is refused; default 3. */
  readonly creates?: number;
  /** Default the system clock. */
  readonly clock?: Clock;
}

/** How many entries {@link VanishingCopies.created} adds between two sweeps of expired entries. */
const SWEEP_EVERY = 1024;

/**
 * The member copies this process created and that were gone again soon after: a copy whose
 * `ownerReferences` name an owner missing in the member is deleted by the member's garbage
 * collector right after each create, an admission policy or a member controller may do the same,
 * and creating it again at once made about 6 writes a second per object, using up the member's
 * write budget for every tenant. After `creates` creates of one request within `windowMs`, the
 * next create waits until the oldest of them leaves the window; the job fails meanwhile with
 * `CreationFailed` and is retried with its backoff. In memory, per process: a restart forgets.
 */
export class VanishingCopies {
  readonly #windowMs: number;
  readonly #creates: number;
  readonly #clock: Clock;
  /** Create times (ms) within the window, oldest first, by request id. */
  readonly #times = new Map<string, number[]>();
  #sinceSweep = 0;

  constructor(options: VanishingCopiesOptions = {}) {
    this.#windowMs = options.windowMs ?? 60_000;
    this.#creates = options.creates ?? 3;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * `undefined` when request `id` may create its copy now; else how many copies it created
   * within the window (each one gone again, since it is being created once more) and in how many
   * milliseconds it may create again.
   */
  refusal(id: string): VanishingCopyRefusal | undefined {
    const times = this.#recent(id);
    if (times.length < this.#creates) return undefined;
    const oldest = times[times.length - this.#creates] ?? 0;
    return { creates: times.length, windowMs: this.#windowMs, retryInMs: Math.max(0, oldest + this.#windowMs - this.#clock.now()) };
  }

  /** Records that request `id` created its copy now. */
  created(id: string): void {
    const times = this.#recent(id);
    times.push(this.#clock.now());
    if (times.length > this.#creates) times.splice(0, times.length - this.#creates);
    this.#times.set(id, times);
    if (++this.#sinceSweep >= SWEEP_EVERY) this.#sweep();
  }

  #recent(id: string): number[] {
    const since = this.#clock.now() - this.#windowMs;
    const times = (this.#times.get(id) ?? []).filter((t) => t > since);
    if (times.length === 0) this.#times.delete(id);
    return times;
  }

  #sweep(): void {
    this.#sinceSweep = 0;
    for (const id of [...this.#times.keys()]) this.#recent(id);
  }
}
