import { parseWith } from '@kubefed/api';
import { z } from 'zod';
import { describeSyncRequest, type SyncRequest, syncRequestSchema } from './sync-request.js';

/**
 * The payload of one sync job: a {@link SyncRequest} and a `kind`. Keys only, never a copy of
 * the object: the worker reads the current federated object itself. Unknown fields are rejected
 * so that nobody starts smuggling object copies through Redis.
 *
 * `kind`: `sync` (create or update the member copy) or `remove` (delete it). Advisory: a pending
 * job is not replaced by a later one with another kind (the deduplication id is the request's
 * `syncRequestId`: a sync and a removal of the same object in the same cluster must never run
 * at the same time), so processors must decide from current state.
 */
export const syncJobSchema = syncRequestSchema.extend({ kind: z.enum(['sync', 'remove']) });

/** One sync job: see {@link syncJobSchema}. */
export interface SyncJob extends SyncRequest {
  readonly kind: 'sync' | 'remove';
}

/**
 * Validates a sync job payload (at the producer and again at the worker).
 *
 * @throws ValidationError (from `@kubefed/api`) listing every bad field by path, e.g.
 *   `sync job is invalid: cluster: Required value`.
 */
export function parseSyncJob(value: unknown): SyncJob {
  return parseWith(syncJobSchema, value, 'sync job');
}

/** The job of `request` (its fields only: whatever else `request` carries stays out of Redis). */
export function syncJob(request: SyncRequest, kind: SyncJob['kind']): SyncJob {
  const { federatedType, namespace, name, cluster } = request;
  return namespace === undefined ? { kind, federatedType, name, cluster } : { kind, federatedType, namespace, name, cluster };
}

/** Describes a job for messages: `sync deployments.apps "ns/web" in cluster "member1"`. */
export function describeSyncJob(job: SyncJob): string {
  return `${job.kind} ${describeSyncRequest(job)}`;
}
