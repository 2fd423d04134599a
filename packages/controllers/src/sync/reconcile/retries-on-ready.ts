import type { JobProducer } from '@kubefed/queue';
import { type Fleet, type Logger, type Runnable, silentLogger, untilAborted } from '@kubefed/runtime';

/** Options of {@link RetriesOnReady}. */
export interface RetriesOnReadyOptions {
  readonly fleet: Pick<Fleet, 'readyClusters' | 'onChange'>;
  readonly producer: Pick<JobProducer, 'retryNow'>;
  /** Default silent. */
  readonly logger?: Logger | undefined;
}

/**
 * Brings forward the retries of a member cluster that becomes Ready again: every job of its
 * queue waiting for a retry backoff runs at once, as KubeFed's sync controller delivers every key
 * again when a cluster becomes available. Without it a key that failed while the member could
 * not be reached would wait out its backoff (up to a minute) after the member is back. Runs on
 * the leader, beside the sync controllers whose readiness fan-out enqueues the same keys (those
 * jobs collapse into the waiting retries).
 */
export class RetriesOnReady implements Runnable {
  readonly name = 'retries-on-ready';
  readonly needLeaderElection = true;
  readonly #o: RetriesOnReadyOptions;
  readonly #logger: Logger;
  #ready = new Set<string>();

  constructor(options: RetriesOnReadyOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger();
  }

  async start(signal: AbortSignal): Promise<void> {
    this.#ready = new Set(this.#o.fleet.readyClusters().keys());
    const off = this.#o.fleet.onChange((ready) => this.#onChange(ready));
    try {
      await untilAborted(signal);
    } finally {
      off();
    }
  }

  #onChange(ready: readonly string[]): void {
    const back = ready.filter((c) => !this.#ready.has(c));
    this.#ready = new Set(ready);
    for (const cluster of back) this.#retryNow(cluster);
  }

  #retryNow(cluster: string): void {
    this.#o.producer
      .retryNow(cluster)
      .then(() => this.#logger.info({ cluster }, 'member cluster Ready again: its sync jobs waiting for a retry run now'))
      .catch((err: unknown) => this.#logger.warn({ cluster, err }, 'bringing forward the retries of a member cluster failed'));
  }
}
