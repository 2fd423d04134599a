import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { LEADER_ELECTION_LOCK_NAME, RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig } from '@kubefed/client';
import {
  ClusterHealthTracker,
  KubeFedConfigSource,
  registerKubeFedClusterController,
  registerKubeFedConfigController,
  type HealthCheckSettingsSource,
} from '@kubefed/controllers';
import { Manager, type Logger, type ManagerAddresses } from '@kubefed/runtime';
import { redactUrl, type ControllerManagerConfig } from './config.js';

const LEASES = RESOURCES.leases;

/** Options of {@link runControllerManager}. */
export interface RunControllerManagerOptions {
  /** Aborting stops the controllers, releases the Lease and resolves. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** Leader-election identity; default `<hostname>_<uuid>` (KubeFed's). */
  readonly identity?: string;
  /** Called once the health and metrics servers listen. */
  readonly onServing?: (addresses: ManagerAddresses) => void;
}

/** The leader-election identity KubeFed uses: `<hostname>_<uuid>`. */
export function leaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** The host cluster client from the configured kubeconfig (or in-cluster service account). */
export function hostClient(config: ControllerManagerConfig): DynamicClient {
  const kc = config.host.kind === 'inCluster' ? Kubeconfig.inCluster({ host: config.host.host, port: config.host.port }) : Kubeconfig.fromFiles(config.host.paths);
  return DynamicClient.fromKubeconfig(kc, { context: config.context, userAgent: 'kubefed-controller-manager' });
}

/**
 * Runs the controller manager until `options.signal` aborts (resolves after a graceful stop:
 * controllers stopped, Lease released, servers closed) or something fails (rejects: a runnable
 * failed, caches did not sync, leadership was lost).
 *
 * Modes: `all` and `controllers` run the KubeFedConfig handling and the cluster health
 * controller; sync workers do not exist yet, so `workers` runs only the health and metrics
 * servers and says so in the log.
 */
export async function runControllerManager(config: ControllerManagerConfig, options: RunControllerManagerOptions): Promise<void> {
  const logger = options.logger;
  const namespace = config.kubefedNamespace;
  using host = hostClient(config);
  const identity = options.identity ?? leaderIdentity();
  const manager = new Manager({
    logger,
    healthAddress: config.healthAddr,
    metricsAddress: config.metricsAddr,
    // Workers (when they exist) run on every replica: only controllers need the Lease.
    ...(config.leaderElect && config.mode !== 'workers'
      ? {
          leaderElection: {
            leases: host.resource(LEASES, namespace),
            name: LEADER_ELECTION_LOCK_NAME,
            namespace,
            identity,
            leaseDurationMs: config.leaseDurationMs,
            renewDeadlineMs: config.renewDeadlineMs,
            retryPeriodMs: config.retryPeriodMs,
          },
        }
      : {}),
  });
  logger.info(
    { mode: config.mode, namespace, server: host.server, leaderElect: config.leaderElect, identity, redisUrl: redactUrl(config.redisUrl) },
    'starting kubefed-controller-manager',
  );

  if (config.mode === 'all' || config.mode === 'controllers') {
    const source = new KubeFedConfigSource(namespace);
    registerKubeFedConfigController(manager, { host, namespace, source, defaultScope: config.defaultScope });
    const settings: HealthCheckSettingsSource = {
      current: () => source.current().clusterHealthCheck,
      onChange: (listener) => source.onChange(() => listener()),
    };
    registerKubeFedClusterController(manager, { host, namespace, settings, tracker: new ClusterHealthTracker() });
    logger.info('Starting cluster controller');
  }
  if (config.mode === 'workers' || config.mode === 'all') {
    logger.warn({ mode: config.mode }, 'sync workers are not implemented yet: no sync worker runs in this process');
  }

  void manager.serving().then((addresses) => options.onServing?.(addresses));
  await manager.start(options.signal);
}
