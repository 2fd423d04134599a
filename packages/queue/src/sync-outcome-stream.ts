import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseWith } from '@kubefed/api';
import { z } from 'zod';
import { silentLogger, type QueueLogger } from './logger.js';
import { bullPrefix, type RedisConnection } from './redis-connection.js';
import { syncRequestSchema } from './sync-request.js';

/**
 * What a sync worker found or did for one (type, object, cluster): the cluster's propagation
 * status (`""` = OK, else a KubeFed status such as `CreationFailed`) and, with status
 * collection, the member object's `.status`; `result: null` when the cluster no longer has an
 * entry (the copy was removed or released). `generation` is the federated object's
 * `metadata.generation` the worker acted on: the status writer advances `observedGeneration`
 * only once every placed Ready cluster has reported that generation. `uid` is that object's
 * `metadata.uid`: the status writer drops an outcome about another object of the same name (one
 * deleted and created again) and one older than an outcome it already applied. Both are absent
 * when the worker could not read the object.
 */
export const syncOutcomeSchema = syncRequestSchema.extend({
  generation: z.number().int().nonnegative().optional(),
  uid: z.string().min(1).max(128).optional(),
  result: z
    .strictObject({
      status: z.string(),
      remoteStatus: z.record(z.string(), z.unknown()).optional(),
    })
    .nullable(),
});

/** One outcome: see {@link syncOutcomeSchema}. */
export type SyncOutcome = z.infer<typeof syncOutcomeSchema>;

/**
 * What an entry's signature covers: the outcome (with its object's `uid` and `generation`), a
 * `nonce` unique to this entry (the publisher's random id and its sequence number) and the
 * publisher's clock at `at` (epoch ms). Whoever can write to Redis can copy an entry, not change
 * it: the subscriber drops a copy of an entry it has seen (the nonce) and an entry older than
 * its maximum age, and the status writer an outcome about another object or an older generation.
 */
const signedOutcomeSchema = z.strictObject({
  outcome: syncOutcomeSchema,
  nonce: z.string().min(1).max(100),
  at: z.number().int().nonnegative(),
});

/** Why the subscriber dropped a stream entry (the `reason` of its log line and of `onDropped`). */
export type DroppedOutcomeReason = 'signature' | 'malformed' | 'replayed' | 'expired';

/** The Redis stream of outcomes under a BullMQ prefix: `<prefix>:kubefed-sync-outcomes` (on a Redis Cluster the prefix is `{prefix}`: one slot, apart from the member queues' own). */
export function syncOutcomeStreamKey(prefix = 'bull'): string {
  return `${prefix}:kubefed-sync-outcomes`;
}

/** Options of {@link SyncOutcomePublisher} and {@link SyncOutcomeSubscriber}. */
export interface SyncOutcomeStreamOptions {
  /** A connection the caller owns (the subscriber blocks on it: give it one of its own). */
  readonly connection: RedisConnection;
  /** BullMQ key prefix, as the queues'; default `bull`. */
  readonly prefix?: string | undefined;
  /**
   * The key every outcome is signed with (HMAC-SHA256) by the publisher and checked with by the
   * subscriber, shared by controllers and workers (the controller manager keeps it in a host
   * Secret). Whoever can write to Redis but does not hold it cannot forge an outcome.
   */
  readonly signingKey: Uint8Array;
  /** Entries kept in the stream (approximately); default 10 000. Outcomes are level-triggered: a lost one is re-reported at the next sync. */
  readonly maxLength?: number | undefined;
  readonly logger?: QueueLogger | undefined;
  /** Subscriber: an entry signed longer ago than this (or as far ahead, by the subscriber's clock) is dropped; default 5 minutes. */
  readonly maxAgeMs?: number | undefined;
  /** Subscriber: how many nonces of entries it accepted it remembers, to drop a copy of one; default 100 000. */
  readonly rememberedNonces?: number | undefined;
  /** Subscriber: called for each entry it drops (e.g. to count it); errors thrown here are ignored. */
  readonly onDropped?: ((reason: DroppedOutcomeReason) => void) | undefined;
  /** Epoch ms now; default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** See {@link SyncOutcomeStreamOptions.maxAgeMs}. */
const DEFAULT_MAX_AGE_MS = 5 * 60_000;
/** See {@link SyncOutcomeStreamOptions.rememberedNonces}. */
const DEFAULT_REMEMBERED_NONCES = 100_000;

/**
 * Sends sync outcomes from worker processes to the leader's status writer over a Redis stream
 * (docs/architecture.md), for when workers run in other processes than the controllers
 * (`--mode workers`). Each entry is signed with the shared key over the outcome, a nonce and
 * the time ({@link signedOutcomeSchema}); the subscriber drops entries whose signature does not
 * match, copies and old entries. The stream is capped; nothing depends on an old entry, because
 * the leader re-syncs every object when it starts.
 */
export class SyncOutcomePublisher {
  readonly #o: SyncOutcomeStreamOptions;
  readonly #key: string;
  /** This publisher's random id: with {@link #sequence}, the nonce of each entry. */
  readonly #id = randomBytes(12).toString('hex');
  #sequence = 0;

  constructor(options: SyncOutcomeStreamOptions) {
    this.#o = options;
    this.#key = syncOutcomeStreamKey(bullPrefix(options.connection, options.prefix));
  }

  /**
   * Appends one outcome.
   *
   * @throws ValidationError naming the bad field; Redis errors as is (the job is retried).
   */
  async publish(outcome: SyncOutcome): Promise<void> {
    const valid = parseWith(syncOutcomeSchema, outcome, 'sync outcome');
    this.#sequence += 1;
    const raw = JSON.stringify({ outcome: valid, nonce: `${this.#id}-${this.#sequence}`, at: (this.#o.now ?? Date.now)() });
    await this.#o.connection.xadd(
      this.#key,
      'MAXLEN',
      '~',
      String(this.#o.maxLength ?? 10_000),
      '*',
      'o',
      raw,
      's',
      signature(this.#o.signingKey, raw),
    );
  }
}

/**
 * Reads the outcomes published after it started (entries older than its start are not
 * replayed) and hands each valid one to `onOutcome`, until `signal` aborts. Drops (logged at
 * warn, told to `onDropped`) an entry without a valid signature, a malformed one, a copy of an
 * entry it accepted (its nonce; the last `rememberedNonces`) and one signed more than `maxAgeMs`
 * ago. Survives Redis restarts: read errors are logged and retried after `retryMs`.
 */
export class SyncOutcomeSubscriber {
  readonly #o: SyncOutcomeStreamOptions;
  readonly #key: string;
  /** Nonces of accepted entries, oldest first (a Set keeps insertion order). */
  readonly #nonces = new Set<string>();

  constructor(options: SyncOutcomeStreamOptions) {
    this.#o = options;
    this.#key = syncOutcomeStreamKey(bullPrefix(options.connection, options.prefix));
  }

  /**
   * Runs until `signal` aborts (resolves within `blockMs` after that).
   *
   * @param options.blockMs how long one XREAD blocks; default 1000 ms.
   * @param options.retryMs pause after a failed read; default 1000 ms.
   */
  async run(
    signal: AbortSignal,
    onOutcome: (outcome: SyncOutcome) => void,
    options: { blockMs?: number; retryMs?: number } = {},
  ): Promise<void> {
    const logger = this.#o.logger ?? silentLogger;
    const redis = this.#o.connection;
    let lastId: string | undefined;
    while (!signal.aborted) {
      try {
        // Start after the newest entry present now: earlier outcomes belong to an earlier leader.
        lastId ??= await this.#newestId();
        const reply = await redis.xread('COUNT', 500, 'BLOCK', options.blockMs ?? 1000, 'STREAMS', this.#key, lastId);
        for (const [, entries] of reply ?? []) {
          for (const [id, fields] of entries) {
            lastId = id;
            const outcome = this.#accept(fields);
            if (typeof outcome !== 'string') onOutcome(outcome);
            else this.#drop(outcome, id, logger);
          }
        }
      } catch (err) {
        if (signal.aborted) break;
        logger.warn({ queue: this.#key, err }, 'reading sync outcomes failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 1000));
      }
    }
  }

  /** The outcome of a stream entry, or why it is dropped. */
  #accept(fields: readonly string[]): SyncOutcome | DroppedOutcomeReason {
    const raw = field(fields, 'o');
    if (raw === undefined || !verify(this.#o.signingKey, raw, field(fields, 's'))) return 'signature';
    const parsed = signedOutcomeSchema.safeParse(safeJson(raw));
    if (!parsed.success) return 'malformed';
    const { outcome, nonce, at } = parsed.data;
    if (Math.abs((this.#o.now ?? Date.now)() - at) > (this.#o.maxAgeMs ?? DEFAULT_MAX_AGE_MS)) return 'expired';
    if (this.#nonces.has(nonce)) return 'replayed';
    this.#nonces.add(nonce);
    if (this.#nonces.size > (this.#o.rememberedNonces ?? DEFAULT_REMEMBERED_NONCES)) {
      for (const oldest of this.#nonces) {
        this.#nonces.delete(oldest);
        break;
      }
    }
    return outcome;
  }

  #drop(reason: DroppedOutcomeReason, id: string, logger: QueueLogger): void {
    const message = {
      signature: 'dropping a sync outcome without a valid signature',
      malformed: 'dropping a malformed sync outcome',
      replayed: 'dropping a copy of a sync outcome already received',
      expired: 'dropping a sync outcome signed too long ago',
    } as const satisfies Record<DroppedOutcomeReason, string>;
    logger.warn({ queue: this.#key, jobId: id, reason }, message[reason]);
    try {
      this.#o.onDropped?.(reason);
    } catch {
      // A counter's failure must not stop the reader.
    }
  }

  async #newestId(): Promise<string> {
    const newest = await this.#o.connection.xrevrange(this.#key, '+', '-', 'COUNT', 1);
    return newest[0]?.[0] ?? '0-0';
  }
}

/** The value of `name` in a stream entry's flat field list. */
function field(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

function signature(key: Uint8Array, raw: string): string {
  return createHmac('sha256', key).update(raw).digest('hex');
}

/** True when `given` is the signature of `raw` under `key` (compared in constant time). */
function verify(key: Uint8Array, raw: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const expected = Buffer.from(signature(key, raw), 'hex');
  const actual = Buffer.from(given, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
}
