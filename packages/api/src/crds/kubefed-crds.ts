/**
 * The CRDs of KubeFed's own kinds (KUBEFED-REFERENCE §1.0): KubeFedCluster, KubeFedConfig,
 * FederatedTypeConfig, PropagatedVersion, ClusterPropagatedVersion, FederatedServiceStatus and
 * ReplicaSchedulingPreference. Schemas are written by hand as data, field for field with the
 * zod schemas of this package.
 */
import {
  CORE_GROUP,
  CORE_V1ALPHA1_VERSION,
  CORE_VERSION,
  SCHEDULING_GROUP,
  SCHEDULING_VERSION,
} from '../constants.js';
import { AGE_COLUMN, buildCrd, type CustomResourceDefinition } from './crd.js';
import {
  arr,
  bool,
  dateTime,
  int32,
  int64,
  map,
  nonNegative,
  obj,
  preservedObject,
  str,
  topLevel,
  type JsonSchemaProps,
} from './openapi.js';

const apiResource = (): JsonSchemaProps =>
  obj(
    {
      group: str({ description: 'Group of the resource; empty for the core group.' }),
      version: str({ description: 'Version of the resource.' }),
      kind: str({ description: 'Camel-cased singular name of the resource (e.g. ConfigMap).' }),
      pluralName: str({ description: 'Lower-cased plural name of the resource (e.g. configmaps).' }),
      scope: str({ description: 'Scope of the resource: Cluster or Namespaced.' }),
    },
    ['kind', 'pluralName', 'scope', 'version'],
  );

/** CRD of KubeFedCluster (short name kfc, status subresource, READY / KUBERNETES-VERSION / AGE columns). */
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
      { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
      { name: 'Kubernetes-Version', type: 'string', jsonPath: '.status.kubernetesVersion' },
      AGE_COLUMN,
    ],
    schema: topLevel(
      {
        spec: obj(
          {
            apiEndpoint: str({ description: 'API endpoint of the member cluster: host, host:port, IP, IP:port or URL.' }),
            caBundle: str({ format: 'byte', description: 'CA bundle used to verify the member API server.' }),
            disabledTLSValidations: arr(str()),
            proxyURL: str({ description: 'Proxy URL (http, https or socks5) used to reach the member.' }),
            secretRef: obj({ name: str() }, ['name']),
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
                  status: str(),
                  type: str(),
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

/** CRD of KubeFedConfig (no status). */
export function kubeFedConfigCrd(): CustomResourceDefinition {
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
            clusterHealthCheck: obj({ failureThreshold: int64(), period: str(), successThreshold: int64(), timeout: str() }),
            controllerDuration: obj({ availableDelay: str(), cacheSyncTimeout: str(), unavailableDelay: str() }),
            featureGates: arr(obj({ configuration: str(), name: str() }, ['configuration', 'name'])),
            leaderElect: obj({ leaseDuration: str(), renewDeadline: str(), resourceLock: str(), retryPeriod: str() }),
            scope: str({ description: 'Scope of the control plane: Cluster or Namespaced.' }),
            statusController: obj({ maxConcurrentReconciles: int64() }),
            syncController: obj({ adoptResources: str(), maxConcurrentReconciles: int64() }),
          },
          ['scope'],
        ),
      },
      ['spec'],
    ),
  });
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
    schema: topLevel(
      {
        spec: obj(
          {
            federatedType: apiResource(),
            propagation: str({ description: 'Enabled or Disabled.' }),
            statusCollection: str({ description: 'Enabled or Disabled.' }),
            statusType: apiResource(),
            targetType: apiResource(),
          },
          ['federatedType', 'propagation', 'targetType'],
        ),
        status: obj(
          {
            observedGeneration: int64(),
            propagationController: str(),
            statusController: str(),
            conditions: arr(
              obj(
                { lastTransitionTime: dateTime(), message: str(), reason: str(), status: str(), type: str() },
                ['status', 'type'],
              ),
            ),
          },
          ['observedGeneration', 'propagationController'],
        ),
      },
      ['spec'],
    ),
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
            obj(
              { lastTransitionTime: dateTime(), message: str(), reason: str(), status: str(), type: str() },
              ['status', 'type'],
            ),
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
