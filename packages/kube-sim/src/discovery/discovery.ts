import { createHash } from 'node:crypto';
import { groupVersion, type ResourceDef, type VersionDef } from '../resources/resource-def.js';
import type { ResourceRegistry } from '../resources/resource-registry.js';
import type { JsonObject } from '../util/json.js';

interface SubresourceInfo {
  name: string;
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
}

function subresources(def: ResourceDef, version: VersionDef): SubresourceInfo[] {
  const out: SubresourceInfo[] = [];
  if (version.status) out.push({ name: 'status', kind: def.kind, verbs: ['get', 'patch', 'update'] });
  if (version.scale !== undefined)
    out.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] });
  for (const s of def.extraSubresources) {
    if (s === 'token') out.push({ name: 'token', kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] });
    if (s === 'finalize') out.push({ name: 'finalize', kind: def.kind, verbs: ['update'] });
  }
  return out;
}

/** kube-apiserver's discovery.StorageVersionHash: base64 of the first 8 bytes of sha256("group/version/kind"). */
function storageVersionHash(def: ResourceDef, version: string): string {
  return createHash('sha256').update(`${def.group}/${version}/${def.kind}`).digest().subarray(0, 8).toString('base64');
}

/** `GET /api`: APIVersions. */
export function apiVersions(serverAddress: string): JsonObject {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupEntry(name: string, versions: string[]): JsonObject {
  const vs = versions.map((v) => ({ groupVersion: groupVersion(name, v), version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

/** `GET /apis`: APIGroupList (every group but core). */
export function apiGroupList(registry: ResourceRegistry): JsonObject {
  const groups = registry
    .groups()
    .filter((g) => g.name !== '')
    .map((g) => groupEntry(g.name, g.versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** `GET /apis/<group>`: APIGroup, or undefined when not served. */
export function apiGroup(registry: ResourceRegistry, group: string): JsonObject | undefined {
  const g = registry.groups().find((x) => x.name === group && group !== '');
  if (g === undefined) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g.name, g.versions) };
}

/** `GET /api/v1` or `/apis/<group>/<version>`: APIResourceList, or undefined when not served. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): JsonObject | undefined {
  const resolved = registry.inGroupVersion(group, version).sort((a, b) => (a.def.resource < b.def.resource ? -1 : 1));
  if (resolved.length === 0) return undefined;
  const resources: JsonObject[] = [];
  for (const { def, version: v } of resolved) {
    const entry: JsonObject = {
      name: def.resource,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: def.verbs,
    };
    if (def.shortNames.length > 0) entry['shortNames'] = def.shortNames;
    if (def.categories.length > 0) entry['categories'] = def.categories;
    entry['storageVersionHash'] = storageVersionHash(def, def.versions[0]?.name ?? version);
    resources.push(entry);
    for (const s of subresources(def, v)) {
      const sub: JsonObject = { name: `${def.resource}/${s.name}`, singularName: '', namespaced: def.namespaced };
      if (s.group !== undefined) sub['group'] = s.group;
      if (s.version !== undefined) sub['version'] = s.version;
      sub['kind'] = s.kind;
      sub['verbs'] = s.verbs;
      resources.push(sub);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources };
}

/**
 * Aggregated discovery (`apidiscovery.k8s.io/v2` or `v2beta1` APIGroupDiscoveryList) for `/api`
 * (core only) or `/apis` (every other group).
 */
export function aggregatedDiscovery(registry: ResourceRegistry, core: boolean, apiVersion: string): JsonObject {
  const items: JsonObject[] = [];
  for (const g of registry.groups()) {
    if ((g.name === '') !== core) continue;
    const versions: JsonObject[] = [];
    for (const v of g.versions) {
      const resources: JsonObject[] = [];
      for (const { def, version } of registry.inGroupVersion(g.name, v).sort((a, b) => (a.def.resource < b.def.resource ? -1 : 1))) {
        const r: JsonObject = {
          resource: def.resource,
          responseKind: { group: '', version: '', kind: def.kind },
          scope: def.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: def.singular,
          verbs: def.verbs,
        };
        if (def.shortNames.length > 0) r['shortNames'] = def.shortNames;
        if (def.categories.length > 0) r['categories'] = def.categories;
        const subs = subresources(def, version)
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map((s) => ({
            subresource: s.name,
            responseKind: { group: s.group ?? '', version: s.version ?? '', kind: s.kind },
            verbs: s.verbs,
          }));
        if (subs.length > 0) r['subresources'] = subs;
        resources.push(r);
      }
      versions.push({ version: v, resources, freshness: 'Current' });
    }
    // The core group's entry has empty metadata (no name), as kube-apiserver serves it.
    items.push({ metadata: g.name === '' ? {} : { name: g.name }, versions });
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion, metadata: {}, items };
}
