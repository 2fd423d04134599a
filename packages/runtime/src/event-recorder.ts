import { type Clock, type KubeObject, type ResourceClient, systemClock } from '@kubefed/client';
import { boundText } from '@kubefed/api';
import type { Logger } from './logger.js';

/** The most characters of an event's message; a longer one is cut (see `boundText`). */
const MAX_EVENT_MESSAGE_CHARS = 1024;

/** One Kubernetes event about an object. */
export interface ObjectEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  /** `source.component` of this event; default the recorder's. */
  readonly component?: string | undefined;
}

/** Where events go: an {@link EventRecorder}, or anything that records them elsewhere. */
export interface EventSink {
  /** Records `event` about `involved`; never rejects (a failed write is only logged). */
  record(involved: KubeObject, event: ObjectEvent): Promise<void>;
}

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  /** `core/v1` events of a namespace (`host.resource(events, ns)`). */
  readonly events: (namespace: string) => Pick<ResourceClient, 'create' | 'patch'>;
  /** `source.component` / `reportingComponent` of events that name none, e.g. `federateddeployment-controller`. */
  readonly component: string;
  /** An identical event within this window increments `count` of the first one instead of creating another; default 10 min (client-go's correlator). */
  readonly aggregateWindowMs?: number | undefined;
  /** How many distinct events are remembered for aggregation; default 4096 (least recently used dropped). */
  readonly maxRemembered?: number | undefined;
  readonly clock?: Clock | undefined;
  readonly logger?: Logger | undefined;
}

interface Remembered {
  readonly namespace: string;
  readonly name: string;
  count: number;
  firstSeenMs: number;
}

const eventTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Records `core/v1` Events about objects, as client-go's recorder does: the event is named
 * `<object name>.<random>` in the object's namespace (`default` for cluster-scoped objects),
 * and the same (object, type, reason, message) within `aggregateWindowMs` bumps `count` and
 * `lastTimestamp` of the existing event instead of creating a new one, so a retried failure
 * does not flood the namespace. Failures to write are logged at debug and swallowed: events
 * are best effort.
 */
export class EventRecorder implements EventSink {
  readonly #o: EventRecorderOptions;
  readonly #clock: Clock;
  readonly #seen = new Map<string, Remembered>();

  constructor(options: EventRecorderOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  async record(involved: KubeObject, given: ObjectEvent): Promise<void> {
    // The message may quote a tenant's or a member's text; events.k8s.io/v1 allows a note of 1 kB.
    const event = { ...given, message: boundText(given.message, MAX_EVENT_MESSAGE_CHARS) };
    const namespace =
      involved.metadata.namespace !== undefined && involved.metadata.namespace !== '' ? involved.metadata.namespace : 'default';
    const now = this.#clock.now();
    const key = [involved.metadata.uid ?? `${namespace}/${involved.metadata.name ?? ''}`, event.type, event.reason, event.message].join(
      '\u0000',
    );
    const window = this.#o.aggregateWindowMs ?? 600_000;
    const events = this.#o.events(namespace);
    try {
      const previous = this.#seen.get(key);
      if (previous !== undefined && now - previous.firstSeenMs < window) {
        previous.count++;
        this.#touch(key, previous);
        await events.patch(previous.name, { count: previous.count, lastTimestamp: eventTime(now) }, 'merge');
        return;
      }
      const created = await events.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${involved.metadata.name ?? 'object'}.`, namespace },
        involvedObject: {
          apiVersion: involved.apiVersion,
          kind: involved.kind,
          name: involved.metadata.name,
          namespace: involved.metadata.namespace,
          uid: involved.metadata.uid,
          resourceVersion: involved.metadata.resourceVersion,
        },
        reason: event.reason,
        message: event.message,
        type: event.type,
        source: { component: event.component ?? this.#o.component },
        reportingComponent: event.component ?? this.#o.component,
        firstTimestamp: eventTime(now),
        lastTimestamp: eventTime(now),
        count: 1,
      });
      this.#touch(key, { namespace, name: created.metadata.name ?? '', count: 1, firstSeenMs: now });
    } catch (err) {
      // An aggregated event that was deleted meanwhile is created again next time.
      this.#seen.delete(key);
      this.#o.logger?.debug({ err, reason: event.reason, name: involved.metadata.name }, 'recording an event failed');
    }
  }

  #touch(key: string, entry: Remembered): void {
    this.#seen.delete(key);
    this.#seen.set(key, entry);
    const max = this.#o.maxRemembered ?? 4096;
    while (this.#seen.size > max) {
      const oldest = this.#seen.keys().next().value;
      if (oldest === undefined) break;
      this.#seen.delete(oldest);
    }
  }
}
