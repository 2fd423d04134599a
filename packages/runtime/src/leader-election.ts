import { sleep, systemClock, type Clock } from '@kubefed/client';
import { statusCodeOf, type KubeObject, type LeaseResourceClient } from './kube-types.js';
import { silentLogger, type Logger } from './logger.js';
import type { RuntimeMetrics } from './metrics.js';

/** Options of {@link LeaderElector}. */
export interface LeaderElectionOptions {
  /** Leases in the lock's namespace: `dynamic.resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }, namespace)`. */
  leases: LeaseResourceClient;
  /** Lease name, e.g. `kubefed-controller-manager`. */
  name: string;
  /** Namespace written into a created Lease. */
  namespace: string;
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

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** How a {@link LeaderElector.run} ended. */
export type LeaderElectionEnd = 'stopped' | 'lost';

/** Formats epoch ms as a Kubernetes MicroTime (`2026-11-21T10:00:00.000000Z`). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Lease-based leader election (client-go's algorithm on a `coordination.k8s.io/v1` Lease with
 * optimistic concurrency: a 409 on create/update means another candidate won the race).
 *
 * A candidate takes the Lease when it is free (no holder) or its holder has not renewed for
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
    this.#logger = (options.logger ?? silentLogger()).child({ lease: `${options.namespace}/${options.name}`, identity: options.identity });
    this.#leaseMs = options.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryMs = options.retryPeriodMs ?? 5_000;
  }

  /** True while this candidate holds the Lease. */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** The holder last observed in the Lease ('' = none). */
  get observedLeader(): string {
    return this.#observedHolder;
  }

  /**
   * Campaigns until leader, then renews. Resolves `'lost'` when leadership is lost (the caller
   * should stop, as client-go processes exit) or `'stopped'` when `signal` aborts (after
   * releasing the Lease if `releaseOnCancel`). Never rejects.
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
    this.#logger.info('became leader');
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
        'leader election lost: the lease could not be renewed within the renew deadline',
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
    this.#o.metrics?.leader(this.#o.name, leading);
  }

  async #withTimeout(p: Promise<boolean>, ms: number): Promise<boolean> {
    let handle: unknown;
    const timeout = new Promise<boolean>(
      (resolve) =>
        (handle = this.#clock.setTimeout(() => {
          this.#lastError = new Error(`renewing the lease took longer than ${ms}ms`);
          resolve(false);
        }, ms)),
    );
    try {
      return await Promise.race([p, timeout]);
    } finally {
      this.#clock.clearTimeout(handle);
    }
  }

  #observe(lease: KubeObject): LeaseSpec {
    const spec = (lease.spec ?? {}) as LeaseSpec;
    const key = `${spec.holderIdentity ?? ''}|${spec.renewTime ?? ''}|${lease.metadata.resourceVersion ?? ''}`;
    if (key !== this.#observedKey) {
      this.#observedKey = key;
      this.#observedTime = this.#clock.now();
    }
    const holder = spec.holderIdentity ?? '';
    if (holder !== this.#observedHolder) {
      this.#observedHolder = holder;
      if (holder !== '' && holder !== this.#o.identity) {
        this.#logger.info({ holder }, 'new leader observed');
        this.#o.onNewLeader?.(holder);
      }
    }
    return spec;
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = this.#clock.now();
    const leaseSeconds = Math.max(1, Math.ceil(this.#leaseMs / 1000));
    let lease: KubeObject;
    try {
      lease = await this.#o.leases.get(this.#o.name);
    } catch (err) {
      if (statusCodeOf(err) !== 404) {
        this.#lastError = err;
        this.#logger.warn({ err }, 'reading the lease failed');
        return false;
      }
      const spec: LeaseSpec = {
        holderIdentity: this.#o.identity,
        leaseDurationSeconds: leaseSeconds,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      };
      try {
        const created = await this.#o.leases.create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.#o.name, namespace: this.#o.namespace },
          spec,
        });
        this.#observe(created);
        return true;
      } catch (createErr) {
        this.#lastError = createErr;
        if (statusCodeOf(createErr) !== 409) this.#logger.warn({ err: createErr }, 'creating the lease failed');
        return false;
      }
    }
    const spec = this.#observe(lease);
    const holder = spec.holderIdentity ?? '';
    const heldByOther = holder !== '' && holder !== this.#o.identity;
    if (heldByOther && this.#observedTime + (spec.leaseDurationSeconds ?? leaseSeconds) * 1000 > now) {
      this.#lastError = new Error(`the lease is held by ${holder}`);
      return false;
    }
    const renewing = holder === this.#o.identity;
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: this.#o.identity,
      leaseDurationSeconds: leaseSeconds,
      renewTime: microTime(now),
      acquireTime: renewing && spec.acquireTime !== undefined ? spec.acquireTime : microTime(now),
      leaseTransitions: (spec.leaseTransitions ?? 0) + (renewing ? 0 : 1),
    };
    try {
      const updated = await this.#o.leases.update({ ...lease, spec: next });
      this.#observe(updated);
      return true;
    } catch (err) {
      this.#lastError = err;
      if (statusCodeOf(err) !== 409) this.#logger.warn({ err }, 'updating the lease failed');
      return false;
    }
  }

  async #release(): Promise<void> {
    try {
      const lease = await this.#o.leases.get(this.#o.name);
      const spec = (lease.spec ?? {}) as LeaseSpec;
      if (spec.holderIdentity !== this.#o.identity) return;
      const now = microTime(this.#clock.now());
      const released: LeaseSpec = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: spec.leaseTransitions ?? 0,
      };
      await this.#o.leases.update({ ...lease, spec: released });
      this.#logger.info('lease released');
    } catch (err) {
      this.#logger.warn({ err }, 'releasing the lease failed');
    }
  }
}
