/**
 * The CRDs of KubeFed's own kinds (docs/kubefed-compatibility.md §1.0): KubeFedCluster, KubeFedConfig,
 * FederatedTypeConfig, PropagatedVersion, ClusterPropagatedVersion, FederatedServiceStatus and
 * ReplicaSchedulingPreference. Schemas are written by hand as data, field for field with the
 * zod schemas of this package.
 */
import {
  ClusterConditionType,
  ConditionStatus,
  CORE_GROUP,
  CORE_V1ALPHA1_VERSION,
  CORE_VERSION,
  FEATURE_GATE_DEFAULTS,
  SCHEDULING_GROUP,
  SCHEDULING_VERSION,
} from '../constants.js';
import { TLS_VALIDATIONS } from '../kubefed-cluster.js';
import { FEATURE_GATE_NAMES, KUBEFED_CONFIG_DEFAULTS, KUBEFED_SCOPES, RESOURCE_LOCKS } from '../kubefed-config.js';
import {
  apiEndpointProps,
  apiGroupProps,
  dns1035Props,
  FEDERATED_GROUP_RULES,
  FTC_NAME_RULE,
  IMMUTABLE_SCOPE_RULE,
  kindProps,
  LEADER_ELECT_RULES,
  ONLY_WILDCARD_TLS_RULE,
  positiveDuration,
  proxyUrlProps,
  secretNameProps,
  UNIQUE_FEATURE_GATES_RULE,
} from './admission-rules.js';
import { AGE_COLUMN, buildCrd, type CustomResourceDefinition } from './crd.js';
import {
  arr,
  atLeast,
  bool,
  dateTime,
  int32,
  int64,
  map,
  metadataWithName,
  nonNegative,
  obj,
  preservedObject,
  str,
  strEnum,
  topLevel,
  withDefault,
  withRules,
  type JsonSchemaProps,
} from './openapi.js';

const SWITCH = ['Enabled', 'Disabled'] as const;
const SCOPES = ['Cluster', 'Namespaced'] as const;
const CONTROLLER_STATES = ['Running', 'NotRunning'] as const;

/** KubeFed's APIResource; `federated` adds the rules of the federated and status types (group with a dot). */
const apiResource = (federated: boolean): JsonSchemaProps => {
  const node = obj(
    {
      group: apiGroupProps(),
      version: dns1035Props('version', 'v1', 'Version of the resource.'),
      kind: kindProps(),
      pluralName: dns1035Props('pluralName', 'configmaps', 'Lower-cased plural name of the resource (e.g. configmaps).'),
      scope: { ...strEnum(SCOPES), description: 'Scope of the resource: Cluster or Namespaced.' },
    },
    ['kind', 'pluralName', 'scope', 'version'],
  );
  return federated ? withRules(node, ...FEDERATED_GROUP_RULES) : node;
};

/** A positive count (thresholds, concurrency) with its default. */
const positiveCount = (def: number): JsonSchemaProps => withDefault(atLeast(int64(), 1), def);

/** An optional block of KubeFedConfig: absent → `{}`, whose fields then take their defaults. */
const defaultedBlock = (properties: Record<string, JsonSchemaProps>): JsonSchemaProps => withDefault(obj(properties), {});

/**
 * CRD of KubeFedCluster (short name kfc, status subresource). Columns in KubeFed's order (AGE,
 * READY, KUBERNETES-VERSION), then ours: API-ENDPOINT (with `-o wide`).
 */
export function kubeFedClusterCrd(): CustomResourceDefinition {
  return buildCrd({
    group: CORE_GROUP,
    version: CORE_VERSION,
    kind: 'KubeFedCluster',
    plural: 'kubefedclusters',
    scope: 'Namespaced',
    shortNames: ['kfc'],
    status: true,
    printerColumns: [
      AGE_COLUMN,
      { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
      { name: 'Kubernetes-Version', type: 'string', jsonPath: '.status.kubernetesVersion' },
      { name: 'API-Endpoint', type: 'string', jsonPath: '.spec.apiEndpoint', priority: 1 },
    ],
    schema: topLevel(
      {
        spec: obj(
          {
            apiEndpoint: apiEndpointProps(),
            caBundle: str({ format: 'byte', description: 'CA bundle used to verify the member API server.' }),
            disabledTLSValidations: withRules(arr(strEnum(TLS_VALIDATIONS)), ONLY_WILDCARD_TLS_RULE),
            proxyURL: proxyUrlProps(),
            secretRef: obj({ name: secretNameProps() }, ['name']),
          },
          ['apiEndpoint', 'secretRef'],
        ),
        status: obj(
          {
            conditions: arr(
              obj(
                {
                  lastProbeTime: dateTime(),
                  lastTransitionTime: dateTime(),
                  message: str(),
                  reason: str(),
                  status: strEnum(Object.values(ConditionStatus)),
                  type: strEnum(Object.values(ClusterConditionType)),
                },
                ['lastProbeTime', 'status', 'type'],
              ),
            ),
            kubernetesVersion: str(),
            region: str(),
            zones: arr(str()),
          },
          ['conditions'],
        ),
      },
      ['spec'],
    ),
  });
}

/**
 * CRD of KubeFedConfig (no status). Its schema defaults stand in for KubeFed's mutating webhook
 * and its rules for the validating one: absent blocks and fields take KubeFed's defaults, an
 * absent `featureGates` list becomes every known gate with its default; `scope` is required and
 * immutable.
 */
export function kubeFedConfigCrd(): CustomResourceDefinition {
  const d = KUBEFED_CONFIG_DEFAULTS;
  const gates = FEATURE_GATE_NAMES.map((name) => ({ name, configuration: FEATURE_GATE_DEFAULTS[name] }));
  return buildCrd({
    group: CORE_GROUP,
    version: CORE_VERSION,
    kind: 'KubeFedConfig',
    plural: 'kubefedconfigs',
    scope: 'Namespaced',
    printerColumns: [{ name: 'Scope', type: 'string', jsonPath: '.spec.scope' }, AGE_COLUMN],
    schema: topLevel(
      {
        spec: obj(
          {
            clusterHealthCheck: defaultedBlock({
              failureThreshold: positiveCount(d.clusterHealthCheck.failureThreshold),
              period: positiveDuration('period', d.clusterHealthCheck.period),
              successThreshold: positiveCount(d.clusterHealthCheck.successThreshold),
              timeout: positiveDuration('timeout', d.clusterHealthCheck.timeout),
            }),
            controllerDuration: defaultedBlock({
              availableDelay: positiveDuration('availableDelay', d.controllerDuration.availableDelay),
              cacheSyncTimeout: positiveDuration('cacheSyncTimeout', d.controllerDuration.cacheSyncTimeout),
              unavailableDelay: positiveDuration('unavailableDelay', d.controllerDuration.unavailableDelay),
            }),
            featureGates: withDefault(
              withRules(
                {
                  ...arr(obj({ configuration: strEnum(SWITCH), name: strEnum(FEATURE_GATE_NAMES) }, ['configuration', 'name'])),
                  maxItems: FEATURE_GATE_NAMES.length,
                },
                UNIQUE_FEATURE_GATES_RULE,
              ),
              gates,
            ),
            leaderElect: withRules(
              defaultedBlock({
                leaseDuration: positiveDuration('leaseDuration', d.leaderElect.leaseDuration),
                renewDeadline: positiveDuration('renewDeadline', d.leaderElect.renewDeadline),
                resourceLock: withDefault(strEnum(RESOURCE_LOCKS), d.leaderElect.resourceLock),
                retryPeriod: positiveDuration('retryPeriod', d.leaderElect.retryPeriod),
              }),
              ...LEADER_ELECT_RULES,
            ),
            scope: withRules(
              { ...strEnum(KUBEFED_SCOPES), description: 'Scope of the control plane: Cluster or Namespaced; immutable.' },
              IMMUTABLE_SCOPE_RULE,
            ),
            statusController: defaultedBlock({ maxConcurrentReconciles: positiveCount(d.statusController.maxConcurrentReconciles) }),
            syncController: defaultedBlock({
              adoptResources: withDefault(strEnum(SWITCH), d.syncController.adoptResources),
              maxConcurrentReconciles: positiveCount(d.syncController.maxConcurrentReconciles),
            }),
          },
          ['scope'],
        ),
      },
      ['spec'],
    ),
  });
}

/**
 * The schema of FederatedTypeConfig: KubeFed's rules on each APIResource, enums, and at the root
 * the rule that the name is GroupQualifiedName(targetType) (reported at `metadata.name`).
 */
function federatedTypeConfigSchema(): JsonSchemaProps {
  const schema = topLevel(
    {
      spec: obj(
        {
          federatedType: apiResource(true),
          propagation: { ...strEnum(SWITCH), description: 'Enabled or Disabled.' },
          statusCollection: { ...strEnum(SWITCH), description: 'Enabled or Disabled.' },
          statusType: apiResource(true),
          targetType: apiResource(false),
        },
        ['federatedType', 'propagation', 'targetType'],
      ),
      status: obj(
        {
          observedGeneration: nonNegative(int64()),
          propagationController: strEnum(CONTROLLER_STATES),
          statusController: strEnum(CONTROLLER_STATES),
          conditions: arr(
            obj({ lastTransitionTime: dateTime(), message: str(), reason: str(), status: str(), type: str() }, ['status', 'type']),
          ),
        },
        ['observedGeneration', 'propagationController'],
      ),
    },
    ['spec'],
  );
  return withRules({ ...schema, properties: { ...schema.properties, metadata: metadataWithName() } }, FTC_NAME_RULE);
}

/** CRD of FederatedTypeConfig (short name ftc, status subresource). */
export function federatedTypeConfigCrd(): CustomResourceDefinition {
  return buildCrd({
    group: CORE_GROUP,
    version: CORE_VERSION,
    kind: 'FederatedTypeConfig',
    plural: 'federatedtypeconfigs',
    scope: 'Namespaced',
    shortNames: ['ftc'],
    status: true,
    printerColumns: [
      { name: 'Target-Kind', type: 'string', jsonPath: '.spec.targetType.kind' },
      { name: 'Federated-Kind', type: 'string', jsonPath: '.spec.federatedType.kind' },
      { name: 'Propagation', type: 'string', jsonPath: '.spec.propagation' },
      { name: 'Controller', type: 'string', jsonPath: '.status.propagationController' },
      AGE_COLUMN,
    ],
    schema: federatedTypeConfigSchema(),
  });
}

const propagatedVersionSchema = (): JsonSchemaProps =>
  topLevel({
    status: obj(
      {
        clusterVersions: arr(obj({ clusterName: str(), version: str() }, ['clusterName', 'version'])),
        overridesVersion: str(),
        templateVersion: str(),
      },
      ['overridesVersion', 'templateVersion'],
    ),
  });

/** CRD of PropagatedVersion (namespaced, status subresource). */
export function propagatedVersionCrd(): CustomResourceDefinition {
  return buildCrd({
    group: CORE_GROUP,
    version: CORE_V1ALPHA1_VERSION,
    kind: 'PropagatedVersion',
    plural: 'propagatedversions',
    scope: 'Namespaced',
    status: true,
    schema: propagatedVersionSchema(),
  });
}

/** CRD of ClusterPropagatedVersion (cluster-scoped, status subresource). */
export function clusterPropagatedVersionCrd(): CustomResourceDefinition {
  return buildCrd({
    group: CORE_GROUP,
    version: CORE_V1ALPHA1_VERSION,
    kind: 'ClusterPropagatedVersion',
    plural: 'clusterpropagatedversions',
    scope: 'Cluster',
    status: true,
    schema: propagatedVersionSchema(),
  });
}

/** CRD of the legacy FederatedServiceStatus (namespaced, no status subresource; member statuses kept as they are). */
export function federatedServiceStatusCrd(): CustomResourceDefinition {
  return buildCrd({
    group: CORE_GROUP,
    version: CORE_V1ALPHA1_VERSION,
    kind: 'FederatedServiceStatus',
    plural: 'federatedservicestatuses',
    scope: 'Namespaced',
    schema: topLevel({
      clusterStatus: arr(obj({ clusterName: str(), status: preservedObject() }, ['clusterName', 'status'])),
    }),
  });
}

/**
 * CRD of ReplicaSchedulingPreference (short name rsp). Beyond KubeFed, whose RSP status was an
 * empty object that was never written: a status subresource with the planned replicas per cluster
 * and a `Scheduled` condition, written by the scheduling controller.
 */
export function replicaSchedulingPreferenceCrd(): CustomResourceDefinition {
  return buildCrd({
    group: SCHEDULING_GROUP,
    version: SCHEDULING_VERSION,
    kind: 'ReplicaSchedulingPreference',
    plural: 'replicaschedulingpreferences',
    scope: 'Namespaced',
    status: true,
    shortNames: ['rsp'],
    printerColumns: [
      { name: 'Target-Kind', type: 'string', jsonPath: '.spec.targetKind' },
      { name: 'Total-Replicas', type: 'integer', jsonPath: '.spec.totalReplicas' },
      { name: 'Rebalance', type: 'boolean', jsonPath: '.spec.rebalance' },
      AGE_COLUMN,
    ],
    schema: topLevel(
      {
        spec: obj(
          {
            clusters: map(obj({ maxReplicas: nonNegative(int64()), minReplicas: nonNegative(int64()), weight: nonNegative(int64()) })),
            intersectWithClusterSelector: bool(),
            rebalance: bool(),
            targetKind: str({ description: 'FederatedDeployment or FederatedReplicaSet.' }),
            totalReplicas: nonNegative(int32()),
          },
          ['targetKind', 'totalReplicas'],
        ),
        status: obj({
          observedGeneration: int64(),
          clusters: map(obj({ replicas: int64() })),
          conditions: arr(
            obj({ lastTransitionTime: dateTime(), message: str(), reason: str(), status: str(), type: str() }, ['status', 'type']),
          ),
        }),
      },
      ['spec'],
    ),
  });
}

/** Every KubeFed core CRD, in a fixed order. */
export function kubeFedCrds(): CustomResourceDefinition[] {
  return [
    kubeFedClusterCrd(),
    kubeFedConfigCrd(),
    federatedTypeConfigCrd(),
    propagatedVersionCrd(),
    clusterPropagatedVersionCrd(),
    federatedServiceStatusCrd(),
    replicaSchedulingPreferenceCrd(),
  ];
}
