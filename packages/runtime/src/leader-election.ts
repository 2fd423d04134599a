import { sleep, systemClock, type Clock } from '@kubefed/client';
import { statusCodeOf } from './kube-types.js';
import { silentLogger, type Logger } from './logger.js';
import type { RuntimeMetrics } from './metrics.js';
import { describeLock, type LeaderElectionRecord, type ObservedRecord, type ResourceLock } from './resource-lock.js';

/** Options of {@link LeaderElector}. */
export interface LeaderElectionOptions {
  /** The lock: a Lease, a ConfigMap or Endpoints annotation, or both (see {@link newResourceLock}). */
  lock: ResourceLock;
  /** This candidate's unique identity (e.g. `<hostname>_<uuid>`). */
  identity: string;
  /** How long a holder's claim is valid after its last renewal; default 15 s. */
  leaseDurationMs?: number;
  /** A leader that could not renew for this long steps down; default 10 s (must be < leaseDurationMs). */
  renewDeadlineMs?: number;
  /** Interval between acquire/renew attempts; default 5 s. */
  retryPeriodMs?: number;
  /** On a graceful stop, empty the holder so another candidate takes over at once; default true. */
  releaseOnCancel?: boolean;
  /** Called when this candidate becomes leader; `signal` aborts the moment leadership ends. */
  onStartedLeading?: (signal: AbortSignal) => void;
  /** Called once when leading stops (lost or released). */
  onStoppedLeading?: () => void;
  /** Called when a different holder is observed. */
  onNewLeader?: (identity: string) => void;
  clock?: Clock;
  random?: () => number;
  logger?: Logger;
  metrics?: RuntimeMetrics;
}

/** How a {@link LeaderElector.run} ended. */
export type LeaderElectionEnd = 'stopped' | 'lost';

/**
 * Leader election (client-go's algorithm on a {@link ResourceLock}, by default a
 * `coordination.k8s.io/v1` Lease, with optimistic concurrency: a 409 on create/update means
 * another candidate won the race).
 *
 * A candidate takes the lock when it is free (no holder) or its holder has not renewed for
 * `leaseDurationSeconds` as measured on this candidate's clock since it last saw the record
 * change. The leader renews every `retryPeriodMs`; if no renewal succeeds for `renewDeadlineMs`
 * it steps down at once (its `onStartedLeading` signal aborts) before anyone else can take over.
 */
export class LeaderElector {
  readonly #o: LeaderElectionOptions;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: Logger;
  readonly #leaseMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryMs: number;
  #leading = false;
  #observedKey = '';
  #observedTime = 0;
  #observedHolder = '';
  /** Why the last acquire/renew attempt failed, for the log line when leadership is lost. */
  #lastError: unknown;
  #lastRenewal = 0;

  constructor(options: LeaderElectionOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    const { lock } = options;
    this.#logger = (options.logger ?? silentLogger()).child({
      lock: { kind: lock.kind, namespace: lock.namespace, name: lock.name },
      identity: options.identity,
    });
    this.#leaseMs = options.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryMs = options.retryPeriodMs ?? 5_000;
  }

  /** True while this candidate holds the lock. */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** The holder last observed in the lock ('' = none). */
  get observedLeader(): string {
    return this.#observedHolder;
  }

  /** The lock this candidate campaigns for. */
  get lock(): ResourceLock {
    return this.#o.lock;
  }

  /**
   * Campaigns until leader, then renews. Resolves `'lost'` when leadership is lost (the caller
   * should stop, as client-go processes exit) or `'stopped'` when `signal` aborts (after
   * releasing the lock if `releaseOnCancel`). Never rejects.
   */
  async run(signal: AbortSignal): Promise<LeaderElectionEnd> {
    let acquired = false;
    while (!signal.aborted) {
      acquired = await this.#tryAcquireOrRenew();
      if (acquired) break;
      await sleep(this.#clock, this.#retryMs * (1 + 0.2 * this.#random()), signal);
    }
    if (signal.aborted) {
      // Stopped while the acquiring request was in flight: do not leave a stale claim behind.
      if (acquired && (this.#o.releaseOnCancel ?? true)) await this.#release();
      return 'stopped';
    }
    return this.#lead(signal);
  }

  async #lead(signal: AbortSignal): Promise<LeaderElectionEnd> {
    const leading = new AbortController();
    this.#setLeading(true);
    this.#lastRenewal = this.#clock.now();
    this.#logger.info({ kind: this.#o.lock.kind, namespace: this.#o.lock.namespace, name: this.#o.lock.name }, 'became leader');
    let lost = false;
    const lose = (): void => {
      if (lost) return;
      lost = true;
      this.#setLeading(false);
      leading.abort();
      this.#logger.warn(
        {
          err: this.#lastError,
          sinceLastRenewalMs: this.#clock.now() - this.#lastRenewal,
          leaseDurationMs: this.#leaseMs,
          renewDeadlineMs: this.#renewDeadlineMs,
          retryPeriodMs: this.#retryMs,
        },
        'leader election lost: the lock could not be renewed within the renew deadline',
      );
    };
    let deadline = this.#clock.setTimeout(lose, this.#renewDeadlineMs);
    try {
      this.#o.onStartedLeading?.(leading.signal);
    } catch (err) {
      this.#logger.error({ err }, 'onStartedLeading failed');
    }
    const stopOrLost = AbortSignal.any([signal, leading.signal]);
    while (!stopOrLost.aborted) {
      await sleep(this.#clock, this.#retryMs, stopOrLost);
      if (stopOrLost.aborted) break;
      const attemptStart = this.#clock.now();
      const ok = await this.#withTimeout(this.#tryAcquireOrRenew(), this.#renewDeadlineMs);
      if (ok) this.#lastRenewal = this.#clock.now();
      if (ok && !lost) {
        this.#clock.clearTimeout(deadline);
        deadline = this.#clock.setTimeout(lose, Math.max(0, this.#renewDeadlineMs - (this.#clock.now() - attemptStart)));
      }
    }
    this.#clock.clearTimeout(deadline);
    if (lost) {
      this.#notifyStopped();
      return 'lost';
    }
    this.#setLeading(false);
    leading.abort();
    if (this.#o.releaseOnCancel ?? true) await this.#release();
    this.#notifyStopped();
    return 'stopped';
  }

  #notifyStopped(): void {
    try {
      this.#o.onStoppedLeading?.();
    } catch (err) {
      this.#logger.error({ err }, 'onStoppedLeading failed');
    }
  }

  #setLeading(leading: boolean): void {
    this.#leading = leading;
    this.#o.metrics?.leader(this.#o.lock.name, leading);
  }

  async #withTimeout(p: Promise<boolean>, ms: number): Promise<boolean> {
    let handle: unknown;
    const timeout = new Promise<boolean>(
      (resolve) =>
        (handle = this.#clock.setTimeout(() => {
          this.#lastError = new Error(`renewing the lock ${describeLock(this.#o.lock)} took longer than ${ms}ms`);
          resolve(false);
        }, ms)),
    );
    try {
      return await Promise.race([p, timeout]);
    } finally {
      this.#clock.clearTimeout(handle);
    }
  }

  #observe(observed: ObservedRecord): LeaderElectionRecord {
    if (observed.version !== this.#observedKey) {
      this.#observedKey = observed.version;
      this.#observedTime = this.#clock.now();
    }
    const holder = observed.record.holderIdentity;
    if (holder !== this.#observedHolder) {
      this.#observedHolder = holder;
      if (holder !== '' && holder !== this.#o.identity) {
        this.#logger.info({ holder }, 'new leader observed');
        this.#o.onNewLeader?.(holder);
      }
    }
    return observed.record;
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = this.#clock.now();
    const leaseSeconds = Math.max(1, Math.ceil(this.#leaseMs / 1000));
    const { lock } = this.#o;
    let observed: ObservedRecord | undefined;
    try {
      observed = await lock.get();
    } catch (err) {
      this.#lastError = err;
      this.#logger.warn({ err }, 'reading the lock failed');
      return false;
    }
    if (observed === undefined) {
      try {
        this.#observe(
          await lock.create({
            holderIdentity: this.#o.identity,
            leaseDurationSeconds: leaseSeconds,
            acquireTime: now,
            renewTime: now,
            leaderTransitions: 0,
          }),
        );
        return true;
      } catch (createErr) {
        this.#lastError = createErr;
        if (statusCodeOf(createErr) !== 409) this.#logger.warn({ err: createErr }, 'creating the lock failed');
        return false;
      }
    }
    const old = this.#observe(observed);
    const holder = old.holderIdentity;
    const heldByOther = holder !== '' && holder !== this.#o.identity;
    if (heldByOther && this.#observedTime + (old.leaseDurationSeconds || leaseSeconds) * 1000 > now) {
      this.#lastError = new Error(`the lock ${describeLock(lock)} is held by ${holder}`);
      return false;
    }
    const renewing = holder === this.#o.identity;
    try {
      this.#observe(
        await lock.update({
          holderIdentity: this.#o.identity,
          leaseDurationSeconds: leaseSeconds,
          renewTime: now,
          acquireTime: renewing && old.acquireTime !== undefined ? old.acquireTime : now,
          leaderTransitions: old.leaderTransitions + (renewing ? 0 : 1),
        }),
      );
      return true;
    } catch (err) {
      this.#lastError = err;
      if (statusCodeOf(err) !== 409) this.#logger.warn({ err }, 'updating the lock failed');
      return false;
    }
  }

  async #release(): Promise<void> {
    const { lock } = this.#o;
    try {
      const observed = await lock.get();
      if (observed?.record.holderIdentity !== this.#o.identity) return;
      const now = this.#clock.now();
      // client-go's release: no holder, a 1 s lease, the transitions kept.
      await lock.update({
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaderTransitions: observed.record.leaderTransitions,
      });
      this.#logger.info('lock released');
    } catch (err) {
      this.#logger.warn({ err }, 'releasing the lock failed');
    }
  }
}
