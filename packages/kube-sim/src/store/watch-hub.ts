import type { KObject } from '../util/json.js';

/** Kind of a stored change. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change: the object state after it (the last state for DELETED). */
export interface StoreEvent {
  type: ChangeType;
  rv: number;
  grKey: string;
  object: KObject;
  /** The state before the change (undefined for ADDED). */
  prev: KObject | undefined;
}

/** A live watch registered with the hub. */
export interface WatchSubscriber {
  readonly grKey: string;
  deliver(event: StoreEvent): void;
}

/**
 * Fans committed changes out to live watches and retains the last `capacity` events so a watch
 * can resume from a resourceVersion. History is one window per cluster (like etcd compaction):
 * a resourceVersion older than the window is answered with 410 Gone.
 */
export class WatchHub {
  private readonly buf: (StoreEvent | undefined)[];
  private start = 0;
  private count = 0;
  private compacted: number;
  private readonly subscribers = new Map<string, Set<WatchSubscriber>>();

  constructor(
    private readonly capacity: number,
    initialRv: number,
  ) {
    this.buf = new Array<StoreEvent | undefined>(Math.max(1, capacity));
    this.compacted = initialRv;
  }

  /** The highest resourceVersion no longer resumable from (events after it are retained). */
  get compactedRv(): number {
    return this.compacted;
  }

  /** Records a change and delivers it to matching watches. */
  publish(event: StoreEvent): void {
    const cap = this.buf.length;
    if (this.capacity <= 0) this.compacted = event.rv;
    else if (this.count < cap) {
      this.buf[(this.start + this.count) % cap] = event;
      this.count++;
    } else {
      this.compacted = this.buf[this.start]!.rv;
      this.buf[this.start] = event;
      this.start = (this.start + 1) % cap;
    }
    const subs = this.subscribers.get(event.grKey);
    if (subs !== undefined) for (const s of subs) s.deliver(event);
  }

  /**
   * Retained events of one group/resource after `rv`, oldest first; `undefined` when `rv`
   * is older than the retained window (the caller answers 410 Gone).
   */
  since(rv: number, grKey: string): StoreEvent[] | undefined {
    if (rv < this.compacted) return undefined;
    const out: StoreEvent[] = [];
    const cap = this.buf.length;
    // binary search for the first event with rv > requested
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.buf[(this.start + mid) % cap]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.count; i++) {
      const e = this.buf[(this.start + i) % cap]!;
      if (e.grKey === grKey) out.push(e);
    }
    return out;
  }

  /** Drops all retained history: every resourceVersion up to `currentRv` becomes too old. */
  compact(currentRv: number): void {
    this.buf.fill(undefined);
    this.start = 0;
    this.count = 0;
    this.compacted = currentRv;
  }

  /** Registers a live watch. */
  subscribe(sub: WatchSubscriber): void {
    let set = this.subscribers.get(sub.grKey);
    if (set === undefined) {
      set = new Set();
      this.subscribers.set(sub.grKey, set);
    }
    set.add(sub);
  }

  /** Unregisters a live watch. */
  unsubscribe(sub: WatchSubscriber): void {
    this.subscribers.get(sub.grKey)?.delete(sub);
  }
}
