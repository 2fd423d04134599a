import { federatedTypeConfigSpecSchema, type ApiResource } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import type { SchedulingTarget } from './replica-scheduling-preference-reconciler.js';

/** A FederatedTypeConfig as a cache holds it: its `spec` is parsed here. */
export type FtcLike = Readonly<Record<string, unknown>> | KubeObject;

/** The member workload types an RSP can schedule (KubeFed's `deployments.apps` and `replicasets.apps`). */
const SCHEDULABLE_TARGET_TYPES: ReadonlySet<string> = new Set(['apps/deployments', 'apps/replicasets']);

const gvr = (t: ApiResource): SchedulingTarget['member'] => ({ group: t.group ?? '', version: t.version, resource: t.pluralName });

function enabledSpecs(ftcs: readonly FtcLike[]): ApiResourcePair[] {
  const out: ApiResourcePair[] = [];
  for (const ftc of ftcs) {
    const parsed = federatedTypeConfigSpecSchema.safeParse((ftc as { spec?: unknown }).spec);
    if (parsed.success && parsed.data.propagation === 'Enabled')
      out.push({ target: parsed.data.targetType, federated: parsed.data.federatedType });
  }
  return out;
}

interface ApiResourcePair {
  readonly target: ApiResource;
  readonly federated: ApiResource;
}

/**
 * The kinds a ReplicaSchedulingPreference may target, from the FederatedTypeConfigs: every FTC
 * with propagation Enabled whose target type is `apps` Deployments or ReplicaSets, keyed by its
 * federated kind (`FederatedDeployment`, `FederatedReplicaSet`), with the federated type's group
 * and version as the FTC names them (any federated group, not only `types.kubefed.io`). FTCs
 * that do not parse are skipped. Pure.
 */
export function schedulingTargetsOf(ftcs: readonly FtcLike[]): Record<string, SchedulingTarget> {
  const out: Record<string, SchedulingTarget> = {};
  for (const { target, federated } of enabledSpecs(ftcs)) {
    if (!SCHEDULABLE_TARGET_TYPES.has(`${target.group ?? ''}/${target.pluralName}`)) continue;
    out[federated.kind] = { federated: gvr(federated), member: gvr(target) };
  }
  return out;
}

/**
 * The FederatedNamespace resource the FTC of `namespaces` names (used for
 * `intersectWithClusterSelector`); undefined when no enabled FTC federates namespaces. Pure.
 */
export function federatedNamespaceResourceOf(ftcs: readonly FtcLike[]): SchedulingTarget['federated'] | undefined {
  const found = enabledSpecs(ftcs).find(({ target }) => (target.group ?? '') === '' && target.pluralName === 'namespaces');
  return found === undefined ? undefined : gvr(found.federated);
}
