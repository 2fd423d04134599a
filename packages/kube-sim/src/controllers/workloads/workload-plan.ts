/**
 * Pure decisions of the simulated workload controllers (deployment, replicaset, scheduler,
 * kubelet): template hashing, which pods to delete, and the status a real cluster would report.
 * No IO here; `workload-controller.ts` applies the results to the store.
 */
import { isObject, jsonEqual, type JsonObject, type KObject } from '../../util/json.js';

/** Label the deployment controller puts on its ReplicaSets and their pods. */
export const podTemplateHashLabel = 'pod-template-hash';
/** Revision annotation on Deployments and ReplicaSets. */
export const revisionAnnotation = 'deployment.kubernetes.io/revision';

const safeAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** JSON with object keys sorted, so equal templates hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * A stable hash of a pod template (FNV-1a 32 over its canonical JSON, written in the
 * vowel-free alphabet Kubernetes uses for generated names), ignoring any `pod-template-hash`
 * label already present. Same template → same hash, in any process.
 */
export function podTemplateHash(template: unknown): string {
  let t = template;
  if (isObject(t) && isObject(t['metadata']) && isObject(t['metadata']['labels']) && podTemplateHashLabel in t['metadata']['labels']) {
    const labels = { ...t['metadata']['labels'] };
    delete labels[podTemplateHashLabel];
    t = { ...t, metadata: { ...t['metadata'], labels } };
  }
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(canonicalJson(t ?? {}), 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return [...String(h)].map((c) => safeAlphabet[c.charCodeAt(0) % safeAlphabet.length]).join('');
}

/** An int-or-percent value (`1`, `'25%'`) resolved against a total; percentages round down or up. */
export function resolveIntOrPercent(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.max(0, Math.trunc(value));
  if (typeof value === 'string') {
    const m = /^(\d+)%$/.exec(value);
    if (m !== null) {
      const raw = (Number(m[1]) * total) / 100;
      return roundUp ? Math.ceil(raw) : Math.floor(raw);
    }
    if (/^\d+$/.test(value)) return Number(value);
  }
  return 0;
}

/**
 * How many of `replicas` may be unavailable while the Deployment still counts as Available:
 * `strategy.rollingUpdate.maxUnavailable` (default 25%, rounded down), 0 for Recreate, capped at
 * `replicas`. When maxSurge and maxUnavailable both resolve to 0, one pod may be unavailable, as
 * the real controller allows.
 */
export function maxUnavailable(deploymentSpec: JsonObject, replicas: number): number {
  const strategy = isObject(deploymentSpec['strategy']) ? deploymentSpec['strategy'] : {};
  if (strategy['type'] === 'Recreate' || replicas === 0) return 0;
  const ru = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
  const surge = resolveIntOrPercent(ru['maxSurge'] ?? '25%', replicas, true);
  let unavailable = resolveIntOrPercent(ru['maxUnavailable'] ?? '25%', replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return Math.min(unavailable, replicas);
}

/** `spec.replicas` of a workload (default 1, as the API server defaults it). */
export function specReplicas(obj: KObject): number {
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const r = spec['replicas'];
  return typeof r === 'number' && Number.isInteger(r) && r >= 0 ? r : 1;
}

/** True when a pod still counts towards its ReplicaSet: not terminating, not finished. */
export function podIsActive(pod: KObject): boolean {
  const phase = isObject(pod['status']) ? pod['status']['phase'] : undefined;
  return pod.metadata.deletionTimestamp === undefined && phase !== 'Succeeded' && phase !== 'Failed';
}

/** True when the pod's Ready condition is True. */
function podIsReady(pod: KObject): boolean {
  const conds = isObject(pod['status']) ? pod['status']['conditions'] : undefined;
  return Array.isArray(conds) && conds.some((c) => isObject(c) && c['type'] === 'Ready' && c['status'] === 'True');
}

/** The node a pod is bound to ('' when unscheduled). */
export function podNodeName(pod: KObject): string {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  return typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
}

function phaseRank(pod: KObject): number {
  const phase = isObject(pod['status']) ? pod['status']['phase'] : undefined;
  return phase === 'Pending' ? 0 : phase === 'Running' ? 2 : 1;
}

/**
 * The pods a ReplicaSet deletes first when scaling down, in order (the real controller's
 * ranking, simplified): unscheduled before scheduled, Pending before Running, not ready before
 * ready, newer before older. `order` gives each pod's creation sequence (higher = newer).
 */
export function podsToDelete(pods: readonly KObject[], count: number, order: (pod: KObject) => number): KObject[] {
  const ranked = [...pods].sort((a, b) => {
    const assigned = Number(podNodeName(a) !== '') - Number(podNodeName(b) !== '');
    if (assigned !== 0) return assigned;
    const phase = phaseRank(a) - phaseRank(b);
    if (phase !== 0) return phase;
    const ready = Number(podIsReady(a)) - Number(podIsReady(b));
    if (ready !== 0) return ready;
    return order(b) - order(a);
  });
  return ranked.slice(0, Math.max(0, count));
}

function labelsMatch(template: unknown, labels: Record<string, string> | undefined): boolean {
  const want =
    isObject(template) && isObject(template['metadata']) && isObject(template['metadata']['labels']) ? template['metadata']['labels'] : {};
  return Object.entries(want).every(([k, v]) => labels?.[k] === v);
}

/**
 * ReplicaSet status from its active pods: replicas, fullyLabeledReplicas, readyReplicas,
 * availableReplicas (= ready: minReadySeconds is not waited for), observedGeneration. Zero
 * counts other than `replicas` are omitted, as the real API serialises them.
 */
export function replicaSetStatus(rs: KObject, pods: readonly KObject[]): JsonObject {
  const spec = isObject(rs['spec']) ? rs['spec'] : {};
  const ready = pods.filter(podIsReady).length;
  const status: JsonObject = { replicas: pods.length };
  const fullyLabeled = pods.filter((p) => labelsMatch(spec['template'], p.metadata.labels)).length;
  if (fullyLabeled > 0) status['fullyLabeledReplicas'] = fullyLabeled;
  if (ready > 0) {
    status['readyReplicas'] = ready;
    status['availableReplicas'] = ready;
  }
  status['observedGeneration'] = rs.metadata.generation ?? 1;
  return status;
}

function num(status: unknown, field: string): number {
  const v = isObject(status) ? status[field] : undefined;
  return typeof v === 'number' ? v : 0;
}

function findCondition(conditions: unknown, type: string): JsonObject | undefined {
  return Array.isArray(conditions) ? conditions.filter(isObject).find((c) => c['type'] === type) : undefined;
}

interface ConditionState {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** A Deployment condition; its times are carried over from `prev` while it does not change. */
function condition(prev: unknown, next: ConditionState, now: string): JsonObject {
  const old = findCondition(prev, next.type);
  const same = old !== undefined && old['status'] === next.status;
  const unchanged = same && old['reason'] === next.reason && old['message'] === next.message;
  return {
    type: next.type,
    status: next.status,
    lastUpdateTime: unchanged && typeof old['lastUpdateTime'] === 'string' ? old['lastUpdateTime'] : now,
    lastTransitionTime: same && typeof old['lastTransitionTime'] === 'string' ? old['lastTransitionTime'] : now,
    reason: next.reason,
    message: next.message,
  };
}

/**
 * Deployment status from its ReplicaSets (`newRs` = the one matching the current template):
 * observedGeneration, replicas, updatedReplicas, readyReplicas, availableReplicas,
 * unavailableReplicas (zero counts omitted) and the Available and Progressing conditions.
 * Condition times are carried over from `prev` while a condition does not change.
 */
export function deploymentStatus(
  d: KObject,
  replicaSets: { newRs: KObject | undefined; all: readonly KObject[] },
  now: string,
): JsonObject {
  const { newRs, all: allRs } = replicaSets;
  const spec = isObject(d['spec']) ? d['spec'] : {};
  const desired = specReplicas(d);
  const prev = isObject(d['status']) ? d['status']['conditions'] : undefined;
  const sum = (f: string): number => allRs.reduce((n, rs) => n + num(rs['status'], f), 0);
  const replicas = sum('replicas');
  const updated = newRs === undefined ? 0 : num(newRs['status'], 'replicas');
  const ready = sum('readyReplicas');
  const available = sum('availableReplicas');
  const target = allRs.reduce((n, rs) => n + specReplicas(rs), 0);
  const unavailable = Math.max(0, target - available);
  const status: JsonObject = { observedGeneration: d.metadata.generation ?? 1 };
  if (replicas > 0) status['replicas'] = replicas;
  if (updated > 0) status['updatedReplicas'] = updated;
  if (ready > 0) status['readyReplicas'] = ready;
  if (available > 0) status['availableReplicas'] = available;
  if (unavailable > 0) status['unavailableReplicas'] = unavailable;
  const minAvailable = desired - maxUnavailable(spec, desired);
  const availableCond = condition(
    prev,
    available >= minAvailable
      ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
      : {
          type: 'Available',
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
    now,
  );
  const rsName = newRs?.metadata.name ?? '';
  const complete = newRs !== undefined && updated === desired && replicas === desired && available === desired;
  const progressing = condition(
    prev,
    complete
      ? {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${rsName}" has successfully progressed.`,
        }
      : { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rsName}" is progressing.` },
    now,
  );
  status['conditions'] = [availableCond, progressing];
  return status;
}

/** The condition list a pod has once scheduled and started. */
function runningConditions(prev: unknown, now: string): JsonObject[] {
  return ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => {
    const old = findCondition(prev, type);
    const since = old?.['status'] === 'True' && typeof old['lastTransitionTime'] === 'string' ? old['lastTransitionTime'] : now;
    return { type, status: 'True', lastProbeTime: null, lastTransitionTime: since };
  });
}

/** What the kubelet reports for a pod it started on a node. */
export function runningPodStatus(pod: KObject, addresses: { hostIp: string; podIp: string }, now: string): JsonObject {
  const { hostIp, podIp } = addresses;
  const old = isObject(pod['status']) ? pod['status'] : {};
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const containers = Array.isArray(spec['containers']) ? spec['containers'].filter(isObject) : [];
  const status: JsonObject = {
    ...old,
    phase: 'Running',
    conditions: runningConditions(old['conditions'], now),
    hostIP: hostIp,
    hostIPs: [{ ip: hostIp }],
    podIP: podIp,
    podIPs: [{ ip: podIp }],
    startTime: typeof old['startTime'] === 'string' ? old['startTime'] : now,
    containerStatuses: containers.map((c) => ({
      name: c['name'],
      state: { running: { startedAt: now } },
      lastState: {},
      ready: true,
      restartCount: 0,
      image: c['image'],
      imageID: '',
      started: true,
    })),
  };
  return status;
}

/** The scheduler's message for a pod that fits nowhere because every node is full. */
export function unschedulableMessage(nodes: number): string {
  return nodes === 0 ? 'no nodes available to schedule pods' : `0/${nodes} nodes are available: ${nodes} Too many pods.`;
}

/**
 * Status of a pod the scheduler could not place: phase Pending and `PodScheduled` False
 * (Unschedulable) whose lastTransitionTime stays the time it first became unschedulable.
 */
export function unschedulablePodStatus(pod: KObject, nodes: number, now: string): JsonObject {
  const old = isObject(pod['status']) ? pod['status'] : {};
  const prev = Array.isArray(old['conditions']) ? old['conditions'].filter(isObject) : [];
  const before = prev.find((c) => c['type'] === 'PodScheduled');
  const since =
    before !== undefined &&
    before['status'] === 'False' &&
    before['reason'] === 'Unschedulable' &&
    typeof before['lastTransitionTime'] === 'string'
      ? before['lastTransitionTime']
      : now;
  const cond: JsonObject = {
    type: 'PodScheduled',
    status: 'False',
    lastProbeTime: null,
    lastTransitionTime: since,
    reason: 'Unschedulable',
    message: unschedulableMessage(nodes),
  };
  return { ...old, phase: 'Pending', conditions: [...prev.filter((c) => c['type'] !== 'PodScheduled'), cond] };
}

/** True when two status objects serialise the same (so no write is needed). */
export function sameStatus(a: unknown, b: unknown): boolean {
  return jsonEqual(a ?? null, b ?? null);
}
