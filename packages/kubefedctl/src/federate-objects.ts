import { DEFAULT_FEDERATED_GROUP, DEFAULT_FEDERATED_VERSION, isDns1123Subdomain, pluralName } from '@kubefed/api';
import type { KubeObject, ResourceMapping } from '@kubefed/client';
import { parseAllDocuments } from 'yaml';
import { NEVER_FEDERATED_TYPES, qualifiedResource } from './contents-skip.js';
import { UsageError } from './errors.js';

/** The federated type an object is converted into (the parts of an FTC `federate` uses). */
export interface FederatedTypeInfo {
  /** Group of the federated type, e.g. `types.kubefed.io`. */
  group: string;
  /** Version of the federated type, e.g. `v1beta1`. */
  version: string;
  /** `Federated<Kind>`. */
  kind: string;
  /** Whether the federated type is namespaced (always true for FederatedNamespace). */
  namespaced: boolean;
}

/** The result of {@link federatedObjectFor}: the federated object and warnings to print. */
export interface FederatedConversion {
  object: KubeObject;
  warnings: string[];
}

/** The placement `federate` writes: an empty selector, which selects every cluster. */
export const FEDERATE_PLACEMENT = { clusterSelector: { matchLabels: {} } } as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function groupOf(apiVersion: string | undefined): string {
  const slash = (apiVersion ?? '').indexOf('/');
  return slash < 0 ? '' : (apiVersion ?? '').slice(0, slash);
}

/**
 * The `spec.template` KubeFed's `federate` derives from a target object (docs/kubefed-compatibility.md §3.6):
 * `apiVersion`, `kind`, `status` and all of `metadata` except `metadata.labels` are removed; a
 * Namespace loses `spec.finalizers`, a ServiceAccount `secrets`, a Service `spec.clusterIP`,
 * `spec.clusterIPs` and every `spec.ports[].nodePort` (the member clusters allocate their own).
 * Pure; the input is not modified.
 */
export function federatedTemplate(target: KubeObject): Record<string, unknown> {
  const copy = structuredClone(target) as Record<string, unknown>;
  const { apiVersion, kind, status: _status, metadata, ...template } = copy;
  const labels = isRecord(metadata) ? metadata['labels'] : undefined;
  if (isRecord(labels) && Object.keys(labels).length > 0) template['metadata'] = { labels };
  if (groupOf(apiVersion as string | undefined) === '') {
    const spec = template['spec'];
    if (kind === 'Namespace' && isRecord(spec)) delete spec['finalizers'];
    if (kind === 'ServiceAccount') delete template['secrets'];
    if (kind === 'Service' && isRecord(spec)) {
      delete spec['clusterIP'];
      delete spec['clusterIPs'];
      if (Array.isArray(spec['ports'])) for (const p of spec['ports']) if (isRecord(p)) delete p['nodePort'];
    }
  }
  return template;
}

/**
 * Annotations that tools write about the object in this cluster, never meant for the template:
 * dropped with the others but without a warning (kubectl apply's record of the last applied
 * manifest, the deployment controller's revision counter).
 */
const TOOL_ANNOTATIONS: ReadonlySet<string> = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  'deployment.kubernetes.io/revision',
]);

/**
 * Converts a target object into its federated object (docs/kubefed-compatibility.md §3.6): same name;
 * `metadata.namespace` only when the federated type is namespaced (a Namespace's own name for
 * a FederatedNamespace); `spec.template` from {@link federatedTemplate}; `spec.placement` with
 * an empty cluster selector (all clusters); no overrides. Annotations of the target are not
 * carried over: a warning names them, except {@link TOOL_ANNOTATIONS}. Pure.
 */
export function federatedObjectFor(target: KubeObject, type: FederatedTypeInfo): FederatedConversion {
  const name = target.metadata.name ?? '';
  const namespace = target.kind === 'Namespace' && groupOf(target.apiVersion) === '' ? name : target.metadata.namespace;
  const metadata: KubeObject['metadata'] = { name };
  if (type.namespaced && namespace !== undefined && namespace !== '') metadata.namespace = namespace;
  const warnings: string[] = [];
  const annotations = Object.keys(target.metadata.annotations ?? {}).filter((a) => !TOOL_ANNOTATIONS.has(a));
  if (annotations.length > 0) {
    warnings.push(
      `Annotations defined for ${target.kind ?? 'object'} "${qualifiedName(target)}" will not appear in the template of the federated resource: ${annotations.sort().join(', ')}`,
    );
  }
  const object: KubeObject = {
    apiVersion: `${type.group}/${type.version}`,
    kind: type.kind,
    metadata,
    spec: { template: federatedTemplate(target), placement: structuredClone(FEDERATE_PLACEMENT) },
  };
  return { object, warnings };
}

/** `namespace/name`, or `name` for a cluster-scoped object. */
export function qualifiedName(obj: KubeObject): string {
  const ns = obj.metadata.namespace;
  return ns === undefined || ns === '' ? (obj.metadata.name ?? '') : `${ns}/${obj.metadata.name ?? ''}`;
}

/**
 * The federated type KubeFed assumes for a document of `federate -f` (no FTC lookup): kind
 * `Federated<Kind>` in `federatedGroup`/`federatedVersion`, namespaced when the document has a
 * namespace or is a Namespace. Also returns the FTC name KubeFed would use (`<plural>[.<group>]`,
 * plural guessed from the kind).
 */
export function defaultFederatedType(
  doc: KubeObject,
  options: { federatedGroup?: string | undefined; federatedVersion?: string | undefined } = {},
): FederatedTypeInfo & { ftcName: string } {
  const group = groupOf(doc.apiVersion);
  const kind = doc.kind ?? '';
  const plural = pluralName(kind);
  const isNamespace = group === '' && kind === 'Namespace';
  const ns = doc.metadata.namespace;
  return {
    group: options.federatedGroup ?? DEFAULT_FEDERATED_GROUP,
    version: options.federatedVersion ?? DEFAULT_FEDERATED_VERSION,
    kind: `Federated${kind}`,
    namespaced: isNamespace || (ns !== undefined && ns !== ''),
    ftcName: group === '' ? plural : `${plural}.${group}`,
  };
}

/**
 * Parses the input of `federate -f` (multi-document YAML; empty documents are skipped). Every
 * document must be a mapping with `apiVersion`, `kind` and `metadata.name`; a `List` is expanded
 * into its items.
 *
 * @throws UsageError naming the source and the document (1-based) that is not a resource.
 */
export function parseFederateInput(text: string, source: string): KubeObject[] {
  const docs = parseAllDocuments(text);
  const out: KubeObject[] = [];
  let index = 0;
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    index++;
    if (doc.errors.length > 0) throw new UsageError(`${source}: document ${index} is not valid YAML: ${doc.errors[0]?.message ?? ''}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const items =
      isRecord(value) && typeof value['kind'] === 'string' && value['kind'].endsWith('List') && Array.isArray(value['items'])
        ? (value['items'] as unknown[])
        : [value];
    for (const item of items) out.push(checkResource(item, `${source}: document ${index}`));
  }
  if (out.length === 0) throw new UsageError(`${source}: no resources found in the input`);
  return out;
}

function checkResource(value: unknown, where: string): KubeObject {
  if (!isRecord(value)) throw new UsageError(`${where} is not a Kubernetes resource (expected a mapping)`);
  for (const field of ['apiVersion', 'kind'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '') throw new UsageError(`${where}: ${field} is required`);
  }
  const metadata = value['metadata'];
  if (!isRecord(metadata) || typeof metadata['name'] !== 'string' || metadata['name'] === '')
    throw new UsageError(`${where}: metadata.name is required`);
  return value as unknown as KubeObject;
}

/**
 * Whether `federate --contents` skips a resource type: group `extensions`, `Federated*` kinds of
 * `federatedGroup`, {@link NEVER_FEDERATED_TYPES} (endpoints, EndpointSlices, events,
 * propagated versions), and anything `skip` names (a plural,
 * singular, short name, kind, `plural.group` or a whole group, case-insensitive).
 */
export function skippedForContents(m: ResourceMapping, skip: readonly string[], federatedGroup: string = DEFAULT_FEDERATED_GROUP): boolean {
  if (m.group === 'extensions') return true;
  if (m.group === federatedGroup && m.kind.startsWith('Federated')) return true;
  if (NEVER_FEDERATED_TYPES.has(qualifiedResource(m))) return true;
  const names = new Set([m.resource, m.singularName, m.kind, qualifiedResource(m), ...m.shortNames].map((s) => s.toLowerCase()));
  return skip.some((s) => {
    const k = s.trim().toLowerCase();
    return k !== '' && (names.has(k) || (m.group !== '' && k === m.group.toLowerCase()));
  });
}

/** Kubernetes version priority: GA > beta > alpha, then the higher numbers; negative when `a` ranks lower. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return undefined;
    const level = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [level, Number(m[1]), Number(m[3] ?? 0)];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa === undefined || pb === undefined) return pa !== undefined ? 1 : pb !== undefined ? -1 : a < b ? 1 : a > b ? -1 : 0;
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/**
 * The namespaced resource types `federate --contents` visits: one mapping per `plural.group`
 * (the highest Kubernetes version), listable, not {@link skippedForContents}; sorted by name.
 */
export function contentsTypes(all: readonly ResourceMapping[], skip: readonly string[], federatedGroup?: string): ResourceMapping[] {
  // A type is skipped when any of its versions is (short names may be listed in one version only).
  const skipped = new Set(all.filter((m) => skippedForContents(m, skip, federatedGroup)).map(qualifiedResource));
  const best = new Map<string, ResourceMapping>();
  for (const m of all) {
    const key = qualifiedResource(m);
    if (!m.namespaced || m.resource.includes('/') || !m.verbs.includes('list') || skipped.has(key)) continue;
    const cur = best.get(key);
    if (cur === undefined || compareKubeVersions(m.version, cur.version) > 0) best.set(key, m);
  }
  return [...best.values()].sort((a, b) => qualifiedResource(a).localeCompare(qualifiedResource(b)));
}

/** Whether `federate --contents` may federate an object with this name (a DNS-1123 subdomain). */
export function federatableName(name: string): boolean {
  return isDns1123Subdomain(name);
}
