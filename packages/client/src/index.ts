/**
 * @kubefed/client: the raw JSON Kubernetes client, and the only wrapper of
 * `@kubernetes/client-node` (loaded only for kubeconfig users with an auth-provider).
 *
 * Start with `DynamicClient` (dynamic-client.ts): build one per cluster from a `Kubeconfig`
 * context or a KubeFedCluster + Secret, then `client.resource(gvr, ns)` gives a `ResourceClient`
 * (get/list/listAll/watch/create/update/updateStatus/patch/delete on raw JSON objects).
 * Failures are `ApiError`s (api-error.ts) with `is*` helpers; `RestMapper` (rest-mapper.ts)
 * resolves names like `deployments.apps` / `deploy` / `Deployment` through discovery.
 * Requests go through an undici connection pool per cluster (http-transport.ts, cluster-pool.ts)
 * with keep-alive, deadlines and a token-bucket rate limit per cluster.
 */
export {
  ApiError,
  ConfigError,
  KubeFedClientError,
  describeRequest,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isMethodNotAllowed,
  isNetworkError,
  isNotFound,
  isResponseTooLarge,
  isServerError,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
} from './api-error.js';
export type { ApiErrorReason, KubeStatus, RequestDescription, StatusCause } from './api-error.js';
export type { TlsSettings } from './cluster-pool.js';
export { connectionFromKubeFedCluster, parseApiEndpoint, tlsValidationSettings } from './cluster-config.js';
export type { KubeFedClusterInput, SecretInput } from './cluster-config.js';
export {
  CLUSTER_CONNECTION_ANNOTATION,
  CLUSTER_NAME_ANNOTATION,
  connectionDigest,
  SecretNotBoundError,
  memberClientFromHost,
  memberClientFromSecret,
  secretBindingProblem,
} from './cluster-config-secret-binding.js';
export type { BoundSecretInput, SecretBindingProblem } from './cluster-config-secret-binding.js';
export { HttpDiscovery, StaticDiscovery } from './discovery.js';
export type { ApiGroup, ApiResource, DiscoveryDocument, DiscoverySource, RawRequester } from './discovery.js';
export { DynamicClient } from './dynamic-client.js';
export type { ClientOptions } from './dynamic-client.js';
export { HttpTransport } from './http-transport.js';
export type { ClusterConnection, TransportOptions, TransportRequest, TransportResponse } from './http-transport.js';
export { Kubeconfig, kubeconfigPaths } from './kubeconfig.js';
export type { InClusterOptions, KubeconfigContext } from './kubeconfig.js';
export { TokenBucketRateLimiter } from './rate-limiter.js';
export type { RateLimiterOptions } from './rate-limiter.js';
export { systemClock, sleep, type Clock, type TimerHandle } from './clock.js';
export { collectionPath, getOrUndefined, qualifiedResource } from './resource-client.js';
export { jsonEqual } from './json-equal.js';
export { addFinalizer, isDeleting, removeFinalizer } from './finalizers.js';
export { redactCredentials } from './redact-credentials.js';
export { NoMatchError, RestMapper } from './rest-mapper.js';
export type { ResourceMapping, RestMapperOptions } from './rest-mapper.js';
export type {
  DeleteOptions,
  GroupVersionKind,
  GroupVersionResource,
  KubeList,
  KubeObject,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceClient,
  WatchEvent,
  WatchEventType,
  WatchOptions,
  WriteOptions,
} from './types.js';
export {
  JOIN_SERVICE_ACCOUNT_ANNOTATION,
  MIN_TOKEN_LIFETIME_SECONDS,
  TOKEN_EXPIRATION_ANNOTATION,
  TOKEN_LIFETIME_ANNOTATION,
  issuedTokenPatch,
  requestMemberToken,
  shortLivedTokenOf,
  tokenAnnotations,
  tokenRenewalDue,
  type IssuedToken,
  type ShortLivedToken,
} from './member-token.js';
