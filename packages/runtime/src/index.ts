/**
 * @kubefed/runtime: the controller runtime every controller of the control plane stands on
 * (modelled on controller-runtime and kube-rs).
 *
 * Start reading at `manager.ts` (owns runnables, health/metrics servers, leader election),
 * then `controller.ts` (informer events → work queue → reconciler outcomes), `informer.ts` /
 * `reflector.ts` (list+watch into a frozen, indexed cache) and `work-queue.ts`; `fleet.ts` owns
 * the member clusters (clients, readiness, shared member informers), and `shared-informers.ts`
 * is the reference-counted informer cache of one cluster (the host's is the manager's), of which
 * `informer-holds.ts` holds one owner's share. Test doubles (a fake clock, in-memory lister-watchers
 * and lease clients, a captured logger) are exported from `@kubefed/runtime/testing`, not from here.
 */
export { systemClock, sleep, type Clock, type TimerHandle } from '@kubefed/client';
export {
  RuntimeError,
  TerminalError,
  CacheSyncTimeoutError,
  LeadershipLostError,
  RunnableFailedError,
  AddressError,
  FleetFullError,
  FleetStoppedError,
  InformersStoppedError,
} from './errors.js';
export {
  objectKey,
  splitKey,
  statusCodeOf,
  type KubeObject,
  type WatchEvent,
  type ListWatchClient,
  type LeaseResourceClient,
} from './kube-types.js';
export {
  listerWatcherFor,
  type ListerWatcher,
  type ListerWatcherListOptions,
  type ListerWatcherWatchOptions,
  type ListWatchFilter,
} from './list-watcher.js';
export {
  ExponentialFailureRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
  type DefaultRateLimiterOptions,
} from './rate-limiter.js';
export { WorkQueue, type WorkQueueOptions, type WorkQueueMetrics, type ShutdownOptions, type AddOptions } from './work-queue.js';
export {
  createLogger,
  silentLogger,
  REDACT_PATHS,
  type Logger,
  type LogFields,
  type LogLevel,
  type LogDestination,
  type CreateLoggerOptions,
} from './logger.js';
export {
  RuntimeMetrics,
  type RuntimeMetricsOptions,
  type ControllerMetrics,
  type InformerMetrics,
  type ReconcileResult,
  type CounterMetric,
  type GaugeMetric,
  type GaugeSample,
  type CollectedGaugeOptions,
  type HistogramMetric,
} from './metrics.js';
export { deepFreeze } from './deep-freeze.js';
export { Store, NAMESPACE_INDEX, LABEL_INDEX, type IndexFunc, type Reader, type ReplaceResult } from './store.js';
export {
  CacheBudget,
  CacheBudgetExceededError,
  DEFAULT_MEMBER_CACHE_BUDGET,
  approximateJsonBytes,
  type BudgetAccount,
  type CacheBudgetLimits,
} from './cache-budget.js';
export { Reflector, WatchError, type ReflectorOptions, type ReflectorSink, type ReflectorBackoff } from './reflector.js';
export { Informer, DeletedFinalStateUnknown, deletedObject, type InformerOptions, type EventHandler } from './informer.js';
export {
  Controller,
  done,
  retry,
  requeueAfter,
  terminal,
  type ControllerOptions,
  type Reconciler,
  type ReconcileContext,
  type ReconcileOutcome,
  type MapToKeys,
  type WatchOptions,
} from './controller.js';
export { isCacheRunnable, untilAborted, type Runnable, type CacheRunnable } from './runnable.js';
export { parseAddress } from './http-address.js';
export { EventRecorder, type EventRecorderOptions, type EventSink, type ObjectEvent } from './event-recorder.js';
export { BackgroundEventSink, type BackgroundEventSinkOptions } from './background-event-sink.js';
export { Manager, type ManagerOptions, type ManagerAddresses, type ManagerLeaderElectionOptions, type Check } from './manager.js';
export { KubeMetricsAuthorizer, type KubeMetricsAuthorizerOptions, type MetricsAccess, type MetricsAuthorizer } from './metrics-auth.js';
export { LeaderElector, type LeaderElectionOptions, type LeaderElectionEnd } from './leader-election.js';
export {
  AnnotationLock,
  describeLock,
  LEADER_ANNOTATION,
  leaderRecordJson,
  LeaseLock,
  microTime,
  MultiLock,
  newResourceLock,
  UNKNOWN_LEADER,
  type LeaderElectionRecord,
  type LockLocation,
  type LockObjectClient,
  type NewResourceLockOptions,
  type ObservedRecord,
  type ResourceLock,
  type ResourceLockClients,
  type ResourceLockType,
} from './resource-lock.js';
export { Fleet, type FleetEvents, type FleetMember, type FleetOptions, type MemberInformerSpec } from './fleet.js';
export {
  SharedInformers,
  type AcquireOptions,
  type InformerSpec,
  type NamedTransform,
  type SharedInformer,
  type SharedInformersOptions,
  withoutManagedFields,
} from './shared-informers.js';
export { InformerHolds } from './informer-holds.js';
