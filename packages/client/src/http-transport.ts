import type http from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher, Pool } from 'undici';
import { ApiError, ConfigError, type RequestDescription } from './api-error.js';
import { createClusterPool, type TlsSettings } from './cluster-pool.js';
import { TokenBucketRateLimiter } from './rate-limiter.js';
import type { Clock } from './clock.js';

/**
 * Everything needed to reach one cluster, independent of where it came from (a kubeconfig
 * context, a KubeFedCluster + Secret, or in-cluster service-account files).
 */
export interface ClusterConnection {
  /** Cluster name shown in error messages. */
  name: string;
  /** API server base URL (`https://host:port`, may carry a path prefix). */
  server: string;
  tls: TlsSettings;
  /** HTTP(S) proxy for every request; empty/undefined = direct. */
  proxyUrl?: string | undefined;
  /** Default namespace of the kubeconfig context, if any. */
  namespace?: string | undefined;
  /**
   * Credential headers (`Authorization`, `Impersonate-User`, ...), called before every request
   * so rotating tokens (token files, exec plugins, OIDC) are refreshed.
   */
  authHeaders(): Promise<Record<string, string>>;
}

/** Options of {@link HttpTransport}. */
export interface TransportOptions {
  /** Timeout of a non-watch request, from sending until the whole body arrived; default 30 000 ms. */
  timeoutMs?: number | undefined;
  /** Client-side rate limit in requests per second; default 50 (watches are exempt). `0` disables. */
  qps?: number | undefined;
  /** Token-bucket size; default 100. */
  burst?: number | undefined;
  /** Clock of the rate limiter; default the system clock. */
  clock?: Clock | undefined;
  /** `User-Agent` header; default `kubefed-ts`. */
  userAgent?: string | undefined;
  /**
   * Largest response body buffered, in bytes; default 64 MiB ({@link DEFAULT_MAX_RESPONSE_BYTES}).
   * A longer body, or a `Content-Length` announcing one, fails the request with `ApiError` reason
   * `ResponseTooLarge` as soon as the limit is passed, and drops the connection, so a broken or
   * hostile server cannot make the client buffer without bound. Real responses stay far below:
   * an object is at most 1.5 MiB (etcd's limit) and lists are paged (`listAll`: 500 a page).
   */
  maxResponseBytes?: number | undefined;
  /**
   * Largest single watch event (one line of a watch stream), in bytes; default 16 MiB
   * ({@link DEFAULT_MAX_WATCH_EVENT_BYTES}). A longer line fails the watch with `ApiError` reason
   * `ResponseTooLarge` and closes it.
   */
  maxWatchEventBytes?: number | undefined;
  /**
   * Told of every request once it is answered or has failed (watches are streams, not counted
   * here): its method and the HTTP status code, or `<error>` when no status came (refused,
   * timed out, aborted), as client-go's `rest_client_requests_total` counts them.
   */
  onRequestDone?: ((method: string, code: string) => void) | undefined;
}

/** Default of {@link TransportOptions.maxResponseBytes}: 64 MiB. */
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Default of {@link TransportOptions.maxWatchEventBytes}: 16 MiB, ten times etcd's object size limit. */
const DEFAULT_MAX_WATCH_EVENT_BYTES = 16 * 1024 * 1024;

/** One HTTP request to the API server. */
export interface TransportRequest {
  method: string;
  /** Path below the server URL, starting with `/`. */
  path: string;
  query?: URLSearchParams | undefined;
  /** Request body (already serialized). */
  body?: string | undefined;
  /** Default `application/json` when there is a body. */
  contentType?: string | undefined;
  /** Default `application/json`. */
  accept?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Overrides the transport's timeout for this request. */
  timeoutMs?: number | undefined;
  /** Used for error messages. */
  description: RequestDescription;
}

/** A buffered response. */
export interface TransportResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A response whose body is still to be read (a watch stream, or a request before its body is buffered). */
export interface OpenResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Readable;
}

/** Methods Go's net/http replays on a new connection (`isReplayable`): they have no body and no side effect. */
const REPLAYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** Error codes of a connection that broke before its response: on a kept-alive one, the server had closed it. */
const CONNECTION_BROKEN_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

function connectionBroken(e: unknown): boolean {
  return e instanceof Error && CONNECTION_BROKEN_CODES.has(String((e as NodeJS.ErrnoException).code));
}

function byteLimit(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new ConfigError(`${option} must be a positive whole number of bytes, got ${value}`);
  return value;
}

/**
 * Buffers the body of `res`, at most `limitBytes` of it: as soon as more arrives (or its
 * `Content-Length` announces more) the body is destroyed, which drops the connection, and the promise
 * rejects with `ApiError` reason `ResponseTooLarge`. Other failures reject with the raw stream
 * error, for the caller to map.
 */
export async function readLimitedBody(res: Omit<OpenResponse, 'status'>, limitBytes: number, request: RequestDescription): Promise<Buffer> {
  const { body, headers } = res;
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    body.destroy();
    throw ApiError.responseTooLarge('response body', limitBytes, request);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of body) {
    const c = chunk as Buffer;
    received += c.length;
    if (received > limitBytes) {
      body.destroy();
      throw ApiError.responseTooLarge('response body', limitBytes, request);
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks, received);
}

/** The abort reason when it is an Error (it usually is), else a generic AbortError. */
function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/**
 * One request's signal and its overall deadline (not an idle timeout: a slow drip of bytes must
 * not keep a request alive). The rate limiter, the connection pool and the abort handling listen
 * on `signal`, which follows the caller's signal, not on the caller's signal itself, which many
 * requests share (one controller's stop signal across its concurrent reconciles and members):
 * `AbortSignal.any` follows its source without an event listener on it, so a wide fan-out adds
 * none there (before, 11 concurrent requests on one signal printed MaxListenersExceededWarning).
 */
class Deadline {
  readonly signal: AbortSignal;
  readonly #own = new AbortController();
  #timedOut = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(caller: AbortSignal | undefined) {
    this.signal = caller === undefined ? this.#own.signal : AbortSignal.any([caller, this.#own.signal]);
  }

  /** Aborts `signal` after `timeoutMs` (none when 0), unless cleared first. */
  start(timeoutMs: number): void {
    if (timeoutMs <= 0) return;
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#own.abort(new Error('request timeout'));
    }, timeoutMs);
  }

  get timedOut(): boolean {
    return this.#timedOut;
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

/**
 * Sends requests to one cluster through an undici connection pool (keep-alive, the cluster's TLS
 * settings and proxy: cluster-pool.ts) with the cluster's credentials, a per-request deadline
 * and a token-bucket rate limit. Transport failures reject with `ApiError` reason
 * `NetworkError`, timeouts with reason `Timeout`, aborts with the signal's reason. Non-2xx
 * responses are returned, not thrown ({@link HttpTransport.request}).
 */
export class HttpTransport {
  readonly cluster: string;
  readonly limiter: TokenBucketRateLimiter;
  private readonly base: URL;
  /** The connection pool; replaced by a new one at the first request after {@link close}. */
  #pool: Pool | undefined;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  /** See {@link TransportOptions.maxResponseBytes}. */
  readonly maxResponseBytes: number;
  /** See {@link TransportOptions.maxWatchEventBytes}. */
  readonly maxWatchEventBytes: number;
  private readonly onRequestDone: ((method: string, code: string) => void) | undefined;
  readonly #networkErrorListeners = new Set<(err: ApiError) => void>();

  constructor(
    private readonly connection: ClusterConnection,
    options: TransportOptions = {},
  ) {
    this.cluster = connection.name;
    this.base = new URL(connection.server);
    // Built here so that a bad proxy URL fails the client's construction.
    this.#pool = this.#newPool();
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'kubefed-ts';
    this.maxResponseBytes = byteLimit(options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes');
    this.maxWatchEventBytes = byteLimit(options.maxWatchEventBytes, DEFAULT_MAX_WATCH_EVENT_BYTES, 'maxWatchEventBytes');
    this.onRequestDone = options.onRequestDone;
    this.limiter = new TokenBucketRateLimiter({
      ...(options.qps === undefined ? {} : { qps: options.qps }),
      ...(options.burst === undefined ? {} : { burst: options.burst }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  }

  /** The API server base URL. */
  get server(): string {
    return this.connection.server;
  }

  /**
   * Sends a rate-limited request and buffers the whole response body, at most
   * {@link maxResponseBytes} of it (else rejects with ApiError `ResponseTooLarge`).
   */
  async request(given: TransportRequest): Promise<TransportResponse> {
    const done = this.onRequestDone;
    if (done === undefined) return this.send(given);
    try {
      const response = await this.send(given);
      done(given.method, String(response.status));
      return response;
    } catch (err) {
      done(given.method, err instanceof ApiError && err.code > 0 ? String(err.code) : '<error>');
      throw err;
    }
  }

  private async send(req: TransportRequest): Promise<TransportResponse> {
    const deadline = new Deadline(req.signal);
    await this.limiter.acquire(deadline.signal);
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    deadline.start(timeoutMs);
    try {
      const res = await this.open(req, deadline);
      const body = await readLimitedBody(res, this.maxResponseBytes, req.description);
      return { status: res.status, headers: res.headers, body: body.toString('utf8') };
    } catch (e) {
      throw this.mapError(e, req, timeoutMs, deadline);
    } finally {
      deadline.clear();
    }
  }

  /**
   * Opens a streaming request (watch): not rate limited, the timeout covers only waiting for the
   * response headers. The caller consumes the body and eventually calls `close`.
   */
  async stream(req: TransportRequest): Promise<{ res: OpenResponse; close: () => void }> {
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    // Cleared once the headers are in: the stream itself ends by the caller's signal or `close`.
    const deadline = new Deadline(req.signal);
    deadline.start(timeoutMs);
    let res: OpenResponse;
    try {
      res = await this.open(req, deadline);
    } catch (e) {
      throw this.mapError(e, req, timeoutMs, deadline);
    } finally {
      deadline.clear();
    }
    return { res, close: () => res.body.destroy() };
  }

  /**
   * Calls `listener` with the error whenever a request, or the opening of a watch, fails to reach
   * the server (ApiError `NetworkError`: connection refused or reset, name resolution, TLS);
   * returns the function that removes it. A listener must not throw.
   */
  onNetworkError(listener: (err: ApiError) => void): () => void {
    this.#networkErrorListeners.add(listener);
    return () => this.#networkErrorListeners.delete(listener);
  }

  /** Closes the pooled connections; in-flight requests fail, a later request opens new ones. */
  close(): void {
    const pool = this.#pool;
    this.#pool = undefined;
    pool?.destroy().catch(() => undefined);
  }

  #newPool(): Pool {
    return createClusterPool({ origin: this.base, tls: this.connection.tls, proxyUrl: this.connection.proxyUrl });
  }

  private mapError(e: unknown, req: TransportRequest, timeoutMs: number, deadline: Deadline): Error {
    if (req.signal?.aborted === true) return abortError(req.signal);
    if (e instanceof ApiError) return e;
    if (deadline.timedOut) return ApiError.timeout(timeoutMs, req.description);
    const err = ApiError.fromNetworkError(e, req.description);
    for (const listener of [...this.#networkErrorListeners]) listener(err);
    return err;
  }

  /**
   * Sends the request and resolves with the response headers. A replayable request (GET, and so
   * list and watch) whose connection broke before any response byte (a kept-alive connection the
   * server had closed) is sent once more, within the same deadline, as Go's net/http does; other
   * methods fail with NetworkError, since the server may have acted on them.
   */
  private async open(req: TransportRequest, deadline: Deadline): Promise<OpenResponse> {
    try {
      return await this.attempt(req, deadline);
    } catch (e) {
      const replay = REPLAYABLE_METHODS.has(req.method.toUpperCase()) && connectionBroken(e) && !deadline.signal.aborted;
      if (!replay) throw e;
      return this.attempt(req, deadline);
    }
  }

  private async attempt(req: TransportRequest, deadline: Deadline): Promise<OpenResponse> {
    deadline.signal.throwIfAborted();
    const auth = await this.connection.authHeaders();
    const basePath = this.base.pathname.replace(/\/+$/, '');
    const query = req.query?.toString() ?? '';
    const headers: Record<string, string> = {
      accept: req.accept ?? 'application/json',
      'user-agent': this.userAgent,
      ...auth,
    };
    if (req.body !== undefined) headers['content-type'] = req.contentType ?? 'application/json';
    this.#pool ??= this.#newPool();
    const sent = this.#pool.request({
      method: req.method,
      path: `${basePath}${req.path}${query === '' ? '' : `?${query}`}`,
      headers,
      body: req.body ?? null,
      signal: deadline.signal,
    });
    const res = await untilAborted(sent, deadline.signal);
    return { status: res.statusCode, headers: res.headers, body: res.body };
  }
}

/**
 * `sent`, or a rejection with the abort reason as soon as `signal` aborts. The pool acts on the
 * abort of a request still waiting for its connection only once that connection is made or has
 * failed, and a TLS handshake with a server that accepts and never answers (a stopped or
 * blackholed API server) takes 10 s to fail; the deadline and the caller must not wait for it.
 * A response that arrives after the abort is dropped with its connection.
 */
function untilAborted(sent: Promise<Dispatcher.ResponseData>, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    sent.then(
      (res) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) res.body.destroy();
        else resolve(res);
      },
      (e: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
