/** A Kubernetes object as raw JSON: every field is kept, unknown ones included. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** A list response (`<Kind>List`) as raw JSON. */
export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** A resource of an API group version; `group` is `''` for the core group. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** A kind of an API group version; `group` is `''` for the core group. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** Options of `ResourceClient.list`. */
export interface ListOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** Page size; the server returns `metadata.continue` when more remain. */
  limit?: number | undefined;
  /** Token from the previous page's `metadata.continue`. */
  continue?: string | undefined;
  resourceVersion?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** Options of `ResourceClient.watch`. */
export interface WatchOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** Start after this resourceVersion (typically the list's); too old → ApiError Gone. */
  resourceVersion?: string | undefined;
  allowWatchBookmarks?: boolean | undefined;
  /** Server-side duration of the watch; the stream then ends normally. */
  timeoutSeconds?: number | undefined;
  /** Abort ends the watch. */
  signal?: AbortSignal | undefined;
  /**
   * Fail with ApiError reason Timeout when no bytes arrive for this long (a dead connection
   * never ends a stream). Default: `timeoutSeconds` + 30 s when `timeoutSeconds` is set, else none
   * (pair it with `allowWatchBookmarks`, which makes servers send a bookmark about every minute).
   */
  idleTimeoutMs?: number | undefined;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One watch event; for `ERROR` the object is a Status (the iterator throws it as an ApiError instead). */
export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

/** Patch flavours: JSON merge patch, JSON patch (RFC 6902), strategic merge patch, server-side apply. */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** Options of `ResourceClient.create` / `update`. */
export interface WriteOptions {
  /** Validate and return the result without persisting (`dryRun=All`). */
  dryRun?: boolean | undefined;
  fieldManager?: string | undefined;
}

/** Options of `ResourceClient.patch`. */
export interface PatchOptions {
  fieldManager?: string | undefined;
  /** Server-side apply: take ownership of conflicting fields. */
  force?: boolean | undefined;
  subresource?: 'status' | undefined;
}

/** Options of `ResourceClient.delete`. */
export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground' | undefined;
  preconditions?: { uid?: string | undefined; resourceVersion?: string | undefined } | undefined;
  gracePeriodSeconds?: number | undefined;
}

/** Operations on one resource, optionally within a namespace. Objects pass through as raw JSON. */
export interface ResourceClient<T extends KubeObject = KubeObject> {
  /** GET one object; rejects with ApiError NotFound when absent. */
  get(name: string, opts?: { signal?: AbortSignal }): Promise<T>;
  /** One page (or all, without `limit`) of objects. */
  list(opts?: ListOptions): Promise<KubeList<T>>;
  /**
   * All pages, following `continue` tokens; the list metadata is the last page's. Pages hold
   * `limit` objects, default 500, so no single response grows with the size of the cluster.
   */
  listAll(opts?: Omit<ListOptions, 'continue'>): Promise<KubeList<T>>;
  /**
   * Async iterator of events; ends when the server closes the stream or the signal aborts;
   * throws ApiError on a non-200 response (e.g. 410 Gone) or an ERROR event, and network
   * errors as ApiError(reason 'NetworkError').
   */
  watch(opts?: WatchOptions): AsyncIterable<WatchEvent>;
  create(obj: T, opts?: WriteOptions): Promise<T>;
  /** POST `body` to a subresource of `name` (e.g. a TokenRequest to `serviceaccounts/<name>/token`); resolves the server's answer. */
  createSubresource<R extends KubeObject = KubeObject>(
    name: string,
    subresource: string,
    body: KubeObject,
    opts?: { signal?: AbortSignal | undefined },
  ): Promise<R>;
  /** PUT; `metadata.resourceVersion` makes it conditional (stale → ApiError Conflict). */
  update(obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT to the `status` subresource. */
  updateStatus(obj: T): Promise<T>;
  patch(name: string, patch: unknown, type: PatchType, opts?: PatchOptions): Promise<T>;
  /** DELETE; resolves once the server accepted it (finalizers may keep the object a while). */
  delete(name: string, opts?: DeleteOptions): Promise<void>;
}
