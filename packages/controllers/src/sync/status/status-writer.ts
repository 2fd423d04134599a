import type { FederatedStatus } from '@kubefed/api';
import { isConflict, isDeleting, isNotFound, type KubeObject } from '@kubefed/client';
import { federatedObjectRef } from '@kubefed/queue';
import { type Clock, type Reader, splitKey } from '@kubefed/runtime';
import { type ClusterPropagationResult, computeFederatedStatus } from '../federated-status.js';
import { lastReport } from '../shared/last-report.js';
import { readPlacement } from '../shared/placement-reader.js';
import type { StatusPriority, StatusRecorder } from '../shared/status-recorder.js';
import type { PlacementEnvironment, SyncType } from '../sync-type.js';

/** Options of {@link StatusWriter}. */
export interface StatusWriterOptions extends PlacementEnvironment {
  readonly type: SyncType;
  readonly objects: Reader<KubeObject>;
  readonly recorder: StatusRecorder;
  /** Whether a cluster is Ready now. */
  readonly isReady: (cluster: string) => boolean;
  /** Whether member status is reported as `remoteStatus` (FTC `statusCollection` and the feature gate). */
  readonly remoteStatusCollection: () => boolean;
  /** See `SyncTiming.reportTimeoutMs` (`../shared/sync-settings.ts`): `CreationTimedOut` for a cluster without an entry before, else `UpdateTimedOut`; default 30 s. */
  readonly reportTimeoutMs?: number | undefined;
  readonly clock: Clock;
}

/** The placement part of a status: the target clusters, or the reason there are none. */
interface StatusPlacement {
  readonly targets: readonly string[];
  readonly namespaceNotFederated: boolean;
  readonly reason?: 'ComputePlacementFailed' | 'KubeFedNamespaceNotPropagated' | undefined;
  readonly message?: string | undefined;
}

/** A key whose status waits for a cluster to report `generation`, since `sinceMs`; `written` once written with timed-out clusters. */
interface Waiting {
  readonly generation: number;
  readonly sinceMs: number;
  written: boolean;
}

/**
 * Writes the `status` of federated objects of one type from the outcomes in the
 * {@link StatusRecorder} (docs/kubefed-compatibility.md §4.4.10): per target cluster its recorded outcome
 * (`ClusterNotReady` when not Ready; a cluster not reported since this process started keeps
 * its entry of the current status, so a new leader does not flap the status), plus non-target
 * clusters still reporting a status (e.g. `WaitingForRemoval`). Nothing is written while a
 * Ready target cluster has not reported the object's current generation: KubeFed writes the
 * status after the dispatch to every cluster ended, so `observedGeneration` and a True
 * Propagation condition never run ahead of the members. A cluster that has not reported within
 * `reportTimeoutMs` (a worker that never runs its job) no longer holds back the others: it is
 * written as `CreationTimedOut` / `UpdateTimedOut` (Propagation False), as KubeFed does after its
 * dispatch timeout. Writes through the status subresource only when `computeFederatedStatus`
 * says it changed.
 */
export class StatusWriter {
  readonly #o: StatusWriterOptions;
  /** Objects (informer keys) waiting for a cluster's report, for `reportTimeoutMs`. */
  readonly #waiting = new Map<string, Waiting>();

  constructor(options: StatusWriterOptions) {
    this.#o = options;
    // The recorder then drops outcomes about another object of the same name.
    options.recorder.trackObjects(options.type.name, options.objects);
  }

  /**
   * Writes the status of every dirty object of this type, one at a time: the `normal` keys
   * first, and before each `low` key (a fan-out's) the `normal` keys dirtied since, so that a
   * readiness change's thousands of writes do not hold back the status of a change. A failed key
   * (and, when a write throws, every key not written yet) stays dirty at its priority.
   */
  async flush(): Promise<void> {
    const { type, recorder } = this.#o;
    this.#markTimedOut();
    const retry: [string, StatusPriority][] = [];
    const low = recorder.takeDirty(type.name, 'low');
    let next = 0;
    try {
      await this.#writeKeys(recorder.takeDirty(type.name, 'normal'), 'normal', retry);
      for (; next < low.length; next++) {
        await this.#writeKeys(recorder.takeDirty(type.name, 'normal'), 'normal', retry);
        await this.#writeKeys([low[next] ?? ''], 'low', retry);
      }
    } finally {
      // Not written yet (low[next] too when a write of normal keys before it threw).
      for (const key of low.slice(next)) retry.push([key, 'low']);
      for (const [key, priority] of retry) recorder.markDirty(federatedObjectRef(type.name, key), priority);
    }
  }

  /** Marks dirty the keys whose wait for a cluster's report has lasted `reportTimeoutMs` (written then with the cluster timed out). */
  #markTimedOut(): void {
    const timeoutMs = this.#o.reportTimeoutMs ?? 30_000;
    for (const [key, w] of this.#waiting) {
      if (this.#o.objects.get(key) === undefined) this.#waiting.delete(key);
      else if (!w.written && this.#o.clock.now() - w.sinceMs >= timeoutMs)
        this.#o.recorder.markDirty(federatedObjectRef(this.#o.type.name, key));
    }
  }

  /** Writes `keys` in order; a key that failed (but for NotFound) goes to `retry`, and, when a write throws, the keys after it too. */
  async #writeKeys(keys: readonly string[], priority: StatusPriority, retry: [string, StatusPriority][]): Promise<void> {
    for (const [i, key] of keys.entries()) {
      try {
        await this.#write(key);
      } catch (err) {
        if (!isNotFound(err)) retry.push([key, priority]);
        if (isConflict(err) || isNotFound(err)) continue;
        for (const rest of keys.slice(i + 1)) retry.push([rest, priority]);
        throw err;
      }
    }
  }

  async #write(key: string): Promise<void> {
    const o = this.#o;
    const fed = o.objects.get(key);
    if (fed === undefined || isDeleting(fed)) {
      this.#waiting.delete(key);
      return;
    }
    const outcomes = o.recorder.outcomes(federatedObjectRef(o.type.name, key));
    const statuses = new Map<string, ClusterPropagationResult>();
    const { targets, reason, message, namespaceNotFederated } = await this.#placement(fed);
    const previous = fed.status as FederatedStatus | undefined;
    const generation = fed.metadata.generation ?? 0;
    for (const c of targets) {
      if (!o.isReady(c)) {
        statuses.set(c, { status: 'ClusterNotReady' });
        continue;
      }
      // A Ready placed cluster that has not reported this generation yet: the status would
      // claim a propagation that has not happened. Its outcome marks the key dirty again.
      const last = lastReport(fed, c, outcomes);
      if (last === undefined || last.generation < generation) {
        if (!this.#timedOut(key, generation)) return;
        const hadEntry = previous?.clusters?.some((entry) => entry.name === c) === true;
        statuses.set(c, { status: hadEntry ? 'UpdateTimedOut' : 'CreationTimedOut' });
        continue;
      }
      statuses.set(c, last.result);
    }
    const waiting = this.#waiting.get(key);
    if (waiting !== undefined && ![...statuses.values()].some((r) => r.status === 'CreationTimedOut' || r.status === 'UpdateTimedOut'))
      this.#waiting.delete(key);
    else if (waiting !== undefined) waiting.written = true;
    for (const [c, r] of outcomes) if (!targets.includes(c) && (r.status ?? '') !== '') statuses.set(c, r);
    const result = computeFederatedStatus({
      generation: fed.metadata.generation,
      reason,
      message,
      namespaceNotFederated,
      clusterStatuses: statuses,
      remoteStatusCollection: o.remoteStatusCollection(),
      previousStatus: previous,
      now: new Date(o.clock.now()),
    });
    if (!result.changed) return;
    const { namespace } = splitKey(key);
    await o.host.resource(o.type.federatedGvr, namespace).updateStatus({ ...fed, status: result.status });
  }

  /** The target clusters of `fed`, or why there are none: the placement part of its status. */
  async #placement(fed: KubeObject): Promise<StatusPlacement> {
    const placement = await readPlacement(this.#o, this.#o.type, fed);
    if (!placement.ok) return { targets: [], namespaceNotFederated: false, reason: placement.reason, message: placement.message };
    const namespaceNotFederated = placement.reason === 'NamespaceNotFederated';
    if (placement.reason !== 'KubeFedNamespace') return { targets: placement.clusters, namespaceNotFederated };
    const message = `objects in the kubefed namespace "${this.#o.kubefedNamespace}" are never propagated to member clusters`;
    return { targets: placement.clusters, namespaceNotFederated, reason: 'KubeFedNamespaceNotPropagated', message };
  }

  /** Whether `key` has waited `reportTimeoutMs` for a cluster to report `generation` (starts the wait). */
  #timedOut(key: string, generation: number): boolean {
    const now = this.#o.clock.now();
    const w = this.#waiting.get(key);
    if (w === undefined || w.generation !== generation) {
      this.#waiting.set(key, { generation, sinceMs: now, written: false });
      return false;
    }
    return now - w.sinceMs >= (this.#o.reportTimeoutMs ?? 30_000);
  }
}
