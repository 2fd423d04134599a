/**
 * Authentication and authorization of `/metrics` requests delegated to the host API server, as
 * controller-runtime's secure metrics serving does (`filters.WithAuthenticationAndAuthorization`):
 * the bearer token is checked with a TokenReview, then the user it names with a
 * SubjectAccessReview for `get` on the non-resource URL (e.g. `/metrics`). A scraper therefore
 * needs a token and a ClusterRole with `nonResourceURLs: [/metrics], verbs: [get]`; the process
 * needs `create` on tokenreviews and subjectaccessreviews (the ClusterRole system:auth-delegator).
 */
import { createHash } from 'node:crypto';
import { type Clock, type DynamicClient, systemClock } from '@kubefed/client';

/** The decision about one request. */
export type MetricsAccess = 'allowed' | 'unauthenticated' | 'forbidden';

/** Decides whether a request for `path` with the `Authorization` header `authorization` may be served. */
export interface MetricsAuthorizer {
  check(authorization: string | undefined, path: string): Promise<MetricsAccess>;
}

/** Options of {@link KubeMetricsAuthorizer}. */
export interface KubeMetricsAuthorizerOptions {
  /** How long a decision is reused for the same token and path; default 10 s (controller-runtime's TokenReview cache). */
  readonly cacheTtlMs?: number | undefined;
  readonly clock?: Clock | undefined;
}

const TOKEN_REVIEWS = { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' };
const ACCESS_REVIEWS = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' };

/**
 * A {@link MetricsAuthorizer} asking the host API server. A request without a bearer token, or
 * with one the server does not authenticate, is `unauthenticated` (401); an authenticated user
 * without the grant is `forbidden` (403). Failing reviews reject (the server answers 500).
 */
export class KubeMetricsAuthorizer implements MetricsAuthorizer {
  readonly #host: DynamicClient;
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #cache = new Map<string, { readonly access: MetricsAccess; readonly untilMs: number }>();

  constructor(host: DynamicClient, options: KubeMetricsAuthorizerOptions = {}) {
    this.#host = host;
    this.#ttlMs = options.cacheTtlMs ?? 10_000;
    this.#clock = options.clock ?? systemClock;
  }

  async check(authorization: string | undefined, path: string): Promise<MetricsAccess> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (token === undefined) return 'unauthenticated';
    // The token itself is never kept: its hash keys the cache.
    const key = `${createHash('sha256').update(token).digest('hex')} ${path}`;
    const now = this.#clock.now();
    const cached = this.#cache.get(key);
    if (cached !== undefined && cached.untilMs > now) return cached.access;
    const access = await this.#review(token, path);
    for (const [k, v] of this.#cache) if (v.untilMs <= now) this.#cache.delete(k);
    this.#cache.set(key, { access, untilMs: now + this.#ttlMs });
    return access;
  }

  async #review(token: string, path: string): Promise<MetricsAccess> {
    const review = await this.#host
      .resource(TOKEN_REVIEWS)
      .create({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token } });
    const status = review['status'] as
      | { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } }
      | undefined;
    const user = status?.user;
    if (status?.authenticated !== true || user?.username === undefined) return 'unauthenticated';
    const spec = {
      user: user.username,
      ...(user.uid === undefined ? {} : { uid: user.uid }),
      groups: user.groups ?? [],
      ...(user.extra === undefined ? {} : { extra: user.extra }),
      nonResourceAttributes: { path, verb: 'get' },
    };
    const access = await this.#host
      .resource(ACCESS_REVIEWS)
      .create({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec });
    return (access['status'] as { allowed?: boolean } | undefined)?.allowed === true ? 'allowed' : 'forbidden';
  }
}
