/**
 * The group/version/resource of every API the control plane and the CLI read or write, so that
 * no package spells them out again.
 */
import {
  CORE_GROUP,
  CORE_V1ALPHA1_VERSION,
  CORE_VERSION,
  DEFAULT_FEDERATED_GROUP,
  DEFAULT_FEDERATED_VERSION,
  SCHEDULING_GROUP,
  SCHEDULING_VERSION,
} from './constants.js';

/** A Kubernetes resource by group, version and plural (`group` is '' for the core API). */
export interface GroupVersionResourceRef {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

const core = (resource: string): GroupVersionResourceRef => ({ group: '', version: 'v1', resource });
const rbac = (resource: string): GroupVersionResourceRef => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });

/** Well-known Kubernetes and KubeFed resources. */
export const RESOURCES = Object.freeze({
  namespaces: core('namespaces'),
  serviceAccounts: core('serviceaccounts'),
  secrets: core('secrets'),
  configMaps: core('configmaps'),
  endpoints: core('endpoints'),
  events: core('events'),
  nodes: core('nodes'),
  pods: core('pods'),
  deployments: { group: 'apps', version: 'v1', resource: 'deployments' },
  replicaSets: { group: 'apps', version: 'v1', resource: 'replicasets' },
  clusterRoles: rbac('clusterroles'),
  clusterRoleBindings: rbac('clusterrolebindings'),
  roles: rbac('roles'),
  roleBindings: rbac('rolebindings'),
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
  customResourceDefinitions: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
  kubeFedClusters: { group: CORE_GROUP, version: CORE_VERSION, resource: 'kubefedclusters' },
  kubeFedConfigs: { group: CORE_GROUP, version: CORE_VERSION, resource: 'kubefedconfigs' },
  federatedTypeConfigs: { group: CORE_GROUP, version: CORE_VERSION, resource: 'federatedtypeconfigs' },
  propagatedVersions: { group: CORE_GROUP, version: CORE_V1ALPHA1_VERSION, resource: 'propagatedversions' },
  clusterPropagatedVersions: { group: CORE_GROUP, version: CORE_V1ALPHA1_VERSION, resource: 'clusterpropagatedversions' },
  replicaSchedulingPreferences: { group: SCHEDULING_GROUP, version: SCHEDULING_VERSION, resource: 'replicaschedulingpreferences' },
  /** KubeFed's FederatedNamespace, in the default federated group. */
  federatedNamespaces: { group: DEFAULT_FEDERATED_GROUP, version: DEFAULT_FEDERATED_VERSION, resource: 'federatednamespaces' },
} as const satisfies Record<string, GroupVersionResourceRef>);
