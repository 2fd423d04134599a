import type { RestOps } from '../../resources/rest-ops.js';
import { StatusError } from '../../util/status-error.js';
import type { StoreEvent } from '../../store/watch-hub.js';
import { isObject, type JsonObject, type KObject, nowTimestamp } from '../../util/json.js';
import { SettlingQueue } from './settling-queue.js';
import {
  podIsActive,
  podNodeName,
  podsToDelete,
  replicaSetStatus,
  runningPodStatus,
  sameStatus,
  specReplicas,
  unschedulablePodStatus,
} from './workload-plan.js';
import { DeploymentReconciler } from './deployment-reconciler.js';
import { WorkloadOps, appsOwnerRef, controllerRef, deploymentsKey, nodesKey, podsKey, replicaSetsKey, specOf } from './workload-ops.js';

/** Options of {@link registerWorkloadControllers}. */
export interface WorkloadControllerOptions {
  /** How many pods may be scheduled (bound and Running) in the cluster at once; Infinity = unlimited. */
  podCapacity: number;
  /**
   * How long after a change the controllers react (a controller-manager's watch latency), in ms;
   * default {@link defaultReactionDelayMs}. Clients that create an object and update it right away
   * with the returned resourceVersion are not overtaken by a status write within this window.
   */
  reactionDelayMs?: number;
}

/** Default {@link WorkloadControllerOptions.reactionDelayMs}. */
const defaultReactionDelayMs = 100;

/** Handle of the running workload controllers. */
export interface WorkloadControllers {
  /** The current pod capacity (Infinity = unlimited). */
  readonly podCapacity: number;
  /** Changes the pod capacity; raising it schedules Pending pods (oldest first), lowering it evicts nothing. */
  setPodCapacity(capacity: number): void;
  /** Drops queued work and stops reacting to changes. */
  stop(): void;
}

/** True for Infinity or a non-negative integer. */
export function isValidPodCapacity(capacity: unknown): capacity is number {
  return capacity === Infinity || (typeof capacity === 'number' && Number.isInteger(capacity) && capacity >= 0);
}

/**
 * The workload controllers of a simulated cluster, driven by store events: the deployment
 * controller (one ReplicaSet per pod template, old ones scaled to 0, Deployment status), the
 * replicaset controller (creates and deletes Pods to match `spec.replicas`, ReplicaSet status),
 * the scheduler (binds Pending pods round robin to the Nodes while fewer than `podCapacity` pods
 * are scheduled, else marks them Unschedulable) and the kubelet (a bound pod starts Running and
 * Ready at once). Every write goes through the store, so watches see each step.
 */
export function registerWorkloadControllers(ops: RestOps, options: WorkloadControllerOptions): WorkloadControllers {
  const controllers = new SimulatedWorkloadControllers(ops, options);
  ops.store.onChange((e) => controllers.route(e));
  return controllers;
}

/** The state and reconcile functions behind {@link registerWorkloadControllers}. */
class SimulatedWorkloadControllers implements WorkloadControllers {
  readonly #w: WorkloadOps;
  readonly #queue: SettlingQueue;
  readonly #deployments: DeploymentReconciler;
  #capacity: number;
  #creationSeq = 0;
  /** Creation order of the active pods by uid: the scheduler binds oldest first, scale-down removes newest first. */
  readonly #podSeq = new Map<string, number>();
  #nextNode = 0;
  #nextPodIp = 0;

  constructor(ops: RestOps, options: WorkloadControllerOptions) {
    this.#w = new WorkloadOps(ops);
    this.#queue = new SettlingQueue(options.reactionDelayMs ?? defaultReactionDelayMs);
    this.#deployments = new DeploymentReconciler(this.#w);
    this.#capacity = options.podCapacity;
  }

  get podCapacity(): number {
    return this.#capacity;
  }

  setPodCapacity(capacity: number): void {
    this.#capacity = capacity;
    this.#enqueueScheduler();
  }

  stop(): void {
    this.#queue.stop();
  }

  /** Queues the controllers a store change concerns. */
  route(e: StoreEvent): void {
    const ns = e.object.metadata.namespace ?? '';
    const name = e.object.metadata.name ?? '';
    switch (e.grKey) {
      case deploymentsKey:
        this.#enqueueDeployment(ns, name);
        return;
      case replicaSetsKey: {
        this.#enqueueReplicaSet(ns, name);
        const owner = controllerRef(e.object);
        if (owner?.kind === 'Deployment') this.#enqueueDeployment(ns, owner.name);
        return;
      }
      case podsKey:
        this.#routePod(e, ns, name);
        return;
      case nodesKey:
        this.#enqueueScheduler();
        return;
      default:
        return;
    }
  }

  #routePod(e: StoreEvent, ns: string, name: string): void {
    const uid = e.object.metadata.uid ?? '';
    if (e.type === 'ADDED') this.#podSeq.set(uid, ++this.#creationSeq);
    if (e.type === 'DELETED') this.#podSeq.delete(uid);
    const owner = controllerRef(e.object);
    if (owner?.kind === 'ReplicaSet') this.#enqueueReplicaSet(ns, owner.name);
    if (e.type === 'DELETED' || podNodeName(e.object) === '') this.#enqueueScheduler();
    else this.#queue.enqueue(`kubelet:${ns}/${name}`, () => this.#startPod(ns, name));
  }

  #enqueueDeployment(ns: string, name: string): void {
    this.#queue.enqueue(`deploy:${ns}/${name}`, () => this.#deployments.reconcile(ns, name));
  }

  #enqueueReplicaSet(ns: string, name: string): void {
    this.#queue.enqueue(`rs:${ns}/${name}`, () => this.#reconcileReplicaSet(ns, name));
  }

  #enqueueScheduler(): void {
    this.#queue.enqueue('scheduler', () => this.#schedule(), true);
  }

  #seqOf(pod: KObject): number {
    return this.#podSeq.get(pod.metadata.uid ?? '') ?? 0;
  }

  /** The replicaset controller: creates and deletes Pods to match `spec.replicas`, then writes the status. */
  #reconcileReplicaSet(ns: string, name: string): void {
    const store = this.#w.ops.store;
    const rs = store.get(replicaSetsKey, ns, name);
    if (rs === undefined) return;
    if (rs.metadata.deletionTimestamp === undefined) {
      const podScope = this.#w.scope('', 'pods', ns);
      const active = this.#w.owned(rs, podsKey).filter(podIsActive);
      const diff = specReplicas(rs) - active.length;
      this.#createPods(rs, diff);
      for (const pod of podsToDelete(active, -diff, (p) => this.#seqOf(p)))
        this.#w.tolerate(() => this.#w.ops.delete(podScope, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid ?? '' } }));
    }
    const latest = store.get(replicaSetsKey, ns, name);
    if (latest === undefined) return;
    this.#w.writeStatus('replicasets', latest, replicaSetStatus(latest, this.#w.owned(latest, podsKey).filter(podIsActive)));
  }

  /** Creates `count` pods of the ReplicaSet's template; stops at the first refusal. */
  #createPods(rs: KObject, count: number): void {
    const ns = rs.metadata.namespace ?? '';
    const podScope = this.#w.scope('', 'pods', ns);
    const template = isObject(specOf(rs)['template']) ? (specOf(rs)['template'] as JsonObject) : {};
    const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
    for (let i = 0; i < count; i++) {
      const metadata: JsonObject = {
        generateName: `${rs.metadata.name ?? ''}-`,
        namespace: ns,
        ownerReferences: [appsOwnerRef('ReplicaSet', rs)],
      };
      if (isObject(tmeta['labels'])) metadata['labels'] = { ...tmeta['labels'] };
      if (isObject(tmeta['annotations'])) metadata['annotations'] = { ...tmeta['annotations'] };
      const spec = isObject(template['spec']) ? structuredClone(template['spec']) : {};
      try {
        this.#w.ops.create(podScope, { apiVersion: 'v1', kind: 'Pod', metadata, spec });
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
        break;
      }
    }
  }

  /** The scheduler: binds waiting pods round robin to schedulable Nodes up to the capacity, else marks them Unschedulable. */
  #schedule(): void {
    const store = this.#w.ops.store;
    const nodes = store.list(nodesKey).filter((n) => specOf(n)['unschedulable'] !== true);
    const pods = store.list(podsKey).filter(podIsActive);
    let bound = pods.filter((p) => podNodeName(p) !== '').length;
    const waiting = pods
      .filter((p) => podNodeName(p) === '' && (specOf(p)['schedulerName'] ?? 'default-scheduler') === 'default-scheduler')
      .sort((a, b) => this.#seqOf(a) - this.#seqOf(b));
    const now = nowTimestamp();
    for (const pod of waiting) {
      const status = isObject(pod['status']) ? pod['status'] : {};
      if (bound < this.#capacity && nodes.length > 0) {
        const node = nodes[this.#nextNode++ % nodes.length]!;
        const conditions = (Array.isArray(status['conditions']) ? status['conditions'].filter(isObject) : []).filter(
          (c) => c['type'] !== 'PodScheduled',
        );
        conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now });
        this.#w.ops.writeThrough(podsKey, {
          ...pod,
          spec: { ...specOf(pod), nodeName: node.metadata.name ?? '' },
          status: { ...status, conditions },
        });
        bound++;
        continue;
      }
      const next = unschedulablePodStatus(pod, nodes.length, now);
      if (!sameStatus(status, next)) this.#w.ops.writeThrough(podsKey, { ...pod, status: next });
    }
  }

  /** The kubelet: a Pending pod bound to an existing Node starts Running and Ready with a pod IP. */
  #startPod(ns: string, name: string): void {
    const store = this.#w.ops.store;
    const pod = store.get(podsKey, ns, name);
    if (pod === undefined || !podIsActive(pod)) return;
    const nodeName = podNodeName(pod);
    const status = isObject(pod['status']) ? pod['status'] : {};
    if (nodeName === '' || status['phase'] !== 'Pending') return;
    const node = store.get(nodesKey, '', nodeName);
    // A pod bound to a node that does not exist has no kubelet to run it.
    if (node === undefined) return;
    const addresses =
      isObject(node['status']) && Array.isArray(node['status']['addresses']) ? node['status']['addresses'].filter(isObject) : [];
    const hostIp = addresses.find((a) => a['type'] === 'InternalIP')?.['address'];
    this.#nextPodIp++;
    const podIp = `10.244.${Math.floor(this.#nextPodIp / 250) % 250}.${(this.#nextPodIp % 250) + 1}`;
    this.#w.ops.writeThrough(podsKey, {
      ...pod,
      status: runningPodStatus(pod, { hostIp: typeof hostIp === 'string' ? hostIp : '', podIp }, nowTimestamp()),
    });
  }
}
