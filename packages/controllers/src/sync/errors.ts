/**
 * Errors of the sync controller's decision functions. Every error extends `KubeFedError` (it
 * carries `cause`); the per-cluster ones also name the PropagationStatus the cluster gets in the
 * federated object's status (docs/kubefed-compatibility.md §1.4, §4.4.9).
 */
import { KubeFedError, type PropagationStatus } from '@kubefed/api';

/** Base class of every error thrown by the sync decision functions. */
export class SyncError extends KubeFedError {}

/** The annotation `kubefed.io/deleteoption` does not hold valid JSON DeleteOptions. */
export class DeleteOptionsError extends SyncError {}

/** Rendering the object for one member cluster failed; `status` is what that cluster reports. */
export class ClusterSyncError extends SyncError {
  /** The member cluster the failure is about. */
  readonly cluster: string;
  /** The per-cluster PropagationStatus this failure maps to. */
  readonly status: PropagationStatus;

  constructor(cluster: string, status: PropagationStatus, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.cluster = cluster;
    this.status = status;
  }
}

/** The desired object could not be built from the template (status `ComputeResourceFailed`). */
export class ComputeResourceError extends ClusterSyncError {
  constructor(cluster: string, message: string, options?: { cause?: unknown }) {
    super(cluster, 'ComputeResourceFailed', message, options);
  }
}

/** Overrides could not be read or applied (status `ApplyOverridesFailed`). */
export class ApplyOverridesError extends ClusterSyncError {
  constructor(cluster: string, message: string, options?: { cause?: unknown }) {
    super(cluster, 'ApplyOverridesFailed', message, options);
  }
}

/** Fields of the member object could not be retained (status `FieldRetentionFailed`). */
export class FieldRetentionError extends ClusterSyncError {
  constructor(cluster: string, message: string, options?: { cause?: unknown }) {
    super(cluster, 'FieldRetentionFailed', message, options);
  }
}

/**
 * Per-cluster statuses that retrying cannot heal: the object itself must change (its template
 * or overrides) or, for retention, the member copy. A worker fails such a job for good, and the
 * reconciler enqueues no job for that cluster again until the object's generation moves on.
 */
export const UNHEALABLE_STATUSES: ReadonlySet<PropagationStatus> = new Set<PropagationStatus>([
  'ApplyOverridesFailed',
  'ComputeResourceFailed',
  'FieldRetentionFailed',
]);

/**
 * A job for a member cluster that this process has no Ready client for yet (a workers-only
 * process learns readiness from the KubeFedClusters' status, later than the leader): the job is
 * retried rather than dropped.
 */
export class MemberNotReadyError extends SyncError {}
