import { ApiError, isNotFound, KubeFedClientError, type RequestDescription } from './api-error.js';
import type { HttpTransport } from './http-transport.js';
import type {
  DeleteOptions,
  GroupVersionResource,
  KubeList,
  KubeObject,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceClient,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './types.js';
import { watchStream } from './watch.js';

const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  // A JSON document is valid YAML: server-side apply accepts it under this type.
  apply: 'application/apply-patch+yaml',
};

/** Page size of `listAll` when the caller gives no `limit` (client-go's pager default). */
const LIST_ALL_PAGE_SIZE = 500;

/** `plural.group`, or the plural for the core group, as kubectl prints it. */
export function qualifiedResource(gvr: GroupVersionResource): string {
  return gvr.group === '' ? gvr.resource : `${gvr.resource}.${gvr.group}`;
}

/** The collection path of a resource: `/api/v1/namespaces/ns/pods`, `/apis/apps/v1/deployments`. */
export function collectionPath(gvr: GroupVersionResource, namespace: string | undefined): string {
  const root = gvr.group === '' ? `/api/${gvr.version}` : `/apis/${gvr.group}/${gvr.version}`;
  const ns = namespace === undefined || namespace === '' ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${root}${ns}/${gvr.resource}`;
}

function setIf(q: URLSearchParams, key: string, value: string | number | boolean | undefined): void {
  if (value !== undefined && value !== '') q.set(key, String(value));
}

/**
 * The {@link ResourceClient} for one resource of one cluster. Namespaced operations use the
 * client's namespace, else the object's `metadata.namespace`; with neither, paths are
 * cluster-wide (cluster-scoped resources, or lists across all namespaces).
 */
export class HttpResourceClient<T extends KubeObject = KubeObject> implements ResourceClient<T> {
  private readonly qualified: string;

  constructor(
    private readonly transport: HttpTransport,
    readonly gvr: GroupVersionResource,
    readonly namespace: string | undefined,
  ) {
    this.qualified = qualifiedResource(gvr);
  }

  async get(name: string, opts: { signal?: AbortSignal } = {}): Promise<T> {
    return this.send<T>('GET', { verb: 'get', name }, { name, signal: opts.signal });
  }

  async list(opts: ListOptions = {}): Promise<KubeList<T>> {
    const query = new URLSearchParams();
    setIf(query, 'labelSelector', opts.labelSelector);
    setIf(query, 'fieldSelector', opts.fieldSelector);
    setIf(query, 'limit', opts.limit);
    setIf(query, 'continue', opts.continue);
    setIf(query, 'resourceVersion', opts.resourceVersion);
    const list = await this.send<KubeList<T>>('GET', { verb: 'list' }, { query, signal: opts.signal });
    // A list with no items may come back as `items: null`.
    if (!Array.isArray(list.items)) list.items = [];
    if (typeof list.metadata !== 'object' || list.metadata === null) list.metadata = {};
    return list;
  }

  async listAll(opts: Omit<ListOptions, 'continue'> = {}): Promise<KubeList<T>> {
    const items: T[] = [];
    // Paged like client-go's pager, so that no single response grows with the cluster (and
    // passes the transport's maxResponseBytes).
    const paged = { ...opts, limit: opts.limit ?? LIST_ALL_PAGE_SIZE };
    let page = await this.list(paged);
    items.push(...page.items);
    while (page.metadata.continue !== undefined && page.metadata.continue !== '') {
      // resourceVersion must not be combined with continue: the token pins the snapshot.
      const { resourceVersion: _rv, ...rest } = paged;
      page = await this.list({ ...rest, continue: page.metadata.continue });
      items.push(...page.items);
    }
    const { continue: _c, remainingItemCount: _r, ...metadata } = page.metadata;
    return { ...page, metadata, items };
  }

  watch(opts: WatchOptions = {}): AsyncIterable<WatchEvent> {
    const query = new URLSearchParams({ watch: 'true' });
    setIf(query, 'labelSelector', opts.labelSelector);
    setIf(query, 'fieldSelector', opts.fieldSelector);
    setIf(query, 'resourceVersion', opts.resourceVersion);
    if (opts.allowWatchBookmarks === true) query.set('allowWatchBookmarks', 'true');
    setIf(query, 'timeoutSeconds', opts.timeoutSeconds);
    const description = this.describe({ verb: 'watch' }, undefined);
    return watchStream(
      this.transport,
      { method: 'GET', path: collectionPath(this.gvr, this.namespace), query, signal: opts.signal, description },
      opts.signal,
      opts.idleTimeoutMs ?? (opts.timeoutSeconds === undefined ? undefined : opts.timeoutSeconds * 1000 + 30_000),
    );
  }

  async create(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.send<T>(
      'POST',
      { verb: 'create', name: obj.metadata.name },
      {
        namespace: this.namespaceOf(obj),
        query: writeQuery(opts),
        body: obj,
      },
    );
  }

  /**
   * POST `body` to the subresource `subresource` of the object `name` (a TokenRequest to
   * `serviceaccounts/<name>/token`, an Eviction to `pods/<name>/eviction`); resolves what the
   * server answers.
   */
  async createSubresource<R extends KubeObject = KubeObject>(
    name: string,
    subresource: string,
    body: KubeObject,
    opts: { signal?: AbortSignal | undefined } = {},
  ): Promise<R> {
    return this.send<R>('POST', { verb: `create ${subresource} of`, name }, { name, subresource, body, signal: opts.signal });
  }

  async update(obj: T, opts: WriteOptions = {}): Promise<T> {
    const name = this.requireName(obj, 'update');
    return this.send<T>('PUT', { verb: 'update', name }, { name, namespace: this.namespaceOf(obj), query: writeQuery(opts), body: obj });
  }

  async updateStatus(obj: T): Promise<T> {
    const name = this.requireName(obj, 'update status of');
    return this.send<T>(
      'PUT',
      { verb: 'update status of', name },
      { name, subresource: 'status', namespace: this.namespaceOf(obj), body: obj },
    );
  }

  async patch(name: string, patch: unknown, type: PatchType, opts: PatchOptions = {}): Promise<T> {
    const query = new URLSearchParams();
    setIf(query, 'fieldManager', opts.fieldManager);
    if (opts.force === true) query.set('force', 'true');
    return this.send<T>(
      'PATCH',
      { verb: 'patch', name },
      {
        name,
        subresource: opts.subresource,
        query,
        body: patch,
        contentType: patchContentTypes[type],
      },
    );
  }

  async delete(name: string, opts: DeleteOptions = {}): Promise<void> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (opts.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions !== undefined) body.preconditions = opts.preconditions;
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    await this.send<unknown>('DELETE', { verb: 'delete', name }, { name, body });
  }

  private namespaceOf(obj: T): string | undefined {
    return this.namespace ?? obj.metadata.namespace;
  }

  private requireName(obj: T, verb: string): string {
    const name = obj.metadata.name;
    if (name === undefined || name === '') {
      throw new KubeFedClientError(`${verb} ${this.qualified}: the object has no metadata.name`);
    }
    return name;
  }

  private describe(d: { verb: string; name?: string | undefined }, namespace: string | undefined): RequestDescription {
    const out: RequestDescription = { verb: d.verb, resource: this.qualified, cluster: this.transport.cluster };
    if (d.name !== undefined) out.name = d.name;
    const ns = namespace ?? this.namespace;
    if (ns !== undefined) out.namespace = ns;
    return out;
  }

  private async send<R>(
    method: string,
    d: { verb: string; name?: string | undefined },
    o: {
      name?: string;
      namespace?: string | undefined;
      subresource?: string | undefined;
      query?: URLSearchParams;
      body?: unknown;
      contentType?: string;
      signal?: AbortSignal | undefined;
    },
  ): Promise<R> {
    const namespace = o.namespace ?? this.namespace;
    const description = this.describe(d, namespace);
    let path = collectionPath(this.gvr, namespace);
    if (o.name !== undefined) {
      if (o.name === '') throw new KubeFedClientError(`${d.verb} ${this.qualified}: name must not be empty`);
      path += `/${encodeURIComponent(o.name)}`;
    }
    if (o.subresource !== undefined) path += `/${o.subresource}`;
    const res = await this.transport.request({
      method,
      path,
      query: o.query,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      contentType: o.contentType,
      signal: o.signal,
      description,
    });
    if (res.status < 200 || res.status >= 300) {
      throw ApiError.fromResponse({ code: res.status, body: res.body, retryAfter: res.headers['retry-after'], request: description });
    }
    if (res.body === '') return undefined as R;
    try {
      return JSON.parse(res.body) as R;
    } catch (e) {
      throw new KubeFedClientError(`${description.verb} ${this.qualified}: response is not JSON: ${res.body.slice(0, 200)}`, { cause: e });
    }
  }
}

function writeQuery(opts: WriteOptions): URLSearchParams {
  const q = new URLSearchParams();
  if (opts.dryRun === true) q.set('dryRun', 'All');
  setIf(q, 'fieldManager', opts.fieldManager);
  return q;
}

/**
 * GET that resolves `undefined` when the object does not exist (404 NotFound); every other
 * failure rejects as {@link ResourceClient.get} does.
 */
export async function getOrUndefined<T extends KubeObject>(
  resource: Pick<ResourceClient<T>, 'get'>,
  name: string,
  opts?: { signal?: AbortSignal },
): Promise<T | undefined> {
  try {
    return await resource.get(name, opts);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
