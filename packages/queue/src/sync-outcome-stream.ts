import { createHmac, timingSafeEqual } from 'node:crypto';
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
 * only once every placed Ready cluster has reported that generation.
 */
export const syncOutcomeSchema = syncRequestSchema.extend({
  generation: z.number().int().nonnegative().optional(),
  result: z
    .strictObject({
      status: z.string(),
      remoteStatus: z.record(z.string(), z.unknown()).optional(),
    })
    .nullable(),
});

/** One outcome: see {@link syncOutcomeSchema}. */
export type SyncOutcome = z.infer<typeof syncOutcomeSchema>;

/** The Redis stream of outcomes under a BullMQ prefix: `<prefix>:kubefed-sync-outcomes` (on a Redis Cluster the prefix is `{prefix}`, as the queues'). */
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
}

/**
 * Sends sync outcomes from worker processes to the leader's status writer over a Redis stream
 * (docs/architecture.md), for when workers run in other processes than the controllers
 * (`--mode workers`). Each entry is signed with the shared key; the subscriber drops entries
 * whose signature does not match. The stream is capped; nothing depends on an old entry,
 * because the leader re-syncs every object when it starts.
 */
export class SyncOutcomePublisher {
  readonly #o: SyncOutcomeStreamOptions;
  readonly #key: string;

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
    const raw = JSON.stringify(valid);
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
 * replayed) and hands each valid one to `onOutcome`, until `signal` aborts. Survives Redis
 * restarts: read errors are logged and retried after `retryMs`.
 */
export class SyncOutcomeSubscriber {
  readonly #o: SyncOutcomeStreamOptions;
  readonly #key: string;

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
            const raw = field(fields, 'o');
            const signed = raw !== undefined && verify(this.#o.signingKey, raw, field(fields, 's'));
            const parsed = signed ? syncOutcomeSchema.safeParse(safeJson(raw)) : undefined;
            if (parsed?.success === true) onOutcome(parsed.data);
            else if (!signed) logger.warn({ queue: this.#key, jobId: id }, 'dropping a sync outcome without a valid signature');
            else logger.warn({ queue: this.#key, jobId: id }, 'dropping a malformed sync outcome');
          }
        }
      } catch (err) {
        if (signal.aborted) break;
        logger.warn({ queue: this.#key, err }, 'reading sync outcomes failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 1000));
      }
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
