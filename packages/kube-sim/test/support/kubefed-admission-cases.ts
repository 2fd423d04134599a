/* eslint-disable @typescript-eslint/no-unsafe-member-access -- the cases edit loose JSON objects, as the *.test.ts files do */
/**
 * One table of KubeFedCluster, KubeFedConfig and FederatedTypeConfig objects, valid and invalid,
 * that the admission suite sends to an API server with the generated CRDs (kube-sim and a real
 * kube-apiserver) and runs through the zod validators of `@kubefed/api`: all three must accept and
 * reject the same objects. The base objects are those of KubeFed's e2e validation test
 * (test/common/validation.go, test/e2e/validation.go).
 */
import {
  defaultKubeFedConfigSpec,
  kubeFedConfigSchema,
  validateFederatedTypeConfig,
  validateKubeFedCluster,
  validateKubeFedConfig,
} from '@kubefed/api';
import type { Json } from './conformance-target.js';

export type AdmissionKind = 'KubeFedCluster' | 'KubeFedConfig' | 'FederatedTypeConfig';

/** A JSON object under test (deliberately loose: invalid cases break the types). */
export type Obj = Record<string, unknown> & { metadata: Record<string, unknown>; spec: Record<string, unknown> };

export interface AdmissionCase {
  readonly title: string;
  readonly kind: AdmissionKind;
  readonly object: Obj;
  /** null when valid; else the field path of the error the API server reports. */
  readonly rejectedAt: string | null;
}

/** The plural resource of each kind (group core.kubefed.io, version v1beta1). */
export const PLURALS: Readonly<Record<AdmissionKind, string>> = {
  KubeFedCluster: 'kubefedclusters',
  KubeFedConfig: 'kubefedconfigs',
  FederatedTypeConfig: 'federatedtypeconfigs',
};

const meta = (kind: AdmissionKind, name: string): Pick<Obj, 'apiVersion' | 'kind' | 'metadata'> => ({
  apiVersion: 'core.kubefed.io/v1beta1',
  kind,
  metadata: { name },
});

/** KubeFed's ValidKubeFedCluster (spec only: status belongs to the status subresource). */
export function validCluster(name = 'validation-test-cluster'): Obj {
  return {
    ...meta('KubeFedCluster', name),
    spec: { apiEndpoint: 'https://my.example.com:80/path/to/endpoint', secretRef: { name: 'validation-unit-test-cluster-pw97k' } },
  };
}

/** KubeFed's ValidKubeFedConfig before its defaults (the CRD schema adds them). */
export function validConfig(name = 'kubefed'): Obj {
  return { ...meta('KubeFedConfig', name), spec: { scope: 'Cluster' } };
}

/** The FederatedTypeConfig `kubefedctl enable daemonsets.apps` writes (KubeFed's e2e validation test). */
export function validTypeConfig(): Obj {
  return {
    ...meta('FederatedTypeConfig', 'daemonsets.apps'),
    spec: {
      targetType: { group: 'apps', version: 'v1', kind: 'DaemonSet', pluralName: 'daemonsets', scope: 'Namespaced' },
      federatedType: {
        group: 'types.kubefed.io',
        version: 'v1beta1',
        kind: 'FederatedDaemonSet',
        pluralName: 'federateddaemonsets',
        scope: 'Namespaced',
      },
      propagation: 'Enabled',
    },
  };
}

/** `base` with `edit` applied to a deep copy. */
function edited(base: Obj, edit: (o: Obj & { spec: Json }) => void): Obj {
  const copy = structuredClone<Obj & { spec: Json }>(base);
  edit(copy);
  return copy;
}

const cluster = (title: string, rejectedAt: string | null, edit: (o: Obj & { spec: Json }) => void): AdmissionCase => ({
  title,
  kind: 'KubeFedCluster',
  object: edited(validCluster(), edit),
  rejectedAt,
});
const config = (title: string, rejectedAt: string | null, spec: Record<string, unknown>): AdmissionCase => ({
  title,
  kind: 'KubeFedConfig',
  object: { ...validConfig(), spec: { scope: 'Cluster', ...spec } },
  rejectedAt,
});
const typeConfig = (title: string, rejectedAt: string | null, edit: (o: Obj & { spec: Json }) => void): AdmissionCase => ({
  title,
  kind: 'FederatedTypeConfig',
  object: edited(validTypeConfig(), edit),
  rejectedAt,
});

/** Every case of the table. */
export const ADMISSION_CASES: readonly AdmissionCase[] = [
  cluster("KubeFed's valid cluster", null, () => undefined),
  cluster('a host:port endpoint', null, (o) => (o.spec.apiEndpoint = '10.0.0.1:6443')),
  cluster('a bare host name endpoint', null, (o) => (o.spec.apiEndpoint = 'kubernetes.default.svc')),
  cluster('an IPv6 endpoint with a port', null, (o) => (o.spec.apiEndpoint = '[::1]:6443')),
  cluster('an http URL endpoint', null, (o) => (o.spec.apiEndpoint = 'http://127.0.0.1:8080')),
  cluster('an endpoint URL with user information', null, (o) => (o.spec.apiEndpoint = 'https://admin@my.example.com:6443')),
  cluster('all TLS validations disabled with *', null, (o) => (o.spec.disabledTLSValidations = ['*'])),
  cluster('two named TLS validations disabled', null, (o) => (o.spec.disabledTLSValidations = ['SubjectName', 'ValidityPeriod'])),
  cluster('a socks5 proxy', null, (o) => (o.spec.proxyURL = 'socks5://proxy.example.com:1080')),
  cluster('an empty proxy URL', null, (o) => (o.spec.proxyURL = '')),
  cluster('a base64 CA bundle', null, (o) => (o.spec.caBundle = 'Y2EtZGF0YQ==')),
  cluster('an upper-case proxy scheme', null, (o) => (o.spec.proxyURL = 'HTTPS://proxy.example.com')),
  cluster('a CA bundle that is not base64', 'spec.caBundle', (o) => (o.spec.caBundle = 'not base64!')),
  cluster('an empty endpoint (KubeFed e2e)', 'spec.apiEndpoint', (o) => (o.spec.apiEndpoint = '')),
  cluster('an ftp endpoint', 'spec.apiEndpoint', (o) => (o.spec.apiEndpoint = 'ftp://my.example.com')),
  cluster('a path without a scheme', 'spec.apiEndpoint', (o) => (o.spec.apiEndpoint = 'my.example.com:80/path')),
  cluster('port 0', 'spec.apiEndpoint', (o) => (o.spec.apiEndpoint = 'my.example.com:0')),
  cluster('port 65536', 'spec.apiEndpoint', (o) => (o.spec.apiEndpoint = 'https://my.example.com:65536')),
  cluster('a port that is not a number', 'spec.apiEndpoint', (o) => (o.spec.apiEndpoint = 'my.example.com:https')),
  cluster('an empty secret name', 'spec.secretRef.name', (o) => (o.spec.secretRef = { name: '' })),
  cluster('a secret name that is no DNS subdomain', 'spec.secretRef.name', (o) => (o.spec.secretRef = { name: 'Bad_Name' })),
  cluster('no secretRef', 'spec.secretRef', (o) => delete o.spec.secretRef),
  cluster('an unknown TLS validation', 'spec.disabledTLSValidations[0]', (o) => (o.spec.disabledTLSValidations = ['Hostname'])),
  cluster('* with another TLS validation', 'spec.disabledTLSValidations', (o) => (o.spec.disabledTLSValidations = ['*', 'SubjectName'])),
  cluster('an ftp proxy', 'spec.proxyURL', (o) => (o.spec.proxyURL = 'ftp://proxy.example.com')),

  config('only the scope (the rest defaulted)', null, {}),
  config('a Namespaced scope', null, { scope: 'Namespaced' }),
  config("KubeFed e2e defaulting's partial spec", null, {
    controllerDuration: { availableDelay: '31s' },
    featureGates: [
      { name: 'PushReconciler', configuration: 'Disabled' },
      { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
    ],
    clusterHealthCheck: { period: '21s' },
  }),
  config("KubeFed's test timings (1500ms/1000ms/500ms)", null, {
    leaderElect: { leaseDuration: '1500ms', renewDeadline: '1000ms', retryPeriod: '500ms' },
  }),
  config('signed and fractional durations (+1.5m, .5s)', null, {
    controllerDuration: { availableDelay: '+1.5m', unavailableDelay: '.5s' },
  }),
  config('no scope', 'spec.scope', { scope: undefined }),
  config('an unknown scope', 'spec.scope', { scope: 'Global' }),
  config('adoptResources Unknown (KubeFed e2e)', 'spec.syncController.adoptResources', { syncController: { adoptResources: 'Unknown' } }),
  config('a zero delay', 'spec.controllerDuration.availableDelay', { controllerDuration: { availableDelay: '0s' } }),
  config('a negative delay', 'spec.controllerDuration.unavailableDelay', { controllerDuration: { unavailableDelay: '-5s' } }),
  config('a duration that does not parse', 'spec.controllerDuration.cacheSyncTimeout', {
    controllerDuration: { cacheSyncTimeout: 'soon' },
  }),
  config('a zero health-check timeout', 'spec.clusterHealthCheck.timeout', { clusterHealthCheck: { timeout: '0' } }),
  config('a failure threshold of 0', 'spec.clusterHealthCheck.failureThreshold', { clusterHealthCheck: { failureThreshold: 0 } }),
  config('a success threshold of 0', 'spec.clusterHealthCheck.successThreshold', { clusterHealthCheck: { successThreshold: 0 } }),
  config('no sync concurrency', 'spec.syncController.maxConcurrentReconciles', { syncController: { maxConcurrentReconciles: 0 } }),
  config('no status concurrency', 'spec.statusController.maxConcurrentReconciles', { statusController: { maxConcurrentReconciles: -1 } }),
  config('a lease no longer than the renew deadline', 'spec.leaderElect.leaseDuration', { leaderElect: { leaseDuration: '10s' } }),
  config('a renew deadline within 1.2 retry periods', 'spec.leaderElect.renewDeadline', {
    leaderElect: { renewDeadline: '6s', retryPeriod: '5s' },
  }),
  ...['configmaps', 'endpoints', 'leases', 'configmapsleases', 'endpointsleases'].map((lock) =>
    config(`the ${lock} lock (client-go resourcelock.New)`, null, { leaderElect: { resourceLock: lock } }),
  ),
  config('an unknown lock', 'spec.leaderElect.resourceLock', { leaderElect: { resourceLock: 'etcd' } }),
  config('an unknown feature gate', 'spec.featureGates[0].name', { featureGates: [{ name: 'Teleport', configuration: 'Enabled' }] }),
  config('a feature gate listed twice', 'spec.featureGates', {
    featureGates: [
      { name: 'PushReconciler', configuration: 'Enabled' },
      { name: 'PushReconciler', configuration: 'Disabled' },
    ],
  }),
  config('a feature gate neither Enabled nor Disabled', 'spec.featureGates[0].configuration', {
    featureGates: [{ name: 'PushReconciler', configuration: 'On' }],
  }),

  typeConfig('the daemonsets.apps type config (KubeFed e2e)', null, () => undefined),
  typeConfig('a core-group target', null, (o) => {
    o.metadata.name = 'configmaps';
    o.spec.targetType = { version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' };
    o.spec.federatedType = {
      group: 'types.kubefed.io',
      version: 'v1beta1',
      kind: 'FederatedConfigMap',
      pluralName: 'federatedconfigmaps',
      scope: 'Namespaced',
    };
  }),
  typeConfig('a status type and status collection', null, (o) => {
    o.spec.statusType = {
      group: 'core.kubefed.io',
      version: 'v1alpha1',
      kind: 'FederatedDaemonSetStatus',
      pluralName: 'federateddaemonsetstatuses',
      scope: 'Namespaced',
    };
    o.spec['statusCollection'] = 'Enabled';
  }),
  typeConfig('a federated type without a group (KubeFed e2e)', 'spec.federatedType.group', (o) => (o.spec.federatedType.group = '')),
  typeConfig('a federated group without a dot', 'spec.federatedType.group', (o) => (o.spec.federatedType.group = 'types')),
  typeConfig('a status type without a group', 'spec.statusType.group', (o) => {
    o.spec.statusType = {
      version: 'v1alpha1',
      kind: 'FederatedDaemonSetStatus',
      pluralName: 'federateddaemonsetstatuses',
      scope: 'Namespaced',
    };
  }),
  typeConfig('a name that is not the target plural.group', 'metadata.name', (o) => (o.metadata.name = 'daemonsets')),
  typeConfig('an upper-case target group', 'spec.targetType.group', (o) => (o.spec.targetType.group = 'Apps')),
  typeConfig('a target version that is no DNS-1035 label', 'spec.targetType.version', (o) => (o.spec.targetType.version = '1')),
  typeConfig('a target kind with an underscore', 'spec.targetType.kind', (o) => (o.spec.targetType.kind = 'Daemon_Set')),
  typeConfig(
    'an upper-case federated plural name',
    'spec.federatedType.pluralName',
    (o) => (o.spec.federatedType.pluralName = 'FederatedDaemonSets'),
  ),
  typeConfig('an unknown target scope', 'spec.targetType.scope', (o) => (o.spec.targetType.scope = 'Global')),
  typeConfig('propagation neither Enabled nor Disabled', 'spec.propagation', (o) => (o.spec['propagation'] = 'On')),
  typeConfig('an unknown status collection', 'spec.statusCollection', (o) => (o.spec['statusCollection'] = 'Sometimes')),
  typeConfig('no federated type', 'spec.federatedType', (o) => delete o.spec.federatedType),
];

/**
 * Whether `@kubefed/api` accepts the object as KubeFed's webhooks did: a KubeFedConfig is first
 * defaulted (the mutating webhook), then validated; the others are validated as they are.
 */
export function zodAccepts(kind: AdmissionKind, object: Obj, old?: Obj): boolean {
  switch (kind) {
    case 'KubeFedCluster':
      return validateKubeFedCluster(object).ok;
    case 'FederatedTypeConfig':
      return validateFederatedTypeConfig(object).ok;
    case 'KubeFedConfig': {
      const shape = kubeFedConfigSchema.safeParse(object);
      if (!shape.success) return false;
      const defaulted = { ...object, spec: defaultKubeFedConfigSpec(shape.data.spec) };
      return validateKubeFedConfig(defaulted, old === undefined ? {} : { oldObject: old }).ok;
    }
  }
}
