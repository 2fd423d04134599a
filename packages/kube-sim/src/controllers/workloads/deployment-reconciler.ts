import type { Scope } from '../../resources/rest-ops.js';
import { isObject, type JsonObject, type KObject, nowTimestamp } from '../../util/json.js';
import {
  deploymentStatus,
  podTemplateHash,
  podTemplateHashLabel,
  resolveIntOrPercent,
  revisionAnnotation,
  sameStatus,
  specReplicas,
} from './workload-plan.js';
import { appsOwnerRef, controllerRef, deploymentsKey, replicaSetsKey, specOf, type WorkloadOps } from './workload-ops.js';

const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';

/** What the deployment controller works out about one Deployment before it writes. */
interface DeploymentPlan {
  deployment: KObject;
  namespace: string;
  name: string;
  spec: JsonObject;
  template: JsonObject;
  /** The pod-template-hash of the current template. */
  hash: string;
  desired: number;
  surge: number;
  /** The highest revision among the Deployment's ReplicaSets (0 without any). */
  maxRevision: number;
  rsScope: Scope;
}

function revisionOf(rs: KObject): number {
  return Number(rs.metadata.annotations?.[revisionAnnotation] ?? '0') || 0;
}

function maxSurge(spec: JsonObject, desired: number): number {
  const strategy = isObject(spec['strategy']) ? spec['strategy'] : {};
  if (strategy['type'] === 'Recreate') return 0;
  const rollingUpdate = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
  return resolveIntOrPercent(rollingUpdate['maxSurge'] ?? '25%', desired, true);
}

function annotationsFor(plan: DeploymentPlan, revision: string): Record<string, string> {
  return {
    [desiredReplicasAnnotation]: String(plan.desired),
    [maxReplicasAnnotation]: String(plan.desired + plan.surge),
    [revisionAnnotation]: revision,
  };
}

/**
 * The simulated deployment controller: one ReplicaSet per pod template (an orphaned one of the
 * template is adopted), the old ones scaled to 0, the revision annotation and the Deployment's status.
 */
export class DeploymentReconciler {
  constructor(private readonly w: WorkloadOps) {}

  /** Converges the Deployment `namespace/name`; a missing or deleting Deployment is left alone. */
  reconcile(namespace: string, name: string): void {
    const d = this.w.ops.store.get(deploymentsKey, namespace, name);
    if (d === undefined || d.metadata.deletionTimestamp !== undefined) return;
    const all = this.w.owned(d, replicaSetsKey);
    const plan = this.#plan(d, all);
    const current = all.find(
      (rs) => rs.metadata.labels?.[podTemplateHashLabel] === plan.hash && rs.metadata.deletionTimestamp === undefined,
    );
    const found = current ?? this.#adoptOrphan(plan);
    const newRs = found === undefined ? this.#createReplicaSet(plan) : this.#updateNewReplicaSet(plan, found);
    this.#scaleDownOld(plan, all, newRs);
    this.#writeRevisionAndStatus(namespace, name, newRs);
  }

  #plan(deployment: KObject, all: KObject[]): DeploymentPlan {
    const namespace = deployment.metadata.namespace ?? '';
    const spec = specOf(deployment);
    const template = isObject(spec['template']) ? spec['template'] : {};
    const desired = specReplicas(deployment);
    return {
      deployment,
      namespace,
      name: deployment.metadata.name ?? '',
      spec,
      template,
      hash: podTemplateHash(template),
      desired,
      surge: maxSurge(spec, desired),
      maxRevision: all.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0),
      rsScope: this.w.scope('apps', 'replicasets', namespace),
    };
  }

  /** Adopts an orphaned ReplicaSet of this template (the Deployment was deleted with Orphan and recreated). */
  #adoptOrphan(plan: DeploymentPlan): KObject | undefined {
    const orphan = this.w.ops.store.get(replicaSetsKey, plan.namespace, `${plan.name}-${plan.hash}`);
    if (
      orphan === undefined ||
      controllerRef(orphan) !== undefined ||
      orphan.metadata.deletionTimestamp !== undefined ||
      orphan.metadata.labels?.[podTemplateHashLabel] !== plan.hash
    )
      return undefined;
    const ref = appsOwnerRef('Deployment', plan.deployment);
    return this.w.tolerate(() =>
      this.w.ops.writeThrough(replicaSetsKey, {
        ...orphan,
        metadata: { ...orphan.metadata, ownerReferences: [...(orphan.metadata.ownerReferences ?? []), ref] },
      }),
    );
  }

  #createReplicaSet(plan: DeploymentPlan): KObject | undefined {
    const { spec, template, hash } = plan;
    const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
    const labels = { ...(isObject(tmeta['labels']) ? (tmeta['labels'] as Record<string, string>) : {}), [podTemplateHashLabel]: hash };
    const selector = isObject(spec['selector']) ? spec['selector'] : {};
    const matchLabels = { ...(isObject(selector['matchLabels']) ? selector['matchLabels'] : {}), [podTemplateHashLabel]: hash };
    const rsSpec: JsonObject = {
      replicas: plan.desired,
      selector: { ...selector, matchLabels },
      template: { ...template, metadata: { ...tmeta, labels } },
    };
    if (typeof spec['minReadySeconds'] === 'number') rsSpec['minReadySeconds'] = spec['minReadySeconds'];
    const metadata = {
      name: `${plan.name}-${hash}`,
      namespace: plan.namespace,
      labels,
      annotations: annotationsFor(plan, String(plan.maxRevision + 1)),
      ownerReferences: [appsOwnerRef('Deployment', plan.deployment)],
    };
    return this.w.tolerate(
      () => this.w.ops.create(plan.rsScope, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata, spec: rsSpec }).object,
    );
  }

  /** Brings the current template's ReplicaSet to the desired replicas and revision; on a conflict it stays as read. */
  #updateNewReplicaSet(plan: DeploymentPlan, rs: KObject): KObject {
    const revision = revisionOf(rs) < plan.maxRevision ? String(plan.maxRevision + 1) : String(revisionOf(rs));
    const annotations = { ...rs.metadata.annotations, ...annotationsFor(plan, revision) };
    if (specReplicas(rs) === plan.desired && sameStatus(annotations, rs.metadata.annotations ?? {})) return rs;
    const next = { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...specOf(rs), replicas: plan.desired } };
    return this.w.tolerate(() => this.w.ops.updateFrom(plan.rsScope, rs, next, {}).object) ?? rs;
  }

  #scaleDownOld(plan: DeploymentPlan, all: KObject[], newRs: KObject | undefined): void {
    for (const old of all) {
      if (
        old === newRs ||
        old.metadata.uid === newRs?.metadata.uid ||
        specReplicas(old) === 0 ||
        old.metadata.deletionTimestamp !== undefined
      )
        continue;
      const next = { ...old, metadata: { ...old.metadata }, spec: { ...specOf(old), replicas: 0 } };
      this.w.tolerate(() => this.w.ops.updateFrom(plan.rsScope, old, next, {}));
    }
  }

  #writeRevisionAndStatus(namespace: string, name: string, newRs: KObject | undefined): void {
    const current = this.w.ops.store.get(deploymentsKey, namespace, name);
    if (current === undefined) return;
    let latest = current;
    const revision = newRs?.metadata.annotations?.[revisionAnnotation];
    if (revision !== undefined && current.metadata.annotations?.[revisionAnnotation] !== revision) {
      const scope = this.w.scope('apps', 'deployments', namespace);
      const annotations = { ...current.metadata.annotations, [revisionAnnotation]: revision };
      // Through /status, as the deployment controller does: an annotation change on the main
      // endpoint would bump the Deployment's generation.
      latest = this.w.ops.updateFrom(scope, current, { ...current, metadata: { ...current.metadata, annotations } }, {}, 'status').object;
    }
    const all = this.w.owned(latest, replicaSetsKey);
    const fresh = newRs === undefined ? undefined : all.find((rs) => rs.metadata.uid === newRs.metadata.uid);
    this.w.writeStatus('deployments', latest, deploymentStatus(latest, { newRs: fresh, all }, nowTimestamp()));
  }
}
