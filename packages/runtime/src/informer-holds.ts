import type { Informer } from './informer.js';
import { untilAborted, type CacheRunnable } from './runnable.js';
import {
  SharedInformers,
  type AcquireOptions,
  type InformerSpec,
  type SharedInformer,
  type SharedInformersOptions,
} from './shared-informers.js';

/**
 * One owner's holds on shared informers, for as long as it runs: a cache runnable (the manager
 * it is added to waits for every informer it holds to sync before starting controllers) that
 * releases them all when stopped. For consumers whose lifetime is a manager's, e.g. a controller
 * registered in a manager of its own that reads the process's host informers. A consumer that
 * runs with or without the process's informers takes its holds from {@link onGivenOrOwn}.
 */
export class InformerHolds implements CacheRunnable {
  readonly name: string;
  readonly needLeaderElection = false;
  readonly #informers: SharedInformers;
  readonly #holds: SharedInformer[] = [];
  readonly #awaited: Informer[] = [];
  /** The informers held, when they are these holds' own (see {@link onGivenOrOwn}). */
  #own: SharedInformers | undefined;

  constructor(informers: SharedInformers, name: string) {
    this.#informers = informers;
    this.name = name;
  }

  /**
   * Holds on `informers` when given (they stay their owner's to start and stop); without, on a
   * set of these holds' own, made of `own`, which runs while they run and stops once they have
   * released every hold. For a consumer that reads the process's shared informers (e.g.
   * `Manager.sharedInformers(host)`) when it is passed them, and runs on its own otherwise.
   */
  static onGivenOrOwn(informers: SharedInformers | undefined, name: string, own: SharedInformersOptions): InformerHolds {
    if (informers !== undefined) return new InformerHolds(informers, name);
    const holds = new InformerHolds(new SharedInformers(own), name);
    holds.#own = holds.#informers;
    return holds;
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

  /** Waits until `signal` aborts, then releases every hold (and stops informers of their own). */
  async start(signal: AbortSignal): Promise<void> {
    const own = this.#own?.start(signal);
    await untilAborted(signal);
    for (const h of this.#holds.splice(0)) h.release();
    await own;
  }
}
