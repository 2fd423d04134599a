import { MANAGED_LABEL, ORPHAN_ANNOTATION, ORPHAN_ANNOTATION_TRUE, type PropagatedVersion, type PropagationStatus, type Switch } from '@kubefed/api';
import { type DynamicClient, isAlreadyExists, isNotFound, type KubeObject } from '@kubefed/client';
import type { SyncJob } from '@kubefed/queue';
import { type ClusterOperation, isManaged, type MemberObservation, planClusterSync } from '../dispatch-plan.js';
import { ClusterSyncError } from '../errors.js';
import { renderDesiredObject, type RenderSource } from '../render-desired-object.js';
import { memberVersion, needsUpdate, objectVersions, type VersionSource } from '../versions.js';
import { recorderKey, type StatusRecorder } from './status-recorder.js';
import type { VersionStore } from './version-store.js';
import { isDeleting, placementOf, type PlacementEnvironment, type SyncType } from './sync-type.js';

/** Options of {@link createSyncProcessor}. */
export interface SyncProcessorOptions extends PlacementEnvironment {
  /** The federated types being synced, by FTC name; jobs of other types are dropped. */
  readonly types: (name: string) => SyncType | undefined;
  /** The client of a Ready member cluster; `undefined` when not ready (the job is dropped). */
  readonly memberClient: (cluster: string) => DynamicClient | undefined;
  /** Where outcomes go. */
  readonly recorder: StatusRecorder;
  /** KubeFedConfig `spec.syncController.adoptResources`; default `Enabled`. */
  readonly adoptResources?: Switch | undefined;
  /**
   * Where written versions are kept; default in memory (per process: after a restart every
   * object is written once more).
   */
  readonly versionStore?: VersionStore | undefined;
}

/** A sync job processor, to run inside `SyncWorkerHost`. */
export type SyncJobProcessor = (job: SyncJob) => Promise<void>;

/** Thrown after recording a failed member write so that the job is retried with backoff. */
export class MemberWriteError extends ClusterSyncError {}

/**
 * The sync worker (ARCHITECTURE "The flow of one change"): for one (type, object, cluster) job,
 * reads the CURRENT federated object from the host and the member object with the member's
 * client, decides with `planClusterSync`, renders with `renderDesiredObject`, and creates,
 * updates (only when `needsUpdate`), deletes or unlabels the member object; records the
 * outcome in the {@link StatusRecorder}. The job's `kind` is ignored: state decides.
 *
 * Versions written are recorded (in the host's (Cluster)PropagatedVersion with a
 * `versionStore`, else in memory) so that an unchanged object is not written again.
 *
 * @throws MemberWriteError after recording a failed write (the job is retried); API errors
 *   reading the host or member as is.
 */
export function createSyncProcessor(options: SyncProcessorOptions): SyncJobProcessor {
  const written = new Map<string, PropagatedVersion>();
  return async (job) => {
    const type = options.types(job.federatedType);
    const member = options.memberClient(job.cluster);
    if (type === undefined || member === undefined) return;
    const objectKey = job.namespace === undefined ? job.name : `${job.namespace}/${job.name}`;
    const key = recorderKey(type.name, objectKey);
    const record = (status: PropagationStatus | undefined, remoteStatus?: Record<string, unknown>): void => {
      options.recorder.record(key, job.cluster, status === undefined ? undefined : remoteStatus === undefined ? { status } : { status, remoteStatus });
    };
    let fed: KubeObject;
    try {
      fed = await options.host.resource(type.federatedGvr, job.namespace).get(job.name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const namespace = type.targetType.scope === 'Namespaced' ? job.namespace : undefined;
    const members = member.resource(type.targetGvr, namespace);
    const observed = await observe(members, job.name);
    const deleting = isDeleting(fed);
    const versionKey = `${key}@${job.cluster}`;
    const source = fed as unknown as RenderSource & VersionSource;

    if (deleting && fed.metadata.annotations?.[ORPHAN_ANNOTATION] === ORPHAN_ANNOTATION_TRUE) {
      if (observed.state === 'present' && isManaged(observed.object)) {
        await members.patch(job.name, { metadata: { labels: { [MANAGED_LABEL]: null } } }, 'merge');
      }
      written.delete(versionKey);
      record(undefined);
      return;
    }
    const placed = deleting ? [] : (await placementOf(options, type, fed)).clusters;
    const selected = placed.includes(job.cluster);
    const remember = async (obj: KubeObject): Promise<void> => {
      if (options.versionStore === undefined) written.set(versionKey, versionRecord(source, job.cluster, obj));
      else await options.versionStore.record({ type, fedObject: fed, cluster: job.cluster, version: memberVersion(obj), selectedClusters: placed });
    };
    const op: ClusterOperation = planClusterSync({
      cluster: job.cluster,
      ready: true,
      selected,
      member: observed,
      adoptResources: options.adoptResources,
    });
    const fail = (status: PropagationStatus, err: unknown): never => {
      record(status);
      throw new MemberWriteError(job.cluster, status, `${op.op} of ${objectKey} in cluster "${job.cluster}" failed`, { cause: err });
    };
    switch (op.op) {
      case 'none':
        record(op.status);
        return;
      case 'create': {
        let rendered;
        try {
          rendered = renderDesiredObject({ fedObject: source, targetType: type.targetType, cluster: job.cluster });
        } catch (err) {
          return fail(err instanceof ClusterSyncError ? err.status : 'ComputeResourceFailed', err);
        }
        let created: KubeObject;
        try {
          created = await members.create(rendered.object);
        } catch (err) {
          // Someone created it meanwhile: the retry re-plans with the object.
          if (isAlreadyExists(err)) throw err;
          return fail('CreationFailed', err);
        }
        record('');
        await remember(created);
        return;
      }
      case 'update': {
        const existing = op.member;
        if (existing === undefined) return;
        let rendered;
        try {
          rendered = renderDesiredObject({ fedObject: source, targetType: type.targetType, cluster: job.cluster, existing });
        } catch (err) {
          return fail(err instanceof ClusterSyncError ? err.status : 'ComputeResourceFailed', err);
        }
        const propagatedVersion = options.versionStore === undefined ? written.get(versionKey) : await options.versionStore.get(type, fed);
        if (op.adopt !== true && !needsUpdate({ fedObject: source, propagatedVersion, cluster: job.cluster, desired: rendered.object, memberObject: existing })) {
          record('');
          return;
        }
        const rv = existing.metadata.resourceVersion;
        const desired: KubeObject = rv === undefined ? rendered.object : { ...rendered.object, metadata: { ...rendered.object.metadata, resourceVersion: rv } };
        let updated: KubeObject;
        try {
          updated = await members.update(desired);
        } catch (err) {
          return fail('UpdateFailed', err);
        }
        record('');
        await remember(updated);
        return;
      }
      case 'delete': {
        try {
          await members.delete(job.name, op.deleteOptions);
        } catch (err) {
          if (!isNotFound(err)) fail('DeletionFailed', err);
        }
        written.delete(versionKey);
        const after = await observe(members, job.name);
        record(after.state === 'present' ? 'WaitingForRemoval' : undefined);
        return;
      }
      case 'unlabel':
        try {
          await members.patch(job.name, { metadata: { labels: { [MANAGED_LABEL]: null } } }, 'merge');
        } catch (err) {
          fail('LabelRemovalFailed', err);
        }
        record(undefined);
        return;
    }
  };
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
    status: { templateVersion: v.templateVersion, overridesVersion: v.overridesVersion, clusterVersions: [{ clusterName: cluster, version: memberVersion(written) }] },
  };
}
