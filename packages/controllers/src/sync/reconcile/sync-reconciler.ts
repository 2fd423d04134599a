import {
  EventComponent,
  MANAGED_LABEL,
  MANAGED_LABEL_TRUE,
  ORPHAN_ANNOTATION,
  ORPHAN_ANNOTATION_TRUE,
  type PropagationStatus,
  SYNC_CONTROLLER_FINALIZER,
} from '@kubefed/api';
import {
  addFinalizer,
  type DynamicClient,
  getOrUndefined,
  isDeleting,
  isNotFound,
  type KubeObject,
  removeFinalizer,
} from '@kubefed/client';
import { federatedObjectRef, type JobProducer, type SyncJob, syncJob, syncRequest } from '@kubefed/queue';
import {
  done,
  type EventSink,
  objectKey,
  type Reader,
  type ReconcileContext,
  type ReconcileOutcome,
  type Reconciler,
  requeueAfter,
  splitKey,
  terminal,
} from '@kubefed/runtime';
import { isNamespaceType } from '../../placement/index.js';
import { UNHEALABLE_STATUSES } from '../errors.js';
import { awaitedRemovals } from '../awaited-removals.js';
import { namespaceTargetOf } from '../namespace-target.js';
import {
  clusterNotReadyEvent,
  clustersNotJoinedEvent,
  computePlacementFailedEvent,
  invalidFederatedNamespaceEvent,
  type SyncEvent,
  waitForRemovalEvent,
} from '../sync-events.js';
import { copyIsCurrent, type CurrentCopyInput } from '../current-copy.js';
import type { DispatchScopes } from './dispatch-scopes.js';
import type { MemberWatches } from './member-watches.js';
import { lastReport } from '../shared/last-report.js';
import { OwnWrites } from '../shared/own-writes.js';
import { readPlacement } from '../shared/placement-reader.js';
import type { RecordedOutcome, StatusRecorder } from '../shared/status-recorder.js';
import type { VersionStore } from '../shared/version-store.js';
import { objectVersions, type ObjectVersions, type VersionSource } from '../versions.js';
import { inKubeFedNamespace, type PlacementEnvironment, type SyncType } from '../sync-type.js';

/** What one reconcile dispatches to: the clusters of its scope (undefined: every Ready cluster), and those whose member copy changed. */
interface Dispatch {
  readonly scope: ReadonlySet<string> | undefined;
  readonly changed: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/** Options of {@link SyncReconciler}. */
export interface SyncReconcilerOptions extends PlacementEnvironment {
  readonly type: SyncType;
  /** The informer cache of the federated type. */
  readonly objects: Reader<KubeObject>;
  /** Ready member clusters with their clients (`Fleet.readyClusters`). */
  readonly readyClusters: () => ReadonlyMap<string, DynamicClient>;
  readonly producer: JobProducer;
  readonly recorder: StatusRecorder;
  /** See `SyncTiming.removalPollMs` (`../shared/sync-settings.ts`); default 500 ms. */
  readonly removalPollMs?: number | undefined;
  /** The member watch caches: answer "does cluster C hold a managed copy", and which, without a request when synced. */
  readonly memberCopies?: Pick<MemberWatches, 'managedCopy' | 'settling'> | undefined;
  /**
   * The version records known without a request (the workers' `VersionStore` in this process).
   * With `memberCopies`, a target cluster whose cached copy is current ({@link copyIsCurrent})
   * gets no job. Default none: every target cluster gets a job.
   */
  readonly versions?: Pick<VersionStore, 'peek'> | undefined;
  /** The member writes of this process's workers: a copy with a write in flight is never taken as current from the cache. */
  readonly ownWrites?: Pick<OwnWrites, 'pending'> | undefined;
  /** The `RawResourceStatusCollection` gate (with the FTC's `statusCollection`, remote status is reported); default true. */
  readonly remoteStatusCollection?: (() => boolean) | undefined;
  /** Where Warning events about the federated object go (`InvalidName`); default none. */
  readonly events?: EventSink | undefined;
  /** The clusters each queued key needs jobs for, and whose member copy changed (see {@link DispatchScopes}); default every Ready cluster. */
  readonly scopes?: DispatchScopes | undefined;
}

/**
 * Reconciles one federated object of one type (docs/kubefed-compatibility.md §4.4): ensures the finalizer
 * `kubefed.io/sync-controller`, computes the effective placement over the Ready clusters and
 * enqueues one key-only job per target cluster and per non-target Ready cluster still holding
 * a managed copy or a recorded outcome; the sync workers do the member IO. A target cluster whose
 * cached copy is current and whose last report for this generation was success gets no job: the
 * worker would find nothing to do (so a resync or a restart of a converged fleet enqueues nothing). While the object is being deleted it
 * enqueues removal jobs for every Ready cluster and removes the finalizer once no managed
 * copy remains (with the orphan annotation: once no copy carries the managed label; the host's
 * own Namespace, when the host is a member and the user deletes it, is not waited for) and every
 * cluster of its placement is Ready (KubeFed waits for a not-ready cluster rather than leave
 * a copy behind). A reconcile of a key queued at low priority (a fan-out, a periodic resync)
 * enqueues its jobs at low priority: they run after the jobs of changes on each member's queue;
 * and it marks the status dirty at low priority: written after the statuses of changes.
 */
export class SyncReconciler implements Reconciler {
  readonly #o: SyncReconcilerOptions;

  constructor(options: SyncReconcilerOptions) {
    this.#o = options;
  }

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileOutcome> {
    const scopes = this.#o.scopes;
    const changed = scopes?.takeMemberChanges(key) ?? NONE;
    const scope = scopes?.take(key);
    let outcome: ReconcileOutcome;
    try {
      outcome = await this.#reconcile(key, ctx, { scope, changed });
    } catch (err) {
      // A retry, or a look again later, re-checks every cluster (and the member changes).
      for (const cluster of changed) scopes?.memberChanged(key, cluster);
      scopes?.all(key);
      throw err;
    }
    if (outcome.type === 'retry' || outcome.type === 'requeueAfter') scopes?.all(key);
    return outcome;
  }

  /**
   * One reconcile; jobs go to the clusters of `dispatch.scope` alone when given, else to every
   * Ready cluster. `dispatch.changed`: the clusters whose managed copy changed (drift).
   */
  async #reconcile(key: string, ctx: ReconcileContext, dispatch: Dispatch): Promise<ReconcileOutcome> {
    const o = this.#o;
    const { scope, changed } = dispatch;
    const rkey = federatedObjectRef(o.type.name, key);
    const fed = o.objects.get(key);
    if (fed === undefined) {
      o.recorder.forget(rkey);
      await this.#releaseOrphans(key, changed);
      return done();
    }
    const { namespace, name } = splitKey(key);
    const fedClient = o.host.resource(o.type.federatedGvr, namespace);
    const finalizers = fed.metadata.finalizers ?? [];
    if (isNamespaceType(o.type.targetType)) {
      const target = namespaceTargetOf(fed.metadata, o.kubefedNamespace);
      if (!target.propagate) return this.#ignoreFederatedNamespace(fed, target.reason);
    }
    if (inKubeFedNamespace(o, o.type, fed.metadata.namespace)) {
      // Never propagated: the status writer explains why (placement reason KubeFedNamespace).
      o.recorder.markDirty(rkey, ctx.priority ?? 'normal');
      return this.#ignoreFederatedNamespace(fed, 'Unpropagated');
    }
    const ready = o.readyClusters();
    const job = (cluster: string, kind: SyncJob['kind']): SyncJob => syncJob(syncRequest(rkey, cluster), kind);

    if (isDeleting(fed)) {
      if (!finalizers.includes(SYNC_CONTROLLER_FINALIZER)) return done();
      // The watch caches first; before the finalizer goes, a live check (§4.4.11 step 6): a copy
      // created a moment ago may not be in a cache yet.
      let remaining = await this.#awaitedRemovals(await this.#managedCopies(ready, namespace, name), name);
      if (remaining.length === 0) remaining = await this.#awaitedRemovals(await this.#managedCopies(ready, namespace, name, true), name);
      if (remaining.length > 0) {
        await this.#event(fed, waitForRemovalEvent(remaining));
        await o.producer.enqueueBulk(remaining.map((c) => job(c, 'remove')));
        return requeueAfter(o.removalPollMs ?? 500);
      }
      // §4.4.11: a placed cluster that is not Ready may still hold a copy; wait for it (a
      // cluster that was unjoined is no longer placed). Removing the finalizer by hand forces it.
      // Orphaning leaves every copy in place anyway: it does not wait for unready clusters (as KubeFed).
      const orphaning = fed.metadata.annotations?.[ORPHAN_ANNOTATION] === ORPHAN_ANNOTATION_TRUE;
      const notReady = orphaning ? [] : (await this.#placedClusters(fed)).filter((c) => !ready.has(c));
      if (notReady.length > 0) {
        ctx.logger.info({ clusters: notReady }, 'waiting for placed clusters to become ready before removing the finalizer');
        return requeueAfter(Math.max(o.removalPollMs ?? 500, 1000));
      }
      await removeFinalizer(fedClient, fed, SYNC_CONTROLLER_FINALIZER);
      o.recorder.forget(rkey);
      return done();
    }

    await addFinalizer(fedClient, fed, SYNC_CONTROLLER_FINALIZER);
    let targets: string[];
    try {
      const placement = await readPlacement(o, o.type, fed);
      if (!placement.ok) {
        // The status writer writes the False Propagation condition with reason ComputePlacementFailed.
        o.recorder.markDirty(rkey, ctx.priority ?? 'normal');
        await this.#event(fed, computePlacementFailedEvent(placement.message));
        return terminal(placement.error);
      }
      targets = placement.clusters.filter((c) => ready.has(c));
      if (targets.length < placement.clusters.length) await this.#event(fed, clusterNotReadyEvent());
    } catch (err) {
      o.recorder.markDirty(rkey, ctx.priority ?? 'normal');
      throw err;
    }
    const notJoined = this.#notJoined(fed);
    if (notJoined.length > 0) await this.#event(fed, clustersNotJoinedEvent(notJoined));
    // A cluster whose member cache is still being listed gets its jobs from the fan-out that
    // follows the listing (SyncController): now every copy in it would look unknown, and a
    // restart would send a job per object and cluster to find them current.
    const inScope = (c: string): boolean => (scope === undefined || scope.has(c)) && o.memberCopies?.settling(c) !== true;
    targets = targets.filter(inScope);
    const others = [...ready.keys()].filter((c) => !targets.includes(c) && inScope(c));
    // A cluster that failed in a way retrying cannot heal waits for a new generation of the object;
    // a retention failure also for a change of its member copy, which it depends on.
    const outcomes = o.recorder.outcomes(rkey);
    const unhealed = (c: string): boolean => {
      const r = outcomes.get(c);
      if (r === undefined || r.generation !== fed.metadata.generation || !UNHEALABLE_STATUSES.has(r.status as PropagationStatus))
        return false;
      return !(r.status === 'FieldRetentionFailed' && changed.has(c));
    };
    targets = targets.filter((c) => !unhealed(c));
    const current = this.#currentCopies(fed, targets, outcomes);
    targets = targets.filter((c) => !current.has(c));
    const stale = [...(await this.#managedCopies(new Map(others.map((c) => [c, ready.get(c)!])), namespace, name)).keys()];
    // A Ready non-target cluster without a copy whose outcome is still recorded (a removal that
    // failed and whose retry was dropped while the cluster was not Ready): a remove job finds the
    // copy gone and clears the entry, which would otherwise stay in the status.
    const reported = others.filter((c) => !stale.includes(c) && (outcomes.get(c)?.status ?? '') !== '');
    const jobs = [...targets.map((c) => job(c, 'sync')), ...[...stale, ...reported].map((c) => job(c, 'remove'))];
    // The jobs of a fan-out or a periodic resync (mostly no-ops) go after the jobs of changes on each member's queue.
    if (jobs.length > 0) await o.producer.enqueueBulk(jobs, { priority: ctx.priority ?? 'normal' });
    o.recorder.markDirty(rkey, ctx.priority ?? 'normal');
    const waiting = [...o.recorder.outcomes(rkey).values()].some((r) => r.status === 'WaitingForRemoval');
    return waiting || stale.length > 0 ? requeueAfter(o.removalPollMs ?? 500) : done();
  }

  /**
   * The clusters of `targets` whose copy of `fed` is current by the caches alone, so that a job
   * would do nothing (see {@link copyIsCurrent}); none without the member and version caches.
   */
  #currentCopies(fed: KubeObject, targets: readonly string[], outcomes: ReadonlyMap<string, RecordedOutcome>): Set<string> {
    const o = this.#o;
    const current = new Set<string>();
    const known = o.memberCopies === undefined ? undefined : o.versions?.peek(o.type, fed);
    if (known === undefined) return current;
    const key = objectKey(fed);
    const generation = fed.metadata.generation ?? 0;
    const collectStatus = o.type.statusCollection && (o.remoteStatusCollection?.() ?? true);
    let versions: ObjectVersions | undefined;
    for (const cluster of targets) {
      const copy = o.memberCopies?.managedCopy(cluster, key);
      if (copy === undefined || copy === null || o.ownWrites?.pending(OwnWrites.key(cluster, o.type.name, copy)) === true) continue;
      const last = lastReport(fed, cluster, outcomes);
      versions ??= objectVersions(fed as unknown as VersionSource);
      const input: CurrentCopyInput = {
        fedObject: fed,
        targetType: o.type.targetType,
        cluster,
        copy,
        propagatedVersion: known.record,
        versions,
        reported: last?.generation === generation ? last.result : undefined,
        collectStatus,
      };
      if (copyIsCurrent(input)) current.add(cluster);
    }
    return current;
  }

  /** Records a Warning about `fed` (deduplicated by the event sink). */
  async #event(fed: KubeObject, event: SyncEvent): Promise<void> {
    await this.#o.events?.record(fed, { ...event, component: EventComponent.sync(this.#o.type.federatedKind) });
  }

  /** The names in `spec.placement.clusters` without a KubeFedCluster. */
  #notJoined(fed: KubeObject): string[] {
    const named = ((fed['spec'] as { placement?: { clusters?: { name?: unknown }[] } } | undefined)?.placement?.clusters ?? []).map((c) =>
      typeof c.name === 'string' ? c.name : '',
    );
    if (named.length === 0) return [];
    const joined = new Set(this.#o.clusters().map((c) => c.metadata.name));
    return named.filter((n) => n !== '' && !joined.has(n));
  }

  /**
   * A FederatedNamespace, or an object in the kubefed namespace, that propagates nothing: no
   * member is touched, a finalizer left by an earlier version is removed without member work,
   * and an invalid name gets KubeFed's Warning.
   */
  async #ignoreFederatedNamespace(fed: KubeObject, reason: 'InvalidName' | 'Unpropagated'): Promise<ReconcileOutcome> {
    await removeFinalizer(this.#o.host.resource(this.#o.type.federatedGvr, fed.metadata.namespace), fed, SYNC_CONTROLLER_FINALIZER);
    if (reason === 'InvalidName' && !isDeleting(fed)) {
      await this.#event(fed, invalidFederatedNamespaceEvent());
    }
    return done();
  }

  /** The clusters of the object's effective placement; none when it cannot be computed. */
  async #placedClusters(fed: KubeObject): Promise<readonly string[]> {
    return (await readPlacement(this.#o, this.#o.type, fed)).clusters;
  }

  /**
   * A managed copy changed in `changed` clusters while its federated object does not exist: a
   * possible orphan (left by an object deleted while its cluster could not be reached, or by
   * hand). A removal job per Ready cluster still holding the copy: the worker confirms on the
   * host that the object is gone and removes the managed label, never the copy.
   */
  async #releaseOrphans(key: string, changed: ReadonlySet<string>): Promise<void> {
    const o = this.#o;
    if (changed.size === 0) return;
    const ready = o.readyClusters();
    const held = [...changed].filter((c) => ready.has(c) && o.memberCopies?.managedCopy(c, key) !== null);
    const rkey = federatedObjectRef(o.type.name, key);
    if (held.length > 0) await o.producer.enqueueBulk(held.map((c) => syncJob(syncRequest(rkey, c), 'remove')));
  }

  /**
   * The clusters of `copies` that the deletion of the federated object waits for
   * ({@link awaitedRemovals}): the host's own Namespace, terminating, is not. The host namespace
   * is read only when a Namespace copy is terminating.
   */
  async #awaitedRemovals(copies: ReadonlyMap<string, KubeObject>, name: string): Promise<string[]> {
    const o = this.#o;
    const terminating = [...copies.values()].some((copy) => isDeleting(copy));
    if (!isNamespaceType(o.type.targetType) || !terminating) return [...copies.keys()];
    return awaitedRemovals(copies, (await getOrUndefined(o.host.resource(o.type.targetGvr), name))?.metadata.uid);
  }

  /**
   * The copies of the object that carry the managed label, by Ready cluster (from the watch
   * caches where synced, which keep slim copies; unless `live`).
   */
  async #managedCopies(
    clusters: ReadonlyMap<string, DynamicClient>,
    namespace: string | undefined,
    name: string,
    live = false,
  ): Promise<Map<string, KubeObject>> {
    const ns = this.#o.type.targetType.scope === 'Namespaced' ? namespace : undefined;
    const key = namespace === undefined ? name : `${namespace}/${name}`;
    const found = await Promise.all(
      [...clusters].map(async ([cluster, client]): Promise<[string, KubeObject] | undefined> => {
        // The watch cache, when synced, spares a request per cluster (and a slow member).
        const cached = live ? undefined : this.#o.memberCopies?.managedCopy(cluster, key);
        if (cached !== undefined) return cached === null ? undefined : [cluster, cached];
        try {
          const obj = await client.resource(this.#o.type.targetGvr, ns).get(name);
          return obj.metadata.labels?.[MANAGED_LABEL] === MANAGED_LABEL_TRUE ? [cluster, obj] : undefined;
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      }),
    );
    return new Map(found.filter((c) => c !== undefined));
  }
}
