import type { QueueCounts } from '@kubefed/queue';
import type { GaugeSample, Logger, RuntimeMetrics } from '@kubefed/runtime';
import { kubeFedMetrics } from './kubefed-metrics.js';

/** Name of the gauge {@link registerSyncQueueMetrics} exports. */
const SYNC_QUEUE_JOBS = 'kubefed_sync_queue_jobs';

/** The states of a sync queue's jobs that the gauge reports. */
const SYNC_QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** Options of {@link registerSyncQueueMetrics}. */
export interface SyncQueueMetricsOptions {
  /** Reads a queue's counts: the controllers' `BullMqJobProducer` (its queues, under the process's `--queue-prefix`). */
  readonly producer: { counts(cluster: string): Promise<QueueCounts> };
  /** The member clusters whose queues are read: the KubeFedClusters this process sees. */
  readonly clusters: () => readonly string[];
  readonly logger: Logger;
}

/**
 * Registers `kubefed_sync_queue_jobs{cluster,state}`: the jobs of each member's sync queue
 * (`kubefed-sync.<cluster>`) that are waiting, active, delayed (retry backoff) or failed, read
 * from Redis when the metrics are scraped (nothing is polled between scrapes). A queue that
 * cannot be read is logged and left out of that scrape. Registers KubeFed's metric names of the
 * controllers too ({@link kubeFedMetrics}). See docs/operations.md, Metrics.
 */
export function registerSyncQueueMetrics(metrics: RuntimeMetrics, options: SyncQueueMetricsOptions): void {
  kubeFedMetrics(metrics);
  metrics.collectedGauge({
    name: SYNC_QUEUE_JOBS,
    help: 'Jobs in the sync queue of a member cluster by state (waiting, active, delayed, failed), read from Redis on scrape.',
    labelNames: ['cluster', 'state'],
    read: async () => {
      const perCluster = await Promise.all(
        [...new Set(options.clusters())].map(async (cluster): Promise<GaugeSample[]> => {
          try {
            const counts = await options.producer.counts(cluster);
            return SYNC_QUEUE_STATES.map((state) => ({ labels: { cluster, state }, value: counts[state] }));
          } catch (err) {
            options.logger.warn({ err, cluster }, 'cannot read the sync queue counts for the metrics');
            return [];
          }
        }),
      );
      return perCluster.flat();
    },
  });
}
