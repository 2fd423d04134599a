/**
 * The decisions of `kubefedctl migrate` (taking a federation over from KubeFed v0.10.0), as pure
 * functions over what the command read from the host: which objects are KubeFed's installation,
 * whether KubeFed's leader still holds its lock, which webhook configurations to delete, which
 * token Secrets to bind to their cluster, and which CRDs may be replaced by ours.
 */
import type { CustomResourceDefinition } from '@kubefed/api';
import { CLUSTER_CONNECTION_ANNOTATION, CLUSTER_NAME_ANNOTATION, connectionDigest, type KubeObject } from '@kubefed/client';

/** KubeFed's leader-election lock: a ConfigMap (or Lease) of this name in the KubeFed namespace. */
export const KUBEFED_LOCK_NAME = 'kubefed-controller-manager';
/** The annotation of a ConfigMap lock (client-go `LeaderElectionRecordAnnotationKey`). */
export const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
/** The Service of KubeFed's admission webhook (chart: controllermanager/templates/webhook.yaml). */
const KUBEFED_WEBHOOK_SERVICE = 'kubefed-admission-webhook';

/** The webhooks of KubeFed's chart, by configuration kind: webhook name → the path it serves. */
const KUBEFED_WEBHOOKS = {
  ValidatingWebhookConfiguration: {
    base: 'validations.core.kubefed.io',
    webhooks: {
      'federatedtypeconfigs.core.kubefed.io': '/validate-federatedtypeconfigs',
      'kubefedclusters.core.kubefed.io': '/validate-kubefedcluster',
      'kubefedconfigs.core.kubefed.io': '/validate-kubefedconfig',
    } as Record<string, string>,
  },
  MutatingWebhookConfiguration: {
    base: 'mutation.core.kubefed.io',
    webhooks: { 'kubefedconfigs.core.kubefed.io': '/default-kubefedconfig' } as Record<string, string>,
  },
} as const;

/** A leader record as the lock stores it (client-go `LeaderElectionRecord`). */
export interface LeaderRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  renewTime: number | undefined;
}

/** The leader record of a ConfigMap lock's annotation or a Lease's spec; undefined when there is none. */
export function leaderRecordOf(lock: KubeObject): LeaderRecord | undefined {
  let raw: Record<string, unknown> | undefined;
  if (lock.kind === 'Lease') raw = lock['spec'] as Record<string, unknown> | undefined;
  else {
    const text = lock.metadata?.annotations?.[LEADER_ANNOTATION];
    if (text === undefined) return undefined;
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  if (raw === undefined || raw === null) return undefined;
  const renew = typeof raw['renewTime'] === 'string' ? Date.parse(raw['renewTime']) : NaN;
  return {
    holderIdentity: typeof raw['holderIdentity'] === 'string' ? raw['holderIdentity'] : '',
    leaseDurationSeconds: typeof raw['leaseDurationSeconds'] === 'number' ? raw['leaseDurationSeconds'] : 0,
    renewTime: Number.isNaN(renew) ? undefined : renew,
  };
}

/** When the record's hold ends (epoch ms), or undefined when nobody holds it (released or never renewed). */
export function holdExpiresAt(record: LeaderRecord): number | undefined {
  if (record.holderIdentity === '' || record.renewTime === undefined) return undefined;
  return record.renewTime + record.leaseDurationSeconds * 1000;
}

/** Whether a Deployment runs KubeFed's image (`quay.io/kubernetes-multicluster/kubefed:<tag>`: an image named `kubefed`). */
export function isKubeFedDeployment(deployment: KubeObject): boolean {
  const spec = deployment['spec'] as { template?: { spec?: { containers?: { image?: string }[] } } } | undefined;
  return (spec?.template?.spec?.containers ?? []).some((c) => /(^|\/)kubefed(:|@|$)/.test(c.image ?? ''));
}

/** The configured replicas of a Deployment (Kubernetes' default 1). */
export function replicasOf(deployment: KubeObject): number {
  const replicas = (deployment['spec'] as { replicas?: number } | undefined)?.replicas;
  return replicas ?? 1;
}

interface WebhookEntry {
  name?: string;
  clientConfig?: { url?: string; service?: { name?: string; namespace?: string; path?: string } };
}

/**
 * Whether a webhook configuration is exactly one of KubeFed's chart for the KubeFed namespace
 * `namespace`: named `validations.core.kubefed.io` / `mutation.core.kubefed.io` (with
 * `-<namespace>` for a namespaced installation), holding only KubeFed's webhooks, each sent to the
 * `kubefed-admission-webhook` Service of `namespace` or to a URL with KubeFed's path. Undefined
 * when it is; else why not.
 */
export function notKubeFedWebhookReason(config: KubeObject, namespace: string): string | undefined {
  const known =
    config.kind === 'MutatingWebhookConfiguration'
      ? KUBEFED_WEBHOOKS.MutatingWebhookConfiguration
      : KUBEFED_WEBHOOKS.ValidatingWebhookConfiguration;
  const name = config.metadata?.name ?? '';
  if (name !== known.base && name !== `${known.base}-${namespace}`) return `its name is not ${known.base}`;
  const webhooks = (config['webhooks'] as WebhookEntry[] | undefined) ?? [];
  if (webhooks.length === 0) return 'it has no webhooks';
  for (const w of webhooks) {
    const path = known.webhooks[w.name ?? ''];
    if (path === undefined) return `its webhook ${w.name ?? '""'} is not one of KubeFed's`;
    const service = w.clientConfig?.service;
    if (service !== undefined) {
      if (service.name !== KUBEFED_WEBHOOK_SERVICE || service.namespace !== namespace)
        return `its webhook ${w.name ?? ''} calls service ${service.namespace ?? ''}/${service.name ?? ''}, not ${namespace}/${KUBEFED_WEBHOOK_SERVICE}`;
      if (service.path !== undefined && service.path !== path) return `its webhook ${w.name ?? ''} calls path ${service.path}, not ${path}`;
    } else {
      const url = URL.canParse(w.clientConfig?.url ?? '') ? new URL(w.clientConfig?.url ?? '') : undefined;
      if (url?.pathname !== path) return `its webhook ${w.name ?? ''} calls ${w.clientConfig?.url ?? 'nothing'}, not a path ${path}`;
    }
  }
  return undefined;
}

/** What to do with one token Secret named by KubeFedClusters. */
export type SecretAction =
  | { readonly kind: 'annotate'; readonly secret: string; readonly cluster: string; readonly annotations: Record<string, string> }
  | { readonly kind: 'unchanged'; readonly secret: string; readonly cluster: string }
  | { readonly kind: 'skip'; readonly secret: string; readonly reason: string };

interface ClusterInput {
  metadata?: { name?: string };
  spec?: { apiEndpoint?: string; caBundle?: string; proxyURL?: string; disabledTLSValidations?: string[]; secretRef?: { name?: string } };
}

/**
 * The binding of each token Secret the KubeFedClusters name ({@link CLUSTER_NAME_ANNOTATION} and
 * {@link CLUSTER_CONNECTION_ANNOTATION}): only a Secret named by exactly one KubeFedCluster, and
 * never one already bound to another cluster. Sorted by Secret name.
 */
export function secretActions(clusters: readonly KubeObject[], secrets: readonly KubeObject[]): SecretAction[] {
  const byName = new Map<string, KubeObject>(secrets.map((s) => [s.metadata?.name ?? '', s]));
  const users = new Map<string, ClusterInput[]>();
  for (const c of clusters as readonly ClusterInput[]) {
    const secret = c.spec?.secretRef?.name ?? '';
    if (secret === '') continue;
    users.set(secret, [...(users.get(secret) ?? []), c]);
  }
  return [...users.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([secretName, named]): SecretAction => {
      const only = named[0];
      if (named.length > 1 || only === undefined) {
        const names = named.map((c) => c.metadata?.name ?? '').join(', ');
        return {
          kind: 'skip',
          secret: secretName,
          reason: `named by ${named.length} KubeFedClusters (${names}); a token serves one cluster`,
        };
      }
      const cluster = only.metadata?.name ?? '';
      const secret = byName.get(secretName);
      if (secret === undefined) return { kind: 'skip', secret: secretName, reason: `not found (named by KubeFedCluster ${cluster})` };
      const annotations = secret.metadata?.annotations ?? {};
      const boundTo = annotations[CLUSTER_NAME_ANNOTATION];
      if (boundTo !== undefined && boundTo !== '' && boundTo !== cluster)
        return {
          kind: 'skip',
          secret: secretName,
          reason: `bound to cluster ${boundTo}, not to ${cluster} (annotation ${CLUSTER_NAME_ANNOTATION})`,
        };
      const spec = only.spec ?? {};
      const digest = connectionDigest({
        apiEndpoint: spec.apiEndpoint ?? '',
        ...(spec.caBundle === undefined ? {} : { caBundle: spec.caBundle }),
        ...(spec.proxyURL === undefined ? {} : { proxyURL: spec.proxyURL }),
        ...(spec.disabledTLSValidations === undefined ? {} : { disabledTLSValidations: spec.disabledTLSValidations }),
      });
      const wanted = { [CLUSTER_NAME_ANNOTATION]: cluster, [CLUSTER_CONNECTION_ANNOTATION]: digest };
      if (boundTo === cluster && annotations[CLUSTER_CONNECTION_ANNOTATION] === digest)
        return { kind: 'unchanged', secret: secretName, cluster };
      return { kind: 'annotate', secret: secretName, cluster, annotations: wanted };
    });
}

/** How an installed CRD compares with ours. */
export type CrdComparison =
  | { readonly kind: 'equal' }
  /** Only what validates nothing differs (descriptions, printer columns, short names, categories): ours may replace it. */
  | { readonly kind: 'safe'; readonly paths: readonly string[] }
  /**
   * Only the schema of the one version both have differs (what is valid, defaults, pruning): ours
   * may replace it once every stored object is valid under ours and reads the same.
   */
  | { readonly kind: 'schema'; readonly version: string; readonly paths: readonly string[] }
  /** Something that decides what is valid or where objects are stored differs: kept, listed. */
  | { readonly kind: 'unsafe'; readonly paths: readonly string[] };

/** Keys that change no object's validity (in any schema, printer columns, names). */
const NON_VALIDATING = new Set(['description', 'additionalPrinterColumns', 'shortNames', 'categories']);

/** JSON paths (`a.b[name]`) where `a` and `b` differ, `description` keys aside; arrays of named items compare by name. */
function differences(a: unknown, b: unknown, path: string, out: string[], ignore: ReadonlySet<string>): void {
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    const named = (xs: unknown[]): Map<string, unknown> | undefined => {
      const m = new Map<string, unknown>();
      for (const x of xs) {
        const n = (x as { name?: unknown } | null)?.name;
        if (typeof n !== 'string') return undefined;
        m.set(n, x);
      }
      return m;
    };
    const ma = named(a);
    const mb = named(b);
    if (ma !== undefined && mb !== undefined) {
      for (const k of new Set([...ma.keys(), ...mb.keys()])) differences(ma.get(k), mb.get(k), `${path}[${k}]`, out, ignore);
      return;
    }
    out.push(path);
    return;
  }
  if (isRecord(a) && isRecord(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
      if (!ignore.has(k)) differences(a[k], b[k], path === '' ? k : `${path}.${k}`, out, ignore);
    return;
  }
  out.push(path);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parts of a CRD's spec that matter (the API server adds `conversion` and defaults we leave out). */
function comparable(spec: Record<string, unknown>): Record<string, unknown> {
  const { conversion, preserveUnknownFields, ...rest } = spec;
  void conversion;
  void preserveUnknownFields;
  return rest;
}

/** Compares an installed CRD with ours (see {@link CrdComparison}). Pure. */
export function compareCrd(installed: KubeObject, ours: CustomResourceDefinition): CrdComparison {
  const a = comparable((installed['spec'] as Record<string, unknown> | undefined) ?? {});
  const b = comparable(ours.spec);
  const all: string[] = [];
  differences(a, b, 'spec', all, new Set());
  if (all.length === 0) return { kind: 'equal' };
  const validating: string[] = [];
  differences(a, b, 'spec', validating, NON_VALIDATING);
  if (validating.length === 0) return { kind: 'safe', paths: all };
  const versions = (spec: Record<string, unknown>): string[] =>
    ((spec['versions'] as { name?: string }[] | undefined) ?? []).map((v) => v.name ?? '');
  const [version, ...more] = versions(a);
  if (version !== undefined && more.length === 0 && JSON.stringify(versions(b)) === JSON.stringify([version])) {
    const schema = `spec.versions[${version}].schema`;
    if (validating.every((p) => p === schema || p.startsWith(`${schema}.`))) return { kind: 'schema', version, paths: validating };
  }
  return { kind: 'unsafe', paths: validating };
}

/** A member service account, as a token's claims name it. */
export interface ServiceAccountRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The service account a member token was issued for, read (not verified: the member verifies it)
 * from the claims of a service-account JWT: the legacy Secret-based token's
 * `kubernetes.io/serviceaccount/{namespace,service-account.name}` (what KubeFed's join uses) or a
 * bound token's `kubernetes.io.{namespace,serviceaccount.name}`. Undefined for anything else.
 */
export function tokenServiceAccount(token: string): ServiceAccountRef | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!isRecord(claims)) return undefined;
  const legacyNs = claims['kubernetes.io/serviceaccount/namespace'];
  const legacyName = claims['kubernetes.io/serviceaccount/service-account.name'];
  if (typeof legacyNs === 'string' && typeof legacyName === 'string') return { namespace: legacyNs, name: legacyName };
  const bound = claims['kubernetes.io'];
  if (!isRecord(bound) || !isRecord(bound['serviceaccount'])) return undefined;
  const ns = bound['namespace'];
  const name = bound['serviceaccount']['name'];
  return typeof ns === 'string' && typeof name === 'string' ? { namespace: ns, name } : undefined;
}

/** A PolicyRule as the API server returns it (rbac.authorization.k8s.io/v1). */
export interface Rule {
  verbs?: readonly string[];
  apiGroups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
  nonResourceURLs?: readonly string[];
}

/** One permission: a verb on a resource of a group (optionally one name), or on a non-resource URL. */
type Atom = { verb: string; group: string; resource: string; name?: string } | { verb: string; url: string };

function atomsOf(rule: Rule): Atom[] {
  const out: Atom[] = [];
  for (const verb of rule.verbs ?? []) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ verb, url });
    for (const group of rule.apiGroups ?? [])
      for (const resource of rule.resources ?? []) {
        if ((rule.resourceNames ?? []).length === 0) out.push({ verb, group, resource });
        else for (const name of rule.resourceNames ?? []) out.push({ verb, group, resource, name });
      }
  }
  return out;
}

const matches = (granted: readonly string[] | undefined, wanted: string): boolean => (granted ?? []).some((g) => g === '*' || g === wanted);

/** Whether `rule` grants `atom` as RBAC's authorizer decides it (verbs compared case-sensitively, `*` wildcards, URL prefixes ending in `*`). */
function grants(rule: Rule, atom: Atom): boolean {
  if (!matches(rule.verbs, atom.verb)) return false;
  if ('url' in atom)
    return (rule.nonResourceURLs ?? []).some(
      (u) => u === '*' || u === atom.url || (u.endsWith('*') && atom.url.startsWith(u.slice(0, -1))),
    );
  if (!matches(rule.apiGroups, atom.group) || !matches(rule.resources, atom.resource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (atom.name !== undefined && names.includes(atom.name));
}

/** `get,list nodes`, `* *.*`, `get /healthz`: the atoms grouped by what they apply to, in first-seen order. */
function describeAtoms(atoms: readonly Atom[]): string[] {
  const byTarget = new Map<string, string[]>();
  for (const a of atoms) {
    const target =
      'url' in a ? a.url : `${a.group === '' ? a.resource : `${a.resource}.${a.group}`}${a.name === undefined ? '' : `/${a.name}`}`;
    const verbs = byTarget.get(target) ?? [];
    if (!verbs.includes(a.verb)) verbs.push(a.verb);
    byTarget.set(target, verbs);
  }
  return [...byTarget].map(([target, verbs]) => `${verbs.join(',')} ${target}`);
}

/** What replacing a role's rules `before` by `after` takes away and adds: the permissions of each that the other does not grant. Pure. */
export function ruleDelta(before: readonly Rule[], after: readonly Rule[]): { loses: string[]; gains: string[] } {
  const uncovered = (from: readonly Rule[], by: readonly Rule[]) => from.flatMap(atomsOf).filter((a) => !by.some((r) => grants(r, a)));
  return { loses: describeAtoms(uncovered(before, after)), gains: describeAtoms(uncovered(after, before)) };
}
