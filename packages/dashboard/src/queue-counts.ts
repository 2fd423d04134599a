import { BullMqJobProducer, createRedisConnection, type RedisConnection } from '@kubefed/queue';
import type { Logger } from '@kubefed/runtime';
import type { QueueCountsView } from './views.js';

/** Where the Clusters page gets each member's sync queue counts. */
export interface QueueCountsSource {
  /** The last counts read, by cluster. */
  readonly counts: ReadonlyMap<string, QueueCountsView>;
  /** Why the last read failed, if it did. */
  readonly problem: string | undefined;
  /** Reads until `signal` aborts. */
  start(signal: AbortSignal): Promise<void>;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function waitInterval(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Options of {@link QueueCountsPoller}. */
export interface QueueCountsPollerOptions {
  /** Redis of the control plane (any URL form of `@kubefed/queue`). */
  readonly redisUrl: string;
  /** BullMQ key prefix the controller manager uses; default BullMQ's `bull`. */
  readonly queuePrefix?: string | undefined;
  /** The member clusters whose queues are read. */
  readonly clusters: () => readonly string[];
  /** Called when a count changed. */
  readonly onChange: () => void;
  /** Default 1000 ms. */
  readonly intervalMs?: number;
  readonly logger: Logger;
}

/**
 * Reads the job counts of every member's sync queue (`kubefed-sync.<cluster>`) from Redis. Queue
 * lengths have no watch, so they are read every `intervalMs`; the page is told only of changes.
 */
export class QueueCountsPoller implements QueueCountsSource {
  readonly #o: QueueCountsPollerOptions;
  readonly #counts = new Map<string, QueueCountsView>();
  #problem: string | undefined;

  constructor(options: QueueCountsPollerOptions) {
    this.#o = options;
  }

  /** The last counts read, by cluster. */
  get counts(): ReadonlyMap<string, QueueCountsView> {
    return this.#counts;
  }

  /** The error of the last failed read of some queue, until a read of every queue succeeds. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /** Reads until `signal` aborts; a failed read is logged and retried at the next interval. */
  async start(signal: AbortSignal): Promise<void> {
    const connection: RedisConnection = createRedisConnection(this.#o.redisUrl, { role: 'producer', connectionName: 'kubefed-dashboard' });
    const producer = new BullMqJobProducer({ connection, ...(this.#o.queuePrefix === undefined ? {} : { prefix: this.#o.queuePrefix }) });
    try {
      while (!signal.aborted) {
        await this.#readAll(producer);
        await waitInterval(this.#o.intervalMs ?? 1000, signal);
      }
    } finally {
      await producer.close();
      connection.disconnect();
    }
  }

  async #readAll(producer: BullMqJobProducer): Promise<void> {
    let changed = false;
    let problem: string | undefined;
    for (const cluster of this.#o.clusters()) {
      try {
        const c = await producer.counts(cluster);
        const old = this.#counts.get(cluster);
        if (old?.waiting !== c.waiting || old.active !== c.active || old.delayed !== c.delayed || old.failed !== c.failed) changed = true;
        this.#counts.set(cluster, c);
      } catch (err) {
        problem = `Redis: ${err instanceof Error ? err.message : String(err)}`;
        this.#o.logger.warn({ err, cluster }, 'cannot read the sync queue counts');
      }
    }
    if (problem !== this.#problem) changed = true;
    this.#problem = problem;
    if (changed) this.#o.onChange();
  }
}
