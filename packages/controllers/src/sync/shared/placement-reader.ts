import type { KubeObject } from '@kubefed/client';
import { ComputePlacementError } from '../../placement/index.js';
import { placementOf, type PlacementEnvironment, type SyncPlacement, type SyncType } from '../sync-type.js';

/** The placement could not be computed from the object (an invalid cluster selector): no target, and why. */
export interface PlacementFailure {
  readonly ok: false;
  readonly clusters: readonly [];
  /** KubeFed's reason of the False Propagation condition (`pkg/controller/sync/controller.go`). */
  readonly reason: 'ComputePlacementFailed';
  readonly message: string;
  readonly error: ComputePlacementError;
}

/** The placement of a federated object as the sync path reads it: the selected clusters, or a {@link PlacementFailure}. */
export type PlacementRead = ({ readonly ok: true } & SyncPlacement) | PlacementFailure;

/**
 * The placement reader of the sync path, with its one error policy: every role (the reconciler,
 * the worker, the status writer) reads placement through it. A placement that cannot be
 * computed from the object is a value, never an error to retry: retrying cannot heal it, the
 * next change of the object can. The reconciler records KubeFed's `ComputePlacementFailed`
 * event and ends the reconcile as terminal, the status writer writes the False Propagation
 * condition with that reason, and a worker holding a job of such an object fails it for good.
 *
 * @throws API errors (reading the FederatedNamespace of a namespaced target) as they are: those may pass, and are retried.
 */
export async function readPlacement(env: PlacementEnvironment, type: SyncType, fed: KubeObject): Promise<PlacementRead> {
  try {
    return { ok: true, ...(await placementOf(env, type, fed)) };
  } catch (err) {
    if (!(err instanceof ComputePlacementError)) throw err;
    return { ok: false, clusters: [], reason: 'ComputePlacementFailed', message: err.message, error: err };
  }
}
