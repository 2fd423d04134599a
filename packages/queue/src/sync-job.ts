import { isDns1123Label, isDns1123Subdomain, parseWith } from '@kubefed/api';
import { z } from 'zod';

const dnsSubdomain = z
  .string()
  .min(1)
  .refine(isDns1123Subdomain, { message: "must be a DNS-1123 subdomain (lowercase alphanumerics, '-' and '.')" });

/**
 * The payload of one sync job: which object to converge in which member cluster. Keys only,
 * never a copy of the object: the worker reads the current federated object itself. Unknown
 * fields are rejected so that nobody starts smuggling object copies through Redis.
 *
 * - `kind`: `sync` (create or update the member copy) or `remove` (delete it). Advisory: a
 *   pending job is not replaced by a later one with another kind (see
 *   {@link syncJobDeduplicationId}), so processors must decide from current state.
 * - `federatedType`: the FederatedTypeConfig name, e.g. `deployments.apps`.
 * - `namespace`: absent for cluster-scoped types.
 * - `name`: the object name (may contain `:`, e.g. RBAC `system:` roles).
 * - `cluster`: the member cluster (a KubeFedCluster name).
 */
export const syncJobSchema = z.strictObject({
  kind: z.enum(['sync', 'remove']),
  federatedType: dnsSubdomain,
  namespace: z.string().refine(isDns1123Label, { message: "must be a DNS-1123 label (lowercase alphanumerics and '-')" }).optional(),
  name: z
    .string()
    .min(1)
    .max(253)
    .refine((n) => !n.includes('/') && n !== '.' && n !== '..', { message: "must not contain '/' or be '.' or '..'" }),
  cluster: dnsSubdomain,
});

/** One sync job: see {@link syncJobSchema}. */
export type SyncJob = z.infer<typeof syncJobSchema>;

/**
 * Validates a sync job payload (at the producer and again at the worker).
 *
 * @throws ValidationError (from `@kubefed/api`) listing every bad field by path, e.g.
 *   `sync job is invalid: cluster: Required value`.
 */
export function parseSyncJob(value: unknown): SyncJob {
  return parseWith(syncJobSchema, value, 'sync job');
}

/** `%` and `:` escaped as `%25` and `%3A` (`:` separates Redis key parts in BullMQ). */
function escapeKeyPart(s: string): string {
  return s.replaceAll('%', '%25').replaceAll(':', '%3A');
}

/**
 * The deduplication id of a job: one per (federated type, namespace/name, cluster), e.g.
 * `deployments.apps/web-ns/web@member1` or `clusterroles.rbac.authorization.k8s.io/system%3Aview@member1`.
 * The `kind` is deliberately not part of it: a sync and a removal of the same object in the
 * same cluster must never run at the same time. Never an integer and never contains `:`.
 *
 * This is not used as the BullMQ job id: BullMQ keeps finished jobs (bounded retention) and
 * would silently ignore a new job whose id matches a retained one.
 */
export function syncJobDeduplicationId(job: Pick<SyncJob, 'federatedType' | 'namespace' | 'name' | 'cluster'>): string {
  const objectKey = job.namespace === undefined ? job.name : `${job.namespace}/${job.name}`;
  return `${escapeKeyPart(job.federatedType)}/${escapeKeyPart(objectKey)}@${escapeKeyPart(job.cluster)}`;
}

/** Describes a job for messages: `sync deployments.apps "ns/web" in cluster "member1"`. */
export function describeSyncJob(job: SyncJob): string {
  const key = job.namespace === undefined ? job.name : `${job.namespace}/${job.name}`;
  return `${job.kind} ${job.federatedType} "${key}" in cluster "${job.cluster}"`;
}
