import {
  EventComponent,
  MANAGED_LABEL,
  MEMBER_UIDS_ANNOTATION,
  ORPHAN_ANNOTATION,
  ORPHAN_ANNOTATION_TRUE,
  type PropagatedVersion,
  type PropagationStatus,
} from '@kubefed/api';
import {
  type DynamicClient,
  getOrUndefined,
  isAlreadyExists,
  isConflict,
  isDeleting,
  isNotFound,
  type KubeObject,
  type ResourceClient,
} from '@kubefed/client';
import {
  objectKeyOf,
  PermanentSyncError,
  silentLogger,
  type SyncJob,
  type SyncJobContext,
  syncRequest,
  syncRequestId,
} from '@kubefed/queue';
import type { EventSink } from '@kubefed/runtime';
import { type ClusterOperation, isManaged, type MemberObservation, planClusterSync } from '../dispatch-plan.js';
import { isNamespaceType } from '../../placement/index.js';
import { parseDeleteOptions } from '../delete-options.js';
import { namespaceTargetOf } from '../namespace-target.js';
import { ClusterSyncError, UNHEALABLE_STATUSES } from '../errors.js';
import { type RenderedObject, renderDesiredObject, type RenderSource, type RenderWarning } from '../render-desired-object.js';
import {
  ADOPTING_EXISTING_RESOURCE,
  adoptionRetrievalError,
  cachedRetrievalFailedEvent,
  clientRetrievalError,
  type EventOperation,
  operationEvent,
  RESOURCE_PRE_EXISTS,
  type SyncEvent,
} from '../sync-events.js';
import { memberUid, memberVersion, needsUpdate, objectVersions, recordedCopy, type VersionSource } from '../versions.js';
import type { SyncOutcomeSink } from '../shared/status-recorder.js';
import { OwnWrites } from '../shared/own-writes.js';
import { readPlacement } from '../shared/placement-reader.js';
import { DEFAULT_SYNC_SETTINGS, type SyncSettings } from '../shared/sync-settings.js';
import type { VersionStore } from '../shared/version-store.js';
import { VanishingCopies, VanishingCopyError } from './vanishing-copies.js';
import { boundedCopyStatus } from '../bounded-remote-status.js';
import { inKubeFedNamespace, type PlacementEnvironment, type SyncCaches, type SyncType } from '../sync-type.js';

/** Options of {@link SyncWorker}. */
export interface SyncWorkerOptions extends PlacementEnvironment {
  /** The federated types being synced, by FTC name; jobs of other types are dropped. */
  readonly types: (name: string) => SyncType | undefined;
  /**
   * The client of a Ready member cluster; `undefined` when not ready (the job is dropped). Throws
   * when the cluster is Ready but its client cannot be had: the cluster reports
   * `ClientRetrievalFailed` and the job is retried.
   */
  readonly memberClient: (cluster: string) => DynamicClient | undefined;
  /** The informer caches of the type's sync controller when it runs in this process: the federated object and its FederatedNamespace are read there (once synced) instead of from the host. */
  readonly caches?: ((federatedType: string) => SyncCaches | undefined) | undefined;
  /** Where outcomes go: the in-process `StatusRecorder`, or a publisher to the leader. */
  readonly recorder: SyncOutcomeSink;
  /** The settings in force (KubeFedConfig); default adoption Enabled and remote status collection on. */
  readonly settings?: (() => SyncSettings) | undefined;
  /** Where Warning events about failed member operations go (on the federated object in the host); default none. */
  readonly events?: EventSink | undefined;
  /**
   * Where written versions are kept; default in memory (per process: after a restart every
   * object is written once more).
   */
  readonly versionStore?: VersionStore | undefined;
  /** Where member writes are announced to the member watches of this process (so that their echo causes no job); default none. */
  readonly ownWrites?: OwnWrites | undefined;
  /** The copies this process created that keep disappearing; default one of its own (3 creates per request per 60 s). */
  readonly vanishingCopies?: VanishingCopies | undefined;
  /** Told the duration of every member create, update and delete, failed ones included (KubeFed's `dispatch_operation_duration_seconds`); default none. */
  readonly dispatched?: ((action: 'create' | 'update' | 'delete', seconds: number) => void) | undefined;
}

/** Thrown after recording a cluster's failed step (a member write, or a read before it) so that the job is retried with backoff. */
export class MemberWriteError extends ClusterSyncError {}

/** The status of a copy written (or found current) as rendered: OK, unless Pod Security labels it asks for were not set. */
const writtenStatus = (rendered: RenderedObject): PropagationStatus =>
  rendered.warnings.some((w) => w.reason === 'PodSecurityLabelsNotAllowed') ? 'PodSecurityLabelsNotAllowed' : '';

/** The context of a job processed outside a `SyncWorkerHost`: never aborted, nothing logged. */
const NO_CONTEXT: SyncJobContext = { attempt: 1, signal: new AbortController().signal, logger: silentLogger };

const UNLABEL_PATCH = { metadata: { labels: { [MANAGED_LABEL]: null } } };

/** The member cluster's client, or why it cannot be had. */
type MemberClient =
  { readonly client: DynamicClient; readonly error?: undefined } | { readonly client?: undefined; readonly error: unknown };

/** What the steps of one job share before the federated object is read. */
interface JobScope {
  readonly job: SyncJob;
  /** `syncRequestId(job)`: the key of this worker's state about the request. */
  readonly id: string;
  /** The federated object's informer key (`namespace/name` or `name`). */
  readonly key: string;
  readonly type: SyncType;
  readonly ctx: SyncJobContext;
  readonly caches: SyncCaches | undefined;
  readonly settings: SyncSettings;
  /** The federated object, once read (its generation goes with every outcome). */
  readonly fed?: KubeObject | undefined;
}

/** ... once the federated object is read and its member object named. */
interface TargetScope extends JobScope {
  readonly fed: KubeObject;
  readonly source: RenderSource & VersionSource;
  /** The member object's namespace (`undefined` when cluster-scoped) and name. */
  readonly namespace: string | undefined;
  readonly memberName: string;
  /** The member object as KubeFed's events name it: `ns/name`, or `name` when cluster-scoped (a Namespace too). */
  readonly subject: { readonly kind: string; readonly name: string };
  readonly deleting: boolean;
}

/** ... and what writing the member object needs. */
interface WriteScope extends TargetScope {
  readonly members: ResourceClient;
  /** The clusters of the effective placement (none while the object is being deleted). */
  readonly placed: readonly string[];
}

/** A failed step before the member object could be written: the cluster's status, the Warning event, the cause. */
interface ReadFailure {
  readonly status: PropagationStatus;
  readonly event: SyncEvent;
  readonly err: unknown;
}

/** A failed member operation (or rendering for it): the cluster's status, the operation its Warning event names, the cause. */
interface WriteFailure {
  readonly status: PropagationStatus;
  readonly event: EventOperation;
  readonly err: unknown;
}

/**
 * The sync worker (docs/architecture.md "The flow of one change"): for one (type, object,
 * cluster) job, reads the CURRENT federated object from the host (or the sync controller's
 * informer cache in the same process) and the member object (from the member watch cache when
 * it has synced, else with the member's client), decides with `planClusterSync`, renders with
 * `renderDesiredObject`, and creates, updates (only when `needsUpdate`), deletes or unlabels the
 * member object; reports the outcome (with the member object's `.status` when the type collects
 * status) to the {@link SyncOutcomeSink}. Events on the federated object as KubeFed's dispatcher
 * records them (`pkg/controller/sync/dispatch/managed.go`): a Normal `CreateInCluster` /
 * `UpdateInCluster` / `DeleteInCluster` / `RemoveManagedLabelFromInCluster` before each member
 * write (none for a copy found current, nor for removals while the object is being deleted),
 * and a Warning when a member operation fails, a pre-existing object blocks creation or is
 * adopted. The job's `kind` is ignored: state decides.
 *
 * Versions written are recorded (in the host's (Cluster)PropagatedVersion with a
 * `versionStore`, else in memory) so that an unchanged object is not written again.
 */
export class SyncWorker {
  readonly #o: SyncWorkerOptions;
  /** Versions written, by request id, when there is no version store. */
  readonly #written = new Map<string, PropagatedVersion>();
  /** The generation each request last failed at in a way retrying cannot heal: a later job of that generation has nothing to add. */
  readonly #unhealed = new Map<string, number | undefined>();

  readonly #vanishing: VanishingCopies;

  constructor(options: SyncWorkerOptions) {
    this.#o = options;
    this.#vanishing = options.vanishingCopies ?? new VanishingCopies();
  }

  /**
   * Converges one job. Aborting `ctx.signal` stops it before its next read or member write (it
   * throws the signal's reason; `SyncWorkerHost` hands the job back to the queue). Without `ctx`
   * the job is never aborted and logs nothing.
   *
   * @throws MemberWriteError after recording a failed write or a failed read before it (the job
   *   is retried: reading the host object `RetrievalFailed`, the member client
   *   `ClientRetrievalFailed`, the member object `CachedRetrievalFailed` or, after a write met a
   *   changed object, `RetrievalFailed`, the propagated version `VersionRetrievalFailed`), or
   *   PermanentSyncError after recording a failure that retrying cannot heal (ApplyOverridesFailed,
   *   ComputeResourceFailed, FieldRetentionFailed: no retry until the object or cluster changes), and
   *   without recording for a placement that cannot be computed (the status writer reports
   *   ComputePlacementFailed); other
   *   API errors (the host Namespace of a Namespace target, recording versions) as is.
   */
  async process(job: SyncJob, ctx: SyncJobContext = NO_CONTEXT): Promise<void> {
    const type = this.#o.types(job.federatedType);
    if (type === undefined) {
      ctx.logger.debug({ cluster: job.cluster }, 'sync job dropped: its federated type is not synced here');
      return;
    }
    const member = this.#memberClient(job.cluster);
    if (member === undefined) {
      ctx.logger.debug({ cluster: job.cluster }, 'sync job dropped: its member cluster is not Ready');
      return;
    }
    // Nothing is ever written into a member's kubefed namespace (see inKubeFedNamespace).
    if (inKubeFedNamespace(this.#o, type, job.namespace)) return;
    const settings = (this.#o.settings ?? (() => DEFAULT_SYNC_SETTINGS))();
    const caches = this.#o.caches?.(type.name);
    const scope: JobScope = { job, id: syncRequestId(job), key: objectKeyOf(job), type, ctx, caches, settings };
    const fed = await this.#readFederated(scope);
    if (fed === undefined) {
      if (member.client === undefined) throw member.error;
      await this.#releaseOrphan(scope, member.client);
      return;
    }
    const target = this.#target(scope, fed);
    if (target === undefined) return;
    if (member.client === undefined) return this.#clientRetrievalFailed(target, member.error);
    await this.#converge(target, member.client);
  }

  #memberClient(cluster: string): MemberClient | undefined {
    try {
      const client = this.#o.memberClient(cluster);
      return client === undefined ? undefined : { client };
    } catch (error) {
      return { error };
    }
  }

  /** The current federated object, from the sync controller's cache once synced, else from the host; `undefined` when it does not exist. */
  async #readFederated(scope: JobScope): Promise<KubeObject | undefined> {
    const { job, caches } = scope;
    const cached = caches?.objects.hasSynced() === true ? caches.objects.store.get(scope.key) : undefined;
    if (cached !== undefined) return cached;
    scope.ctx.signal.throwIfAborted();
    try {
      return await getOrUndefined(this.#o.host.resource(scope.type.federatedGvr, job.namespace), job.name);
    } catch (err) {
      // Whatever the generation, this cluster cannot be synced now: its entry says so.
      await this.#report(scope, 'RetrievalFailed');
      throw new MemberWriteError(job.cluster, 'RetrievalFailed', `reading ${scope.key} from the host failed`, { cause: err });
    }
  }

  /** The scope of the member object `fed` propagates to; `undefined` when it propagates none (a FederatedNamespace that may not). */
  #target(scope: JobScope, fed: KubeObject): TargetScope | undefined {
    const { job, type } = scope;
    // The member object's name. A Namespace's comes from the FederatedNamespace's own namespace,
    // never from a name its writer chose: whoever may write in N can only ever touch Namespace N.
    const target = isNamespaceType(type.targetType)
      ? namespaceTargetOf(fed.metadata, this.#o.kubefedNamespace)
      : { propagate: true as const, name: job.name };
    if (!target.propagate) return undefined;
    const namespace = type.targetType.scope === 'Namespaced' ? job.namespace : undefined;
    return {
      ...scope,
      fed,
      source: fed as unknown as RenderSource & VersionSource,
      namespace,
      memberName: target.name,
      subject: { kind: type.targetType.kind, name: namespace === undefined ? target.name : `${namespace}/${target.name}` },
      deleting: isDeleting(fed),
    };
  }

  /** A Ready cluster whose client cannot be had: KubeFed names the operation it could not dispatch, which the watch cache tells. */
  #clientRetrievalFailed(t: TargetScope, error: unknown): Promise<never> {
    const op = t.caches?.memberCopies?.managedCopy(t.job.cluster, t.key) === null ? 'create' : 'update';
    const event = operationEvent(op, t.subject, t.job.cluster, clientRetrievalError(error));
    return this.#failBeforeWrite(t, { status: 'ClientRetrievalFailed', event, err: error });
  }

  /** Observes the member object and applies what it needs. */
  async #converge(t: TargetScope, member: DynamicClient): Promise<void> {
    const { fed } = t;
    const members = member.resource(t.type.targetGvr, t.namespace);
    const cached = this.#cachedCopy(t);
    if (cached === undefined) t.ctx.signal.throwIfAborted();
    let observed: MemberObservation;
    try {
      observed =
        cached === undefined
          ? await observe(members, t.memberName)
          : cached === null
            ? { state: 'absent' }
            : { state: 'present', object: structuredClone(cached) };
    } catch (err) {
      return this.#failBeforeWrite(t, { status: 'CachedRetrievalFailed', event: cachedRetrievalFailedEvent(err), err });
    }
    if (this.#unhealed.has(t.id) && this.#unhealed.get(t.id) === fed.metadata.generation) return;
    this.#unhealed.delete(t.id);
    if (t.deleting && fed.metadata.annotations?.[ORPHAN_ANNOTATION] === ORPHAN_ANNOTATION_TRUE) {
      await this.#orphan(t, members, observed);
      return;
    }
    const placed = t.deleting ? [] : await this.#placed(t);
    await this.#apply({ ...t, members, placed }, observed, cached === undefined);
  }

  /**
   * The clusters of the object's effective placement (`../shared/placement-reader.ts`). One that
   * cannot be computed fails the job for good: the reconciler and the status writer report it
   * (`ComputePlacementFailed`), and the next change of the object enqueues the key again.
   */
  async #placed(t: TargetScope): Promise<readonly string[]> {
    const env: PlacementEnvironment = { ...this.#o, federatedNamespaceCache: t.caches?.federatedNamespaces };
    const placement = await readPlacement(env, t.type, t.fed);
    if (!placement.ok) throw new PermanentSyncError(`${placement.reason}: ${t.key}: ${placement.message}`, { cause: placement.error });
    return placement.clusters;
  }

  /** The federated object is being deleted with the orphan annotation: the member copy stays, without the managed label. */
  async #orphan(t: TargetScope, members: ResourceClient, observed: MemberObservation): Promise<void> {
    if (observed.state === 'present' && isManaged(observed.object)) {
      t.ctx.signal.throwIfAborted();
      await members.patch(t.memberName, UNLABEL_PATCH, 'merge');
    }
    this.#written.delete(t.id);
    await this.#report(t, undefined);
  }

  /**
   * Plans and applies the operation for what was observed. A write planned on the watch cache
   * (`live` false) that meets a member which moved on (AlreadyExists, Conflict, NotFound) is
   * planned again on a live read instead of failing.
   */
  async #apply(w: WriteScope, member: MemberObservation, live: boolean): Promise<void> {
    const op: ClusterOperation = planClusterSync({
      cluster: w.job.cluster,
      ready: true,
      selected: w.placed.includes(w.job.cluster),
      member,
      adoptResources: w.settings.adoptResources,
      hostNamespaceUid: await this.#hostNamespaceUid(w, member),
    });
    switch (op.op) {
      case 'none':
        if (op.status === 'AlreadyExists') await this.#warn(w, 'create', RESOURCE_PRE_EXISTS);
        await this.#report(w, op.status, member.state === 'present' ? member.object : undefined);
        return;
      case 'create':
        return this.#create(w, op, live);
      case 'update':
        return this.#update(w, op, live);
      case 'delete':
        return this.#delete(w, op);
      case 'unlabel':
        return this.#unlabel(w, op, live);
    }
  }

  async #create(w: WriteScope, op: ClusterOperation, live: boolean): Promise<void> {
    const refused = this.#vanishing.refusal(w.id);
    if (refused !== undefined)
      return this.#fail(w, op, { status: 'CreationFailed', event: 'create', err: new VanishingCopyError(w.job.cluster, refused) });
    const rendered = await this.#render(w, op);
    w.ctx.signal.throwIfAborted();
    await this.#reportRenderWarnings(w, rendered);
    await this.#announce(w, 'create');
    let created: KubeObject;
    try {
      created = await this.#write(w, 'create', () => w.members.create(rendered.object));
    } catch (err) {
      if (isStale(err, live)) return this.#apply(w, await this.#reread(w, 'create'), true);
      // Someone created it meanwhile: the retry re-plans with the object.
      if (isAlreadyExists(err)) throw err;
      return this.#fail(w, op, { status: 'CreationFailed', event: 'create', err });
    }
    this.#vanishing.created(w.id);
    await this.#remember(w, created);
    await this.#report(w, writtenStatus(rendered), created);
    w.ctx.logger.debug({ cluster: w.job.cluster }, 'member object created');
  }

  async #update(w: WriteScope, op: ClusterOperation, live: boolean): Promise<void> {
    const existing = op.member;
    if (existing === undefined) return;
    const rendered = await this.#render(w, op, existing);
    const propagatedVersion = await this.#propagatedVersion(w);
    const desired = rendered.object;
    const cluster = w.job.cluster;
    const versions = objectVersions(w.source);
    if (op.adopt !== true && !needsUpdate({ fedObject: w.source, versions, propagatedVersion, cluster, desired, memberObject: existing })) {
      // An older record's `gen:<n>/<uid>` of this very copy: rewritten in KubeFed's form, no member write.
      if (recordedCopy(propagatedVersion, versions, cluster).legacy) await this.#remember(w, existing);
      await this.#report(w, writtenStatus(rendered), existing);
      return;
    }
    w.ctx.signal.throwIfAborted();
    if (op.adopt === true) await this.#warn(w, 'create', ADOPTING_EXISTING_RESOURCE);
    await this.#reportRenderWarnings(w, rendered);
    await this.#announce(w, 'update');
    const rv = existing.metadata.resourceVersion;
    const conditional: KubeObject = rv === undefined ? desired : { ...desired, metadata: { ...desired.metadata, resourceVersion: rv } };
    let updated: KubeObject;
    try {
      updated = await this.#write(w, 'update', () => w.members.update(conditional));
    } catch (err) {
      if (isStale(err, live)) return this.#apply(w, await this.#reread(w, 'update'), true);
      return this.#fail(w, op, { status: 'UpdateFailed', event: 'update', err });
    }
    await this.#remember(w, updated);
    await this.#report(w, writtenStatus(rendered), updated);
    w.ctx.logger.debug({ cluster }, 'member object updated');
  }

  async #delete(w: WriteScope, op: ClusterOperation): Promise<void> {
    w.ctx.signal.throwIfAborted();
    await this.#announce(w, 'delete');
    try {
      // While the federated object is being deleted, its kubefed.io/deleteoption applies (§4.4.11).
      await this.#timed('delete', () => w.members.delete(w.memberName, w.deleting ? parseDeleteOptions(w.fed) : op.deleteOptions));
    } catch (err) {
      if (!isNotFound(err)) await this.#fail(w, op, { status: 'DeletionFailed', event: 'delete', err });
    }
    await this.#forget(w);
    const after = await this.#reread(w, 'delete');
    if (after.state === 'present') await this.#report(w, 'WaitingForRemoval', after.object);
    else await this.#report(w, undefined);
    w.ctx.logger.debug({ cluster: w.job.cluster }, 'member object deleted');
  }

  async #unlabel(w: WriteScope, op: ClusterOperation, live: boolean): Promise<void> {
    w.ctx.signal.throwIfAborted();
    await this.#announce(w, 'unlabel');
    try {
      await w.members.patch(w.memberName, UNLABEL_PATCH, 'merge');
    } catch (err) {
      if (isStale(err, live)) return this.#apply(w, await this.#reread(w, 'unlabel'), true);
      await this.#fail(w, op, { status: 'LabelRemovalFailed', event: 'unlabel', err });
    }
    await this.#forget(w);
    await this.#report(w, undefined);
    w.ctx.logger.debug({ cluster: w.job.cluster }, 'managed label removed from the member object');
  }

  /** The member object for `op`; a rendering failure fails the job (for good unless it may heal). */
  async #render(w: WriteScope, op: ClusterOperation, existing?: KubeObject): Promise<RenderedObject> {
    try {
      return renderDesiredObject({
        fedObject: w.source,
        targetType: w.type.targetType,
        cluster: w.job.cluster,
        ...(existing === undefined ? {} : { existing }),
        allowPodSecurityLabels: w.settings.podSecurityLabels === true,
      });
    } catch (err) {
      const status = err instanceof ClusterSyncError ? err.status : 'ComputeResourceFailed';
      return this.#fail(w, op, { status, event: existing === undefined ? 'create' : 'update', err });
    }
  }

  /** The version record of the object: from the version store, else this worker's memory. */
  async #propagatedVersion(w: WriteScope): Promise<PropagatedVersion | undefined> {
    const store = this.#o.versionStore;
    if (store === undefined) return this.#written.get(w.id);
    try {
      return await store.get(w.type, w.fed);
    } catch (err) {
      const event = operationEvent('update', w.subject, w.job.cluster, err);
      return this.#failBeforeWrite(w, { status: 'VersionRetrievalFailed', event, err });
    }
  }

  /**
   * The UID of the host's own Namespace of this name, for a Namespace found in the member: when
   * the host is also a member, that copy is unlabelled, never deleted (docs/kubefed-compatibility.md §4.4.12).
   */
  async #hostNamespaceUid(w: WriteScope, member: MemberObservation): Promise<string | undefined> {
    if (member.state !== 'present' || !isNamespaceType(w.type.targetType)) return undefined;
    const host = await getOrUndefined(this.#o.host.resource(w.type.targetGvr), w.memberName);
    return host?.metadata.uid;
  }

  /** A create or update of the member object, announced to the member watches of this process. */
  async #write(w: WriteScope, action: 'create' | 'update', send: () => Promise<KubeObject>): Promise<KubeObject> {
    const own = this.#o.ownWrites;
    const key = this.#ownKey(w);
    own?.begin(key);
    try {
      const obj = await this.#timed(action, send);
      own?.wrote(key, obj.metadata.resourceVersion);
      return obj;
    } catch (err) {
      own?.failed(key);
      throw err;
    }
  }

  /** Runs one member write, telling `dispatched` how long it took. */
  async #timed<T>(action: 'create' | 'update' | 'delete', send: () => Promise<T>): Promise<T> {
    const dispatched = this.#o.dispatched;
    if (dispatched === undefined) return send();
    const started = performance.now();
    try {
      return await send();
    } finally {
      dispatched(action, (performance.now() - started) / 1000);
    }
  }

  /**
   * The member copy from the member watch cache (null: absent), which spares a GET per job. It is
   * a slim copy (`slim-member-copy.ts`) holding all that planning, `needsUpdate`, field retention
   * and the reported status read, so an update is rendered and written from it as from the whole
   * object (conditional on its resourceVersion). Undefined when the job must look live: deletion and orphaning, and an object this process
   * wrote whose write the watch has not shown yet (the cache may still say it is absent, and a
   * second create would be announced).
   */
  #cachedCopy(t: TargetScope): KubeObject | null | undefined {
    if (t.deleting || this.#o.ownWrites?.pending(this.#ownKey(t)) === true) return undefined;
    return t.caches?.memberCopies?.managedCopy(t.job.cluster, t.key);
  }

  /** The member object's key in {@link OwnWrites}. */
  #ownKey(t: TargetScope): string {
    return OwnWrites.key(t.job.cluster, t.type.name, { metadata: { namespace: t.namespace, name: t.memberName } });
  }

  /** A live read of the member object after a write met one that moved on (KubeFed's read after AlreadyExists). */
  async #reread(w: WriteScope, op: EventOperation): Promise<MemberObservation> {
    try {
      return await observe(w.members, w.memberName);
    } catch (err) {
      const detail = op === 'create' ? adoptionRetrievalError(err) : err;
      return this.#failBeforeWrite(w, { status: 'RetrievalFailed', event: operationEvent(op, w.subject, w.job.cluster, detail), err });
    }
  }

  /** Records the version of the member object just written. */
  async #remember(w: WriteScope, obj: KubeObject): Promise<void> {
    const store = this.#o.versionStore;
    const cluster = w.job.cluster;
    if (store === undefined) this.#written.set(w.id, versionRecord(w.source, cluster, obj));
    else
      await store.record({
        type: w.type,
        fedObject: w.fed,
        cluster,
        version: memberVersion(obj),
        uid: memberUid(obj),
        selectedClusters: w.placed,
      });
  }

  /**
   * Drops the cluster's entry from the version record once its copy is gone or released
   * (KubeFed's PropagatedVersion lists only clusters holding a copy). Not while the object is
   * being deleted: the record goes with it (owner reference).
   */
  async #forget(w: WriteScope): Promise<void> {
    this.#written.delete(w.id);
    const store = this.#o.versionStore;
    if (store === undefined || w.deleting) return;
    const cluster = w.job.cluster;
    const stored = await store.get(w.type, w.fed);
    if (stored?.status?.clusterVersions?.some((v) => v.clusterName === cluster) !== true) return;
    const selectedClusters = w.placed.filter((c) => c !== cluster);
    await store.record({ type: w.type, fedObject: w.fed, cluster, version: '', selectedClusters });
  }

  /**
   * A failure before the member could be written (KubeFed's reasons `ClientRetrievalFailed`,
   * `CachedRetrievalFailed`, `RetrievalFailed`, `VersionRetrievalFailed`): the cluster's entry
   * says which step failed, a Warning event why, and the job is retried with backoff.
   */
  async #failBeforeWrite(t: TargetScope, failure: ReadFailure): Promise<never> {
    const { status, event, err } = failure;
    await this.#report(t, status);
    await this.#event(t, event);
    throw new MemberWriteError(t.job.cluster, status, `${status}: ${t.key} in cluster "${t.job.cluster}"`, { cause: err });
  }

  /** A failed member operation: recorded, a Warning event, and the job retried (or failed for good when retrying cannot heal it). */
  async #fail(t: TargetScope, op: ClusterOperation, failure: WriteFailure): Promise<never> {
    const { status, err } = failure;
    await this.#report(t, status);
    await this.#warn(t, failure.event, err instanceof Error ? err.message : err);
    const error = new MemberWriteError(t.job.cluster, status, `${op.op} of ${t.key} in cluster "${t.job.cluster}" failed`, { cause: err });
    // A render failure cannot heal by retrying: the next change of the object or the cluster
    // enqueues the key again (KubeFed retries only recoverable statuses).
    if (UNHEALABLE_STATUSES.has(status)) {
      // A retention failure depends on the member copy too: a change of it may heal it.
      if (status !== 'FieldRetentionFailed') this.#unhealed.set(t.id, t.fed.metadata.generation);
      throw new PermanentSyncError(error.message, { cause: error });
    }
    throw error;
  }

  /** Reports the cluster's outcome (`undefined`: the cluster has no entry), with the member's `.status` when collected. */
  async #report(scope: JobScope, status: PropagationStatus | undefined, memberObject?: KubeObject): Promise<void> {
    const collect = scope.type.statusCollection && scope.settings.remoteStatusCollection;
    const remoteStatus = collect ? remoteStatusOf(memberObject) : undefined;
    const generation = scope.fed?.metadata.generation;
    const uid = scope.fed?.metadata.uid;
    await this.#o.recorder.report({
      ...syncRequest(scope.job, scope.job.cluster),
      ...(generation === undefined ? {} : { generation }),
      ...(uid === undefined ? {} : { uid }),
      result: status === undefined ? null : remoteStatus === undefined ? { status } : { status, remoteStatus },
    });
  }

  /** A Warning event about a failed operation on the member object. */
  async #warn(t: TargetScope, op: EventOperation, error: unknown): Promise<void> {
    await this.#event(t, operationEvent(op, t.subject, t.job.cluster, error));
  }

  /**
   * KubeFed's Normal event for a member write about to be made (`Creating ConfigMap "ns/a" in
   * cluster "c1"`). Only the sync path has them: KubeFed's removal while the object is being
   * deleted records none. Identical events aggregate into one (`count`) in the event sink.
   */
  async #announce(t: TargetScope, op: EventOperation): Promise<void> {
    if (!t.deleting) await this.#event(t, operationEvent(op, t.subject, t.job.cluster));
  }

  /** The template problems of a rendering that is written (annotations, finalizers dropped) as Warning events. */
  async #reportRenderWarnings(t: TargetScope, rendered: RenderedObject): Promise<void> {
    for (const w of rendered.warnings) await this.#event(t, { type: 'Warning', reason: w.reason, message: w.message });
  }

  /** Records `event` on the federated object (deduplicated by the event sink). */
  async #event(t: TargetScope, event: SyncEvent | (RenderWarning & { readonly type: 'Warning' })): Promise<void> {
    await this.#o.events?.record(t.fed, { ...event, component: EventComponent.sync(t.type.federatedKind) });
  }

  /**
   * A job whose federated object does not exist (confirmed on the host): a managed member copy is
   * a possible orphan, left by a federated object deleted while the cluster could not be reached
   * or by hand. As KubeFed does, it gets its managed label removed, never deleted.
   */
  async #releaseOrphan(scope: JobScope, member: DynamicClient): Promise<void> {
    const { type, job } = scope;
    const target = isNamespaceType(type.targetType)
      ? namespaceTargetOf({ name: job.name, namespace: job.namespace }, this.#o.kubefedNamespace)
      : { propagate: true as const, name: job.name };
    if (!target.propagate) return;
    const members = member.resource(type.targetGvr, type.targetType.scope === 'Namespaced' ? job.namespace : undefined);
    const observed = await getOrUndefined(members, target.name);
    if (observed === undefined || !isManaged(observed) || isDeleting(observed)) return;
    scope.ctx.signal.throwIfAborted();
    try {
      await members.patch(target.name, UNLABEL_PATCH, 'merge');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * The member object's `.status` as it goes into the federated object's status (`remoteStatus`):
 * the one place the sync path copies status from a member into the host, bounded
 * ({@link boundedCopyStatus}) so that neither the outcome nor the host object carries a huge one.
 */
function remoteStatusOf(memberObject: KubeObject | undefined): Record<string, unknown> | undefined {
  return memberObject?.status === undefined ? undefined : (boundedCopyStatus(memberObject.status) as Record<string, unknown>);
}

async function observe(members: ResourceClient, name: string): Promise<MemberObservation> {
  const object = await getOrUndefined(members, name);
  return object === undefined ? { state: 'absent' } : { state: 'present', object };
}

/** A write planned on the watch cache met a member object that moved on. */
function isStale(err: unknown, live: boolean): boolean {
  return !live && (isAlreadyExists(err) || isConflict(err) || isNotFound(err));
}

function versionRecord(fed: VersionSource, cluster: string, written: KubeObject): PropagatedVersion {
  const v = objectVersions(fed);
  const uid = memberUid(written);
  return {
    metadata: uid === undefined ? {} : { annotations: { [MEMBER_UIDS_ANNOTATION]: JSON.stringify({ [cluster]: uid }) } },
    status: {
      templateVersion: v.templateVersion,
      overridesVersion: v.overridesVersion,
      clusterVersions: [{ clusterName: cluster, version: memberVersion(written) }],
    },
  };
}
