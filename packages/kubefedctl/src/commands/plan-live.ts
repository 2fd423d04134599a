import {
  DEFAULT_FEDERATED_GROUP,
  DEFAULT_FEDERATED_VERSION,
  federatedTypeConfigSchema,
  isClusterReady,
  type KubeFedCluster,
  kubeFedClusterSchema,
  type LabelSelector,
  matchesLabelSelector,
  type ReplicaSchedulingPreference,
  validateReplicaSchedulingPreference,
} from '@kubefed/api';
import { type DynamicClient, getOrUndefined, type KubeObject, memberClientFromHost } from '@kubefed/client';
import { clustersReplicaState, type MemberWorkload, needsPodAnalysis, type PodLike } from '@kubefed/scheduler';
import { KubefedctlError, causeMessage } from '../errors.js';
import type { Output } from '../output.js';
import { GVR } from '../resources.js';
import type { PlanClusters } from './plan.js';

/** What {@link gatherLivePlan} read from the host and the members. */
export interface LivePlan {
  rsp: ReplicaSchedulingPreference;
  clusters: PlanClusters;
}

type Gvr = { group: string; version: string; resource: string };

/** Federated and target resources of an RSP's targetKind, from the FTC whose federated kind it is. */
async function typesFor(host: DynamicClient, ns: string, targetKind: string): Promise<{ federated: Gvr; target: Gvr }> {
  const ftcs = (await host.resource(GVR.federatedTypeConfigs, ns).listAll()).items.flatMap((i) => {
    const p = federatedTypeConfigSchema.safeParse(i);
    return p.success ? [p.data] : [];
  });
  const ftc = ftcs.find((f) => f.spec.federatedType.kind === targetKind);
  if (ftc !== undefined) {
    const f = ftc.spec.federatedType;
    const t = ftc.spec.targetType;
    return {
      federated: { group: f.group ?? '', version: f.version, resource: f.pluralName },
      target: { group: t.group ?? '', version: t.version, resource: t.pluralName },
    };
  }
  const plural = targetKind === 'FederatedReplicaSet' ? 'replicasets' : 'deployments';
  return {
    federated: { group: DEFAULT_FEDERATED_GROUP, version: DEFAULT_FEDERATED_VERSION, resource: `federated${plural}` },
    target: { group: 'apps', version: 'v1', resource: plural },
  };
}

async function memberWorkload(
  member: DynamicClient,
  target: Gvr,
  ns: string,
  name: string,
  cluster: string,
): Promise<MemberWorkload | undefined> {
  const obj = await getOrUndefined(member.resource(target, ns), name);
  if (obj === undefined) return undefined;
  const spec = (obj['spec'] as { replicas?: number; selector?: { matchLabels?: Record<string, string> } } | undefined) ?? {};
  const status = (obj['status'] as { readyReplicas?: number } | undefined) ?? {};
  const w: MemberWorkload = { cluster, replicas: spec.replicas ?? 0, readyReplicas: status.readyReplicas ?? 0 };
  if (needsPodAnalysis(w)) {
    const labels = spec.selector?.matchLabels;
    if (labels === undefined) throw new KubefedctlError(`missing selector on object ${ns}/${name} in ${cluster}`);
    const selector = Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const pods = await member.resource(GVR.pods, ns).listAll({ labelSelector: selector });
    w.pods = pods.items as unknown as PodLike[];
  }
  return w;
}

/**
 * Reads what the RSP controller would plan with (docs/kubefed-compatibility.md §4.6.2): the RSP, the Ready
 * KubeFedClusters (by name), with `intersectWithClusterSelector` the selector-only placement of
 * the federated object, and current replicas / capacity from each member's copy of the
 * workload (and its pods) through the member credentials. A member that cannot be read is a
 * warning and contributes no current/capacity. Rejects when the RSP is missing or invalid.
 */
export async function gatherLivePlan(
  host: DynamicClient,
  args: { name: string; namespace: string; kubefedNamespace: string; now?: number },
  out: Output,
): Promise<LivePlan> {
  const { name, namespace: ns } = args;
  const raw = await host.resource(GVR.replicaSchedulingPreferences, ns).get(name);
  const parsed = validateReplicaSchedulingPreference(raw);
  if (!parsed.ok) {
    throw new KubefedctlError(
      `ReplicaSchedulingPreference ${ns}/${name} is not valid: ${parsed.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
  }
  const rsp = parsed.value;
  const kfcs: KubeFedCluster[] = (await host.resource(GVR.kubeFedClusters, args.kubefedNamespace).listAll()).items.flatMap((i) => {
    const p = kubeFedClusterSchema.safeParse(i);
    return p.success ? [p.data] : [];
  });
  let ready = kfcs.filter((c) => isClusterReady(c)).sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const notReady = kfcs.filter((c) => !isClusterReady(c)).map((c) => c.metadata.name ?? '');
  if (notReady.length > 0) out.progress(`not Ready, so not planned: ${notReady.join(', ')}`);

  const types = await typesFor(host, args.kubefedNamespace, rsp.spec.targetKind);
  const fedObj: KubeObject | undefined = await getOrUndefined(host.resource(types.federated, ns), name);
  if (fedObj === undefined) out.warn(`${rsp.spec.targetKind} ${ns}/${name} does not exist: the RSP controller would write nothing`);
  if (rsp.spec.intersectWithClusterSelector === true && fedObj !== undefined) {
    const selector = (fedObj['spec'] as { placement?: { clusterSelector?: LabelSelector | null } } | undefined)?.placement?.clusterSelector;
    ready = selector === undefined || selector === null ? [] : ready.filter((c) => matchesLabelSelector(selector, c.metadata.labels));
    out.progress(`intersectWithClusterSelector: candidates ${ready.map((c) => c.metadata.name ?? '').join(', ') || '(none)'}`);
  }

  const workloads: MemberWorkload[] = [];
  for (const kfc of ready) {
    const cluster = kfc.metadata.name ?? '';
    let member: DynamicClient | undefined;
    try {
      member = await memberClientFromHost(host, kfc, { timeoutMs: 10_000 });
      const w = await memberWorkload(member, types.target, ns, name, cluster);
      if (w !== undefined) workloads.push(w);
    } catch (e) {
      out.warn(`could not read the workload in cluster "${cluster}": ${causeMessage(e)}`);
    } finally {
      member?.close();
    }
  }
  const state = clustersReplicaState(workloads, args.now ?? Date.now());
  return {
    rsp,
    clusters: {
      available: ready.map((c) => c.metadata.name ?? ''),
      current: state.currentReplicas,
      capacity: state.capacity,
      key: `${ns}/${name}`,
    },
  };
}
