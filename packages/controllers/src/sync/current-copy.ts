/**
 * Whether a sync job to one member cluster would find nothing to do, decided from caches alone
 * (docs/architecture.md "The flow of one change"): the sync reconciler enqueues no job for such a
 * cluster, so a resync, a restart or a fan-out over a converged fleet costs no queue traffic and
 * no worker time.
 */
import { isDeepStrictEqual } from 'node:util';
import type { PropagatedVersion } from '@kubefed/api';
import { isDeleting, type KubeObject } from '@kubefed/client';
import { boundedCopyStatus } from './bounded-remote-status.js';
import { isManaged } from './dispatch-plan.js';
import type { ClusterPropagationResult } from './federated-status.js';
import { renderDesiredObject, type RenderInput, type RenderSource } from './render-desired-object.js';
import { copyMatchesRecord, needsUpdate, type ObjectVersions, recordedCopy, type VersionSource } from './versions.js';

/** Input of {@link copyIsCurrent}. */
export interface CurrentCopyInput {
  readonly fedObject: KubeObject;
  readonly targetType: RenderInput['targetType'];
  readonly cluster: string;
  /** The member copy as the watch cache holds it. */
  readonly copy: KubeObject;
  /** The version record of the federated object (undefined: none stored). */
  readonly propagatedVersion: PropagatedVersion | undefined;
  /** `objectVersions(fedObject)`, hashed once for every cluster of the object. */
  readonly versions: ObjectVersions;
  /** What the cluster last reported for the object's current generation (undefined: nothing known). */
  readonly reported: ClusterPropagationResult | undefined;
  /** Whether the member copy's `.status` is reported as `remoteStatus`. */
  readonly collectStatus: boolean;
}

/**
 * True when a sync job would change nothing: the cluster last reported success for the current
 * generation, with the `remoteStatus` the copy holds now (none when status is not collected), and
 * the copy is managed, not being deleted, and current by the worker's own test (`needsUpdate` on
 * the object rendered for the copy: the recorded version is the copy's, for the current template
 * and overrides, the recorded uid, if any, is the copy's, and, for generation-versioned copies,
 * the name, labels and annotations match; and the record is in KubeFed's form, not an older
 * record's `gen:<n>/<uid>`, which the job rewrites without a member write).
 * A rendering that fails is never current: the job reports the failure. The object is rendered
 * only once the recorded version matches, so a changed object costs no rendering here.
 */
export function copyIsCurrent(input: CurrentCopyInput): boolean {
  const { copy, reported } = input;
  if (reported === undefined || (reported.status ?? '') !== '') return false;
  const remoteStatus: unknown = input.collectStatus && copy['status'] !== undefined ? boundedCopyStatus(copy['status']) : undefined;
  if (!isDeepStrictEqual(reported.remoteStatus, remoteStatus)) return false;
  if (!isManaged(copy) || isDeleting(copy)) return false;
  const { cluster, versions, propagatedVersion } = input;
  const recorded = recordedCopy(propagatedVersion, versions, cluster);
  // An older record's `gen:<n>/<uid>` is current when the uid matches, but the job rewrites it in KubeFed's form.
  if (recorded.legacy || !copyMatchesRecord(recorded, copy)) return false;
  const fedObject = input.fedObject as unknown as RenderSource & VersionSource;
  let desired: KubeObject;
  try {
    desired = renderDesiredObject({ fedObject, targetType: input.targetType, cluster, existing: copy }).object;
  } catch {
    return false;
  }
  return !needsUpdate({ fedObject, versions, propagatedVersion, cluster, desired, memberObject: copy });
}
