import { syncRequestId } from '@kubefed/queue';
import { type Clock, systemClock } from '@kubefed/runtime';

/** Options of {@link OwnWrites}. */
export interface OwnWritesOptions {
  /** How long a written resourceVersion waits for its watch event; default 60 s. */
  readonly ttlMs?: number;
  /** Default the system clock. */
  readonly clock?: Clock;
}

interface Entry {
  /** Writes in flight for the object. */
  inflight: number;
  /** resourceVersions this process wrote whose watch event has not arrived yet, with when. */
  readonly written: Map<string, number>;
  /** Watch events that arrived while a write was in flight: decided when it ends. */
  readonly parked: Map<string, () => void>;
  touched: number;
}

/**
 * The member writes of the sync workers in this process, so that the member watches can tell
 * their echo from a change made by someone else: the watch event of an object this process
 * just wrote needs no sync job (the worker already converged it). Keys name one member object
 * ({@link OwnWrites.key}).
 *
 * A watch event may arrive before the write's response: while a write of the object is in
 * flight, events are parked and reported when the write ends unless they carry the written
 * resourceVersion. When in doubt an event is reported: a needless job is cheap, a missed
 * change is drift.
 */
export class OwnWrites {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #clock: Clock;

  constructor(options: OwnWritesOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#clock = options.clock ?? systemClock;
  }

  /** The key of a member object: the `syncRequestId` of the object in `cluster`. */
  static key(
    cluster: string,
    federatedType: string,
    obj: { readonly metadata: { readonly namespace?: string | undefined; readonly name?: string | undefined } },
  ): string {
    const { namespace, name = '' } = obj.metadata;
    return syncRequestId({ federatedType, ...(namespace === undefined || namespace === '' ? {} : { namespace }), name, cluster });
  }

  /** A write of the object starts. Pair with {@link wrote} or {@link failed}. */
  begin(key: string): void {
    const entry = this.#entry(key);
    entry.inflight++;
  }

  /** The write succeeded and the member answered with `resourceVersion`. */
  wrote(key: string, resourceVersion: string | undefined): void {
    const entry = this.#entry(key);
    entry.inflight = Math.max(0, entry.inflight - 1);
    if (resourceVersion !== undefined) {
      const echo = entry.parked.get(resourceVersion);
      if (echo !== undefined) entry.parked.delete(resourceVersion);
      else entry.written.set(resourceVersion, this.#clock.now());
    }
    this.#settle(key, entry);
  }

  /** The write failed: events parked meanwhile are reported. */
  failed(key: string): void {
    const entry = this.#entry(key);
    entry.inflight = Math.max(0, entry.inflight - 1);
    this.#settle(key, entry);
  }

  /**
   * A watch event of the object with `resourceVersion` arrived. Calls `report` (now or when
   * the write in flight ends) unless the event is the echo of this process's own write.
   */
  observe(key: string, resourceVersion: string | undefined, report: () => void): void {
    this.#prune();
    const entry = this.#entries.get(key);
    if (entry === undefined || resourceVersion === undefined) {
      report();
      return;
    }
    if (entry.written.delete(resourceVersion)) {
      this.#settle(key, entry);
      return;
    }
    if (entry.inflight > 0) {
      entry.parked.set(resourceVersion, report);
      return;
    }
    report();
  }

  /**
   * Whether this process is writing the object or wrote it and its watch has not shown that
   * write yet: a watch cache read of the object may then still show it as it was before.
   */
  pending(key: string): boolean {
    const entry = this.#entries.get(key);
    return entry !== undefined && (entry.inflight > 0 || entry.written.size > 0);
  }

  /** Objects with a write in flight or an echo still expected (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  #entry(key: string): Entry {
    let entry = this.#entries.get(key);
    const now = this.#clock.now();
    if (entry === undefined) {
      entry = { inflight: 0, written: new Map(), parked: new Map(), touched: now };
      this.#entries.set(key, entry);
    } else {
      // Keep the map ordered by last use so that pruning stops at the first fresh entry.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      entry.touched = now;
    }
    return entry;
  }

  #settle(key: string, entry: Entry): void {
    if (entry.inflight > 0) return;
    const parked = [...entry.parked.values()];
    entry.parked.clear();
    if (entry.written.size === 0) this.#entries.delete(key);
    for (const report of parked) report();
  }

  /** Forgets echoes that never came (the watch was restarted or disengaged). */
  #prune(): void {
    const limit = this.#clock.now() - this.#ttlMs;
    for (const [key, entry] of this.#entries) {
      if (entry.touched > limit) return;
      if (entry.inflight > 0) continue;
      for (const [rv, at] of entry.written) if (at <= limit) entry.written.delete(rv);
      this.#settle(key, entry);
    }
  }
}
