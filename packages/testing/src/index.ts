/**
 * @kubefed/testing: private helpers for integration and end-to-end tests. It starts the real
 * parts a test needs and stops them again: a Redis server (`startRedis`: the one at REDIS_URL,
 * else a private `redis-server`), simulated Kubernetes clusters with a kubeconfig
 * (`startSimClusters`), real ones built from Go modules (`startRealClusters`), KubeFed v0.10.0
 * itself as the reference (`startKubeFed` on such a host, `askKubeFedVersionOracle` for its
 * version-tracking hashes), a whole local federation of processes on either
 * (`startLocalFederation`, substrate from `KUBEFED_TEST_SUBSTRATE`, the host joined as a member
 * too with `KUBEFED_E2E_HOST_AS_MEMBER=1`; `useLocalFederation` of
 * `@kubefed/testing/vitest` for a test file), a host and members inside
 * the test process joined by hand (`startInProcessFederation`, `joinMember`), plus
 * polling (`eventually`, `consistently`, the suites' poll policy `POLL`) and unique names.
 *
 * Start reading at `start-redis.ts`, then `start-sim-clusters.ts`, `local-federation.ts` and
 * `local-clusters.ts`. Everything returned is
 * `AsyncDisposable`: acquire it with `await using` or stop it in `afterEach`.
 */
export { startRedis, answersPing, defaultRedisUrl, type RedisHandle, type StartRedisOptions } from './start-redis.js';
export { startSimClusters, type SimClusters, type StartSimClustersOptions } from './start-sim-clusters.js';
export { eventually, consistently, type EventuallyOptions, type ConsistentlyOptions } from './eventually.js';
export { POLL } from './poll.js';
export { uniqueName } from './unique-name.js';
export { TestingError, RedisStartError, EventuallyTimeoutError, ConsistentlyError } from './testing-error.js';
export {
  startInProcessFederation,
  clientFor,
  createNamespace,
  joinMember,
  registerCluster,
  kubeFedClusterCondition,
  type InProcessFederation,
  type InProcessFederationOptions,
  type JoinMemberOptions,
} from './in-process-federation.js';
export {
  startLocalFederation,
  hostAsMemberFromEnvironment,
  HOST_AS_MEMBER_ENV,
  DEFAULT_REGIONS,
  type LocalFederation,
  type LocalFederationOptions,
} from './local-federation.js';
export {
  startLocalClusters,
  substrateFromEnvironment,
  SUBSTRATE_ENV,
  type LocalClusters,
  type LocalClustersSpec,
  type Substrate,
} from './local-clusters.js';
export { parseSimProcesses, type SimProcesses } from './sim-processes.js';
export { ManagedProcess, runSourceEntry, sourceEntry, REPO_ROOT, type CommandResult } from './managed-process.js';
export {
  startRealClusters,
  type RealCluster,
  type RealClusterProcess,
  type RealClusters,
  type StartRealClustersOptions,
} from './real-clusters/start-real-clusters.js';
export { findKubeBinaries, type KubeBinaries } from './real-clusters/kube-binaries.js';
export { RealClusterStartError } from './real-clusters/real-cluster-error.js';
export { startKubeFed, type KubeFed, type StartKubeFedOptions } from './kubefed/start-kubefed.js';
export { findKubeFedBinaries, type KubeFedBinaries } from './kubefed/kubefed-binaries.js';
export {
  askKubeFedVersionOracle,
  type FederatedVersionAnswer,
  type MemberVersionAnswer,
  type VersionOracleAnswer,
  type VersionOracleQuestion,
  type VersionOracleRefusal,
} from './kubefed/kubefed-version-oracle.js';
export { KubeFedStartError } from './kubefed/kubefed-start-error.js';
