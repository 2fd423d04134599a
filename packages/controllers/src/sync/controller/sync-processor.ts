import {
  EventComponent,
  MANAGED_LABEL,
  ORPHAN_ANNOTATION,
  ORPHAN_ANNOTATION_TRUE,
  type PropagatedVersion,
  type PropagationStatus,
  type Switch,
} from '@kubefed/api';
import { type DynamicClient, isAlreadyExists, isConflict, isNotFound, type KubeObject } from '@kubefed/client';
import { PermanentSyncError, type SyncJob } from '@kubefed/queue';
import type { EventSink } from '@kubefed/runtime';
import { type ClusterOperation, isManaged, type MemberObservation, planClusterSync } from '../dispatch-plan.js';
import { isNamespaceType } from '../../placement/index.js';
import { parseDeleteOptions } from '../delete-options.js';
import { namespaceTargetOf } from '../namespace-target.js';
import { ClusterSyncError, UNHEALABLE_STATUSES } from '../errors.js';
import { type RenderedObject, renderDesiredObject, type RenderSource } from '../render-desired-object.js';
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
import { memberVersion, needsUpdate, objectVersions, type VersionSource } from '../versions.js';
import type { SyncOutcomeSink } from './status-recorder.js';
import type { SyncCaches } from './sync-controller.js';
import { OwnWrites } from './own-writes.js';
import type { VersionStore } from './version-store.js';
import { inKubeFedNamespace, isDeleting, placementOf, type PlacementEnvironment, type SyncType } from './sync-type.js';

/** The KubeFedConfig settings a sync worker reads on every job. */
export interface SyncSettings {
  /** `spec.syncController.adoptResources`; KubeFed's default `Enabled`. */
  readonly adoptResources: Switch;
  /** The `RawResourceStatusCollection` feature gate (with the FTC's `statusCollection`, remote status is reported). */
  readonly remoteStatusCollection: boolean;
}

/** Options of {@link createSyncProcessor}. */
export interface SyncProcessorOptions extends PlacementEnvironment {
  /** The federated types being synced, by FTC name; jobs of other types are dropped. */
  readonly types: (name: string) => SyncType | undefined;
  /**
   * The client of a Ready member cluster; `undefined` when not ready (the job is dropped). Throws
   * when the cluster is Ready but its client cannot be had: the cluster reports
   * `ClientRetrievalFailed` and the job is retried.
   */
  readonly memberClient: (cluster: string) => DynamicClient | undefined;
  /** The control plane's namespace (a FederatedNamespace there is never propagated). */
  readonly kubefedNamespace: string;
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
}

/** A sync job processor, to run inside `SyncWorkerHost`. */
export type SyncJobProcessor = (job: SyncJob) => Promise<void>;

/** Thrown after recording a cluster's failed step (a member write, or a read before it) so that the job is retried with backoff. */
export class MemberWriteError extends ClusterSyncError {}

/**
 * The sync worker (docs/architecture.md "The flow of one change"): for one (type, object, cluster) job,
 * reads the CURRENT federated object from the host (or the sync controller's informer cache in
 * the same process) and the member object (from the member watch cache when it has synced, else
 * with the member's client), decides with `planClusterSync`, renders with `renderDesiredObject`, and creates,
 * updates (only when `needsUpdate`), deletes or unlabels the member object; reports the
 * outcome (with the member object's `.status` when the type collects status) to the
 * {@link SyncOutcomeSink}. Events on the federated object as KubeFed's dispatcher records them
 * (`pkg/controller/sync/dispatch/managed.go`): a Normal `CreateInCluster` / `UpdateInCluster` /
 * `DeleteInCluster` / `RemoveManagedLabelFromInCluster` before each member write (none for a copy
 * found current, nor for removals while the object is being deleted), and a Warning when a member
 * operation fails, a pre-existing object blocks creation or is adopted. The job's `kind` is
 * ignored: state decides.
 *
 * Versions written are recorded (in the host's (Cluster)PropagatedVersion with a
 * `versionStore`, else in memory) so that an unchanged object is not written again.
 *
 * @throws MemberWriteError after recording a failed write or a failed read before it (the job
 *   is retried: reading the host object `RetrievalFailed`, the member client
 *   `ClientRetrievalFailed`, the member object `CachedRetrievalFailed` or, after a write met a
 *   changed object, `RetrievalFailed`, the propagated version `VersionRetrievalFailed`), or
 *   PermanentSyncError after recording a failure that retrying cannot heal (ApplyOverridesFailed,
 *   ComputeResourceFailed, FieldRetentionFailed: no retry until the object or cluster changes); other
 *   API errors (the host Namespace of a Namespace target, recording versions) as is.
 */
export function createSyncProcessor(options: SyncProcessorOptions): SyncJobProcessor {
  const written = new Map<string, PropagatedVersion>();
  /** The generation each (type, object, cluster) last failed at in a way retrying cannot heal: a later job of that generation has nothing to add. */
  const unhealed = new Map<string, number | undefined>();
  const settings = options.settings ?? (() => ({ adoptResources: 'Enabled' as const, remoteStatusCollection: true }));
  return async (job) => {
    const type = options.types(job.federatedType);
    if (type === undefined) return;
    let member: DynamicClient | undefined;
    let clientError: unknown;
    try {
      member = options.memberClient(job.cluster);
    } catch (err) {
      clientError = err;
    }
    if (member === undefined && clientError === undefined) return;
    // Nothing is ever written into a member's kubefed namespace (see inKubeFedNamespace).
    if (inKubeFedNamespace(options, type, job.namespace)) return;
    const objectKey = job.namespace === undefined ? job.name : `${job.namespace}/${job.name}`;
    const { adoptResources, remoteStatusCollection } = settings();
    const collect = type.statusCollection && remoteStatusCollection;
    const jobKey = {
      federatedType: job.federatedType,
      ...(job.namespace === undefined ? {} : { namespace: job.namespace }),
      name: job.name,
      cluster: job.cluster,
    };
    const record = async (status: PropagationStatus | undefined, memberObject?: KubeObject): Promise<void> => {
      const remoteStatus = collect ? (memberObject?.status as Record<string, unknown> | undefined) : undefined;
      const generation = fed?.metadata.generation === undefined ? {} : { generation: fed.metadata.generation };
      await options.recorder.report({
        ...jobKey,
        ...generation,
        result: status === undefined ? null : remoteStatus === undefined ? { status } : { status, remoteStatus },
      });
    };
    const caches = options.caches?.(type.name);
    const env: PlacementEnvironment = { ...options, federatedNamespaceCache: caches?.federatedNamespaces };
    let fed: KubeObject | undefined = caches?.objects.hasSynced() === true ? caches.objects.store.get(objectKey) : undefined;
    try {
      fed ??= await options.host.resource(type.federatedGvr, job.namespace).get(job.name);
    } catch (err) {
      if (!isNotFound(err)) {
        // Whatever the generation, this cluster cannot be synced now: its entry says so.
        await record('RetrievalFailed');
        throw new MemberWriteError(job.cluster, 'RetrievalFailed', `reading ${objectKey} from the host failed`, { cause: err });
      }
      if (member === undefined) throw clientError;
      await releaseOrphan({ type, member, job, kubefedNamespace: options.kubefedNamespace });
      return;
    }
    const warn = async (op: EventOperation, error: unknown): Promise<void> => {
      await options.events?.record(fed, {
        ...operationEvent(op, subject, job.cluster, error),
        component: EventComponent.sync(type.federatedKind),
      });
    };
    /**
     * KubeFed's Normal event for a member write about to be made (`Creating ConfigMap "ns/a" in
     * cluster "c1"`). Only the sync path has them: KubeFed's removal while the object is being
     * deleted records none. Identical events aggregate into one (`count`) in the event sink.
     */
    const announce = async (op: EventOperation): Promise<void> => {
      if (deleting) return;
      await options.events?.record(fed, {
        ...operationEvent(op, subject, job.cluster),
        component: EventComponent.sync(type.federatedKind),
      });
    };
    /**
     * A failure before the member could be written (KubeFed's reasons `ClientRetrievalFailed`,
     * `CachedRetrievalFailed`, `RetrievalFailed`, `VersionRetrievalFailed`): the cluster's entry
     * says which step failed, a Warning event why, and the job is retried with backoff.
     */
    const failBeforeWrite = async (status: PropagationStatus, event: SyncEvent, err: unknown): Promise<never> => {
      await record(status);
      await options.events?.record(fed, { ...event, component: EventComponent.sync(type.federatedKind) });
      throw new MemberWriteError(job.cluster, status, `${status}: ${objectKey} in cluster "${job.cluster}"`, { cause: err });
    };
    const namespace = type.targetType.scope === 'Namespaced' ? job.namespace : undefined;
    // The member object's name. A Namespace's comes from the FederatedNamespace's own namespace,
    // never from a name its writer chose: whoever may write in N can only ever touch Namespace N.
    const target = isNamespaceType(type.targetType)
      ? namespaceTargetOf(fed.metadata, options.kubefedNamespace)
      : { propagate: true as const, name: job.name };
    if (!target.propagate) return;
    const memberName = target.name;
    /** The member object as KubeFed's events name it: `ns/name`, or `name` when cluster-scoped (a Namespace too). */
    const subject = { kind: type.targetType.kind, name: namespace === undefined ? memberName : `${namespace}/${memberName}` };
    if (member === undefined) {
      // KubeFed names the operation it could not dispatch; the watch cache tells which it would be.
      const op = caches?.memberCopies?.managedCopy(job.cluster, objectKey) === null ? 'create' : 'update';
      return failBeforeWrite(
        'ClientRetrievalFailed',
        operationEvent(op, subject, job.cluster, clientRetrievalError(clientError)),
        clientError,
      );
    }
    const members = member.resource(type.targetGvr, namespace);
    const deleting = isDeleting(fed);
    // The member watch cache spares a GET per job; deletion and orphaning always look live.
    const cached = deleting ? undefined : caches?.memberCopies?.managedCopy(job.cluster, objectKey);
    let observed: MemberObservation;
    try {
      observed =
        cached === undefined
          ? await observe(members, memberName)
          : cached === null
            ? { state: 'absent' }
            : { state: 'present', object: structuredClone(cached) };
    } catch (err) {
      return failBeforeWrite('CachedRetrievalFailed', cachedRetrievalFailedEvent(err), err);
    }
    /** A live read of the member object after a write met one that moved on (KubeFed's read after AlreadyExists). */
    const reread = async (op: EventOperation): Promise<MemberObservation> => {
      try {
        return await observe(members, memberName);
      } catch (err) {
        const detail = op === 'create' ? adoptionRetrievalError(err) : err;
        return failBeforeWrite('RetrievalFailed', operationEvent(op, subject, job.cluster, detail), err);
      }
    };
    const versionKey = `${type.name}|${objectKey}@${job.cluster}`;
    if (unhealed.has(versionKey) && unhealed.get(versionKey) === fed.metadata.generation) return;
    unhealed.delete(versionKey);
    const source = fed as unknown as RenderSource & VersionSource;

    if (deleting && fed.metadata.annotations?.[ORPHAN_ANNOTATION] === ORPHAN_ANNOTATION_TRUE) {
      if (observed.state === 'present' && isManaged(observed.object)) {
        await members.patch(memberName, { metadata: { labels: { [MANAGED_LABEL]: null } } }, 'merge');
      }
      written.delete(versionKey);
      await record(undefined);
      return;
    }
    const placed = deleting ? [] : (await placementOf(env, type, fed)).clusters;
    const selected = placed.includes(job.cluster);
    /**
     * The UID of the host's own Namespace of this name, for a Namespace found in the member: when
     * the host is also a member, that copy is unlabelled, never deleted (docs/kubefed-compatibility.md §4.4.12).
     */
    const hostNamespaceUid = async (member: MemberObservation): Promise<string | undefined> => {
      if (member.state !== 'present' || !isNamespaceType(type.targetType)) return undefined;
      const host = await observe(options.host.resource(type.targetGvr), memberName);
      return host.state === 'present' ? host.object.metadata.uid : undefined;
    };
    const ownKey = OwnWrites.key(job.cluster, type.name, { metadata: { namespace, name: memberName } });
    /** A create or update of the member object, announced to the member watches of this process. */
    const write = async (send: () => Promise<KubeObject>): Promise<KubeObject> => {
      const own = options.ownWrites;
      own?.begin(ownKey);
      try {
        const obj = await send();
        own?.wrote(ownKey, obj.metadata.resourceVersion);
        return obj;
      } catch (err) {
        own?.failed(ownKey);
        throw err;
      }
    };
    const remember = async (obj: KubeObject): Promise<void> => {
      if (options.versionStore === undefined) written.set(versionKey, versionRecord(source, job.cluster, obj));
      else
        await options.versionStore.record({
          type,
          fedObject: fed,
          cluster: job.cluster,
          version: memberVersion(obj),
          selectedClusters: placed,
        });
    };
    /**
     * Drops the cluster's entry from the version record once its copy is gone or released
     * (KubeFed's PropagatedVersion lists only clusters holding a copy). Not while the object is
     * being deleted: the record goes with it (owner reference).
     */
    const forget = async (): Promise<void> => {
      written.delete(versionKey);
      if (options.versionStore === undefined || deleting) return;
      const stored = await options.versionStore.get(type, fed);
      if (stored?.status?.clusterVersions?.some((v) => v.clusterName === job.cluster) !== true) return;
      await options.versionStore.record({
        type,
        fedObject: fed,
        cluster: job.cluster,
        version: '',
        selectedClusters: placed.filter((c) => c !== job.cluster),
      });
    };
    const fail = async (op: ClusterOperation, status: PropagationStatus, event: EventOperation, err: unknown): Promise<never> => {
      await record(status);
      await warn(event, err instanceof Error ? err.message : err);
      const failure = new MemberWriteError(job.cluster, status, `${op.op} of ${objectKey} in cluster "${job.cluster}" failed`, {
        cause: err,
      });
      // A render failure cannot heal by retrying: the next change of the object or the cluster
      // enqueues the key again (KubeFed retries only recoverable statuses).
      if (UNHEALABLE_STATUSES.has(status)) {
        // A retention failure depends on the member copy too: a change of it may heal it.
        if (status !== 'FieldRetentionFailed') unhealed.set(versionKey, fed.metadata.generation);
        throw new PermanentSyncError(failure.message, { cause: failure });
      }
      throw failure;
    };
    const render = async (op: ClusterOperation, existing?: KubeObject): Promise<RenderedObject> => {
      try {
        return renderDesiredObject({
          fedObject: source,
          targetType: type.targetType,
          cluster: job.cluster,
          ...(existing === undefined ? {} : { existing }),
        });
      } catch (err) {
        return fail(
          op,
          err instanceof ClusterSyncError ? err.status : 'ComputeResourceFailed',
          existing === undefined ? 'create' : 'update',
          err,
        );
      }
    };
    /** The template problems of a rendering that is written (annotations, finalizers dropped) as Warning events. */
    const reportRenderWarnings = async (rendered: RenderedObject): Promise<void> => {
      for (const w of rendered.warnings)
        await options.events?.record(fed, {
          type: 'Warning',
          reason: w.reason,
          message: w.message,
          component: EventComponent.sync(type.federatedKind),
        });
    };
    /**
     * Plans and applies the operation for what was observed. A write planned on the watch cache
     * (`live` false) that meets a member which moved on (AlreadyExists, Conflict, NotFound) is
     * planned again on a live read instead of failing.
     */
    const apply = async (member: MemberObservation, live: boolean): Promise<void> => {
      const op: ClusterOperation = planClusterSync({
        cluster: job.cluster,
        ready: true,
        selected,
        member,
        adoptResources,
        hostNamespaceUid: await hostNamespaceUid(member),
      });
      const stale = (err: unknown): boolean => !live && (isAlreadyExists(err) || isConflict(err) || isNotFound(err));
      switch (op.op) {
        case 'none':
          if (op.status === 'AlreadyExists') await warn('create', RESOURCE_PRE_EXISTS);
          await record(op.status, member.state === 'present' ? member.object : undefined);
          return;
        case 'create': {
          const rendered = await render(op);
          await reportRenderWarnings(rendered);
          await announce('create');
          let created: KubeObject;
          try {
            created = await write(() => members.create(rendered.object));
          } catch (err) {
            if (stale(err)) return apply(await reread('create'), true);
            // Someone created it meanwhile: the retry re-plans with the object.
            if (isAlreadyExists(err)) throw err;
            return fail(op, 'CreationFailed', 'create', err);
          }
          await remember(created);
          await record('', created);
          return;
        }
        case 'update': {
          const existing = op.member;
          if (existing === undefined) return;
          const rendered = await render(op, existing);
          let propagatedVersion: PropagatedVersion | undefined;
          try {
            propagatedVersion = options.versionStore === undefined ? written.get(versionKey) : await options.versionStore.get(type, fed);
          } catch (err) {
            return failBeforeWrite('VersionRetrievalFailed', operationEvent('update', subject, job.cluster, err), err);
          }
          if (
            op.adopt !== true &&
            !needsUpdate({ fedObject: source, propagatedVersion, cluster: job.cluster, desired: rendered.object, memberObject: existing })
          ) {
            await record('', existing);
            return;
          }
          if (op.adopt === true) await warn('create', ADOPTING_EXISTING_RESOURCE);
          await reportRenderWarnings(rendered);
          await announce('update');
          const rv = existing.metadata.resourceVersion;
          const desired: KubeObject =
            rv === undefined ? rendered.object : { ...rendered.object, metadata: { ...rendered.object.metadata, resourceVersion: rv } };
          let updated: KubeObject;
          try {
            updated = await write(() => members.update(desired));
          } catch (err) {
            if (stale(err)) return apply(await reread('update'), true);
            return fail(op, 'UpdateFailed', 'update', err);
          }
          await remember(updated);
          await record('', updated);
          return;
        }
        case 'delete': {
          await announce('delete');
          try {
            // While the federated object is being deleted, its kubefed.io/deleteoption applies (§4.4.11).
            await members.delete(memberName, deleting ? parseDeleteOptions(fed) : op.deleteOptions);
          } catch (err) {
            if (!isNotFound(err)) await fail(op, 'DeletionFailed', 'delete', err);
          }
          await forget();
          const after = await reread('delete');
          await record(after.state === 'present' ? 'WaitingForRemoval' : undefined, after.state === 'present' ? after.object : undefined);
          return;
        }
        case 'unlabel':
          await announce('unlabel');
          try {
            await members.patch(memberName, { metadata: { labels: { [MANAGED_LABEL]: null } } }, 'merge');
          } catch (err) {
            if (stale(err)) return apply(await reread('unlabel'), true);
            await fail(op, 'LabelRemovalFailed', 'unlabel', err);
          }
          await forget();
          await record(undefined);
          return;
      }
    };
    await apply(observed, cached === undefined);
  };
}

/**
 * A job whose federated object does not exist (confirmed on the host): a managed member copy is
 * a possible orphan, left by a federated object deleted while the cluster could not be reached
 * or by hand. As KubeFed does, it gets its managed label removed, never deleted.
 */
async function releaseOrphan(input: { type: SyncType; member: DynamicClient; job: SyncJob; kubefedNamespace: string }): Promise<void> {
  const { type, member, job } = input;
  const target = isNamespaceType(type.targetType)
    ? namespaceTargetOf({ name: job.name, namespace: job.namespace }, input.kubefedNamespace)
    : { propagate: true as const, name: job.name };
  if (!target.propagate) return;
  const members = member.resource(type.targetGvr, type.targetType.scope === 'Namespaced' ? job.namespace : undefined);
  const observed = await observe(members, target.name);
  if (observed.state !== 'present' || !isManaged(observed.object) || isDeleting(observed.object)) return;
  try {
    await members.patch(target.name, { metadata: { labels: { [MANAGED_LABEL]: null } } }, 'merge');
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

async function observe(members: ReturnType<DynamicClient['resource']>, name: string): Promise<MemberObservation> {
  try {
    return { state: 'present', object: await members.get(name) };
  } catch (err) {
    if (isNotFound(err)) return { state: 'absent' };
    throw err;
  }
}

function versionRecord(fed: VersionSource, cluster: string, written: KubeObject): PropagatedVersion {
  const v = objectVersions(fed);
  return {
    metadata: {},
    status: {
      templateVersion: v.templateVersion,
      overridesVersion: v.overridesVersion,
      clusterVersions: [{ clusterName: cluster, version: memberVersion(written) }],
    },
  };
}
