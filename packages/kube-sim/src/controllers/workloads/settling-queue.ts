/** Passes per macrotask before yielding to I/O (guards against a controller that never settles). */
const maxPassesPerTurn = 100;

/**
 * A deduplicating queue of controller keys. The first key queued wakes it after `delayMs` (the
 * latency of a controller-manager that sees changes through a watch); once awake it runs passes
 * until nothing is queued, so a change cascades through the workload controllers (deployment →
 * replicaset → pods → scheduler → kubelet → statuses) within one event-loop turn and clients
 * never read a half-settled cluster. Keys marked `last` (the scheduler) run only after every other
 * queued key. No timer outlives {@link SettlingQueue.stop}.
 */
export class SettlingQueue {
  private readonly pending = new Map<string, () => void>();
  private readonly pendingLast = new Map<string, () => void>();
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private stopped = false;

  constructor(private readonly delayMs: number) {}

  /** Queues `fn` under `key`; a later call with the same key before it runs replaces it. */
  enqueue(key: string, fn: () => void, last = false): void {
    if (this.stopped) return;
    (last ? this.pendingLast : this.pending).set(key, fn);
    if (this.timer === undefined && this.immediate === undefined) this.timer = setTimeout(() => this.drain(), this.delayMs);
  }

  private drain(): void {
    this.timer = undefined;
    this.immediate = undefined;
    for (let pass = 0; pass < maxPassesPerTurn && !this.stopped; pass++) {
      const source = this.pending.size > 0 ? this.pending : this.pendingLast;
      if (source.size === 0) return;
      const batch = [...source.values()];
      source.clear();
      for (const fn of batch) {
        if (this.stopped) return;
        try {
          fn();
        } catch {
          // Best effort, like the other simulated controllers: a later event retries the key.
        }
      }
    }
    if (!this.stopped && (this.pending.size > 0 || this.pendingLast.size > 0)) this.immediate = setImmediate(() => this.drain());
  }

  /** Drops queued work, cancels the wake-up and refuses more. */
  stop(): void {
    this.stopped = true;
    this.pending.clear();
    this.pendingLast.clear();
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }
}
