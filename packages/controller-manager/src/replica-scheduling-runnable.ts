import type { DynamicClient, KubeObject } from '@kubefed/client';
import { DEFAULT_SCHEDULING_TARGETS, registerReplicaSchedulingController, type ReadyClusterSource, type SchedulingTarget } from '@kubefed/controllers';
import { type Informer, type Logger, Manager, type Runnable, type RuntimeMetrics } from '@kubefed/runtime';

/** Options of {@link replicaSchedulingRunnable}. */
export interface ReplicaSchedulingRunnableOptions {
  readonly host: DynamicClient;
  readonly namespace: string;
  readonly scope: 'Cluster' | 'Namespaced';
  readonly clusters: ReadyClusterSource;
  /** The FederatedTypeConfig informer (its events decide which kinds can be scheduled). */
  readonly ftcs: Informer<KubeObject>;
  /** The `SchedulerPreferences` feature gate of the KubeFedConfig, read at every change. */
  readonly enabled: () => boolean;
  /** Subscribes to KubeFedConfig changes; returns the unsubscribe function. */
  readonly onConfigChange: (listener: () => void) => () => void;
  readonly logger: Logger;
  /** Where the controller reports (the process's metrics); default a registry nobody serves. */
  readonly metrics?: RuntimeMetrics | undefined;
  /** Pause before looking again when a federated type is not served yet; default 5 s. */
  readonly retryMs?: number;
}

interface FtcView {
  spec?: { federatedType?: { group?: string; version?: string; pluralName?: string }; propagation?: string };
}

/** The scheduling targets whose federated type has an FTC with propagation Enabled. */
function enabledTargets(ftcs: readonly KubeObject[]): Map<string, SchedulingTarget> {
  const out = new Map<string, SchedulingTarget>();
  for (const [kind, target] of Object.entries(DEFAULT_SCHEDULING_TARGETS)) {
    const found = ftcs.some((raw) => {
      const spec = (raw as FtcView).spec;
      const f = spec?.federatedType;
      return (spec?.propagation ?? 'Enabled') === 'Enabled' && f?.pluralName === target.federated.resource && (f.group ?? '') === target.federated.group && f.version === target.federated.version;
    });
    if (found) out.set(kind, target);
  }
  return out;
}

/**
 * The ReplicaSchedulingPreference controller as KubeFed's scheduling manager runs it (leader
 * only): only while the `SchedulerPreferences` gate is on, and only for the schedulable kinds
 * (FederatedDeployment, FederatedReplicaSet) whose FederatedTypeConfig is enabled and whose
 * federated type the host serves. It runs in a manager of its own, restarted when that set
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
        const wanted = options.enabled() ? enabledTargets(options.ftcs.store.list()) : new Map<string, SchedulingTarget>();
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
        const key = [...served.keys()].sort().join(',');
        if (key === (running?.key ?? '') || signal.aborted) return;
        await stopRunning();
        if (key === '') return;
        const abort = new AbortController();
        const manager = new Manager({ logger, healthAddress: null, metricsAddress: null, ...(options.metrics === undefined ? {} : { metrics: options.metrics }) });
        registerReplicaSchedulingController(manager, {
          host: options.host,
          kubefedNamespace: options.namespace,
          targetNamespace: options.scope === 'Namespaced' ? options.namespace : '',
          clusters: options.clusters,
          targets: Object.fromEntries(served),
        });
        logger.info({ kinds: key }, 'starting the replica scheduling controller');
        const done = manager.start(abort.signal).catch((err: unknown) => logger.error({ err }, 'the replica scheduling controller failed'));
        running = { key, abort, done };
      };
      const schedule = (): Promise<void> => (evaluating = evaluating.then(evaluate, evaluate));
      const offFtc = options.ftcs.addEventHandler({ onAdd: () => void schedule(), onUpdate: () => void schedule(), onDelete: () => void schedule() });
      const offConfig = options.onConfigChange(() => void schedule());
      await schedule();
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      offFtc();
      offConfig();
      clearTimeout(retry);
      await evaluating;
      await stopRunning();
    },
  };
}
