import { isDeepStrictEqual } from 'node:util';
import type { PropagationStatus } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { type FederatedObjectRef, federatedObjectId, objectKeyOf, type SyncOutcome } from '@kubefed/queue';
import type { Logger, Reader } from '@kubefed/runtime';
import type { ClusterPropagationResult } from '../federated-status.js';

/** Which status writes go first: `normal` (a change's outcome) before `low` (a fan-out's or a resync's look again). */
export type StatusPriority = 'normal' | 'low';

/** A cluster's outcome with the federated object's generation and UID the worker acted on (absent when unknown). */
export interface RecordedOutcome extends ClusterPropagationResult {
  readonly generation?: number | undefined;
  readonly uid?: string | undefined;
}

/**
 * Why {@link StatusRecorder.report} dropped an outcome: `uid`, it is about another object of the
 * same name (one deleted since, or a copy a Redis writer re-added after the object was created
 * again); `generation`, an outcome of a later generation of the object was already applied for
 * that cluster.
 */
export type StaleOutcomeReason = 'uid' | 'generation';

/** Options of {@link StatusRecorder}. */
export interface StatusRecorderOptions {
  /** Where dropped outcomes are logged (debug); default none. */
  readonly logger?: Logger | undefined;
  /** Called for each outcome {@link StatusRecorder.report} drops (e.g. to count it); default none. */
  readonly onStale?: ((reason: StaleOutcomeReason) => void) | undefined;
}

/** The newest generation applied for a (federated object, cluster), and the object's UID then. */
interface Applied {
  readonly uid: string;
  readonly generation: number;
}

/**
 * Where sync workers report outcomes: the leader's {@link StatusRecorder} when they run in the
 * same process, else a `SyncOutcomePublisher` (Redis stream) read by the leader.
 */
export interface SyncOutcomeSink {
  report(outcome: SyncOutcome): void | Promise<void>;
}

/**
 * Per-cluster propagation outcomes of federated objects, in memory for one process: written by
 * the sync workers, read by the status writer. An object becomes dirty when an outcome changed
 * or when someone asks the status writer to look again ({@link markDirty}); the status writer of
 * each federated type takes the dirty objects of its type ({@link takeDirty}). A key is dirty at
 * `low` priority when only a low-priority reconcile (a readiness fan-out, a resync) asked for it:
 * the status writer writes those after the `normal` ones (outcomes of changes).
 */
export class StatusRecorder implements SyncOutcomeSink {
  /** Outcomes by `federatedObjectId`, then by cluster. */
  readonly #outcomes = new Map<string, Map<string, RecordedOutcome>>();
  /** Dirty objects: informer keys by federated type, at normal priority. */
  readonly #dirty = new Map<string, Set<string>>();
  /** Dirty objects at low priority alone (never also in {@link #dirty}). */
  readonly #dirtyLow = new Map<string, Set<string>>();
  /** The newest generation applied, by `federatedObjectId`, then by cluster (kept when the cluster's entry goes). */
  readonly #applied = new Map<string, Map<string, Applied>>();
  /** The federated objects of each type ({@link trackObjects}). */
  readonly #objects = new Map<string, Reader<KubeObject>>();
  readonly #options: StatusRecorderOptions;

  constructor(options: StatusRecorderOptions = {}) {
    this.#options = options;
  }

  /**
   * The federated objects of `federatedType` (the status writer's informer cache): {@link report}
   * drops an outcome whose UID is not the current object's. The latest call for a type wins.
   */
  trackObjects(federatedType: string, objects: Reader<KubeObject>): void {
    this.#objects.set(federatedType, objects);
  }

  /** Records `result` for `cluster`; `undefined` removes the cluster's entry. Marks the object dirty on change. */
  record(object: FederatedObjectRef, cluster: string, result: RecordedOutcome | undefined): void {
    const id = federatedObjectId(object);
    let byCluster = this.#outcomes.get(id);
    const previous = byCluster?.get(cluster);
    if (result === undefined) {
      if (previous === undefined) return;
      byCluster?.delete(cluster);
      if (byCluster?.size === 0) this.#outcomes.delete(id);
    } else {
      if (previous !== undefined && isDeepStrictEqual(previous, result)) return;
      if (byCluster === undefined) this.#outcomes.set(id, (byCluster = new Map<string, RecordedOutcome>()));
      byCluster.set(cluster, result);
    }
    this.markDirty(object);
  }

  /**
   * Records a worker's outcome (see {@link SyncOutcomeSink}), unless it is stale
   * ({@link StaleOutcomeReason}: logged at debug and told to `onStale`). An outcome without a
   * UID or generation (the worker could not read the object) is never stale.
   */
  report(outcome: SyncOutcome): void {
    const stale = this.#stale(outcome);
    if (stale !== undefined) {
      this.#options.logger?.debug(
        { kind: outcome.federatedType, namespace: outcome.namespace, name: outcome.name, cluster: outcome.cluster, reason: stale },
        'dropping a stale sync outcome',
      );
      this.#options.onStale?.(stale);
      return;
    }
    this.#markApplied(outcome);
    const r = outcome.result;
    if (r === null) return this.record(outcome, outcome.cluster, undefined);
    const status = r.status as PropagationStatus;
    const generation = {
      ...(outcome.generation === undefined ? {} : { generation: outcome.generation }),
      ...(outcome.uid === undefined ? {} : { uid: outcome.uid }),
    };
    this.record(
      outcome,
      outcome.cluster,
      r.remoteStatus === undefined ? { status, ...generation } : { status, remoteStatus: r.remoteStatus, ...generation },
    );
  }

  /** The outcomes of `object`, by cluster (a copy). */
  outcomes(object: FederatedObjectRef): Map<string, RecordedOutcome> {
    return new Map(this.#outcomes.get(federatedObjectId(object)) ?? []);
  }

  /**
   * Asks the status writer to recompute the status of `object`. `low`: only for a low-priority
   * reconcile, written after every `normal` key; a key marked at both is `normal`. Default `normal`.
   */
  markDirty(object: FederatedObjectRef, priority: StatusPriority = 'normal'): void {
    const key = objectKeyOf(object);
    const type = object.federatedType;
    if (priority === 'low' && this.#dirty.get(type)?.has(key) === true) return;
    if (priority === 'normal') this.#dirtyLow.get(type)?.delete(key);
    const sets = priority === 'normal' ? this.#dirty : this.#dirtyLow;
    let keys = sets.get(type);
    if (keys === undefined) sets.set(type, (keys = new Set()));
    keys.add(key);
  }

  /** Returns and clears the dirty objects of `federatedType` at `priority` (default `normal`), as informer keys (`namespace/name` or `name`). */
  takeDirty(federatedType: string, priority: StatusPriority = 'normal'): string[] {
    const sets = priority === 'normal' ? this.#dirty : this.#dirtyLow;
    const keys = sets.get(federatedType);
    sets.delete(federatedType);
    return [...(keys ?? [])];
  }

  #stale(outcome: SyncOutcome): StaleOutcomeReason | undefined {
    const { uid, generation } = outcome;
    if (uid === undefined) return undefined;
    const current = this.#objects.get(outcome.federatedType)?.get(objectKeyOf(outcome))?.metadata.uid;
    if (current !== undefined && current !== uid) return 'uid';
    const applied = this.#applied.get(federatedObjectId(outcome))?.get(outcome.cluster);
    if (generation !== undefined && applied?.uid === uid && generation < applied.generation) return 'generation';
    return undefined;
  }

  #markApplied(outcome: SyncOutcome): void {
    const { uid, generation } = outcome;
    if (uid === undefined || generation === undefined) return;
    const id = federatedObjectId(outcome);
    let byCluster = this.#applied.get(id);
    if (byCluster === undefined) this.#applied.set(id, (byCluster = new Map<string, Applied>()));
    const applied = byCluster.get(outcome.cluster);
    if (applied?.uid !== uid || applied.generation < generation) byCluster.set(outcome.cluster, { uid, generation });
  }

  /** Drops everything about `object`. */
  forget(object: FederatedObjectRef): void {
    this.#applied.delete(federatedObjectId(object));
    this.#outcomes.delete(federatedObjectId(object));
    this.#dirty.get(object.federatedType)?.delete(objectKeyOf(object));
    this.#dirtyLow.get(object.federatedType)?.delete(objectKeyOf(object));
  }
}
