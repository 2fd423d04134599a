import { isDeepStrictEqual } from 'node:util';
import type { PropagationStatus } from '@kubefed/api';
import { type FederatedObjectRef, federatedObjectId, objectKeyOf, type SyncOutcome } from '@kubefed/queue';
import type { ClusterPropagationResult } from '../federated-status.js';

/** A cluster's outcome with the federated object's generation the worker acted on (absent when unknown). */
export interface RecordedOutcome extends ClusterPropagationResult {
  readonly generation?: number | undefined;
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
 * each federated type takes the dirty objects of its type ({@link takeDirty}).
 */
export class StatusRecorder implements SyncOutcomeSink {
  /** Outcomes by `federatedObjectId`, then by cluster. */
  readonly #outcomes = new Map<string, Map<string, RecordedOutcome>>();
  /** Dirty objects: informer keys by federated type. */
  readonly #dirty = new Map<string, Set<string>>();

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

  /** Records a worker's outcome (see {@link SyncOutcomeSink}). */
  report(outcome: SyncOutcome): void {
    const r = outcome.result;
    if (r === null) return this.record(outcome, outcome.cluster, undefined);
    const status = r.status as PropagationStatus;
    const generation = outcome.generation === undefined ? {} : { generation: outcome.generation };
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

  /** Asks the status writer to recompute the status of `object`. */
  markDirty(object: FederatedObjectRef): void {
    let keys = this.#dirty.get(object.federatedType);
    if (keys === undefined) this.#dirty.set(object.federatedType, (keys = new Set()));
    keys.add(objectKeyOf(object));
  }

  /** Returns and clears the dirty objects of `federatedType`, as informer keys (`namespace/name` or `name`). */
  takeDirty(federatedType: string): string[] {
    const keys = this.#dirty.get(federatedType);
    this.#dirty.delete(federatedType);
    return [...(keys ?? [])];
  }

  /** Drops everything about `object`. */
  forget(object: FederatedObjectRef): void {
    this.#outcomes.delete(federatedObjectId(object));
    this.#dirty.get(object.federatedType)?.delete(objectKeyOf(object));
  }
}
