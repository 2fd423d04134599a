import { groupResourceKey, type ResourceDef, type VersionDef } from './resource-def.js';

/** A resource def resolved for one requested version. */
export interface ResolvedResource {
  def: ResourceDef;
  version: VersionDef;
}

/** A served API group with its versions, preferred first. */
export interface ServedGroup {
  name: string;
  versions: string[];
}

/**
 * The resource types a cluster serves: the built-ins plus those registered by CRDs.
 * Lookups are by group/version/resource (plural) and by group/resource (storage key).
 */
export class ResourceRegistry {
  private readonly byGroupResource = new Map<string, ResourceDef>();
  private generationCounter = 0;

  constructor(defs: readonly ResourceDef[]) {
    for (const d of defs) this.byGroupResource.set(groupResourceKey(d.group, d.resource), d);
  }

  /** Increases on every change; lets discovery and OpenAPI caches know when to rebuild. */
  get generation(): number {
    return this.generationCounter;
  }

  /** Adds or replaces a def (CRD registration). */
  put(def: ResourceDef): void {
    this.byGroupResource.set(groupResourceKey(def.group, def.resource), def);
    this.generationCounter++;
  }

  /** Removes a def (CRD deletion). */
  remove(group: string, resource: string): void {
    this.byGroupResource.delete(groupResourceKey(group, resource));
    this.generationCounter++;
  }

  /** The def of a group/resource regardless of version. */
  byResource(group: string, resource: string): ResourceDef | undefined {
    return this.byGroupResource.get(groupResourceKey(group, resource));
  }

  /** Resolves group/version/resource; undefined when not served. */
  resolve(group: string, version: string, resource: string): ResolvedResource | undefined {
    const def = this.byGroupResource.get(groupResourceKey(group, resource));
    if (def === undefined) return undefined;
    const v = def.versions.find((x) => x.name === version);
    return v === undefined ? undefined : { def, version: v };
  }

  /** The def serving a kind in a group (for ownerReferences). */
  byKind(group: string, kind: string): ResourceDef | undefined {
    for (const d of this.byGroupResource.values()) if (d.group === group && d.kind === kind) return d;
    return undefined;
  }

  /** Every def. */
  all(): ResourceDef[] {
    return [...this.byGroupResource.values()];
  }

  /** Defs served in one group/version. */
  inGroupVersion(group: string, version: string): ResolvedResource[] {
    const out: ResolvedResource[] = [];
    for (const def of this.byGroupResource.values()) {
      if (def.group !== group) continue;
      const v = def.versions.find((x) => x.name === version);
      if (v !== undefined) out.push({ def, version: v });
    }
    return out;
  }

  /** The served groups (core group "" first) with versions, preferred version first. */
  groups(): ServedGroup[] {
    const map = new Map<string, string[]>();
    for (const def of this.byGroupResource.values()) {
      const list = map.get(def.group) ?? [];
      for (const v of def.versions) if (!list.includes(v.name)) list.push(v.name);
      map.set(def.group, list);
    }
    const out: ServedGroup[] = [];
    for (const [name, versions] of map) out.push({ name, versions: sortVersions(versions) });
    return out;
  }
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first, then others alphabetically. */
function sortVersions(versions: readonly string[]): string[] {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return [3, 0, 0, v];
    const major = Number(m[1]);
    const level = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    const minor = m[3] === undefined ? 0 : Number(m[3]);
    return [level, -major, -minor, v];
  };
  return [...versions].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return (ra[i] as number) - (rb[i] as number);
    return ra[3] < rb[3] ? -1 : ra[3] > rb[3] ? 1 : 0;
  });
}
