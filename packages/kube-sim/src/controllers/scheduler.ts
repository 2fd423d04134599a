/**
 * Runs controller work outside the write that triggered it (like a real controller, which
 * sees the change through a watch), deduplicated by key, until stopped.
 */
export class WorkScheduler {
  private readonly pending = new Map<string, () => void>();
  private scheduled = false;
  private stopped = false;

  /** Queues `fn` under `key`; a later call with the same key before it runs replaces it. */
  enqueue(key: string, fn: () => void): void {
    if (this.stopped) return;
    this.pending.set(key, fn);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    this.scheduled = false;
    // Each pass may enqueue more work; it runs in a later pass.
    const batch = [...this.pending.values()];
    this.pending.clear();
    for (const fn of batch) {
      if (this.stopped) return;
      try {
        fn();
      } catch {
        // Controller work is best effort: conflicts and not-found are retried by later events.
      }
    }
  }

  /** Drops queued work and refuses more. */
  stop(): void {
    this.stopped = true;
    this.pending.clear();
  }
}
