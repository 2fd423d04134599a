import { KubeFedError } from '@kubefed/api';
import { ApiError, type ApiErrorReason, sleep, systemClock, type Clock } from '@kubefed/client';
import type { Logger } from '@kubefed/runtime';

/** One host request (or a few) the process makes before it starts anything, named for logs and errors. */
export interface StartupStep {
  /** What the step does, e.g. `reading the kube-system Namespace for the default queue prefix`. */
  readonly name: string;
  /** Another way out, appended to a permanent failure, e.g. `pass --queue-prefix to skip this read`; default none. */
  readonly hint?: string;
}

/** Options of {@link StartupRetry}. */
export interface StartupRetryOptions {
  /** Aborting ends the wait at once (also while a request is in flight): `run` rejects with the signal's reason. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** The host API server's URL, named in permanent failures. */
  readonly server: string;
  /** Delay before the second attempt; doubled after each failure. Default 500 ms. */
  readonly initialDelayMs?: number;
  /** Cap of the delay between attempts. Default 30 000 ms. */
  readonly maxDelayMs?: number;
  /** Default the system clock. */
  readonly clock?: Clock;
}

/** A start-up request the host API server refused in a way that retrying cannot change; the message says what to fix. */
export class HostStartupError extends KubeFedError {}

/**
 * Reasons that may pass by themselves: the API server is not up yet, restarting, overloaded
 * or behind a load balancer that has no backend yet (connection refused or reset, TLS handshake
 * or request timeouts, 5xx, 429). Everything else is permanent: 401 and 403 need other
 * credentials or RBAC, 404 a missing CRD or object, 400/422 and the like a request the server
 * will never accept, and an untrusted or mismatched server certificate a corrected kubeconfig;
 * retrying would only hide the cause behind an endless wait. Errors that are not API errors (a
 * malformed kubeconfig, an invalid KubeFedConfig) are permanent too.
 */
const TRANSIENT_REASONS: ReadonlySet<ApiErrorReason> = new Set([
  'NetworkError',
  'Timeout',
  'TooManyRequests',
  'ServerError',
  'ServiceUnavailable',
]);

/**
 * Node's codes for a server certificate the client does not trust or that names another host:
 * a NetworkError that no amount of waiting repairs. (DNS failures stay transient: the API
 * server's name may appear once its Service or load balancer exists.)
 */
const CERTIFICATE_CODES = /^(CERT_|ERR_TLS_CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_)/;

/** True when a failed start-up request may succeed if sent again (see {@link TRANSIENT_REASONS}). */
export function isTransientStartupError(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.reason === 'NetworkError') return !isCertificateError(err);
  return TRANSIENT_REASONS.has(err.reason) || err.code === 408;
}

function isCertificateError(err: ApiError): boolean {
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && CERTIFICATE_CODES.test(code);
}

/**
 * The message of a permanent start-up failure: the step, the server's answer (a 403 names the
 * user), and what to change: the permission missing (verb, resource, namespace), the
 * credentials, the CRDs or the kubeconfig's certificate authority.
 */
export function permanentStartupMessage(err: ApiError, step: StartupStep, server: string): string {
  const advice = adviceFor(err, step, server);
  return `${step.name} failed: ${err.message}${advice === '' ? '' : `: ${advice}`}`;
}

function adviceFor(err: ApiError, step: StartupStep, server: string): string {
  const { verb, resource, namespace } = err.request;
  const hint = step.hint ?? '';
  switch (err.reason) {
    case 'Forbidden': {
      const where = namespace === undefined || namespace === '' ? 'at the cluster scope' : `in namespace "${namespace}"`;
      return `the host user needs permission to ${verb} ${resource ?? 'it'} ${where}; grant it in the controller manager's ClusterRole${hint === '' ? '' : `, or ${hint}`}`;
    }
    case 'Unauthorized':
      return `the host API server at ${server} does not accept the credentials of the kubeconfig context (token, client certificate or service account token)`;
    case 'NotFound':
      return resource?.endsWith('kubefed.io') === true ? 'are the KubeFed CRDs installed on the host cluster (deploy/crds)?' : hint;
    case 'NetworkError':
      return `the certificate of the host API server at ${server} is not trusted by the kubeconfig's certificate-authority data or does not name that address`;
    default:
      return hint;
  }
}

/**
 * Runs the host requests of start-up until they succeed, as a controller manager that waits for
 * its API server should: transient failures ({@link isTransientStartupError}) are retried with
 * a capped exponential backoff (honouring a longer Retry-After), each logged with the error and
 * the next delay; a permanent one ends start-up with a {@link HostStartupError} saying what to
 * fix. Aborting the signal ends the wait at once.
 */
export class StartupRetry {
  readonly #o: StartupRetryOptions;
  readonly #clock: Clock;
  readonly #initialDelayMs: number;
  readonly #maxDelayMs: number;

  constructor(options: StartupRetryOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#initialDelayMs = options.initialDelayMs ?? 500;
    this.#maxDelayMs = options.maxDelayMs ?? 30_000;
  }

  /**
   * The result of `attempt`, tried until it succeeds.
   * @throws HostStartupError on a permanent API error; any other non-API error as it is; the
   * signal's reason once it aborts.
   */
  async run<T>(step: StartupStep, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { signal, logger } = this.#o;
    let delayMs = this.#initialDelayMs;
    for (let n = 1; ; n++) {
      signal.throwIfAborted();
      try {
        return await this.#untilAborted(attempt(signal));
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        if (!isTransientStartupError(err)) throw this.#permanent(err, step);
        const retryInMs = Math.min(this.#maxDelayMs, Math.max(delayMs, retryAfterMs(err)));
        logger.warn({ step: step.name, attempt: n, err, retryInMs }, 'host API server not available at start-up: retrying');
        await sleep(this.#clock, retryInMs, signal);
        delayMs = Math.min(this.#maxDelayMs, delayMs * 2);
      }
    }
  }

  #permanent(err: unknown, step: StartupStep): unknown {
    if (!(err instanceof ApiError)) return err;
    return new HostStartupError(permanentStartupMessage(err, step, this.#o.server), { cause: err });
  }

  /** `p`, or the signal's reason as soon as it aborts (a request hung in a TLS handshake must not hold the shutdown). */
  #untilAborted<T>(p: Promise<T>): Promise<T> {
    const { signal } = this.#o;
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([p, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
  }
}

function retryAfterMs(err: unknown): number {
  return err instanceof ApiError && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : 0;
}
