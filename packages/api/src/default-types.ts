/**
 * The target types KubeFed enables by default (docs/kubefed-compatibility.md §3.4.6), as data.
 */
import type { ResourceScope } from './constants.js';

/** A target type that can be federated. */
export interface TargetTypeInfo {
  /** API group; `""` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Lower-case plural resource name. */
  readonly pluralName: string;
  readonly scope: ResourceScope;
  /** kubectl short names of the target (the federated CRD gets `f` + each). */
  readonly shortNames: readonly string[];
  /** The target has `spec.replicas` (int32), so the federated type gets `spec.retainReplicas`. */
  readonly hasReplicas: boolean;
}

/**
 * KubeFed's default federated types, sorted by FTC name. KubeFed v0.10.0's chart ships the first
 * ten; `clusterrolebindings` is included because our deployments federate it by default too.
 */
export const DEFAULT_FEDERATED_TYPES: readonly TargetTypeInfo[] = Object.freeze([
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRoleBinding',
    pluralName: 'clusterrolebindings',
    scope: 'Cluster',
    shortNames: [],
    hasReplicas: false,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    pluralName: 'clusterroles',
    scope: 'Cluster',
    shortNames: [],
    hasReplicas: false,
  },
  { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced', shortNames: ['cm'], hasReplicas: false },
  {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    pluralName: 'deployments',
    scope: 'Namespaced',
    shortNames: ['deploy'],
    hasReplicas: true,
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    pluralName: 'ingresses',
    scope: 'Namespaced',
    shortNames: ['ing'],
    hasReplicas: false,
  },
  { group: 'batch', version: 'v1', kind: 'Job', pluralName: 'jobs', scope: 'Namespaced', shortNames: [], hasReplicas: false },
  { group: '', version: 'v1', kind: 'Namespace', pluralName: 'namespaces', scope: 'Cluster', shortNames: ['ns'], hasReplicas: false },
  {
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    pluralName: 'replicasets',
    scope: 'Namespaced',
    shortNames: ['rs'],
    hasReplicas: true,
  },
  { group: '', version: 'v1', kind: 'Secret', pluralName: 'secrets', scope: 'Namespaced', shortNames: [], hasReplicas: false },
  {
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    pluralName: 'serviceaccounts',
    scope: 'Namespaced',
    shortNames: ['sa'],
    hasReplicas: false,
  },
  { group: '', version: 'v1', kind: 'Service', pluralName: 'services', scope: 'Namespaced', shortNames: ['svc'], hasReplicas: false },
] satisfies TargetTypeInfo[]);
