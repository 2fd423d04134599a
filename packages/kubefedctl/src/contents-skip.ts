/**
 * What `kubefedctl federate namespace <name> --contents` leaves out, and the lines that say so.
 * KubeFed federates every object of every namespaced type but a few (docs/user-guide.md#federate);
 * that copies what each member cluster makes for itself: the ReplicaSets and Pods of a
 * Deployment, the namespace's `kube-root-ca.crt` and `default` ServiceAccount, service account
 * tokens. A federated copy of those would be duplicated next to the member's own (pods), or take
 * the member's own over (its root CA). Pure functions; the command lists and prints.
 */
import { isDns1123Subdomain, ownerReferenceSchema } from '@kubefed/api';
import type { KubeObject, ResourceMapping } from '@kubefed/client';
import { z } from 'zod';

/** Why `--contents` leaves an object (or a whole type) out. */
export type ContentsSkipReason = 'owned' | 'per-namespace' | 'token' | 'name' | 'cluster-kept' | 'control-plane';

/** One object `--contents` leaves out. */
export interface SkippedObject {
  /** kubectl's `<singular>[.<group>]/<name>`, e.g. `replicaset.apps/web-6d4f`. */
  ref: string;
  reason: ContentsSkipReason;
  /** For `owned`: the controller owner, `<Kind> <name>`. */
  owner?: string;
}

/** A type `--contents` never federates, and how many objects of it the namespace holds. */
export interface SkippedType {
  /** `<plural>[.<group>]`. */
  resource: string;
  count: number;
  reason: ContentsSkipReason;
}

/**
 * Types whose objects each cluster's own controllers keep (KubeFed's list, pkg/kubefedctl/federate:
 * endpoints and events; plus EndpointSlices, which KubeFed predates).
 */
const CLUSTER_KEPT_TYPES: readonly string[] = ['endpoints', 'endpointslices.discovery.k8s.io', 'events', 'events.events.k8s.io'];
/** Types the KubeFed control plane keeps in the federated objects' namespaces. */
const CONTROL_PLANE_TYPES: readonly string[] = ['propagatedversions.core.kubefed.io'];
/** `events.events.k8s.io` lists the same objects as the core `events`: they are counted once. */
const SAME_AS_CORE_EVENTS = 'events.events.k8s.io';

/** Resources `--contents` never federates, `<plural>[.<group>]`. */
export const NEVER_FEDERATED_TYPES: ReadonlySet<string> = new Set([...CLUSTER_KEPT_TYPES, ...CONTROL_PLANE_TYPES]);

/** Objects Kubernetes creates in every namespace (kube-controller-manager's root CA publisher and service account controller). */
const PER_NAMESPACE_OBJECTS: ReadonlySet<string> = new Set(['ConfigMap/kube-root-ca.crt', 'ServiceAccount/default']);

const SERVICE_ACCOUNT_TOKEN = 'kubernetes.io/service-account-token';

const ownerReferencesSchema = z.array(ownerReferenceSchema);

/** `<plural>[.<group>]` of a mapping. */
export function qualifiedResource(m: Pick<ResourceMapping, 'resource' | 'group'>): string {
  return m.group === '' ? m.resource : `${m.resource}.${m.group}`;
}

/** kubectl's name of an object of a type: `<singular>[.<group>]/<name>`. */
function objectRef(m: Pick<ResourceMapping, 'singularName' | 'kind' | 'group'>, name: string): string {
  const singular = m.singularName === '' ? m.kind.toLowerCase() : m.singularName;
  return `${m.group === '' ? singular : `${singular}.${m.group}`}/${name}`;
}

/**
 * Why `--contents` leaves `obj` (of the core or another group, as `m` says) out, or undefined to
 * federate it: a name that is not a DNS-1123 subdomain (KubeFed skips those too); the
 * `kube-root-ca.crt` ConfigMap and the `default` ServiceAccount; a Secret of type
 * `kubernetes.io/service-account-token`; an object with a controller owner reference
 * (`ownerReferences[].controller == true`), unless `includeOwned`. Owner references that do not
 * parse count as none.
 */
export function contentsSkipOf(
  obj: KubeObject,
  m: Pick<ResourceMapping, 'group' | 'kind' | 'singularName'>,
  options: { includeOwned: boolean },
): SkippedObject | undefined {
  const name = obj.metadata.name ?? '';
  const ref = objectRef(m, name);
  if (!isDns1123Subdomain(name)) return { ref, reason: 'name' };
  if (m.group === '' && PER_NAMESPACE_OBJECTS.has(`${m.kind}/${name}`)) return { ref, reason: 'per-namespace' };
  if (m.group === '' && m.kind === 'Secret' && obj['type'] === SERVICE_ACCOUNT_TOKEN) return { ref, reason: 'token' };
  if (options.includeOwned) return undefined;
  const owners = ownerReferencesSchema.safeParse(obj.metadata['ownerReferences'] ?? []);
  const controller = owners.success ? owners.data.find((o) => o.controller === true) : undefined;
  return controller === undefined ? undefined : { ref, reason: 'owned', owner: `${controller.kind} ${controller.name}` };
}

/**
 * The types of `all` whose objects `--contents` counts in its report though it never federates
 * them ({@link NEVER_FEDERATED_TYPES}): namespaced and listable, one mapping per
 * `<plural>[.<group>]` (the preferred one when there are several), `events.events.k8s.io` left
 * out (the core `events` are the same objects).
 */
export function reportedNeverFederatedTypes(all: readonly ResourceMapping[]): ResourceMapping[] {
  const byName = new Map<string, ResourceMapping>();
  for (const m of all) {
    const key = qualifiedResource(m);
    if (!NEVER_FEDERATED_TYPES.has(key) || key === SAME_AS_CORE_EVENTS || !m.namespaced || !m.verbs.includes('list')) continue;
    if (!byName.has(key) || m.preferred) byName.set(key, m);
  }
  return [...byName.values()];
}

/** The reason of a never-federated type. */
export function neverFederatedReason(m: Pick<ResourceMapping, 'resource' | 'group'>): ContentsSkipReason {
  return CONTROL_PLANE_TYPES.includes(qualifiedResource(m)) ? 'control-plane' : 'cluster-kept';
}

/** The order reasons are printed in, and what each line says. */
const REASONS: readonly { reason: ContentsSkipReason; one: (s: SkippedObject) => string; more: string }[] = [
  {
    reason: 'owned',
    one: (s) => `its controller ${s.owner ?? ''} makes it in each cluster (--include-owned federates it)`,
    more: 'their controllers make them in each cluster (--include-owned federates them)',
  },
  { reason: 'per-namespace', one: () => 'created by Kubernetes in every namespace', more: 'created by Kubernetes in every namespace' },
  {
    reason: 'token',
    one: () => 'a service account token: each cluster issues its own',
    more: 'service account tokens: each cluster issues its own',
  },
  { reason: 'name', one: () => 'its name is not a DNS-1123 subdomain', more: 'their names are not DNS-1123 subdomains' },
];

const TYPE_REASONS: readonly { reason: ContentsSkipReason; text: string }[] = [
  { reason: 'cluster-kept', text: "kept by each cluster's own controllers" },
  { reason: 'control-plane', text: 'kept by the KubeFed control plane' },
];

/**
 * The lines that report what `--contents` left out, bounded: per reason, at most `limit` objects
 * by name (`skipped configmap/kube-root-ca.crt: created by Kubernetes in every namespace`), then
 * one line counting the rest (`skipped 12 more: their controllers make them ...`); each never-federated
 * reason on one line with counts per type (`skipped events (4), endpoints (1): kept by each
 * cluster's own controllers`). Types without objects are not mentioned. Default limit 5.
 */
export function formatContentsSkips(skipped: { objects: readonly SkippedObject[]; types: readonly SkippedType[] }, limit = 5): string[] {
  const lines: string[] = [];
  for (const { reason, one, more } of REASONS) {
    const these = skipped.objects.filter((s) => s.reason === reason);
    for (const s of these.slice(0, limit)) lines.push(`skipped ${s.ref}: ${one(s)}`);
    if (these.length > limit) lines.push(`skipped ${these.length - limit} more: ${more}`);
  }
  for (const { reason, text } of TYPE_REASONS) {
    const these = skipped.types.filter((t) => t.reason === reason && t.count > 0);
    if (these.length > 0) lines.push(`skipped ${these.map((t) => `${t.resource} (${t.count})`).join(', ')}: ${text}`);
  }
  return lines;
}
