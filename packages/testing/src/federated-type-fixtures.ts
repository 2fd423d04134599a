import { buildFederatedTypeConfig, type FederatedTypeConfig, type FederatedTypeOptions } from '@kubefed/api';

/**
 * Target types as tests federate them: KubeFed's federated group and version, no short names.
 * Pass them to `startInProcessFederation({ federatedTypes })` and `buildFederatedTypeConfig`.
 */
export const TARGET_TYPES = {
  clusterRoles: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', pluralName: 'clusterroles', scope: 'Cluster' },
  namespaces: { group: '', version: 'v1', kind: 'Namespace', pluralName: 'namespaces', scope: 'Cluster' },
  configMaps: { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' },
  services: { group: '', version: 'v1', kind: 'Service', pluralName: 'services', scope: 'Namespaced' },
  deployments: { group: 'apps', version: 'v1', kind: 'Deployment', pluralName: 'deployments', scope: 'Namespaced' },
} as const satisfies Record<string, FederatedTypeOptions>;

/** The `statusType` of the `services` FTC under KubeFed's legacy status collection (FederatedServiceStatus). */
export const SERVICE_STATUS_TYPE = {
  group: 'core.kubefed.io',
  version: 'v1alpha1',
  kind: 'FederatedServiceStatus',
  pluralName: 'federatedservicestatuses',
  scope: 'Namespaced',
} as const;

/**
 * The `services` FederatedTypeConfig in `namespace` (default `kube-federation-system`) with KubeFed's
 * legacy status collection turned on: `statusType` {@link SERVICE_STATUS_TYPE}, `statusCollection: Enabled`;
 * `spec` overrides fields of the spec.
 */
export function servicesTypeConfig(namespace?: string, spec: Partial<FederatedTypeConfig['spec']> = {}): FederatedTypeConfig {
  const ftc = buildFederatedTypeConfig(TARGET_TYPES.services, namespace);
  return { ...ftc, spec: { ...ftc.spec, statusType: SERVICE_STATUS_TYPE, statusCollection: 'Enabled', ...spec } };
}
