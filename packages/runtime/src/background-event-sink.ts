import type { KubeObject } from '@kubefed/client';
import type { EventSink, ObjectEvent } from './event-recorder.js';
import type { Logger } from './logger.js';

/** Options of {@link BackgroundEventSink}. */
export interface BackgroundEventSinkOptions {
  /** Events waiting to be written at most; more are dropped (counted in `dropped`). Default 1000 (client-go's broadcaster queue). */
  readonly maxQueued?: number | undefined;
  /** Writes in flight at once; default 4. */
  readonly concurrency?: number | undefined;
  /** Told (at debug) about the first event dropped after writes caught up again. Default none. */
  readonly logger?: Logger | undefined;
}

interface Queued {
  readonly involved: KubeObject;
  readonly event: ObjectEvent;
}

/**
 * An {@link EventSink} that hands events to another one in the background, as client-go's event
 * broadcaster does: `record()` resolves at once, so a reconcile never waits for an event write
 * (events are reporting; their writes may queue behind a busy API server or rate budget, and
 * the work that records them must not). Events are written in the order recorded, `concurrency`
 * at a time; when `maxQueued` are already waiting, a new event is dropped.
 */
export class BackgroundEventSink implements EventSink {
  readonly #sink: EventSink;
  readonly #maxQueued: number;
  readonly #concurrency: number;
  readonly #logger: Logger | undefined;
  readonly #queue: Queued[] = [];
  #writing = 0;
  #dropped = 0;
  /** Whether a drop was logged since the queue was last empty. */
  #toldDrop = false;
  #idle: (() => void)[] = [];

  constructor(sink: EventSink, options: BackgroundEventSinkOptions = {}) {
    this.#sink = sink;
    this.#maxQueued = Math.max(1, options.maxQueued ?? 1000);
    this.#concurrency = Math.max(1, options.concurrency ?? 4);
    this.#logger = options.logger;
  }

  /** Events dropped so far because `maxQueued` were waiting. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues `event` for writing and resolves at once; never rejects. */
  record(involved: KubeObject, event: ObjectEvent): Promise<void> {
    if (this.#queue.length >= this.#maxQueued) {
      this.#dropped++;
      if (!this.#toldDrop) this.#logger?.debug({ reason: event.reason, name: involved.metadata.name }, 'event queue full; events dropped');
      this.#toldDrop = true;
      return Promise.resolve();
    }
    this.#queue.push({ involved, event });
    this.#pump();
    return Promise.resolve();
  }

  /** Resolves once every queued event has been handed to the sink and its write ended. */
  async drained(): Promise<void> {
    if (this.#queue.length === 0 && this.#writing === 0) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #pump(): void {
    while (this.#writing < this.#concurrency && this.#queue.length > 0) {
      const next = this.#queue.shift() as Queued;
      this.#writing++;
      // EventSink.record never rejects; the catch only keeps a faulty sink from stopping the queue.
      void this.#sink
        .record(next.involved, next.event)
        .catch(() => undefined)
        .finally(() => {
          this.#writing--;
          this.#pump();
          if (this.#queue.length === 0 && this.#writing === 0) this.#settle();
        });
    }
  }

  #settle(): void {
    this.#toldDrop = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}
