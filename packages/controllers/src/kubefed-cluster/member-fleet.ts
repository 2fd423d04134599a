import { jsonEqual, memberClientFromSecret, type KubeFedClusterInput, type KubeObject } from '@kubefed/client';
import { DEFAULT_MEMBER_CACHE_BUDGET, Fleet, type CacheBudgetLimits, type Logger } from '@kubefed/runtime';

/** What a member's client is built from: its KubeFedCluster and token Secret. */
export interface MemberConfig {
  readonly cluster: KubeFedClusterInput & { readonly metadata: { labels?: unknown; annotations?: unknown } };
  readonly secret: KubeObject;
}

/** The Fleet of the control plane's member clusters, each engaged with its KubeFedCluster and token Secret. */
export type MemberFleet = Fleet<MemberConfig>;

/** Default member client rate limit (KubeFed's cluster clients had QPS 20, burst 30: too low for sync workers sharing the client). */
const MEMBER_RATE_LIMIT = { qps: 100, burst: 200 } as const;

/** Options of {@link createMemberFleet}. */
export interface MemberFleetOptions {
  /** Rate limit of each member client (sync workers and member informers share it); default 100 QPS, burst 200. */
  readonly rateLimit?: { qps: number; burst: number } | undefined;
  /** Default silent. */
  readonly logger?: Logger | undefined;
  /** Given each member client's requests (a counter of `RuntimeMetrics.restClient`, by cluster); default none. */
  readonly requestCounter?: ((cluster: string) => (method: string, code: string) => void) | undefined;
  /** At most this many members are engaged (FleetFullError beyond, see `FleetOptions.maxMembers`); default unlimited. */
  readonly maxMembers?: number | undefined;
  /** What each member's informers may hold (see `FleetOptions.cacheBudget`); each limit not given: {@link DEFAULT_MEMBER_CACHE_BUDGET}'s. */
  readonly cacheBudget?: Partial<CacheBudgetLimits> | undefined;
}

/**
 * A {@link MemberFleet} whose clients come from `memberClientFromSecret` (so a Secret not bound
 * to its cluster gives no client: `engage` throws SecretNotBoundError, a malformed spec or
 * Secret ConfigError). A member keeps its client (and its informers) while its KubeFedCluster's
 * spec and its Secret stay the same: a label or annotation change (`kubectl label kubefedcluster`)
 * does not reconnect, since the client does not depend on them.
 */
export function createMemberFleet(options: MemberFleetOptions = {}): MemberFleet {
  const rateLimit = options.rateLimit ?? MEMBER_RATE_LIMIT;
  return new Fleet<MemberConfig>({
    connect: (name, config) =>
      memberClientFromSecret(config.cluster, config.secret, { ...rateLimit, onRequestDone: options.requestCounter?.(name) }),
    sameConfig: (a, b) => jsonEqual(memberIdentity(a), memberIdentity(b)),
    maxMembers: options.maxMembers,
    cacheBudget: { ...DEFAULT_MEMBER_CACHE_BUDGET, ...options.cacheBudget },
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
}

/** What a member client depends on, without the token itself (compared with jsonEqual, so key order does not matter). */
function memberIdentity(config: MemberConfig): unknown[] {
  const { cluster, secret } = config;
  return [cluster.metadata.name, cluster.spec, secret.metadata.uid, secret.metadata.resourceVersion];
}
