import { isDeepStrictEqual } from 'node:util';
import type { PropagationStatus } from '@kubefed/api';
import type { SyncOutcome } from '@kubefed/queue';
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
 * the sync workers, read by the status writer. Keys are `<federated type>|<namespace/name>`
 * (see {@link recorderKey}). A key becomes dirty when an outcome changed or when someone
 * asks the status writer to look again ({@link markDirty}).
 */
export class StatusRecorder implements SyncOutcomeSink {
  readonly #outcomes = new Map<string, Map<string, RecordedOutcome>>();
  readonly #dirty = new Set<string>();

  /** Records `result` for `cluster`; `undefined` removes the cluster's entry. Marks the key dirty on change. */
  record(key: string, cluster: string, result: RecordedOutcome | undefined): void {
    let byCluster = this.#outcomes.get(key);
    const previous = byCluster?.get(cluster);
    if (result === undefined) {
      if (previous === undefined) return;
      byCluster?.delete(cluster);
      if (byCluster?.size === 0) this.#outcomes.delete(key);
    } else {
      if (previous !== undefined && isDeepStrictEqual(previous, result)) return;
      if (byCluster === undefined) this.#outcomes.set(key, (byCluster = new Map<string, RecordedOutcome>()));
      byCluster.set(cluster, result);
    }
    this.#dirty.add(key);
  }

  /** Records a worker's outcome (see {@link SyncOutcomeSink}). */
  report(outcome: SyncOutcome): void {
    const key = recorderKey(outcome.federatedType, outcome.namespace === undefined ? outcome.name : `${outcome.namespace}/${outcome.name}`);
    const r = outcome.result;
    if (r === null) return this.record(key, outcome.cluster, undefined);
    const status = r.status as PropagationStatus;
    const generation = outcome.generation === undefined ? {} : { generation: outcome.generation };
    this.record(
      key,
      outcome.cluster,
      r.remoteStatus === undefined ? { status, ...generation } : { status, remoteStatus: r.remoteStatus, ...generation },
    );
  }

  /** The outcomes of `key`, by cluster (a copy). */
  outcomes(key: string): Map<string, RecordedOutcome> {
    return new Map(this.#outcomes.get(key) ?? []);
  }

  /** Asks the status writer to recompute `key`'s status. */
  markDirty(key: string): void {
    this.#dirty.add(key);
  }

  /** Returns and clears the dirty keys whose key starts with `prefix`. */
  takeDirty(prefix: string): string[] {
    const taken = [...this.#dirty].filter((k) => k.startsWith(prefix));
    for (const k of taken) this.#dirty.delete(k);
    return taken;
  }

  /** Drops everything about `key`. */
  forget(key: string): void {
    this.#outcomes.delete(key);
    this.#dirty.delete(key);
  }
}

/** The recorder key of object `objectKey` (`namespace/name` or `name`) of federated type `federatedType`. */
export function recorderKey(federatedType: string, objectKey: string): string {
  return `${federatedType}|${objectKey}`;
}
