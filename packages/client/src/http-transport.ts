import http from 'node:http';
import https from 'node:https';
import { ApiError, ConfigError } from './api-error.js';
import type { RequestDescription } from './api-error.js';
import { createClusterAgent } from './cluster-agent.js';
import type { TlsSettings } from './cluster-agent.js';
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

interface RequestState {
  timedOut: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** Methods Go's net/http replays on a new connection (`isReplayable`): they have no body and no side effect. */
const REPLAYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * Thrown by one attempt when its request went out on a reused keep-alive socket that the server had
 * already closed (ECONNRESET, "socket hang up", EPIPE before any response byte): the server
 * cannot have acted on it, so a replayable request is sent once more.
 */
class StaleConnectionError extends Error {
  constructor(readonly mapped: Error) {
    super('stale keep-alive connection', { cause: mapped });
  }
}

function isStaleConnectionReset(e: unknown, clientReq: http.ClientRequest): boolean {
  if (!clientReq.reusedSocket || !(e instanceof Error)) return false;
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

function byteLimit(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new ConfigError(`${option} must be a positive whole number of bytes, got ${value}`);
  return value;
}

/**
 * Buffers the body of `res`, at most `limitBytes` of it: as soon as more arrives (or
 * `Content-Length` announces more) the response is destroyed, which drops the connection, and the
 * promise rejects with `ApiError` reason `ResponseTooLarge`. Other failures reject with the raw
 * stream error, for the caller to map.
 */
export function readLimitedBody(res: http.IncomingMessage, limitBytes: number, request: RequestDescription): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    let chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (e: Error | undefined): void => {
      if (settled) return;
      settled = true;
      if (e === undefined) resolve(Buffer.concat(chunks, received));
      else reject(e);
      chunks = [];
    };
    const tooLarge = (): void => {
      settle(ApiError.responseTooLarge('response body', limitBytes, request));
      res.destroy();
    };
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) {
      tooLarge();
      return;
    }
    res.on('data', (c: Buffer) => {
      if (settled) return;
      received += c.length;
      if (received > limitBytes) tooLarge();
      else chunks.push(c);
    });
    res.once('end', () => settle(undefined));
    res.on('error', (e) => settle(e));
    res.once('close', () => {
      if (!res.complete) settle(Object.assign(new Error('connection closed before the response was complete'), { code: 'ECONNRESET' }));
    });
  });
}

/** The abort reason when it is an Error (it usually is), else a generic AbortError. */
function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Sends requests to one cluster over node:http/https with a keep-alive agent, the cluster's
 * credentials, a per-request timeout and a token-bucket rate limit. Transport failures reject
 * with `ApiError` reason `NetworkError`, timeouts with reason `Timeout`, aborts with the signal's
 * reason. Non-2xx responses are returned, not thrown ({@link HttpTransport.request}).
 */
export class HttpTransport {
  readonly cluster: string;
  readonly limiter: TokenBucketRateLimiter;
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  /** See {@link TransportOptions.maxResponseBytes}. */
  readonly maxResponseBytes: number;
  /** See {@link TransportOptions.maxWatchEventBytes}. */
  readonly maxWatchEventBytes: number;
  private readonly onRequestDone: ((method: string, code: string) => void) | undefined;

  constructor(
    private readonly connection: ClusterConnection,
    options: TransportOptions = {},
  ) {
    this.cluster = connection.name;
    this.base = new URL(connection.server);
    this.agent = createClusterAgent({ protocol: this.base.protocol, tls: connection.tls, proxyUrl: connection.proxyUrl });
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

  private async send(given: TransportRequest): Promise<TransportResponse> {
    const req = ownSignal(given);
    await this.limiter.acquire(req.signal);
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const { res, clientReq, state } = await this.open(req, timeoutMs);
    return new Promise<TransportResponse>((resolve, reject) => {
      const fail = (e: unknown): void => reject(this.mapError(e, req, timeoutMs, state));
      clientReq.once('error', fail);
      readLimitedBody(res, this.maxResponseBytes, req.description).then(
        (body) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body.toString('utf8') }),
        fail,
      );
    });
  }

  /**
   * Opens a streaming request (watch): not rate limited, the timeout covers only waiting for the
   * response headers. The caller consumes and eventually destroys the response.
   */
  async stream(given: TransportRequest): Promise<{ res: http.IncomingMessage; close: () => void }> {
    const req = ownSignal(given);
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const { res, clientReq, state } = await this.open(req, timeoutMs);
    clearTimeout(state.timer);
    return { res, close: () => clientReq.destroy() };
  }

  /** Destroys pooled sockets; in-flight requests fail. */
  close(): void {
    this.agent.destroy();
  }

  private mapError(e: unknown, req: TransportRequest, timeoutMs: number, state: RequestState): Error {
    if (req.signal?.aborted === true) return abortError(req.signal);
    if (e instanceof ApiError) return e;
    if (state.timedOut) return ApiError.timeout(timeoutMs, req.description);
    return ApiError.fromNetworkError(e, req.description);
  }

  /**
   * Sends the request and resolves with the response headers. A replayable request (GET, and so
   * list and watch) whose reused keep-alive socket turns out to be closed by the server before any
   * response byte is sent once more, within the same deadline, as Go's net/http does; other
   * methods fail with NetworkError, since the server may have acted on them.
   */
  private async open(
    req: TransportRequest,
    timeoutMs: number,
  ): Promise<{ res: http.IncomingMessage; clientReq: http.ClientRequest; state: RequestState }> {
    const started = Date.now();
    try {
      return await this.attempt(req, timeoutMs, REPLAYABLE_METHODS.has(req.method.toUpperCase()));
    } catch (e) {
      if (!(e instanceof StaleConnectionError)) throw e;
      const left = timeoutMs > 0 ? timeoutMs - (Date.now() - started) : 0;
      if (timeoutMs > 0 && left <= 0) throw ApiError.timeout(timeoutMs, req.description);
      return this.attempt(req, left, false);
    }
  }

  private async attempt(
    req: TransportRequest,
    timeoutMs: number,
    mayReplay: boolean,
  ): Promise<{ res: http.IncomingMessage; clientReq: http.ClientRequest; state: RequestState }> {
    if (req.signal?.aborted === true) throw abortError(req.signal);
    const auth = await this.connection.authHeaders();
    const basePath = this.base.pathname.replace(/\/+$/, '');
    const query = req.query?.toString() ?? '';
    const headers: http.OutgoingHttpHeaders = {
      accept: req.accept ?? 'application/json',
      'user-agent': this.userAgent,
      ...auth,
    };
    if (req.body !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(req.body);
    }
    const options: https.RequestOptions = {
      protocol: this.base.protocol,
      host: this.base.hostname.replace(/^\[|\]$/g, ''),
      port: this.base.port === '' ? (this.base.protocol === 'https:' ? 443 : 80) : Number(this.base.port),
      method: req.method,
      path: `${basePath}${req.path}${query === '' ? '' : `?${query}`}`,
      headers,
      agent: this.agent,
      ...(req.signal === undefined ? {} : { signal: req.signal }),
    };
    const send = this.base.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const clientReq = send(options);
      const state: RequestState = { timedOut: false, timer: undefined };
      // An overall deadline (not the socket idle timeout): a slow drip of bytes must not keep a request alive.
      // It rejects by itself: before the agent hands over a socket (a TLS handshake with a server that
      // accepts connections and never answers), destroy() emits nothing until that socket arrives.
      if (timeoutMs > 0) {
        state.timer = setTimeout(() => {
          state.timedOut = true;
          reject(ApiError.timeout(timeoutMs, req.description));
          clientReq.destroy(new Error('request timeout'));
        }, timeoutMs);
      }
      const signal = req.signal;
      const onAbort = (): void => {
        if (signal !== undefined) reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      clientReq.once('close', () => {
        clearTimeout(state.timer);
        signal?.removeEventListener('abort', onAbort);
      });
      let responded = false;
      clientReq.once('response', (res) => {
        responded = true;
        resolve({ res, clientReq, state });
      });
      // `on`, not `once`: a socket error after the response (e.g. a reset watch) is emitted here too.
      clientReq.on('error', (e) => {
        clearTimeout(state.timer);
        const mapped = this.mapError(e, req, timeoutMs, state);
        const stale = mayReplay && !responded && !state.timedOut && req.signal?.aborted !== true && isStaleConnectionReset(e, clientReq);
        reject(stale ? new StaleConnectionError(mapped) : mapped);
      });
      clientReq.end(req.body);
    });
  }
}

/**
 * `req` with a signal of its own that follows the caller's: the rate limiter, `http.request` and
 * the abort handling listen on it, not on the caller's signal, which many requests share (one
 * controller's stop signal across its concurrent reconciles and members). `AbortSignal.any`
 * follows its source without an event listener on it, so a wide fan-out adds none there
 * (before, 11 concurrent requests on one signal printed MaxListenersExceededWarning).
 */
function ownSignal(req: TransportRequest): TransportRequest {
  return req.signal === undefined ? req : { ...req, signal: AbortSignal.any([req.signal]) };
}
