import type { DynamicClient, KubeObject } from '@kubefed/client';
import {
  federatedNamespaceResourceOf,
  registerReplicaSchedulingController,
  schedulingTargetsOf,
  type ClusterChangeDelays,
  type ReadyClusterSource,
  type SchedulingTarget,
} from '@kubefed/controllers';
import {
  type Informer,
  type Logger,
  Manager,
  type Runnable,
  type RuntimeMetrics,
  type SharedInformers,
  untilAborted,
} from '@kubefed/runtime';

/** Options of {@link replicaSchedulingRunnable}. */
export interface ReplicaSchedulingRunnableOptions {
  readonly host: DynamicClient;
  /** The process's shared host informers (`manager.sharedInformers(host)`), which the controller's manager holds its informers from. */
  readonly informers: SharedInformers;
  readonly namespace: string;
  readonly scope: 'Cluster' | 'Namespaced';
  readonly clusters: ReadyClusterSource;
  /** Resolves once the readiness of every registered member cluster is known; the controller's first reconcile waits for it. */
  readonly clustersKnown?: (signal: AbortSignal) => Promise<void>;
  /** The FederatedTypeConfig informer (its events decide which kinds can be scheduled). */
  readonly ftcs: Informer<KubeObject>;
  /** The `SchedulerPreferences` feature gate of the KubeFedConfig, read at every change. */
  readonly enabled: () => boolean;
  /** Subscribes to KubeFedConfig changes; returns the unsubscribe function. */
  readonly onConfigChange: (listener: () => void) => () => void;
  /** `spec.controllerDuration` of the KubeFedConfig (cluster available / unavailable delays), read at every readiness change; default none (at once). */
  readonly clusterChangeDelays?: () => ClusterChangeDelays;
  readonly logger: Logger;
  /** Where the controller reports (the process's metrics); default a registry nobody serves. */
  readonly metrics?: RuntimeMetrics | undefined;
  /** Pause before looking again when a federated type is not served yet; default 5 s. */
  readonly retryMs?: number;
}

/** What identifies a running controller: a change of kinds, their federated types or the FederatedNamespace type restarts it. */
function runKey(served: ReadonlyMap<string, SchedulingTarget>, federatedNamespaces: SchedulingTarget['federated'] | undefined): string {
  if (served.size === 0) return '';
  const id = (g: SchedulingTarget['federated']): string => `${g.resource}.${g.group}/${g.version}`;
  const kinds = [...served].sort(([a], [b]) => a.localeCompare(b)).map(([kind, t]) => `${kind}=${id(t.federated)}`);
  return [...kinds, ...(federatedNamespaces === undefined ? [] : [`namespaces=${id(federatedNamespaces)}`])].join(',');
}

/**
 * The ReplicaSchedulingPreference controller as KubeFed's scheduling manager runs it (leader
 * only): only while the `SchedulerPreferences` gate is on, and only for the schedulable kinds
 * (FederatedDeployment, FederatedReplicaSet) whose FederatedTypeConfig is enabled and whose
 * federated type the host serves, in whatever federated group the FTC names. It runs in a manager of its own, restarted when that set
 * changes, so that a type enabled after start-up (`kubefedctl enable`) is picked up and a
 * missing CRD never blocks the other controllers.
 */
export function replicaSchedulingRunnable(options: ReplicaSchedulingRunnableOptions): Runnable {
  return {
    name: 'replica-scheduling',
    needLeaderElection: true,
    start: async (signal) => {
      const { logger } = options;
      let running: { key: string; abort: AbortController; done: Promise<void> } | undefined;
      let retry: NodeJS.Timeout | undefined;
      let evaluating = Promise.resolve();
      const stopRunning = async (): Promise<void> => {
        const r = running;
        running = undefined;
        if (r === undefined) return;
        r.abort.abort();
        await r.done;
      };
      const evaluate = async (): Promise<void> => {
        clearTimeout(retry);
        const ftcs = options.ftcs.store.list();
        const wanted = new Map(options.enabled() ? Object.entries(schedulingTargetsOf(ftcs)) : []);
        const federatedNamespaces = federatedNamespaceResourceOf(ftcs);
        const served = new Map<string, SchedulingTarget>();
        for (const [kind, target] of wanted) {
          try {
            await options.host.resource(target.federated).list({ limit: 1 });
            served.set(kind, target);
          } catch (err) {
            logger.info({ kind, err }, 'the federated type is not served yet; scheduling it later');
          }
        }
        if (served.size < wanted.size && !signal.aborted) retry = setTimeout(() => void schedule(), options.retryMs ?? 5000);
        const key = runKey(served, federatedNamespaces);
        if (key === (running?.key ?? '') || signal.aborted) return;
        await stopRunning();
        if (key === '') return;
        const abort = new AbortController();
        const manager = new Manager({
          logger,
          healthAddress: null,
          metricsAddress: null,
          ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
        });
        registerReplicaSchedulingController(manager, {
          host: options.host,
          informers: options.informers,
          kubefedNamespace: options.namespace,
          targetNamespace: options.scope === 'Namespaced' ? options.namespace : '',
          clusters: options.clusters,
          ...(options.clustersKnown === undefined ? {} : { clustersKnown: options.clustersKnown }),
          targets: Object.fromEntries(served),
          ...(options.clusterChangeDelays === undefined ? {} : { clusterChangeDelays: options.clusterChangeDelays }),
          ...(federatedNamespaces === undefined ? {} : { federatedNamespaces }),
        });
        logger.info({ kinds: key }, 'starting the replica scheduling controller');
        const done = manager.start(abort.signal).catch((err: unknown) => logger.error({ err }, 'the replica scheduling controller failed'));
        running = { key, abort, done };
      };
      const schedule = (): Promise<void> => (evaluating = evaluating.then(evaluate, evaluate));
      const offFtc = options.ftcs.addEventHandler({
        onAdd: () => void schedule(),
        onUpdate: () => void schedule(),
        onDelete: () => void schedule(),
      });
      const offConfig = options.onConfigChange(() => void schedule());
      await schedule();
      await untilAborted(signal);
      offFtc();
      offConfig();
      clearTimeout(retry);
      await evaluating;
      await stopRunning();
    },
  };
}
