import {
  type Condition,
  defaultFederatedTypeConfig,
  FEDERATED_TYPE_CONFIG_FINALIZER,
  NAMESPACE_TYPE_NAME,
  type FederatedTypeConfig,
  type FederatedTypeConfigStatus,
  parseFederatedTypeConfig,
  RESOURCES,
} from '@kubefed/api';
import {
  addFinalizer,
  type DynamicClient,
  type GroupVersionResource,
  HttpDiscovery,
  isDeleting,
  isNotFound,
  jsonEqual,
  type KubeObject,
  removeFinalizer,
  type ResourceClient,
} from '@kubefed/client';
import {
  type Clock,
  done,
  type Reader,
  type ReconcileContext,
  type ReconcileOutcome,
  type Reconciler,
  requeueAfter,
  type Runnable,
  splitKey,
  systemClock,
  terminal,
} from '@kubefed/runtime';
import { namespacesFtcIn, needsFederatedNamespaces, syncTypeOf, type SyncType } from '../sync/sync-type.js';
import { serviceStatusTypeOf } from '../service-status/service-status-type.js';
import type { StatusControllers } from '../service-status/status-controllers.js';
import { federatedTypeProblem } from './federated-type-problem.js';

/** The `Ready` condition of an FTC whose sync controller runs. */
const TYPES_SERVED = { status: 'True', reason: 'TypesServed', message: 'the host serves the target and federated types' } as const;

/** How often an FTC whose types are not served is checked again. */
const TYPE_RECHECK_MS = 10_000;

/** The `Ready` condition with `next`'s status, reason and message; the transition time moves only when the status or reason changes. */
function readyCondition(previous: Condition | undefined, next: Omit<Condition, 'type' | 'lastTransitionTime'>): Condition {
  const unchanged = previous !== undefined && previous.status === next.status && previous.reason === next.reason;
  return {
    type: 'Ready',
    ...next,
    lastTransitionTime: unchanged ? previous.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

/** The FederatedTypeConfig resource. */
export const FEDERATED_TYPE_CONFIG_GVR: GroupVersionResource = RESOURCES.federatedTypeConfigs;

/** Options of {@link FederatedTypeConfigReconciler}. */
export interface FederatedTypeConfigReconcilerOptions<R extends Runnable = Runnable> {
  readonly host: DynamicClient;
  /** The FTC informer cache. */
  readonly ftcs: Reader<KubeObject>;
  /** Builds the sync controller runnable of one type. */
  readonly syncController: (type: SyncType, ftc: FederatedTypeConfig) => R;
  /** Reports a child that failed (it is restarted with backoff: 1 s doubling to 60 s, reset by a new FTC generation). */
  readonly onChildError?: ((name: string, err: unknown) => void) | undefined;
  /** Enqueues an FTC key again (the controller's queue), so that a failed child is reported and restarted. Default none. */
  readonly requeue?: ((key: string) => void) | undefined;
  readonly clock?: Clock | undefined;
  /** The KubeFedConfig feature gate `PushReconciler`: false pauses every sync controller (nothing in members is touched). Default always true. */
  readonly pushReconciler?: (() => boolean) | undefined;
  /** Scope of the control plane; default `Cluster`. A Namespaced one never syncs cluster-scoped targets (nor Namespaces). */
  readonly scope?: 'Cluster' | 'Namespaced' | undefined;
  /** Runs the status controller of the `services` FTC (FederatedServiceStatus); default none (`statusController` always `NotRunning`). Closed with the reconciler. */
  readonly statusControllers?: StatusControllers | undefined;
  /** The KubeFedConfig feature gate `RawResourceStatusCollection`: true runs no status controller. Default always false. */
  readonly rawResourceStatusCollection?: (() => boolean) | undefined;
}

/** The last failure of a child, for its restart backoff. */
interface Failure {
  readonly count: number;
  readonly atMs: number;
  readonly generation: number | undefined;
  readonly message: string;
}

/** Delay before restarting a child after its `count`-th failure in a row. */
const restartDelayMs = (count: number): number => Math.min(1000 * 2 ** Math.min(count - 1, 6), 60_000);

interface Child<R extends Runnable> {
  readonly type: SyncType;
  readonly runnable: R;
  readonly generation: number | undefined;
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

/**
 * The FederatedTypeConfig controller (docs/kubefed-compatibility.md §4.3): for each FTC in the kubefed
 * namespace with propagation `Enabled`, runs a sync controller (a child runnable with its own
 * AbortController), restarts it when the FTC's generation changes and stops it when
 * propagation is disabled or the FTC is deleted (finalizer
 * `core.kubefed.io/federated-type-config`). Writes status `{observedGeneration,
 * propagationController, statusController}`. Never deletes anything in members.
 *
 * In a Namespaced control plane an FTC whose target is cluster-scoped (this includes
 * `namespaces`) starts nothing and reports `NotRunning` (KubeFed
 * `pkg/controller/federatedtypeconfig/controller.go`).
 *
 * The sync controller of a namespaced type starts only while the `namespaces` FTC exists (its
 * federated type is the FederatedNamespace type that limits placement), is stopped when that FTC
 * goes and restarted when its federated type changes; a change of the `namespaces` FTC
 * reconciles every other FTC again (KubeFed's `reconcileOnNamespaceFTCUpdate`).
 *
 * The status controller of the `services` FTC (docs/kubefed-compatibility.md §4.5) runs while that
 * FTC has a `statusType` and `statusCollection: Enabled`, the gate `RawResourceStatusCollection`
 * is off and propagation is not paused; it is restarted when its type changes.
 */
export class FederatedTypeConfigReconciler<R extends Runnable = Runnable> implements Reconciler {
  readonly #o: FederatedTypeConfigReconcilerOptions<R>;
  readonly #children = new Map<string, Child<R>>();
  /** FTCs skipped for the scope (logged once each). */
  readonly #skipped = new Set<string>();
  /** Children that failed, by FTC name. */
  readonly #failures = new Map<string, Failure>();

  readonly #clock: Clock;

  constructor(options: FederatedTypeConfigReconcilerOptions<R>) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** The sync type of a running sync controller, by FTC name. */
  syncType(name: string): SyncType | undefined {
    return this.#children.get(name)?.type;
  }

  /** The running sync controller runnable of an FTC, by name. */
  syncRunnable(name: string): R | undefined {
    return this.#children.get(name)?.runnable;
  }

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileOutcome> {
    const { namespace, name } = splitKey(key);
    // The FederatedNamespace type of every namespaced type follows the namespaces FTC.
    if (name === NAMESPACE_TYPE_NAME) this.#requeueOthers(key);
    const raw = this.#o.ftcs.get(key);
    if (raw === undefined) {
      await this.#stop(name);
      await this.#o.statusControllers?.stop(name);
      return done();
    }
    const client = this.#o.host.resource(FEDERATED_TYPE_CONFIG_GVR, namespace);
    let ftc: FederatedTypeConfig;
    try {
      ftc = defaultFederatedTypeConfig(parseFederatedTypeConfig(raw));
    } catch (err) {
      return this.#refuse(raw, client, err instanceof Error ? err.message : String(err));
    }
    const problem = federatedTypeProblem(ftc.spec);
    if (problem !== undefined) return this.#refuse(raw, client, problem);
    if (isDeleting(raw)) {
      await this.#stop(name);
      await this.#o.statusControllers?.stop(name);
      await removeFinalizer(client, raw, FEDERATED_TYPE_CONFIG_FINALIZER);
      return done();
    }
    const current = await addFinalizer(client, raw, FEDERATED_TYPE_CONFIG_FINALIZER);
    const running = this.#children.get(name);
    const limited = this.#o.scope === 'Namespaced' && ftc.spec.targetType.scope === 'Cluster';
    if (limited && !this.#skipped.has(name)) {
      this.#skipped.add(name);
      ctx.logger.info({ name }, 'skipping the sync controller of a cluster-scoped type: not required for a Namespaced control plane');
    }
    const paused = this.#o.pushReconciler?.() === false;
    const enabled = ftc.spec.propagation === 'Enabled' && !limited && !paused;
    const previous = (current.status as FederatedTypeConfigStatus | undefined)?.conditions;
    let ready: Condition | undefined = previous?.find((c) => c.type === 'Ready');
    const failure = this.#failures.get(name);
    if (failure !== undefined && failure.generation !== ftc.metadata.generation) this.#failures.delete(name);
    const waitMs = failure === undefined ? 0 : failure.atMs + restartDelayMs(failure.count) - this.#clock.now();
    if (!enabled) {
      await this.#stop(name);
      if (paused)
        ready = readyCondition(ready, {
          status: 'False',
          reason: 'PushReconcilerDisabled',
          message: 'the KubeFedConfig feature gate PushReconciler is disabled: propagation is paused',
        });
    } else if (failure !== undefined && waitMs > 0 && running === undefined) {
      ready = readyCondition(ready, {
        status: 'False',
        reason: 'SyncControllerFailed',
        message: `the sync controller failed ${failure.count} time(s), restarting in ${Math.ceil(waitMs / 1000)}s: ${failure.message}`,
      });
    } else if (needsFederatedNamespaces(ftc) && namespacesFtcIn(this.#o.ftcs, namespace ?? '') === undefined) {
      await this.#stop(name);
      ready = readyCondition(ready, {
        status: 'False',
        reason: 'NamespacesNotEnabled',
        message: `the sync controller of a namespaced type starts once the FederatedTypeConfig "${NAMESPACE_TYPE_NAME}" exists in ${namespace ?? ''} (its federated type is the FederatedNamespace type)`,
      });
    } else if (running === undefined || running.generation !== ftc.metadata.generation || !sameType(running.type, this.#typeOf(ftc))) {
      await this.#stop(name);
      const missing = await this.#missingType(ftc);
      ready = readyCondition(ready, missing ?? TYPES_SERVED);
      if (missing === undefined) this.#start(key, ftc);
    } else if (ready?.status !== 'True') {
      // Running: a False condition read from a cache that has not seen our last status write is stale.
      ready = readyCondition(ready, TYPES_SERVED);
    }
    // KubeFed runs no FTC controller, hence no status controller, while PushReconciler is off.
    const statusType = paused || this.#o.rawResourceStatusCollection?.() === true ? undefined : serviceStatusTypeOf(ftc);
    const statusRunning = (await this.#o.statusControllers?.ensure(key, statusType)) ?? false;
    const status: FederatedTypeConfigStatus = {
      observedGeneration: ftc.metadata.generation ?? 0,
      propagationController: this.#children.has(name) ? 'Running' : 'NotRunning',
      statusController: statusRunning ? 'Running' : 'NotRunning',
      ...(ready === undefined ? {} : { conditions: [...(previous ?? []).filter((c) => c.type !== 'Ready'), ready] }),
    };
    if (!jsonEqual(current.status ?? {}, status)) {
      // A merge patch of the status subresource: no conflict with a cache that lags our own writes.
      await client.patch(name, { status }, 'merge', { subresource: 'status' });
    }
    if (!enabled || this.#children.has(name)) return done();
    // A failed child waits out its backoff; a type that is not served yet is looked at again.
    return requeueAfter(waitMs > 0 ? waitMs : TYPE_RECHECK_MS);
  }

  /** The sync type of `ftc`, with the FederatedNamespace type of the `namespaces` FTC for a namespaced target. */
  #typeOf(ftc: FederatedTypeConfig): SyncType {
    return syncTypeOf(ftc, namespacesFtcIn(this.#o.ftcs, ftc.metadata.namespace ?? ''));
  }

  /** Enqueues every FTC other than `key` again. */
  #requeueOthers(key: string): void {
    for (const other of this.#o.ftcs.keys()) if (other !== key) this.#o.requeue?.(other);
  }

  /**
   * An FTC that is invalid (KubeFed's validation) or names a type that is not a federated type
   * ({@link federatedTypeProblem}): its sync controller is stopped (or never started) and the
   * status says why (`Ready` False `InvalidSpec`, propagationController `NotRunning`). Terminal:
   * the next change of the FTC is looked at again. While it is being deleted its finalizer goes.
   */
  async #refuse(raw: KubeObject, client: ResourceClient, message: string): Promise<ReconcileOutcome> {
    const name = raw.metadata.name ?? '';
    await this.#stop(name);
    await this.#o.statusControllers?.stop(name);
    if (isDeleting(raw)) {
      await removeFinalizer(client, raw, FEDERATED_TYPE_CONFIG_FINALIZER);
      return done();
    }
    const current = raw.status as FederatedTypeConfigStatus | undefined;
    const previous = current?.conditions ?? [];
    const ready = readyCondition(
      previous.find((c) => c.type === 'Ready'),
      { status: 'False', reason: 'InvalidSpec', message },
    );
    const status: FederatedTypeConfigStatus = {
      observedGeneration: raw.metadata.generation ?? 0,
      propagationController: 'NotRunning',
      statusController: 'NotRunning',
      conditions: [...previous.filter((c) => c.type !== 'Ready'), ready],
    };
    if (!jsonEqual(current ?? {}, status)) await client.patch(name, { status }, 'merge', { subresource: 'status' });
    return terminal(new Error(message));
  }

  /** Stops every sync and status controller; resolves when all have stopped. */
  async close(): Promise<void> {
    await Promise.all([...this.#children.keys()].map((n) => this.#stop(n)));
    await this.#o.statusControllers?.close();
  }

  /** Why the host cannot serve the FTC's types (reason and message naming the type), or undefined when it serves both. */
  async #missingType(ftc: FederatedTypeConfig): Promise<Omit<Condition, 'type' | 'lastTransitionTime'> | undefined> {
    const discovery = new HttpDiscovery(this.#o.host);
    const types = [
      ['TargetTypeNotFound', 'spec.targetType', ftc.spec.targetType],
      ['FederatedTypeNotFound', 'spec.federatedType', ftc.spec.federatedType],
    ] as const;
    for (const [reason, field, type] of types) {
      const group = type.group ?? '';
      let served: boolean;
      try {
        served = (await discovery.serverResources(group, type.version)).some((r) => r.name === type.pluralName);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        served = false;
      }
      const gvr = `${type.pluralName}${group === '' ? '' : `.${group}`}/${type.version}`;
      if (!served)
        return {
          status: 'False',
          reason,
          message: `${field}: the host API server does not serve ${gvr} (kind ${type.kind}); the sync controller starts once it does`,
        };
    }
    return undefined;
  }

  #start(key: string, ftc: FederatedTypeConfig): void {
    const { name } = splitKey(key);
    const type = this.#typeOf(ftc);
    const runnable = this.#o.syncController(type, ftc);
    const abort = new AbortController();
    const run = runnable.start(abort.signal).then(
      () => {
        // A child that returns without being stopped has stopped working all the same.
        if (!abort.signal.aborted) this.#failed(key, ftc, new Error('the sync controller stopped by itself'));
      },
      (err: unknown) => {
        if (!abort.signal.aborted) this.#failed(key, ftc, err);
      },
    );
    this.#children.set(name, { type, runnable, generation: ftc.metadata.generation, abort, done: run });
  }

  /** Forgets a failed child, remembers the failure for the restart backoff and reports it. */
  #failed(key: string, ftc: FederatedTypeConfig, err: unknown): void {
    const { name } = splitKey(key);
    this.#children.delete(name);
    const previous = this.#failures.get(name);
    const count = previous !== undefined && previous.generation === ftc.metadata.generation ? previous.count + 1 : 1;
    const message = err instanceof Error ? err.message : String(err);
    this.#failures.set(name, { count, atMs: this.#clock.now(), generation: ftc.metadata.generation, message });
    this.#o.onChildError?.(name, err);
    this.#o.requeue?.(key);
  }

  async #stop(name: string): Promise<void> {
    const child = this.#children.get(name);
    if (child === undefined) return;
    this.#children.delete(name);
    child.abort.abort();
    await child.done;
  }
}

/** Two sync types start the same sync controller (an FTC's generation aside): only the FederatedNamespace type can differ. */
function sameType(a: SyncType, b: SyncType): boolean {
  return jsonEqual(a.federatedNamespaceGvr ?? null, b.federatedNamespaceGvr ?? null);
}
