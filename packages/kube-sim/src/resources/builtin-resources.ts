import { type PrinterColumn, type ResourceDef, type ScaleSpec, standardVerbs } from './resource-def.js';

interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: ScaleSpec;
  generation?: boolean;
  columns?: PrinterColumn[];
  extra?: string[];
  fieldLabels?: string[];
  orphan?: boolean;
  /** Default {@link standardVerbs}. */
  verbs?: string[];
}

const replicasScale: ScaleSpec = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  labelSelectorPath: '.status.selector',
};

const specs: BuiltinSpec[] = [
  {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    status: true,
    extra: ['finalize'],
    fieldLabels: ['status.phase'],
    columns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase' }],
    // Namespaces are deleted one by one: there is no deletecollection.
    verbs: standardVerbs.filter((v) => v !== 'deletecollection'),
  },
  {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
  },
  {
    // Deprecated since Kubernetes 1.33 in favour of EndpointSlices, still served: client-go's `endpoints` leader-election lock.
    group: '',
    version: 'v1',
    resource: 'endpoints',
    kind: 'Endpoints',
    namespaced: true,
    shortNames: ['ep'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'secrets',
    kind: 'Secret',
    namespaced: true,
    fieldLabels: ['type'],
    columns: [{ name: 'Type', type: 'string', jsonPath: '.type' }],
  },
  {
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    status: true,
    columns: [
      { name: 'Type', type: 'string', jsonPath: '.spec.type' },
      { name: 'Cluster-IP', type: 'string', jsonPath: '.spec.clusterIP' },
    ],
  },
  {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    extra: ['token'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    status: true,
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
    columns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase' }],
  },
  {
    group: '',
    version: 'v1',
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    status: true,
    fieldLabels: ['spec.unschedulable'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    fieldLabels: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    status: true,
    scale: replicasScale,
    generation: true,
    columns: [
      { name: 'Ready', type: 'string', jsonPath: '.status.readyReplicas' },
      { name: 'Up-to-date', type: 'integer', jsonPath: '.status.updatedReplicas' },
      { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' },
    ],
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    status: true,
    scale: replicasScale,
    generation: true,
    fieldLabels: ['status.replicas'],
    columns: [
      { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Current', type: 'integer', jsonPath: '.status.replicas' },
      { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
    ],
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    status: true,
    scale: replicasScale,
    generation: true,
    columns: [{ name: 'Ready', type: 'string', jsonPath: '.status.readyReplicas' }],
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    status: true,
    generation: true,
    columns: [
      { name: 'Desired', type: 'integer', jsonPath: '.status.desiredNumberScheduled' },
      { name: 'Current', type: 'integer', jsonPath: '.status.currentNumberScheduled' },
      { name: 'Ready', type: 'integer', jsonPath: '.status.numberReady' },
    ],
  },
  {
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    kind: 'Job',
    namespaced: true,
    categories: ['all'],
    status: true,
    generation: true,
    orphan: true,
    fieldLabels: ['status.successful'],
    columns: [{ name: 'Completions', type: 'string', jsonPath: '.spec.completions' }],
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'ingresses',
    kind: 'Ingress',
    namespaced: true,
    shortNames: ['ing'],
    status: true,
    generation: true,
    columns: [{ name: 'Class', type: 'string', jsonPath: '.spec.ingressClassName' }],
  },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'rolebindings',
    kind: 'RoleBinding',
    namespaced: true,
    columns: [{ name: 'Role', type: 'string', jsonPath: '.roleRef.name' }],
  },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    columns: [{ name: 'Role', type: 'string', jsonPath: '.roleRef.name' }],
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    resource: 'leases',
    kind: 'Lease',
    namespaced: true,
    columns: [{ name: 'Holder', type: 'string', jsonPath: '.spec.holderIdentity' }],
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    status: true,
    generation: true,
  },
];

const specStatus = ['spec', 'status'];
const topLevel: Record<string, string[]> = {
  ConfigMap: ['data', 'binaryData', 'immutable'],
  Secret: ['data', 'stringData', 'type', 'immutable'],
  ServiceAccount: ['secrets', 'imagePullSecrets', 'automountServiceAccountToken'],
  Event: [
    'involvedObject',
    'reason',
    'message',
    'source',
    'firstTimestamp',
    'lastTimestamp',
    'count',
    'type',
    'eventTime',
    'series',
    'action',
    'related',
    'reportingComponent',
    'reportingInstance',
  ],
  Role: ['rules'],
  ClusterRole: ['rules', 'aggregationRule'],
  RoleBinding: ['subjects', 'roleRef'],
  ClusterRoleBinding: ['subjects', 'roleRef'],
  Lease: ['spec'],
};

/**
 * Create-only virtual resources (nothing is stored): SelfSubjectAccessReview for `kubectl auth
 * can-i`; TokenReview and SubjectAccessReview, which servers delegating authentication and
 * authorization to the API server send (e.g. secure metrics endpoints).
 */
function virtualResources(): ResourceDef[] {
  return [
    virtualResource('authorization.k8s.io', 'SelfSubjectAccessReview'),
    virtualResource('authorization.k8s.io', 'SubjectAccessReview'),
    virtualResource('authentication.k8s.io', 'TokenReview'),
  ];
}

/** A cluster-scoped create-only virtual resource `kind` of `group`. */
function virtualResource(group: string, kind: string): ResourceDef {
  const singular = kind.toLowerCase();
  return {
    group,
    resource: `${singular}s`,
    kind,
    listKind: `${kind}List`,
    singular,
    namespaced: false,
    shortNames: [],
    categories: [],
    versions: [{ name: 'v1', printerColumns: [], status: false }],
    builtin: true,
    generation: false,
    extraSubresources: [],
    fieldLabels: [],
    defaultPropagation: 'Background',
    verbs: ['create'],
    virtual: true,
  };
}

/** The built-in resources of a simulated cluster (a subset of kube-apiserver 1.31). */
export function builtinResources(): ResourceDef[] {
  const builtins = specs.map((s): ResourceDef => ({
    group: s.group,
    resource: s.resource,
    kind: s.kind,
    listKind: `${s.kind}List`,
    singular: s.kind.toLowerCase(),
    namespaced: s.namespaced,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    versions: [
      {
        name: s.version,
        printerColumns: s.columns ?? [],
        status: s.status ?? false,
        ...(s.scale !== undefined ? { scale: s.scale } : {}),
      },
    ],
    builtin: true,
    generation: s.generation ?? false,
    extraSubresources: s.extra ?? [],
    fieldLabels: s.fieldLabels ?? [],
    defaultPropagation: s.orphan === true ? 'Orphan' : 'Background',
    verbs: s.verbs ?? standardVerbs,
    topLevelFields: topLevel[s.kind] ?? specStatus,
  }));
  return [...builtins, ...virtualResources()];
}
