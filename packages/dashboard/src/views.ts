import { federatedObjectSchema, kubeFedClusterSchema, validateReplicaSchedulingPreference, type KubeFedCluster } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { explainPlan, withDefaultClusterPreferences, type PlanExplanation } from '@kubefed/scheduler';
import type { FleetSnapshot } from './fleet-watch.js';

/** Colour class of a status on the page. */
export type Tone = 'ok' | 'pending' | 'error' | 'none';

/**
 * The status summary of one federated object as `kubefedctl status` computes it (its
 * `objectStatus`): the Propagation condition and, per cluster, the reported or expected status.
 */
export interface ObjectSummary {
  readonly generation: number;
  readonly observedGeneration: number;
  /** `True`, `False` or `Unknown`. */
  readonly propagation: string;
  readonly reason?: string | undefined;
  /** `clusters: a, b` or `selector: region in (eu)`. */
  readonly placement: string;
  readonly clusters: readonly { readonly name: string; readonly status: string; readonly remote?: string | undefined }[];
}

/** Summarises a federated object of `kind` given the registered KubeFedClusters (kubefedctl's `objectStatus`). */
export type SummarizeObject = (obj: KubeObject, kind: string, clusters: readonly KubeObject[]) => ObjectSummary;

/** Sync queue counts of one member cluster. */
export interface QueueCountsView {
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
}

/** One row of the Clusters page. */
export interface ClusterView {
  readonly name: string;
  readonly state: 'Ready' | 'NotReady' | 'Offline' | 'Unknown';
  readonly tone: Tone;
  /** Reason and message of the condition that decides the state. */
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
  readonly version?: string | undefined;
  readonly region?: string | undefined;
  readonly zones: readonly string[];
  /** When the cluster entered its state (RFC 3339), if known. */
  readonly since?: string | undefined;
  readonly apiEndpoint: string;
  readonly queue?: QueueCountsView | undefined;
}

/** One cell of the objects × clusters matrix. */
export interface MatrixCell {
  /** `OK`, `Pending`, a KubeFed propagation status, `NotJoined`, or `` when the object is not placed there. */
  readonly status: string;
  readonly tone: Tone;
  /** What the status means, the member's reported status and the row's condition message. */
  readonly title: string;
}

/** One row of the Federated objects matrix. */
export interface MatrixRow {
  /** `<type>/<namespace>/<name>` (namespace empty for cluster-scoped types). */
  readonly id: string;
  /** FTC name, e.g. `deployments.apps`. */
  readonly type: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** `True`, `False (CheckClusters)`, `Pending (generation 3 not yet propagated)`. */
  readonly propagation: string;
  readonly propagationTone: Tone;
  readonly message?: string | undefined;
  readonly placement: string;
  readonly cells: Readonly<Record<string, MatrixCell>>;
  /** True when propagation is not `True` or a placed cluster's status is not OK (the status filter). */
  readonly problem: boolean;
}

/** One RSP on the Scheduling page. */
export interface SchedulingView {
  readonly namespace: string;
  readonly name: string;
  readonly targetKind: string;
  readonly totalReplicas: number;
  /** Per cluster: replicas the control plane wrote into the workload (placement + overrides), and those the members report. */
  readonly clusters: readonly {
    readonly name: string;
    readonly planned: number;
    readonly replicas: number | null;
    readonly ready: number | null;
  }[];
  /** `kubefedctl plan`'s explanation from the Ready clusters and the replicas the members report; absent when the RSP is invalid. */
  readonly explanation?: PlanExplanation | undefined;
  /** Why there is no explanation (an invalid RSP). */
  readonly problem?: string | undefined;
}

/** Where the sync queue counts come from (`--redis-url`, `--metrics-url` or neither), and why they are missing. */
export interface QueueSourceView {
  readonly source: 'redis' | 'metrics' | 'none';
  readonly problem?: string | undefined;
}

/** Everything the page shows at one moment. */
export interface DashboardView {
  readonly clusters: readonly ClusterView[];
  readonly queueSource: QueueSourceView;
  readonly types: readonly { readonly name: string; readonly kind: string }[];
  readonly objects: readonly MatrixRow[];
  readonly scheduling: readonly SchedulingView[];
}

const STATUS_MEANING: Readonly<Record<string, string>> = {
  OK: 'the member object matches the federated object',
  Pending: 'placed here, not reported by the control plane yet',
  NotJoined: 'named in the placement, but no KubeFedCluster has this name',
  WaitingForRemoval: 'the member object is being deleted',
  ClusterNotReady: 'the cluster is not Ready, so nothing is written there',
  CachedRetrievalFailed: 'the member object could not be read from the cache',
  ComputeResourceFailed: 'the member object could not be rendered from the template',
  ApplyOverridesFailed: 'the overrides could not be applied',
  CreationFailed: 'creating the member object failed',
  UpdateFailed: 'updating the member object failed',
  DeletionFailed: 'deleting the member object failed',
  LabelRemovalFailed: 'removing the managed label failed',
  RetrievalFailed: 'reading the member object failed',
  AlreadyExists: 'an object of that name exists in the member and is not managed',
  FieldRetentionFailed: 'member-owned fields could not be retained',
  VersionRetrievalFailed: 'the propagated version could not be read',
  ClientRetrievalFailed: "the member's client could not be built (credentials)",
  ManagedLabelFalse: 'the member object is labelled as not managed',
  CreationTimedOut: 'creating the member object timed out',
  UpdateTimedOut: 'updating the member object timed out',
  DeletionTimedOut: 'deleting the member object timed out',
  LabelRemovalTimedOut: 'removing the managed label timed out',
};

/** The colour of a per-cluster status (as `kubefedctl status` paints it). */
export function cellTone(status: string): Tone {
  if (status === '') return 'none';
  if (status === 'OK') return 'ok';
  if (status === 'Pending' || status === 'WaitingForRemoval' || status.endsWith('TimedOut')) return 'pending';
  return 'error';
}

/** The state of a KubeFedCluster from its conditions (Offline wins over NotReady). */
export function clusterView(cluster: KubeFedCluster, queue?: QueueCountsView): ClusterView {
  const conditions = cluster.status?.conditions ?? [];
  const offline = conditions.find((c) => c.type === 'Offline' && c.status === 'True');
  const ready = conditions.find((c) => c.type === 'Ready');
  const decisive = offline ?? ready;
  const state: ClusterView['state'] =
    offline !== undefined ? 'Offline' : ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady';
  return {
    name: cluster.metadata.name ?? '',
    state,
    tone: state === 'Ready' ? 'ok' : state === 'Unknown' ? 'pending' : 'error',
    reason: decisive?.reason,
    message: decisive?.message,
    version: cluster.status?.kubernetesVersion,
    region: cluster.status?.region,
    zones: cluster.status?.zones ?? [],
    since: decisive?.lastTransitionTime ?? decisive?.lastProbeTime,
    apiEndpoint: cluster.spec.apiEndpoint,
    queue,
  };
}

function propagationOf(s: ObjectSummary): { text: string; tone: Tone } {
  if (s.observedGeneration < s.generation) return { text: `Pending (generation ${s.generation} not yet propagated)`, tone: 'pending' };
  const text = s.reason === undefined ? s.propagation : `${s.propagation} (${s.reason})`;
  return { text, tone: s.propagation === 'True' ? 'ok' : s.propagation === 'False' ? 'error' : 'pending' };
}

/** One matrix row: a cell per member cluster (`none` where the object is not placed). */
export function matrixRow(
  obj: KubeObject,
  type: { name: string; kind: string },
  context: { clusters: readonly KubeObject[]; summarize: SummarizeObject },
): MatrixRow {
  const summary = context.summarize(obj, type.kind, context.clusters);
  const condition = federatedObjectSchema.shape.status.safeParse(obj.status).data?.conditions?.find((c) => c.type === 'Propagation');
  const propagation = propagationOf(summary);
  const byName = new Map(summary.clusters.map((c) => [c.name, c]));
  const names = [...new Set([...context.clusters.map((c) => c.metadata.name ?? ''), ...byName.keys()])];
  const cells: Record<string, MatrixCell> = {};
  for (const name of names) {
    const c = byName.get(name);
    const status = c?.status ?? '';
    const meaning = status === '' ? 'not placed in this cluster' : (STATUS_MEANING[status] ?? 'see the sync controller log');
    const lines = [`${name}: ${status === '' ? 'not placed' : status}: ${meaning}`];
    if (c?.remote !== undefined) lines.push(`member reports: ${c.remote}`);
    if (cellTone(status) === 'error' && condition?.message !== undefined) lines.push(condition.message);
    cells[name] = { status, tone: cellTone(status), title: lines.join('\n') };
  }
  const namespace = obj.metadata.namespace ?? '';
  return {
    id: `${type.name}/${namespace}/${obj.metadata.name ?? ''}`,
    type: type.name,
    kind: type.kind,
    namespace,
    name: obj.metadata.name ?? '',
    propagation: propagation.text,
    propagationTone: propagation.tone,
    message: condition?.message,
    placement: summary.placement,
    cells,
    problem: propagation.tone !== 'ok' || Object.values(cells).some((c) => c.tone === 'error' || c.tone === 'pending'),
  };
}

interface Workload {
  replicas: number | null;
  ready: number | null;
}

/** Replicas the control plane wrote for `cluster`: its `/spec/replicas` override, else the template's. */
function plannedFor(obj: KubeObject, cluster: string): number {
  const spec = federatedObjectSchema.shape.spec.safeParse(obj.spec).data;
  const override = spec?.overrides?.find((o) => o.clusterName === cluster)?.clusterOverrides?.find((o) => o.path === '/spec/replicas');
  if (typeof override?.value === 'number') return override.value;
  const template = spec?.template as { spec?: { replicas?: unknown } } | undefined;
  return typeof template?.spec?.replicas === 'number' ? template.spec.replicas : 1;
}

/** Member replicas from the federated object's status collection (`remoteStatus`). */
function reportedWorkloads(obj: KubeObject | undefined): Map<string, Workload> {
  const out = new Map<string, Workload>();
  const status = federatedObjectSchema.shape.status.safeParse(obj?.status).data;
  for (const c of status?.clusters ?? []) {
    const r = c.remoteStatus as { replicas?: unknown; readyReplicas?: unknown } | undefined;
    out.set(c.name, {
      replicas: typeof r?.replicas === 'number' ? r.replicas : null,
      ready: typeof r?.readyReplicas === 'number' ? r.readyReplicas : r === undefined ? null : 0,
    });
  }
  return out;
}

/**
 * The Scheduling view of one RSP: the workload's planned replicas per cluster (what the RSP
 * controller wrote into its placement and overrides), the members' reported replicas, and the
 * planner's explanation for the Ready clusters and those reported replicas.
 */
export function schedulingView(raw: KubeObject, workload: KubeObject | undefined, readyClusters: readonly string[]): SchedulingView {
  const namespace = raw.metadata.namespace ?? '';
  const name = raw.metadata.name ?? '';
  const parsed = validateReplicaSchedulingPreference(raw);
  if (!parsed.ok) {
    const problem = parsed.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    return { namespace, name, targetKind: '', totalReplicas: 0, clusters: [], problem };
  }
  const rsp = parsed.value;
  const reported = reportedWorkloads(workload);
  const placed = (federatedObjectSchema.shape.spec.safeParse(workload?.spec).data?.placement?.clusters ?? []).map((c) => c.name);
  const names = [...new Set([...placed, ...reported.keys(), ...readyClusters])].sort();
  const clusters = names.map((c) => ({
    name: c,
    planned: workload !== undefined && placed.includes(c) ? plannedFor(workload, c) : 0,
    replicas: reported.get(c)?.replicas ?? null,
    ready: reported.get(c)?.ready ?? null,
  }));
  const current = Object.fromEntries([...reported].flatMap(([c, w]) => (w.replicas === null ? [] : [[c, w.replicas]])));
  let explanation: PlanExplanation | undefined;
  let problem: string | undefined;
  try {
    explanation = explainPlan({
      totalReplicas: rsp.spec.totalReplicas,
      rebalance: rsp.spec.rebalance === true,
      clusters: withDefaultClusterPreferences(rsp.spec.clusters),
      availableClusters: readyClusters,
      currentReplicas: current,
      key: `${namespace}/${name}`,
    });
  } catch (err) {
    problem = err instanceof Error ? err.message : String(err);
  }
  return { namespace, name, targetKind: rsp.spec.targetKind, totalReplicas: rsp.spec.totalReplicas, clusters, explanation, problem };
}

/** The whole page state from a snapshot of the watches. Pure. */
export function dashboardView(
  snapshot: FleetSnapshot,
  context: { summarize: SummarizeObject; queues: ReadonlyMap<string, QueueCountsView>; queueSource?: QueueSourceView },
): DashboardView {
  const kfcs = snapshot.clusters.flatMap((c) => {
    const p = kubeFedClusterSchema.safeParse(c);
    return p.success ? [p.data] : [];
  });
  const clusters = kfcs.map((c) => clusterView(c, context.queues.get(c.metadata.name ?? ''))).sort((a, b) => a.name.localeCompare(b.name));
  const objects: MatrixRow[] = [];
  for (const type of snapshot.types) {
    for (const obj of snapshot.objects.get(type.name) ?? [])
      objects.push(matrixRow(obj, type, { clusters: snapshot.clusters, summarize: context.summarize }));
  }
  objects.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  const ready = clusters.filter((c) => c.state === 'Ready').map((c) => c.name);
  const scheduling = snapshot.rsps.map((rsp) => {
    const kind = (rsp.spec as { targetKind?: unknown } | undefined)?.targetKind;
    const type = snapshot.types.find((t) => t.kind === kind);
    const workload = (type === undefined ? [] : (snapshot.objects.get(type.name) ?? [])).find(
      (o) => o.metadata.namespace === rsp.metadata.namespace && o.metadata.name === rsp.metadata.name,
    );
    return schedulingView(rsp, workload, ready);
  });
  return {
    clusters,
    queueSource: context.queueSource ?? { source: 'none' },
    types: snapshot.types.map((t) => ({ name: t.name, kind: t.kind })),
    objects,
    scheduling,
  };
}
