/**
 * @kubefed/queue: the cross-cluster sync job queues on Redis (BullMQ). Controllers enqueue
 * keys (never object copies) with a `JobProducer`; sync workers run them in a
 * `SyncWorkerHost`, one BullMQ queue and worker per member cluster (`kubefed-sync.<cluster>`),
 * so a slow member never delays the others. Jobs are deduplicated per (type, object, cluster),
 * retried with exponential backoff and jitter, and a `PermanentSyncError` fails a job for good.
 * This is the only package (besides `testing`) that imports `bullmq` and `ioredis`.
 *
 * Start reading at `sync-request.ts` (one federated object in one member cluster, and every
 * string form of it: informer key, deduplication id, object id, description) and `sync-job.ts`
 * (the payload: a request and a kind), then
 * `bullmq-job-producer.ts` and `sync-worker-host.ts` (both open their BullMQ queues through
 * `sync-queue.ts`); `redis-connection.ts` opens connections to the URL forms of `redis-url.ts`
 * (one server, Sentinel, Cluster; TLS).
 */
export { syncQueueName, syncQueuePrefix, clusterOfSyncQueue, assertClusterName } from './queue-name.js';
export {
  syncRequestSchema,
  federatedObjectRef,
  syncRequest,
  objectKeyOf,
  federatedObjectId,
  syncRequestId,
  describeSyncRequest,
  type FederatedObjectRef,
  type SyncRequest,
} from './sync-request.js';
export { syncJobSchema, parseSyncJob, syncJob, describeSyncJob, type SyncJob } from './sync-job.js';
export { QueueError, RedisConnectionError, PermanentSyncError } from './queue-error.js';
export { silentLogger, type QueueLogger } from './logger.js';
export {
  createRedisConnection,
  pingRedis,
  reconnectDelayMs,
  bullPrefix,
  syncQueueBullPrefix,
  isClusterConnection,
  type RedisConnection,
  type RedisConnectionOptions,
} from './redis-connection.js';
export { parseRedisUrl, redactRedisUrl, redisUrlSchemes, type RedisTarget, type RedisAddress, type RedisTlsFiles } from './redis-url.js';
export type { EnqueueOptions, JobProducer, QueueCounts } from './job-producer.js';
export { BullMqJobProducer, type BullMqJobProducerOptions, type RetryPolicy, type RetentionPolicy } from './bullmq-job-producer.js';
export {
  SyncWorkerHost,
  type SyncWorkerHostOptions,
  type SyncProcessor,
  type SyncJobContext,
  type ClusterWorkerSettings,
  type FailedJobInfo,
  type RemoveClusterOptions,
  type SyncJobTiming,
} from './sync-worker-host.js';
export { InMemoryJobProducer } from './in-memory-job-producer.js';
export {
  syncOutcomeSchema,
  syncOutcomeStreamKey,
  SyncOutcomePublisher,
  SyncOutcomeSubscriber,
  type DroppedOutcomeReason,
  type SyncOutcome,
  type SyncOutcomeStreamOptions,
} from './sync-outcome-stream.js';
