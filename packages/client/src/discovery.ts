import { ApiError, KubeFedClientError } from './api-error.js';

/** One entry of an `APIResourceList` (`/apis/<group>/<version>`), as served. */
export interface ApiResource {
  /** Plural name, or `plural/subresource`. */
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  /** Set only where group/version differ from the list's (rare). */
  group?: string;
  version?: string;
}

/** One API group with its served versions; the core group is `''`. */
export interface ApiGroup {
  name: string;
  /** Served versions, in the server's order of preference. */
  versions: string[];
  preferredVersion: string;
}

/**
 * Where discovery information comes from: the live server ({@link HttpDiscovery}) or, in tests,
 * an in-memory document ({@link StaticDiscovery}).
 */
export interface DiscoverySource {
  /** Cluster name for messages, if known. */
  readonly cluster?: string | undefined;
  /** All groups, the core group (`''`) first. */
  serverGroups(): Promise<ApiGroup[]>;
  /** The resources of one group version. */
  serverResources(group: string, version: string): Promise<ApiResource[]>;
}

/** The requests discovery needs (satisfied by `DynamicClient`). */
export interface RawRequester {
  readonly cluster: string;
  raw(path: string, opts?: { accept?: string }): Promise<{ status: number; body: string }>;
}

const aggregatedAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

interface AggregatedResource {
  resource: string;
  responseKind?: { group?: string; version?: string; kind?: string };
  scope?: string;
  singularResource?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind?: { kind?: string }; verbs?: string[] }[];
}

interface AggregatedList {
  kind?: string;
  items?: { metadata?: { name?: string }; versions?: { version: string; resources?: AggregatedResource[] }[] }[];
}

/** Converts one group of an aggregated discovery document to plain discovery entries. */
function fromAggregated(doc: AggregatedList, into: Map<string, ApiResource[]>): ApiGroup[] {
  const groups: ApiGroup[] = [];
  for (const item of doc.items ?? []) {
    const name = item.metadata?.name ?? '';
    const versions = (item.versions ?? []).map((v) => v.version);
    // Aggregated discovery lists versions in order of preference.
    if (versions[0] === undefined) continue;
    groups.push({ name, versions, preferredVersion: versions[0] });
    for (const v of item.versions ?? []) {
      const resources: ApiResource[] = [];
      for (const r of v.resources ?? []) {
        const kind = r.responseKind?.kind ?? '';
        const entry: ApiResource = { name: r.resource, namespaced: r.scope === 'Namespaced', kind, verbs: r.verbs ?? [] };
        if (r.singularResource !== undefined) entry.singularName = r.singularResource;
        if (r.shortNames !== undefined) entry.shortNames = r.shortNames;
        if (r.categories !== undefined) entry.categories = r.categories;
        resources.push(entry);
        for (const sub of r.subresources ?? []) {
          resources.push({
            name: `${r.resource}/${sub.subresource}`,
            namespaced: entry.namespaced,
            kind: sub.responseKind?.kind ?? kind,
            verbs: sub.verbs ?? [],
          });
        }
      }
      into.set(name === '' ? v.version : `${name}/${v.version}`, resources);
    }
  }
  return groups;
}

function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/**
 * Discovery over HTTP. Asks for aggregated discovery (`apidiscovery.k8s.io/v2`, two requests in
 * all) and falls back to the plain endpoints (`/api`, `/apis`, then `/apis/<g>/<v>` per group
 * version) when the server answers with plain JSON. `aggregated: false` forces the plain ones.
 */
export class HttpDiscovery implements DiscoverySource {
  /** Resource lists taken from the last aggregated answer, keyed by groupVersion. */
  private readonly aggregated = new Map<string, ApiResource[]>();

  constructor(
    private readonly client: RawRequester,
    private readonly options: { aggregated?: boolean } = {},
  ) {}

  get cluster(): string {
    return this.client.cluster;
  }

  private async getJson(path: string, accept?: string): Promise<unknown> {
    const res = await this.client.raw(path, accept === undefined ? {} : { accept });
    const request = { verb: 'discover', resource: path, cluster: this.client.cluster };
    if (res.status < 200 || res.status >= 300) throw ApiError.fromResponse({ code: res.status, body: res.body, request });
    try {
      return JSON.parse(res.body);
    } catch (e) {
      throw new KubeFedClientError(`discover ${path} on cluster "${this.client.cluster}": response is not JSON`, { cause: e });
    }
  }

  async serverGroups(): Promise<ApiGroup[]> {
    this.aggregated.clear();
    const accept = this.options.aggregated === false ? undefined : aggregatedAccept;
    const [coreDoc, groupsDoc] = await Promise.all([this.getJson('/api', accept), this.getJson('/apis', accept)]);
    const isAggregated = (d: unknown): d is AggregatedList => (d as AggregatedList).kind === 'APIGroupDiscoveryList';
    const groups: ApiGroup[] = [];
    if (isAggregated(coreDoc)) {
      groups.push(...fromAggregated(coreDoc, this.aggregated));
    } else {
      const versions = (coreDoc as { versions?: string[] }).versions ?? [];
      if (versions[0] !== undefined) groups.push({ name: '', versions, preferredVersion: versions[0] });
    }
    if (isAggregated(groupsDoc)) {
      groups.push(...fromAggregated(groupsDoc, this.aggregated));
    } else {
      const list = groupsDoc as { groups?: { name: string; versions?: { version: string }[]; preferredVersion?: { version: string } }[] };
      for (const g of list.groups ?? []) {
        const versions = (g.versions ?? []).map((v) => v.version);
        const preferredVersion = g.preferredVersion?.version ?? versions[0];
        if (preferredVersion !== undefined) groups.push({ name: g.name, versions, preferredVersion });
      }
    }
    return groups;
  }

  async serverResources(group: string, version: string): Promise<ApiResource[]> {
    const cached = this.aggregated.get(group === '' ? version : `${group}/${version}`);
    if (cached !== undefined) return cached;
    const list = (await this.getJson(groupVersionPath(group, version))) as { resources?: ApiResource[] };
    return list.resources ?? [];
  }
}

/** A fixed discovery document: groups and the resources of each `group/version` (`v1` for core). */
export interface DiscoveryDocument {
  groups: ApiGroup[];
  /** Keyed by groupVersion: `v1`, `apps/v1`, `core.kubefed.io/v1beta1`. */
  resources: Record<string, ApiResource[]>;
}

/** An in-memory {@link DiscoverySource} (tests, offline tools). Unknown group versions → ApiError NotFound. */
export class StaticDiscovery implements DiscoverySource {
  /** How many times each method was called (lets tests see caching). */
  readonly calls = { serverGroups: 0, serverResources: 0 };

  constructor(
    public document: DiscoveryDocument,
    readonly cluster?: string,
  ) {}

  serverGroups(): Promise<ApiGroup[]> {
    this.calls.serverGroups++;
    return Promise.resolve(this.document.groups.map((g) => ({ ...g, versions: [...g.versions] })));
  }

  serverResources(group: string, version: string): Promise<ApiResource[]> {
    this.calls.serverResources++;
    const gv = group === '' ? version : `${group}/${version}`;
    const resources = this.document.resources[gv];
    if (resources === undefined) {
      return Promise.reject(ApiError.fromResponse({ code: 404, body: '', request: { verb: 'discover', resource: gv } }));
    }
    return Promise.resolve(resources.map((r) => ({ ...r })));
  }
}
