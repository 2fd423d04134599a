import { KubeFedClientError } from './api-error.js';
import type { ApiResource, DiscoverySource } from './discovery.js';
import { type Clock, systemClock } from './clock.js';
import type { GroupVersionKind, GroupVersionResource } from './types.js';

/** Everything known about one resource in one group version. */
export interface ResourceMapping {
  group: string;
  version: string;
  /** Plural resource name (`deployments`). */
  resource: string;
  kind: string;
  singularName: string;
  namespaced: boolean;
  shortNames: string[];
  verbs: string[];
  categories: string[];
  /** Whether `version` is the group's preferred version. */
  preferred: boolean;
  /** Subresources served (`status`, `scale`, ...). */
  subresources: string[];
}

/** No served resource matches a name, kind or GVR. */
export class NoMatchError extends KubeFedClientError {}

/** Options of {@link RestMapper}. */
export interface RestMapperOptions {
  /** Minimum time between two discovery refreshes triggered by unknown types; default 5000 ms. */
  minRefreshIntervalMs?: number;
  /** Default the system clock. */
  clock?: Clock;
}

const versionRe = /^v\d+(?:(?:alpha|beta)\d+)?$/;

/** `resource.group` for messages, plain resource for the core group. */
function qualified(m: Pick<ResourceMapping, 'resource' | 'group'>): string {
  return m.group === '' ? m.resource : `${m.resource}.${m.group}`;
}

/**
 * Maps between kinds and resources from discovery (like client-go's deferred discovery REST
 * mapper). Discovery is loaded on first use and cached; a lookup that finds nothing refreshes it
 * once (rate limited by `minRefreshIntervalMs`) before failing with {@link NoMatchError}.
 * Group versions whose discovery fails are skipped (partial discovery, like kubectl).
 */
export class RestMapper {
  private mappings: ResourceMapping[] | undefined;
  private loading: Promise<ResourceMapping[]> | undefined;
  private lastLoad = Number.NEGATIVE_INFINITY;
  private readonly minRefreshIntervalMs: number;
  private readonly clock: Clock;
  /** Group versions whose discovery failed at the last load, with the error. */
  failedGroupVersions: { groupVersion: string; error: unknown }[] = [];

  constructor(
    private readonly source: DiscoverySource,
    options: RestMapperOptions = {},
  ) {
    this.minRefreshIntervalMs = options.minRefreshIntervalMs ?? 5000;
    this.clock = options.clock ?? systemClock;
  }

  /** Drops the cache; the next lookup reloads discovery. */
  invalidate(): void {
    this.mappings = undefined;
  }

  /** Reloads discovery now. Rejects when the group list itself cannot be read. */
  async refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    this.mappings = await this.loading;
  }

  /** All resources of every served group version (preferred versions first within a group). */
  async all(): Promise<ResourceMapping[]> {
    if (this.mappings === undefined) await this.refresh();
    return this.mappings ?? [];
  }

  /**
   * Resolves a type name like kubectl: `deployments`, `deployment`, `deploy`, `Deployment`,
   * `deployments.apps`, `deployments.v1.apps`, `Deployment.apps`. Qualified names win; among
   * unqualified matches plural/singular beat short names beat kinds, and the first group in
   * discovery order (core first) and the preferred version win.
   * Throws {@link NoMatchError} when nothing matches even after a refresh.
   */
  async resolve(name: string): Promise<ResourceMapping> {
    const found = await this.withRefresh(() => this.match(name));
    if (found[0] === undefined) throw this.noMatch(`the server doesn't have a resource type "${name}"`);
    return found[0];
  }

  /** Every resource that `name` matches (all groups and versions), best first. KubeFed's `enable` refuses ambiguity with this. */
  async matches(name: string): Promise<ResourceMapping[]> {
    return this.withRefresh(() => this.match(name));
  }

  /** The mapping of a kind; without a version, the group's preferred version (else any served one). */
  async forKind(gvk: { group: string; kind: string; version?: string }): Promise<ResourceMapping> {
    const found = await this.withRefresh(() =>
      this.sorted().filter((m) => m.group === gvk.group && m.kind === gvk.kind && (gvk.version === undefined || m.version === gvk.version)),
    );
    if (found[0] === undefined) {
      const gv = gvk.group === '' ? (gvk.version ?? '') : `${gvk.group}/${gvk.version ?? ''}`;
      throw this.noMatch(`no matches for kind "${gvk.kind}" in version "${gv}"`);
    }
    return found[0];
  }

  /** The mapping of a resource; without a version, the group's preferred version. */
  async forResource(gvr: { group: string; resource: string; version?: string }): Promise<ResourceMapping> {
    const found = await this.withRefresh(() =>
      this.sorted().filter(
        (m) => m.group === gvr.group && m.resource === gvr.resource && (gvr.version === undefined || m.version === gvr.version),
      ),
    );
    if (found[0] === undefined) throw this.noMatch(`the server doesn't have a resource type "${qualified(gvr)}"`);
    return found[0];
  }

  /** GVK of a GVR. */
  async kindFor(gvr: GroupVersionResource): Promise<GroupVersionKind> {
    const m = await this.forResource(gvr);
    return { group: m.group, version: m.version, kind: m.kind };
  }

  /** GVR of a GVK (`apiVersion` + `kind` of an object). */
  async resourceFor(gvk: GroupVersionKind): Promise<GroupVersionResource> {
    const m = await this.forKind(gvk);
    return { group: m.group, version: m.version, resource: m.resource };
  }

  private noMatch(message: string): NoMatchError {
    return new NoMatchError(this.source.cluster === undefined ? message : `${message} on cluster "${this.source.cluster}"`);
  }

  private async withRefresh(find: () => ResourceMapping[]): Promise<ResourceMapping[]> {
    await this.all();
    const found = find();
    if (found.length > 0 || this.clock.now() - this.lastLoad < this.minRefreshIntervalMs) return found;
    await this.refresh();
    return find();
  }

  /** Mappings ordered: discovery group order, preferred version first, then served order. */
  private sorted(): ResourceMapping[] {
    return this.mappings ?? [];
  }

  private match(raw: string): ResourceMapping[] {
    const all = this.sorted();
    const name = raw.trim();
    const lower = name.toLowerCase();
    const [first, ...restParts] = lower.split('.');
    if (first === undefined || first === '') return [];
    const rest = restParts.join('.');
    const byName = (m: ResourceMapping, n: string): boolean => m.resource === n || m.singularName === n;
    const byShort = (m: ResourceMapping, n: string): boolean => m.shortNames.some((s) => s.toLowerCase() === n);
    const byKind = (m: ResourceMapping, n: string): boolean => m.kind.toLowerCase() === n;
    const levels = (pool: ResourceMapping[], n: string): ResourceMapping[] => {
      for (const test of [byName, byShort, byKind]) {
        const hits = pool.filter((m) => test(m, n));
        if (hits.length > 0) return hits;
      }
      return [];
    };
    if (rest !== '') {
      // `resource.version.group` first, then `resource.group`.
      const [maybeVersion, ...groupParts] = restParts;
      if (maybeVersion !== undefined && versionRe.test(maybeVersion) && groupParts.length > 0) {
        const group = groupParts.join('.');
        const hits = levels(
          all.filter((m) => m.group === group && m.version === maybeVersion),
          first,
        );
        if (hits.length > 0) return hits;
      }
      const hits = levels(
        all.filter((m) => m.group === rest),
        first,
      );
      if (hits.length > 0) return hits;
      // A dotted name that is not a qualifier (no such group): fall through to unqualified matching.
    }
    return levels(all, lower);
  }

  private async load(): Promise<ResourceMapping[]> {
    const groups = await this.source.serverGroups();
    const failed: { groupVersion: string; error: unknown }[] = [];
    const perGroup = await Promise.all(
      groups.map(async (g) => {
        const versions = [g.preferredVersion, ...g.versions.filter((v) => v !== g.preferredVersion)];
        const lists = await Promise.all(
          versions.map(async (version) => {
            try {
              return { version, resources: await this.source.serverResources(g.name, version) };
            } catch (error) {
              failed.push({ groupVersion: g.name === '' ? version : `${g.name}/${version}`, error });
              return { version, resources: [] as ApiResource[] };
            }
          }),
        );
        return lists.flatMap(({ version, resources }) => toMappings(g.name, version, version === g.preferredVersion, resources));
      }),
    );
    this.failedGroupVersions = failed;
    this.lastLoad = this.clock.now();
    return perGroup.flat();
  }
}

function toMappings(group: string, version: string, preferred: boolean, resources: ApiResource[]): ResourceMapping[] {
  const subresources = new Map<string, string[]>();
  for (const r of resources) {
    const [base, sub] = r.name.split('/', 2);
    if (base !== undefined && sub !== undefined) subresources.set(base, [...(subresources.get(base) ?? []), sub]);
  }
  return resources
    .filter((r) => !r.name.includes('/'))
    .map((r) => ({
      group: r.group ?? group,
      version: r.version ?? version,
      resource: r.name,
      kind: r.kind,
      // Older servers leave singularName empty; kubectl then derives it from the kind.
      singularName: r.singularName !== undefined && r.singularName !== '' ? r.singularName : r.kind.toLowerCase(),
      namespaced: r.namespaced,
      shortNames: r.shortNames ?? [],
      verbs: r.verbs ?? [],
      categories: r.categories ?? [],
      preferred,
      subresources: subresources.get(r.name) ?? [],
    }));
}
