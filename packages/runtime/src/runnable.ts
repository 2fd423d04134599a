/**
 * A long-lived part of a process (informer, controller, server, timer) owned by the manager.
 * `start` runs until `signal` aborts, then cleans up and resolves; rejecting (while not
 * aborted) means the runnable failed, and the manager stops the process.
 */
export interface Runnable {
  readonly name: string;
  start(signal: AbortSignal): Promise<void>;
  /** Run only on the elected leader; default true (controller-runtime's default). */
  readonly needLeaderElection?: boolean;
}

/** A runnable that fills a cache; the manager waits for it before starting controllers. */
export interface CacheRunnable extends Runnable {
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  /**
   * What has not synced yet, and why when known (`informer kubefedclusters: its last list failed:
   * …`): the manager names these when its wait for the caches times out.
   */
  unsynced?(): string[];
}

/** Whether `r` is a {@link CacheRunnable}. */
export function isCacheRunnable(r: Runnable): r is CacheRunnable {
  return typeof (r as Partial<CacheRunnable>).waitForSync === 'function' && typeof (r as Partial<CacheRunnable>).hasSynced === 'function';
}

/**
 * Resolves once `signal` aborts (at once when it already has); never rejects. The body of a
 * runnable that only sets something up and tears it down when stopped:
 * `start: async (signal) => { const off = subscribe(); await untilAborted(signal); off(); }`.
 */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
