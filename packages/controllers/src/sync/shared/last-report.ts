import type { FederatedClusterStatus, FederatedStatus, PropagationStatus } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import type { ClusterPropagationResult } from '../federated-status.js';
import type { RecordedOutcome } from './status-recorder.js';

/**
 * What `cluster` last reported about `fed`, and for which generation: its recorded outcome (one
 * without a generation, from a worker that could not read the object at all, speaks for the
 * current one; one about another object of that name, another UID, is ignored), else, when nothing was reported since this process started, its entry of the
 * current status, which speaks for the generation that status observed. The sync reconciler
 * reads it the same way to tell a copy needing no job.
 */
export function lastReport(
  fed: KubeObject,
  cluster: string,
  outcomes: ReadonlyMap<string, RecordedOutcome>,
): { readonly result: ClusterPropagationResult; readonly generation: number } | undefined {
  const found = outcomes.get(cluster);
  // An outcome about an earlier object of the same name (recorded before it went) says nothing about this one.
  const recorded = found?.uid !== undefined && fed.metadata.uid !== undefined && found.uid !== fed.metadata.uid ? undefined : found;
  if (recorded !== undefined) return { result: recorded, generation: recorded.generation ?? fed.metadata.generation ?? 0 };
  const previous = fed.status as FederatedStatus | undefined;
  const result = previousResult(previous?.clusters?.find((entry) => entry.name === cluster));
  return result === undefined ? undefined : { result, generation: previous?.observedGeneration ?? 0 };
}

/** A cluster entry of the current status as an outcome (`ClusterNotReady` is not carried over: readiness is known now). */
function previousResult(entry: FederatedClusterStatus | undefined): ClusterPropagationResult | undefined {
  if (entry === undefined || entry.status === 'ClusterNotReady') return undefined;
  const status = (entry.status ?? '') as PropagationStatus;
  return entry.remoteStatus === undefined ? { status } : { status, remoteStatus: entry.remoteStatus };
}
