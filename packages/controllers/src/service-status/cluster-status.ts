import type { FederatedServiceClusterStatus } from '@kubefed/api';
import { jsonEqual, type KubeObject } from '@kubefed/client';
import type { ServiceStatusType } from './service-status-type.js';

/**
 * `clusterStatus` of a federated object (KubeFed `pkg/controller/status/controller.go`
 * `clusterStatuses`): one entry per Ready cluster, sorted by cluster name, with the `.status`
 * of the managed member copy. A cluster without a copy (or a copy without status) gets
 * `status: {}` where KubeFed leaves `status` out, which its own CRD rejects (`status` is
 * required). Pure.
 *
 * @param copies the managed member copy of the object by Ready cluster, `null` when there is none
 */
export function clusterStatusOf(copies: ReadonlyMap<string, KubeObject | null>): FederatedServiceClusterStatus[] {
  return [...copies.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((clusterName) => {
      const status = copies.get(clusterName)?.status;
      const object = typeof status === 'object' && status !== null && !Array.isArray(status);
      return { clusterName, status: object ? structuredClone(status as Record<string, unknown>) : {} };
    });
}

/**
 * The status object KubeFed writes for `fedObject`: kind and apiVersion of the status type, the
 * same namespace and name, an ownerReference to the federated object (the garbage collector
 * deletes it with the federated object) and `clusterStatus`. Pure.
 */
export function desiredStatusObject(
  type: Pick<ServiceStatusType, 'statusApiVersion' | 'statusKind' | 'federatedApiVersion' | 'federatedKind'>,
  fedObject: KubeObject,
  clusterStatus: readonly FederatedServiceClusterStatus[],
): KubeObject {
  const { namespace } = fedObject.metadata;
  const name = fedObject.metadata.name ?? '';
  const uid = fedObject.metadata.uid ?? '';
  return {
    apiVersion: type.statusApiVersion,
    kind: type.statusKind,
    metadata: {
      name,
      ...(namespace === undefined ? {} : { namespace }),
      ownerReferences: [{ apiVersion: type.federatedApiVersion, kind: type.federatedKind, name, uid }],
    },
    clusterStatus: [...clusterStatus],
  };
}

/**
 * The status object to write over `existing` (a copy with `clusterStatus` replaced), or
 * undefined when its `clusterStatus` already deep-equals `clusterStatus` (a missing list equals
 * an empty one). Pure.
 */
export function updatedStatusObject(existing: KubeObject, clusterStatus: readonly FederatedServiceClusterStatus[]): KubeObject | undefined {
  const current: unknown = existing.clusterStatus ?? [];
  if (jsonEqual(current, clusterStatus)) return undefined;
  return { ...structuredClone(existing), clusterStatus: [...clusterStatus] };
}
