import type { Informer } from './informer.js';
import { untilAborted, type CacheRunnable } from './runnable.js';
import type { AcquireOptions, InformerSpec, SharedInformer, SharedInformers } from './shared-informers.js';

/**
 * One owner's holds on shared informers, for as long as it runs: a cache runnable (the manager
 * it is added to waits for every informer it holds to sync before starting controllers) that
 * releases them all when stopped. For consumers whose lifetime is a manager's, e.g. a controller
 * registered in a manager of its own that reads the process's host informers.
 */
export class InformerHolds implements CacheRunnable {
  readonly name: string;
  readonly needLeaderElection = false;
  readonly #informers: SharedInformers;
  readonly #holds: SharedInformer[] = [];
  readonly #awaited: Informer[] = [];

  constructor(informers: SharedInformers, name: string) {
    this.#informers = informers;
    this.name = name;
  }

  /**
   * The shared informer of `spec`, held until this runnable stops. With `awaitSync: false` it
   * counts neither towards {@link hasSynced} nor towards the shared set's sync (a manager's wait
   * for its caches), unless another holder awaits it: for a resource that may not be served,
   * read only by some reconciles, which check its sync themselves. Default true.
   *
   * @throws InformersStoppedError as {@link SharedInformers.acquire}.
   */
  acquire(spec: InformerSpec, options: AcquireOptions = {}): Informer {
    const hold = this.#informers.acquire(spec, options);
    this.#holds.push(hold);
    if (options.awaitSync !== false) this.#awaited.push(hold.informer);
    return hold.informer;
  }

  hasSynced(): boolean {
    return this.#awaited.every((i) => i.hasSynced());
  }

  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    for (const i of [...this.#awaited]) if (!(await i.waitForSync(signal))) return false;
    return true;
  }

  /** Waits until `signal` aborts, then releases every hold. */
  async start(signal: AbortSignal): Promise<void> {
    await untilAborted(signal);
    for (const h of this.#holds.splice(0)) h.release();
  }
}
