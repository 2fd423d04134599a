import { DEFAULT_FEDERATED_GROUP, DEFAULT_FEDERATED_VERSION, replicaSchedulingPreferenceSpecSchema, RESOURCES } from '@kubefed/api';
import { isConflict, isNotFound, type DynamicClient, type KubeObject } from '@kubefed/client';
import {
  done,
  requeueAfter,
  retry,
  splitKey,
  systemClock,
  terminal,
  type Clock,
  type Reader,
  type ReconcileContext,
  type ReconcileOutcome,
  type Reconciler,
} from '@kubefed/runtime';
import {
  clustersReplicaState,
  InvalidPlanInputError,
  needsPodAnalysis,
  planReplicas,
  schedulingResult,
  withDefaultClusterPreferences,
  type MemberWorkload,
  type PodLike,
} from '@kubefed/scheduler';
import { computeSelectorPlacement, type PlacementCluster } from '../placement/index.js';
import { InvalidSchedulingPreferenceError, MissingSelectorError } from './errors.js';
import {
  describeResult,
  readSchedulingStatus,
  schedulingStatus,
  schedulingStatusChanged,
  type SchedulingOutcome,
} from './scheduling-status.js';
import { schedulingUpdate, type SchedulableSpec } from './scheduling-update.js';

/** The ReplicaSchedulingPreference resource. */
export const RSP_GVR = RESOURCES.replicaSchedulingPreferences;

type Gvr = { readonly group: string; readonly version: string; readonly resource: string };

/** A federated kind an RSP may drive, and the member kind whose copies are inspected. */
export interface SchedulingTarget {
  /** The federated object's resource, e.g. `types.kubefed.io/v1beta1 federateddeployments`. */
  federated: Gvr;
  /** The member workload's resource, e.g. `apps/v1 deployments`. */
  member: Gvr;
}

/** The targets KubeFed schedules: `FederatedDeployment` and `FederatedReplicaSet` in `types.kubefed.io/v1beta1`. */
export const DEFAULT_SCHEDULING_TARGETS: Readonly<Record<string, SchedulingTarget>> = Object.freeze({
  FederatedDeployment: {
    federated: { group: DEFAULT_FEDERATED_GROUP, version: DEFAULT_FEDERATED_VERSION, resource: 'federateddeployments' },
    member: RESOURCES.deployments,
  },
  FederatedReplicaSet: {
    federated: { group: DEFAULT_FEDERATED_GROUP, version: DEFAULT_FEDERATED_VERSION, resource: 'federatedreplicasets' },
    member: RESOURCES.replicaSets,
  },
});

/** The KubeFedCluster resource (registered member clusters). */
export const KUBEFED_CLUSTERS: Gvr = RESOURCES.kubeFedClusters;
/** KubeFed's FederatedNamespace resource, the default of `federatedNamespaces`. */
export const DEFAULT_FEDERATED_NAMESPACES: Gvr = RESOURCES.federatedNamespaces;
const PODS = RESOURCES.pods;

/** The ready member clusters and their clients (a `Fleet` fits). */
export interface ReadyClusterSource {
  /** Ready clusters by name; the clients stay owned by the source (never closed here). */
  readyClusters(): ReadonlyMap<string, DynamicClient>;
  /** Subscribes to changes of the ready set; returns the unsubscribe function. */
  onChange(listener: (ready: readonly string[]) => void): () => void;
}

/** Options of {@link ReplicaSchedulingPreferenceReconciler}. */
export interface ReplicaSchedulingPreferenceReconcilerOptions {
  /** Client of the host cluster (federated objects, RSP status). */
  host: DynamicClient;
  /** Informer cache of RSPs. */
  preferences: Reader;
  /** Informer cache of the KubeFedClusters in the kubefed namespace (registered clusters, their labels). */
  registeredClusters: Reader;
  /**
   * Informer on the FederatedNamespaces of the watched namespaces (`N/N`), read for
   * `intersectWithClusterSelector`; until it has synced such an RSP is retried with backoff.
   */
  federatedNamespaceCache: { readonly store: Reader; hasSynced(): boolean };
  /** Ready member clusters. */
  clusters: ReadyClusterSource;
  /** Schedulable kinds by `targetKind`; default {@link DEFAULT_SCHEDULING_TARGETS}. */
  targets?: Readonly<Record<string, SchedulingTarget>>;
  /** How often member workloads are looked at again; default 10 s. */
  resyncPeriodMs?: number;
  /** Requeue delay while pods are unschedulable but not yet for 60 s; default 5 s (at most the resync period). */
  recheckPeriodMs?: number;
  /**
   * Whether the RSP CRD has a status subresource. Default true: the CRD in deploy/crds has one.
   * With KubeFed's own CRD (no subresource) pass false: status is then written with a normal update.
   */
  statusSubresource?: boolean;
  /** Default the system clock (pod analysis and condition times). */
  clock?: Clock;
}

interface Rsp extends KubeObject {
  spec?: unknown;
  status?: unknown;
}

/** Writes of one RSP status before a conflict is left to the next reconcile. */
const STATUS_WRITE_ATTEMPTS = 5;

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Converges one ReplicaSchedulingPreference `namespace/name` (docs/kubefed-compatibility.md §4.6.2): plans
 * `spec.totalReplicas` over the ready clusters (intersected with the federated object's selector
 * placement when `intersectWithClusterSelector`), using the member workloads' current replicas
 * and capacity estimates, and writes `spec.placement.clusters` and the `/spec/replicas`
 * overrides of the federated object with the same namespace/name (only when they changed). Then
 * writes the RSP status (`clusters`, a `Scheduled` condition) and asks to run again after the
 * resync period to see the member workloads again. A registered cluster that is placed but not
 * Ready stays placed with 0 replicas, so that its copy is kept through the outage.
 *
 * Failure behaviour: an invalid spec, unknown `targetKind` or invalid plan input → `Scheduled`
 * False and a terminal outcome (not retried until the RSP changes); no ready cluster, no
 * federated object or no matching cluster → `Scheduled` False and nothing written to the
 * federated object; API failures (host reads, the federated object's update) → thrown and
 * retried with backoff. A member that cannot be read counts as running no replicas. A deleted
 * RSP leaves the last placement and overrides in place, as KubeFed does.
 */
export class ReplicaSchedulingPreferenceReconciler implements Reconciler {
  readonly #o: ReplicaSchedulingPreferenceReconcilerOptions;
  readonly #clock: Clock;
  readonly #targets: Readonly<Record<string, SchedulingTarget>>;

  constructor(options: ReplicaSchedulingPreferenceReconcilerOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#targets = options.targets ?? DEFAULT_SCHEDULING_TARGETS;
  }

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileOutcome> {
    const rsp = this.#o.preferences.get(key) as Rsp | undefined;
    if (rsp === undefined) return done();
    const { namespace = '', name } = splitKey(key);
    const resyncMs = this.#o.resyncPeriodMs ?? 10_000;
    const resync = requeueAfter(resyncMs);

    const parsed = replicaSchedulingPreferenceSpecSchema.safeParse(rsp.spec);
    if (!parsed.success) {
      const message = `spec is invalid: ${parsed.error.issues.map((i) => `spec.${i.path.join('.')}: ${i.message}`).join('; ')}`;
      await this.#writeStatus(rsp, { reason: 'InvalidSpec', message }, ctx);
      return terminal(new InvalidSchedulingPreferenceError(`ReplicaSchedulingPreference "${key}": ${message}`));
    }
    const spec = parsed.data;
    const target = Object.hasOwn(this.#targets, spec.targetKind) ? this.#targets[spec.targetKind] : undefined;
    if (target === undefined) {
      const message = `spec.targetKind "${spec.targetKind}" is not one of ${Object.keys(this.#targets).join(', ')}`;
      await this.#writeStatus(rsp, { reason: 'InvalidTargetKind', message }, ctx);
      return terminal(new InvalidSchedulingPreferenceError(`ReplicaSchedulingPreference "${key}": ${message}`));
    }

    const ready = this.#o.clusters.readyClusters();
    let candidates = [...ready.keys()].sort();
    if (candidates.length === 0) {
      await this.#writeStatus(rsp, { reason: 'NoReadyClusters', message: 'no member cluster is ready' }, ctx);
      return resync;
    }

    const federated = this.#o.host.resource(target.federated, namespace);
    let fedObject: KubeObject;
    try {
      fedObject = await federated.get(name, { signal: ctx.signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.#writeStatus(rsp, { reason: 'TargetNotFound', message: `${spec.targetKind} "${key}" does not exist` }, ctx);
      return resync;
    }

    if (spec.intersectWithClusterSelector === true) {
      if (!this.#o.federatedNamespaceCache.hasSynced()) return retry('the FederatedNamespace cache has not synced');
      const intersected = this.#intersect(candidates, fedObject, namespace);
      if (intersected === undefined) {
        await this.#writeStatus(
          rsp,
          {
            reason: 'NamespaceNotFederated',
            message: `namespace "${namespace}" has no FederatedNamespace to intersect the placement with`,
          },
          ctx,
        );
        return resync;
      }
      candidates = intersected;
      if (candidates.length === 0) {
        await this.#writeStatus(
          rsp,
          { reason: 'NoMatchingClusters', message: 'no ready cluster matches the clusterSelector of the federated object' },
          ctx,
        );
        return resync;
      }
    }

    let workloads: MemberWorkload[];
    try {
      workloads = await this.#memberWorkloads(candidates, ready, target.member, { namespace, name }, ctx);
    } catch (err) {
      if (!(err instanceof MissingSelectorError)) throw err;
      // Looked at again at the resync: the member workload may get a selector.
      await this.#writeStatus(rsp, { reason: 'MissingSelector', message: err.message }, ctx);
      return resync;
    }
    const state = clustersReplicaState(workloads, this.#clock.now());
    let result: Record<string, number>;
    try {
      const planned = planReplicas({
        totalReplicas: spec.totalReplicas,
        rebalance: spec.rebalance ?? false,
        clusters: withDefaultClusterPreferences(spec.clusters),
        availableClusters: candidates,
        currentReplicas: state.currentReplicas,
        capacity: state.capacity,
        key,
      });
      result = schedulingResult(planned, state.currentReplicas);
    } catch (err) {
      if (!(err instanceof InvalidPlanInputError)) throw err;
      await this.#writeStatus(rsp, { reason: 'PlanFailed', message: err.message }, ctx);
      return terminal(new InvalidSchedulingPreferenceError(`ReplicaSchedulingPreference "${key}": ${err.message}`, { cause: err }));
    }

    for (const cluster of this.#placedNotReady(fedObject, ready)) result[cluster] ??= 0;
    const update = schedulingUpdate((fedObject.spec ?? {}) as SchedulableSpec, result);
    if (update.placementChanged || update.overridesChanged) {
      await federated.update({ ...structuredClone(fedObject), spec: update.spec });
      ctx.logger.info({ kind: spec.targetKind, namespace, name }, 'scheduled replicas');
    }
    await this.#writeStatus(rsp, { reason: 'Scheduled', message: describeResult(result), result }, ctx);
    return state.needsRecheck ? requeueAfter(Math.min(this.#o.recheckPeriodMs ?? 5_000, resyncMs)) : resync;
  }

  /**
   * The clusters of the federated object's placement that are registered but not Ready: they stay
   * placed (with 0 replicas). Taken out of the placement, as KubeFed does, their copy would be
   * deleted by the sync controller as soon as they are Ready again, before this controller
   * places them again: a Deployment deleted and recreated after every outage, or lost for good
   * when its member rejects the copy (422 Invalid).
   */
  #placedNotReady(fedObject: KubeObject, ready: ReadonlyMap<string, DynamicClient>): string[] {
    const placed = ((fedObject.spec as SchedulableSpec | undefined)?.placement?.clusters ?? []).map((c) => c.name);
    const notReady = placed.filter((c) => !ready.has(c));
    if (notReady.length === 0) return [];
    const registered = new Set(this.#o.registeredClusters.list().map((c) => c.metadata.name));
    return notReady.filter((c) => registered.has(c));
  }

  /** Candidates ∩ the selector-only placement of the object and of its FederatedNamespace (§4.6.2 step 4); undefined without a FederatedNamespace. */
  #intersect(candidates: readonly string[], fedObject: KubeObject, namespace: string): string[] | undefined {
    const registered = this.#o.registeredClusters.list() as PlacementCluster[];
    const own = new Set(computeSelectorPlacement(fedObject, registered));
    const fedNamespace = this.#o.federatedNamespaceCache.store.get(`${namespace}/${namespace}`);
    if (fedNamespace === undefined) return undefined;
    const allowed = new Set(computeSelectorPlacement(fedNamespace, registered));
    return candidates.filter((c) => own.has(c) && allowed.has(c));
  }

  async #memberWorkloads(
    candidates: readonly string[],
    ready: ReadonlyMap<string, DynamicClient>,
    member: Gvr,
    id: { namespace: string; name: string },
    ctx: ReconcileContext,
  ): Promise<MemberWorkload[]> {
    const read = async (cluster: string): Promise<MemberWorkload | undefined> => {
      const client = ready.get(cluster);
      if (client === undefined) return undefined;
      let obj: KubeObject;
      try {
        obj = await client.resource(member, id.namespace).get(id.name, { signal: ctx.signal });
      } catch (err) {
        if (!isNotFound(err)) ctx.logger.warn({ cluster, err: errorMessage(err) }, 'member workload not readable');
        return undefined;
      }
      const objSpec = (obj.spec ?? {}) as { replicas?: number; selector?: { matchLabels?: Record<string, string> } };
      const workload: MemberWorkload = {
        cluster,
        replicas: objSpec.replicas,
        readyReplicas: (obj.status as { readyReplicas?: number } | undefined)?.readyReplicas,
      };
      if (!needsPodAnalysis(workload)) return workload;
      const labels = objSpec.selector?.matchLabels;
      if (labels === undefined)
        throw new MissingSelectorError(`missing selector on object ${id.namespace}/${id.name} in cluster "${cluster}"`);
      const labelSelector = Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      const pods = await client.resource(PODS, id.namespace).list({ labelSelector, signal: ctx.signal });
      return { ...workload, pods: pods.items as PodLike[] };
    };
    const found = await Promise.all(candidates.map(read));
    return found.filter((w): w is MemberWorkload => w !== undefined);
  }

  /**
   * Writes the status when it changed. A conflict (someone else wrote the RSP since it was read)
   * re-reads the RSP and writes again on the fresh object, up to {@link STATUS_WRITE_ATTEMPTS}
   * times; nothing is written when the fresh RSP already has this status or a newer spec (its
   * own reconcile follows). Other failures are logged: the next reconcile writes it again.
   */
  async #writeStatus(rsp: Rsp, outcome: SchedulingOutcome, ctx: ReconcileContext): Promise<void> {
    const client = this.#o.host.resource(RSP_GVR, rsp.metadata.namespace);
    const reconciledGeneration = rsp.metadata.generation;
    let current: Rsp = rsp;
    for (let attempt = 1; ; attempt++) {
      const body = this.#statusBody(current, outcome, reconciledGeneration);
      if (body === undefined) return;
      try {
        if (this.#o.statusSubresource ?? true) await client.updateStatus(body);
        else await client.update(body);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= STATUS_WRITE_ATTEMPTS) {
          ctx.logger.warn({ err: errorMessage(err), attempt }, 'cannot write ReplicaSchedulingPreference status');
          return;
        }
      }
      try {
        current = await client.get(rsp.metadata.name ?? '', { signal: ctx.signal });
      } catch (err) {
        if (!isNotFound(err)) ctx.logger.warn({ err: errorMessage(err), attempt }, 'cannot write ReplicaSchedulingPreference status');
        return;
      }
    }
  }

  /**
   * `rsp` with the status for `outcome`, or undefined when nothing is to be written: the status
   * is already that, or (with a status subresource) the RSP's spec changed since generation
   * `reconciled`. Without a status subresource every change of `status` also bumps
   * `metadata.generation`, so the generation the write will produce is recorded.
   */
  #statusBody(rsp: Rsp, outcome: SchedulingOutcome, reconciled: number | undefined): KubeObject | undefined {
    const previous = readSchedulingStatus(rsp.status);
    const subresource = this.#o.statusSubresource ?? true;
    const generation = rsp.metadata.generation;
    if (subresource && generation !== reconciled) return undefined;
    const observed = (g: number | undefined): SchedulingOutcome & { generation?: number | undefined } => ({ ...outcome, generation: g });
    let next = schedulingStatus(previous, observed(generation), this.#clock.now());
    if (!schedulingStatusChanged(previous, next)) return undefined;
    if (!subresource && generation !== undefined) next = schedulingStatus(previous, observed(generation + 1), this.#clock.now());
    return { ...structuredClone(rsp), status: next };
  }
}
