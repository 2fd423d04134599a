import { boundText, MAX_MESSAGE_CHARS } from '@kubefed/api';

/** The Kubernetes `Status` object an API server returns with a failed request. */
export interface KubeStatus {
  apiVersion?: string;
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
  [k: string]: unknown;
}

/** One field-level cause of an `Invalid` (422) or other detailed failure. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/**
 * Why a request failed: Kubernetes `StatusReason`s, plus `NetworkError` for transport failures
 * and `ResponseTooLarge` for a response the client refused to buffer (see `TransportOptions`).
 */
export type ApiErrorReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'Forbidden'
  | 'Unauthorized'
  | 'TooManyRequests'
  | 'ServerError'
  | 'Timeout'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'ServiceUnavailable'
  | 'NetworkError'
  | 'ResponseTooLarge'
  | 'Unknown';

/** The base of every error this package throws; `cause` holds the underlying error, if any. */
export class KubeFedClientError extends Error {
  /** `message` is bounded to `MAX_MESSAGE_CHARS`: it may quote what a member sent. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(boundText(message, MAX_MESSAGE_CHARS), options);
    this.name = new.target.name;
  }
}

/** Bad client configuration: a kubeconfig, a KubeFedCluster spec or its Secret. */
export class ConfigError extends KubeFedClientError {}

/** What a request was doing, for error messages: `create deployments.apps "web" in namespace "demo" on cluster "c1"`. */
export interface RequestDescription {
  /** e.g. `get`, `list`, `create`, `watch`, `GET` for raw requests. */
  verb: string;
  /** `plural.group` (or plural for the core group), or a raw path. */
  resource?: string;
  name?: string;
  namespace?: string;
  cluster?: string;
}

/** Renders a {@link RequestDescription} as the prefix of an error message. */
export function describeRequest(d: RequestDescription): string {
  let s = d.verb;
  if (d.resource !== undefined) s += ` ${d.resource}`;
  if (d.name !== undefined && d.name !== '') s += ` "${d.name}"`;
  if (d.namespace !== undefined && d.namespace !== '') s += ` in namespace "${d.namespace}"`;
  if (d.cluster !== undefined) s += ` on cluster "${d.cluster}"`;
  return s;
}

const reasonByCode: Record<number, ApiErrorReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'ServerError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const knownReasons = new Set<string>([
  ...Object.values(reasonByCode),
  'AlreadyExists',
  'Timeout',
  'ServerError',
  'Expired',
  'InternalError',
  'ServerTimeout',
]);

function reasonFrom(code: number, statusReason: string | undefined): ApiErrorReason {
  switch (statusReason) {
    case 'Expired':
      return 'Gone';
    case 'InternalError':
      return 'ServerError';
    case 'ServerTimeout':
      return 'Timeout';
    case undefined:
    case '':
      break;
    default:
      if (knownReasons.has(statusReason)) return statusReason as ApiErrorReason;
  }
  return reasonByCode[code] ?? (code >= 500 ? 'ServerError' : 'Unknown');
}

/** Input of {@link ApiError.fromResponse}. */
export interface ResponseErrorInput {
  /** HTTP status code. */
  code: number;
  /** Response body text (a Status object when the server follows API conventions). */
  body: string;
  /** Value of the `Retry-After` header, if any. */
  retryAfter?: string | undefined;
  request: RequestDescription;
}

/**
 * A failed API request: an HTTP error response (reason from the Status body, else from the code)
 * or a transport failure (`reason: 'NetworkError'`, `code: 0`, `cause` = the socket/TLS error).
 */
export class ApiError extends KubeFedClientError {
  /** HTTP status code, 0 for network errors. */
  readonly code: number;
  readonly reason: ApiErrorReason;
  /** The parsed Status body, when the server sent one. */
  readonly status: KubeStatus | undefined;
  /** `status.details.causes` (field errors of `Invalid`), else empty. */
  readonly causes: StatusCause[];
  /** From the `Retry-After` header or `details.retryAfterSeconds` (429, some 5xx). */
  readonly retryAfterSeconds: number | undefined;
  readonly request: RequestDescription;

  constructor(
    message: string,
    init: {
      code: number;
      reason: ApiErrorReason;
      request: RequestDescription;
      status?: KubeStatus | undefined;
      retryAfterSeconds?: number | undefined;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.reason = init.reason;
    this.status = init.status;
    this.causes = init.status?.details?.causes ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.request = init.request;
  }

  /** Builds the error for a non-2xx response; tolerates bodies that are not a Status. */
  static fromResponse(input: ResponseErrorInput): ApiError {
    const parsed = parseStatus(input.body);
    const status = parsed === undefined ? undefined : boundedStatus(parsed);
    const reason = reasonFrom(input.code, status?.reason);
    const detail =
      status?.message !== undefined && status.message !== ''
        ? status.message
        : input.body.trim() !== '' && status === undefined
          ? boundText(input.body.trim(), 300)
          : `HTTP ${input.code}`;
    const retryAfterSeconds = parseRetryAfter(input.retryAfter) ?? status?.details?.retryAfterSeconds;
    return new ApiError(`${describeRequest(input.request)}: ${reason}: ${detail}`, {
      code: input.code,
      reason,
      request: input.request,
      status,
      retryAfterSeconds,
    });
  }

  /** Builds the error for a transport failure (refused, reset, TLS, DNS, timeout while connecting). */
  static fromNetworkError(cause: unknown, request: RequestDescription): ApiError {
    const detail = cause instanceof Error ? describeNetworkCause(cause) : String(cause);
    return new ApiError(`${describeRequest(request)}: NetworkError: ${detail}`, {
      code: 0,
      reason: 'NetworkError',
      request,
      cause,
    });
  }

  /**
   * A response the client stopped reading because it passed a size limit: the whole body
   * (`what` = `response body`) or one line of a watch stream (`watch event`). `code` is 0: the
   * server's status does not matter, the connection was dropped.
   */
  static responseTooLarge(what: 'response body' | 'watch event', limitBytes: number, request: RequestDescription): ApiError {
    return new ApiError(`${describeRequest(request)}: ResponseTooLarge: ${what} exceeds the limit of ${limitBytes} bytes`, {
      code: 0,
      reason: 'ResponseTooLarge',
      request,
    });
  }

  /** A request that got no complete response within its timeout. */
  static timeout(timeoutMs: number, request: RequestDescription): ApiError {
    return new ApiError(`${describeRequest(request)}: Timeout: no response within ${timeoutMs} ms`, {
      code: 0,
      reason: 'Timeout',
      request,
    });
  }
}

function describeNetworkCause(e: Error): string {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && !e.message.includes(code) ? `${code}: ${e.message}` : e.message;
}

/** The most causes of an `Invalid` Status kept; a member can send any number. */
const MAX_STATUS_CAUSES = 20;

/**
 * The fields of `status` that we read, with its free text bounded (message, each cause's message
 * and field, at most {@link MAX_STATUS_CAUSES} causes): a member's API server or admission webhook can answer with
 * a message of any length, and the error, its log line and the object's status quote it.
 */
function boundedStatus(status: KubeStatus): KubeStatus {
  const bounded: KubeStatus = {};
  for (const key of ['apiVersion', 'kind', 'status', 'reason'] as const) {
    const value = status[key];
    if (typeof value === 'string') bounded[key] = boundText(value);
  }
  if (typeof status.code === 'number') bounded.code = status.code;
  if (typeof status.message === 'string') bounded.message = boundText(status.message);
  const details = status.details;
  if (details !== undefined && typeof details === 'object') {
    bounded.details = {};
    for (const key of ['name', 'group', 'kind', 'uid'] as const) {
      const value = details[key];
      if (typeof value === 'string') bounded.details[key] = boundText(value);
    }
    if (typeof details.retryAfterSeconds === 'number') bounded.details.retryAfterSeconds = details.retryAfterSeconds;
    if (Array.isArray(details.causes))
      bounded.details.causes = details.causes.slice(0, MAX_STATUS_CAUSES).map((c) => ({
        ...(typeof c.reason === 'string' ? { reason: boundText(c.reason) } : {}),
        ...(typeof c.message === 'string' ? { message: boundText(c.message) } : {}),
        ...(typeof c.field === 'string' ? { field: boundText(c.field) } : {}),
      }));
  }
  return bounded;
}

function parseStatus(body: string): KubeStatus | undefined {
  if (body === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      const s = parsed as KubeStatus;
      if (s.kind === 'Status' || typeof s.reason === 'string' || typeof s.message === 'string') return s;
    }
  } catch {
    // not JSON: the caller falls back to the body text
  }
  return undefined;
}

function parseRetryAfter(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v.trim());
  if (v.trim() !== '' && Number.isFinite(n) && n >= 0) return n;
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function hasReason(e: unknown, reason: ApiErrorReason): boolean {
  return e instanceof ApiError && e.reason === reason;
}

/** True for an {@link ApiError} with reason NotFound (404). */
export const isNotFound = (e: unknown): boolean => hasReason(e, 'NotFound');
/** True for an {@link ApiError} with reason AlreadyExists (409 on create). */
export const isAlreadyExists = (e: unknown): boolean => hasReason(e, 'AlreadyExists');
/** True for an {@link ApiError} with reason Conflict (409: stale resourceVersion). */
export const isConflict = (e: unknown): boolean => hasReason(e, 'Conflict');
/** True for an {@link ApiError} with reason Gone (410: watch/list resourceVersion too old). */
export const isGone = (e: unknown): boolean => hasReason(e, 'Gone');
/** True for an {@link ApiError} with reason Invalid (422). */
export const isInvalid = (e: unknown): boolean => hasReason(e, 'Invalid');
/** True for an {@link ApiError} with reason Forbidden (403). */
export const isForbidden = (e: unknown): boolean => hasReason(e, 'Forbidden');
/** True for an {@link ApiError} with reason Unauthorized (401). */
export const isUnauthorized = (e: unknown): boolean => hasReason(e, 'Unauthorized');
/** True for an {@link ApiError} with reason TooManyRequests (429). */
export const isTooManyRequests = (e: unknown): boolean => hasReason(e, 'TooManyRequests');
/** True for an {@link ApiError} with reason BadRequest (400). */
export const isBadRequest = (e: unknown): boolean => hasReason(e, 'BadRequest');
/** True for an {@link ApiError} with reason MethodNotAllowed (405). */
export const isMethodNotAllowed = (e: unknown): boolean => hasReason(e, 'MethodNotAllowed');
/** True for an {@link ApiError} with reason Timeout (504, ServerTimeout, or a client-side request timeout). */
export const isTimeout = (e: unknown): boolean => hasReason(e, 'Timeout');
/** True for an {@link ApiError} with reason ServerError (500 / InternalError / other 5xx). */
export const isServerError = (e: unknown): boolean => hasReason(e, 'ServerError');
/** True for an {@link ApiError} caused by the transport (connection refused/reset, TLS, DNS). */
export const isNetworkError = (e: unknown): boolean => hasReason(e, 'NetworkError');
/** True for an {@link ApiError} whose response passed the client's size limit (a broken or hostile server). */
export const isResponseTooLarge = (e: unknown): boolean => hasReason(e, 'ResponseTooLarge');
