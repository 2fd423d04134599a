import { isDns1123Label, isDns1123Subdomain } from '@kubefed/api';
import { z } from 'zod';

const dnsSubdomain = z
  .string()
  .min(1)
  .refine(isDns1123Subdomain, { message: "must be a DNS-1123 subdomain (lowercase alphanumerics, '-' and '.')" });

/**
 * One federated object in one member cluster: what a sync job asks a worker to converge, and
 * what a worker's outcome reports on. The field names are those of the job payload on Redis.
 *
 * - `federatedType`: the FederatedTypeConfig name, e.g. `deployments.apps`.
 * - `namespace`: absent for cluster-scoped types.
 * - `name`: the object name (may contain `:`, e.g. RBAC `system:` roles).
 * - `cluster`: the member cluster (a KubeFedCluster name).
 */
export const syncRequestSchema = z.strictObject({
  federatedType: dnsSubdomain,
  namespace: z.string().refine(isDns1123Label, { message: "must be a DNS-1123 label (lowercase alphanumerics and '-')" }).optional(),
  name: z
    .string()
    .min(1)
    .max(253)
    .refine((n) => !n.includes('/') && n !== '.' && n !== '..', { message: "must not contain '/' or be '.' or '..'" }),
  cluster: dnsSubdomain,
});

/** One federated object of one federated type (a {@link SyncRequest} without its cluster). */
export interface FederatedObjectRef {
  readonly federatedType: string;
  readonly namespace?: string | undefined;
  readonly name: string;
}

/** One federated object in one member cluster: see {@link syncRequestSchema}. */
export interface SyncRequest extends FederatedObjectRef {
  readonly cluster: string;
}

/**
 * The object of an informer key (`namespace/name`, or `name` when cluster-scoped, as
 * `@kubefed/runtime`'s `objectKey` writes it) of federated type `federatedType`.
 */
export function federatedObjectRef(federatedType: string, key: string): FederatedObjectRef {
  const i = key.indexOf('/');
  return i < 0 ? { federatedType, name: key } : { federatedType, namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** `ref` in `cluster`, with only the fields of a request (no `namespace: undefined`). */
export function syncRequest(ref: FederatedObjectRef, cluster: string): SyncRequest {
  const { federatedType, namespace, name } = ref;
  return namespace === undefined ? { federatedType, name, cluster } : { federatedType, namespace, name, cluster };
}

/** The informer key of the object: `namespace/name`, or `name` when cluster-scoped. */
export function objectKeyOf(ref: FederatedObjectRef): string {
  return ref.namespace === undefined ? ref.name : `${ref.namespace}/${ref.name}`;
}

/** `%` and `:` escaped as `%25` and `%3A` (`:` separates Redis key parts in BullMQ). */
function escapeKeyPart(s: string): string {
  return s.replaceAll('%', '%25').replaceAll(':', '%3A');
}

/**
 * The id of one federated object across types, e.g. `deployments.apps/web-ns/web` or
 * `clusterroles.rbac.authorization.k8s.io/system%3Aview`: the prefix of {@link syncRequestId}.
 */
export function federatedObjectId(ref: FederatedObjectRef): string {
  return `${escapeKeyPart(ref.federatedType)}/${escapeKeyPart(objectKeyOf(ref))}`;
}

/**
 * The id of a request: one per (federated type, namespace/name, cluster), e.g.
 * `deployments.apps/web-ns/web@member1`. It is the deduplication id of sync jobs in the queue
 * (so a sync and a removal of the same object in the same cluster never run at the same time),
 * the `jobId` of their log lines, and the key of per-request state in a worker. Never an
 * integer and never contains `:`.
 */
export function syncRequestId(request: SyncRequest): string {
  return `${federatedObjectId(request)}@${escapeKeyPart(request.cluster)}`;
}

/** Describes a request for messages: `deployments.apps "ns/web" in cluster "member1"`. */
export function describeSyncRequest(request: SyncRequest): string {
  return `${request.federatedType} "${objectKeyOf(request)}" in cluster "${request.cluster}"`;
}
