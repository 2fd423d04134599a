import { type ApiResource, type FederatedTypeConfig, isStatusCollectionEnabled } from '@kubefed/api';
import type { GroupVersionResource } from '@kubefed/client';
import { syncTypeOf, type SyncType } from '../sync/sync-type.js';

/** The one FTC whose status type the status controller writes (KubeFed's `isEnabledFederatedServiceStatusCollection`). */
export const SERVICES_TYPE_NAME = 'services';

/** What the status controller of the `services` FTC works on. */
export interface ServiceStatusType {
  /** The FTC name (`services`). */
  readonly name: string;
  /** The federated type (FederatedService) in the host, its `apiVersion` and kind (the status object's owner). */
  readonly federatedGvr: GroupVersionResource;
  readonly federatedApiVersion: string;
  readonly federatedKind: string;
  /** The status type (FederatedServiceStatus) in the host: `spec.statusType`. */
  readonly statusGvr: GroupVersionResource;
  /** `apiVersion` and `kind` of the status objects written, from `spec.statusType`. */
  readonly statusApiVersion: string;
  readonly statusKind: string;
  /** The FTC as the member watches see it (target type, federated type). */
  readonly sync: SyncType;
}

const gvrOf = (r: ApiResource): GroupVersionResource => ({ group: r.group ?? '', version: r.version, resource: r.pluralName });
const apiVersionOf = (r: ApiResource): string => (r.group === undefined || r.group === '' ? r.version : `${r.group}/${r.version}`);

/**
 * The {@link ServiceStatusType} of a defaulted FTC when KubeFed would run a status controller
 * for it (`pkg/controller/federatedtypeconfig/controller.go`): the FTC is `services`, its
 * `statusCollection` is `Enabled` and its `statusType` is set. Undefined otherwise. The
 * KubeFedConfig feature gate `RawResourceStatusCollection` (which turns it off) is the caller's
 * to check. Pure.
 */
export function serviceStatusTypeOf(ftc: FederatedTypeConfig): ServiceStatusType | undefined {
  const statusType = ftc.spec.statusType;
  if (ftc.metadata.name !== SERVICES_TYPE_NAME || !isStatusCollectionEnabled(ftc) || statusType === undefined) return undefined;
  return {
    name: SERVICES_TYPE_NAME,
    federatedGvr: gvrOf(ftc.spec.federatedType),
    federatedApiVersion: apiVersionOf(ftc.spec.federatedType),
    federatedKind: ftc.spec.federatedType.kind,
    statusGvr: gvrOf(statusType),
    statusApiVersion: apiVersionOf(statusType),
    statusKind: statusType.kind,
    sync: syncTypeOf(ftc),
  };
}
