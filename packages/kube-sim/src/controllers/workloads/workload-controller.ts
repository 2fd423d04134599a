import type { RestOps, Scope } from '../../resources/rest-ops.js';
import { StatusError } from '../../util/status-error.js';
import type { StoreEvent } from '../../store/watch-hub.js';
import { isObject, nowTimestamp } from '../../util/json.js';
import type { JsonObject, KObject, OwnerReference } from '../../util/json.js';
import { SettlingQueue } from './settling-queue.js';
import {
  deploymentStatus,
  podIsActive,
  podNodeName,
  podTemplateHash,
  podTemplateHashLabel,
  podsToDelete,
  replicaSetStatus,
  resolveIntOrPercent,
  revisionAnnotation,
  runningPodStatus,
  sameStatus,
  specReplicas,
  unschedulablePodStatus,
} from './workload-plan.js';

const deploymentsKey = 'apps/deployments';
const replicaSetsKey = 'apps/replicasets';
const podsKey = '/pods';
const nodesKey = '/nodes';
const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';

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

function controllerRef(obj: KObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((o) => o.controller === true);
}

function specOf(obj: KObject): JsonObject {
  return isObject(obj['spec']) ? obj['spec'] : {};
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
  const queue = new SettlingQueue(options.reactionDelayMs ?? defaultReactionDelayMs);
  let capacity = options.podCapacity;
  let creationSeq = 0;
  const podSeq = new Map<string, number>();
  let nextNode = 0;
  let nextPodIp = 0;

  const scopeOf = (group: string, resource: string, namespace: string): Scope => {
    const def = ops.registry.byResource(group, resource)!;
    return { def, version: def.versions[0]!, namespace };
  };
  const owned = (owner: KObject, grKey: string): KObject[] => {
    const uid = owner.metadata.uid ?? '';
    return ops.store
      .dependentsOf(uid)
      .filter((loc) => loc.grKey === grKey)
      .map((loc) => ops.store.getAt(loc))
      .filter((o): o is KObject => o !== undefined && controllerRef(o)?.uid === uid);
  };
  const tolerate = (fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      // Conflicts, vanished objects and terminating namespaces settle on a later event.
      if (!(e instanceof StatusError)) throw e;
    }
  };
  const writeStatus = (resource: string, obj: KObject, status: JsonObject): void => {
    if (sameStatus(obj['status'], status)) return;
    ops.updateFrom(
      scopeOf('apps', resource, obj.metadata.namespace ?? ''),
      obj,
      { ...obj, metadata: { ...obj.metadata }, status },
      {},
      'status',
    );
  };

  const enqueueDeployment = (ns: string, name: string): void => queue.enqueue(`deploy:${ns}/${name}`, () => reconcileDeployment(ns, name));
  const enqueueReplicaSet = (ns: string, name: string): void => queue.enqueue(`rs:${ns}/${name}`, () => reconcileReplicaSet(ns, name));
  const enqueueScheduler = (): void => queue.enqueue('scheduler', schedule, true);
  const enqueueKubelet = (ns: string, name: string): void => queue.enqueue(`kubelet:${ns}/${name}`, () => startPod(ns, name));

  const reconcileDeployment = (ns: string, name: string): void => {
    const d = ops.store.get(deploymentsKey, ns, name);
    if (d === undefined || d.metadata.deletionTimestamp !== undefined) return;
    const spec = specOf(d);
    const template = isObject(spec['template']) ? spec['template'] : {};
    const hash = podTemplateHash(template);
    const desired = specReplicas(d);
    const strategy = isObject(spec['strategy']) ? spec['strategy'] : {};
    const surge =
      strategy['type'] === 'Recreate'
        ? 0
        : resolveIntOrPercent(
            isObject(strategy['rollingUpdate']) ? (strategy['rollingUpdate']['maxSurge'] ?? '25%') : '25%',
            desired,
            true,
          );
    const annotationsFor = (revision: string): Record<string, string> => ({
      [desiredReplicasAnnotation]: String(desired),
      [maxReplicasAnnotation]: String(desired + surge),
      [revisionAnnotation]: revision,
    });
    const rsScope = scopeOf('apps', 'replicasets', ns);
    let all = owned(d, replicaSetsKey);
    const revisionOf = (rs: KObject): number => Number(rs.metadata.annotations?.[revisionAnnotation] ?? '0') || 0;
    const maxRevision = all.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
    let newRs = all.find((rs) => rs.metadata.labels?.[podTemplateHashLabel] === hash && rs.metadata.deletionTimestamp === undefined);
    const orphan = newRs === undefined ? ops.store.get(replicaSetsKey, ns, `${name}-${hash}`) : undefined;
    if (
      orphan !== undefined &&
      controllerRef(orphan) === undefined &&
      orphan.metadata.deletionTimestamp === undefined &&
      orphan.metadata.labels?.[podTemplateHashLabel] === hash
    ) {
      // An orphaned ReplicaSet of this template (the Deployment was deleted with Orphan and recreated) is adopted.
      const ref: OwnerReference = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name,
        uid: d.metadata.uid ?? '',
        controller: true,
        blockOwnerDeletion: true,
      };
      tolerate(() => {
        newRs = ops.writeThrough(replicaSetsKey, {
          ...orphan,
          metadata: { ...orphan.metadata, ownerReferences: [...(orphan.metadata.ownerReferences ?? []), ref] },
        });
      });
    }
    if (newRs === undefined) {
      const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
      const labels = { ...(isObject(tmeta['labels']) ? (tmeta['labels'] as Record<string, string>) : {}), [podTemplateHashLabel]: hash };
      const selector = isObject(spec['selector']) ? spec['selector'] : {};
      const matchLabels = { ...(isObject(selector['matchLabels']) ? selector['matchLabels'] : {}), [podTemplateHashLabel]: hash };
      const rsSpec: JsonObject = {
        replicas: desired,
        selector: { ...selector, matchLabels },
        template: { ...template, metadata: { ...tmeta, labels } },
      };
      if (typeof spec['minReadySeconds'] === 'number') rsSpec['minReadySeconds'] = spec['minReadySeconds'];
      tolerate(() => {
        newRs = ops.create(rsScope, {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: `${name}-${hash}`,
            namespace: ns,
            labels,
            annotations: annotationsFor(String(maxRevision + 1)),
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'Deployment', name, uid: d.metadata.uid ?? '', controller: true, blockOwnerDeletion: true },
            ],
          },
          spec: rsSpec,
        }).object;
      });
    } else {
      const rs = newRs;
      const revision = revisionOf(rs) < maxRevision ? String(maxRevision + 1) : String(revisionOf(rs));
      const annotations = { ...rs.metadata.annotations, ...annotationsFor(revision) };
      if (specReplicas(rs) !== desired || !sameStatus(annotations, rs.metadata.annotations ?? {}))
        tolerate(() => {
          newRs = ops.updateFrom(
            rsScope,
            rs,
            { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...specOf(rs), replicas: desired } },
            {},
          ).object;
        });
    }
    for (const old of all) {
      if (
        old === newRs ||
        old.metadata.uid === newRs?.metadata.uid ||
        specReplicas(old) === 0 ||
        old.metadata.deletionTimestamp !== undefined
      )
        continue;
      tolerate(() => ops.updateFrom(rsScope, old, { ...old, metadata: { ...old.metadata }, spec: { ...specOf(old), replicas: 0 } }, {}));
    }
    const current = ops.store.get(deploymentsKey, ns, name);
    if (current === undefined) return;
    let latest = current;
    const revision = newRs?.metadata.annotations?.[revisionAnnotation];
    if (revision !== undefined && current.metadata.annotations?.[revisionAnnotation] !== revision) {
      const scope = scopeOf('apps', 'deployments', ns);
      // Through /status, as the deployment controller does: an annotation change on the main
      // endpoint would bump the Deployment's generation.
      latest = ops.updateFrom(
        scope,
        current,
        { ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [revisionAnnotation]: revision } } },
        {},
        'status',
      ).object;
    }
    all = owned(latest, replicaSetsKey);
    const fresh = newRs === undefined ? undefined : all.find((rs) => rs.metadata.uid === newRs?.metadata.uid);
    writeStatus('deployments', latest, deploymentStatus(latest, { newRs: fresh, all }, nowTimestamp()));
  };

  const reconcileReplicaSet = (ns: string, name: string): void => {
    const rs = ops.store.get(replicaSetsKey, ns, name);
    if (rs === undefined) return;
    const podScope = scopeOf('', 'pods', ns);
    const active = owned(rs, podsKey).filter(podIsActive);
    if (rs.metadata.deletionTimestamp === undefined) {
      const diff = specReplicas(rs) - active.length;
      const template = isObject(specOf(rs)['template']) ? (specOf(rs)['template'] as JsonObject) : {};
      const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
      for (let i = 0; i < diff; i++) {
        const metadata: JsonObject = {
          generateName: `${name}-`,
          namespace: ns,
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid: rs.metadata.uid ?? '', controller: true, blockOwnerDeletion: true },
          ],
        };
        if (isObject(tmeta['labels'])) metadata['labels'] = { ...tmeta['labels'] };
        if (isObject(tmeta['annotations'])) metadata['annotations'] = { ...tmeta['annotations'] };
        const spec = isObject(template['spec']) ? structuredClone(template['spec']) : {};
        try {
          ops.create(podScope, { apiVersion: 'v1', kind: 'Pod', metadata, spec });
        } catch (e) {
          if (!(e instanceof StatusError)) throw e;
          break;
        }
      }
      for (const pod of podsToDelete(active, -diff, (p) => podSeq.get(p.metadata.uid ?? '') ?? 0))
        tolerate(() => ops.delete(podScope, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid ?? '' } }));
    }
    const latest = ops.store.get(replicaSetsKey, ns, name);
    if (latest === undefined) return;
    writeStatus('replicasets', latest, replicaSetStatus(latest, owned(latest, podsKey).filter(podIsActive)));
  };

  const schedulableNodes = (): KObject[] => ops.store.list(nodesKey).filter((n) => specOf(n)['unschedulable'] !== true);

  const schedule = (): void => {
    const nodes = schedulableNodes();
    const pods = ops.store.list(podsKey).filter(podIsActive);
    let bound = pods.filter((p) => podNodeName(p) !== '').length;
    const waiting = pods
      .filter((p) => podNodeName(p) === '' && (specOf(p)['schedulerName'] ?? 'default-scheduler') === 'default-scheduler')
      .sort((a, b) => (podSeq.get(a.metadata.uid ?? '') ?? 0) - (podSeq.get(b.metadata.uid ?? '') ?? 0));
    const now = nowTimestamp();
    for (const pod of waiting) {
      const status = isObject(pod['status']) ? pod['status'] : {};
      if (bound < capacity && nodes.length > 0) {
        const node = nodes[nextNode++ % nodes.length]!;
        const conditions = (Array.isArray(status['conditions']) ? status['conditions'].filter(isObject) : []).filter(
          (c) => c['type'] !== 'PodScheduled',
        );
        conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now });
        ops.writeThrough(podsKey, {
          ...pod,
          spec: { ...specOf(pod), nodeName: node.metadata.name ?? '' },
          status: { ...status, conditions },
        });
        bound++;
        continue;
      }
      const next = unschedulablePodStatus(pod, nodes.length, now);
      if (!sameStatus(status, next)) ops.writeThrough(podsKey, { ...pod, status: next });
    }
  };

  const startPod = (ns: string, name: string): void => {
    const pod = ops.store.get(podsKey, ns, name);
    if (pod === undefined || !podIsActive(pod)) return;
    const nodeName = podNodeName(pod);
    const status = isObject(pod['status']) ? pod['status'] : {};
    if (nodeName === '' || status['phase'] !== 'Pending') return;
    const node = ops.store.get(nodesKey, '', nodeName);
    // A pod bound to a node that does not exist has no kubelet to run it.
    if (node === undefined) return;
    const addresses =
      isObject(node['status']) && Array.isArray(node['status']['addresses']) ? node['status']['addresses'].filter(isObject) : [];
    const hostIp = addresses.find((a) => a['type'] === 'InternalIP')?.['address'];
    nextPodIp++;
    const podIp = `10.244.${Math.floor(nextPodIp / 250) % 250}.${(nextPodIp % 250) + 1}`;
    ops.writeThrough(podsKey, {
      ...pod,
      status: runningPodStatus(pod, { hostIp: typeof hostIp === 'string' ? hostIp : '', podIp }, nowTimestamp()),
    });
  };

  ops.store.onChange((e: StoreEvent) => {
    const ns = e.object.metadata.namespace ?? '';
    const name = e.object.metadata.name ?? '';
    switch (e.grKey) {
      case deploymentsKey:
        enqueueDeployment(ns, name);
        return;
      case replicaSetsKey: {
        enqueueReplicaSet(ns, name);
        const owner = controllerRef(e.object);
        if (owner?.kind === 'Deployment') enqueueDeployment(ns, owner.name);
        return;
      }
      case podsKey: {
        const uid = e.object.metadata.uid ?? '';
        if (e.type === 'ADDED') podSeq.set(uid, ++creationSeq);
        if (e.type === 'DELETED') podSeq.delete(uid);
        const owner = controllerRef(e.object);
        if (owner?.kind === 'ReplicaSet') enqueueReplicaSet(ns, owner.name);
        if (e.type === 'DELETED' || podNodeName(e.object) === '') enqueueScheduler();
        else enqueueKubelet(ns, name);
        return;
      }
      case nodesKey:
        enqueueScheduler();
        return;
      default:
        return;
    }
  });

  return {
    get podCapacity() {
      return capacity;
    },
    setPodCapacity: (n: number) => {
      capacity = n;
      enqueueScheduler();
    },
    stop: () => queue.stop(),
  };
}
