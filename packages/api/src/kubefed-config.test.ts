import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  defaultKubeFedConfig,
  defaultKubeFedConfigSpec,
  parseKubeFedConfig,
  resolveFeatureGates,
  validateKubeFedConfig,
  type KubeFedConfigSpec,
} from './kubefed-config.js';

const CONFIG_YAML = `
apiVersion: core.kubefed.io/v1beta1
kind: KubeFedConfig
metadata:
  name: kubefed
  namespace: kube-federation-system
spec:
  scope: Cluster
  controllerDuration:
    availableDelay: 20s
    unavailableDelay: 1m0s
    cacheSyncTimeout: 5m0s
  leaderElect:
    leaseDuration: 1500ms
    renewDeadline: 1000ms
    retryPeriod: 500ms
    resourceLock: leases
  featureGates:
    - name: PushReconciler
      configuration: Enabled
    - name: RawResourceStatusCollection
      configuration: Enabled
    - name: SchedulerPreferences
      configuration: Enabled
  clusterHealthCheck:
    period: 10s
    failureThreshold: 3
    successThreshold: 1
    timeout: 3s
  syncController:
    maxConcurrentReconciles: 1
    adoptResources: Enabled
  statusController:
    maxConcurrentReconciles: 1
`;

const valid = () => parse(CONFIG_YAML);

const FULL_DEFAULTS: KubeFedConfigSpec = {
  controllerDuration: { availableDelay: '20s', unavailableDelay: '1m0s', cacheSyncTimeout: '5m0s' },
  leaderElect: { leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '5s', resourceLock: 'configmaps' },
  featureGates: [
    { name: 'PushReconciler', configuration: 'Enabled' },
    { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
    { name: 'SchedulerPreferences', configuration: 'Enabled' },
  ],
  clusterHealthCheck: { period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s' },
  syncController: { maxConcurrentReconciles: 1, adoptResources: 'Enabled' },
  statusController: { maxConcurrentReconciles: 1 },
};

describe('KubeFedConfig', () => {
  it('round-trips the test configuration exactly', () => {
    const input = valid();
    expect(stringify(parseKubeFedConfig(input))).toBe(stringify(input));
  });

  it.each<[string, KubeFedConfigSpec, KubeFedConfigSpec]>([
    ['fills an empty spec with every default but scope', {}, FULL_DEFAULTS],
    ['keeps scope and does not default it', { scope: 'Namespaced' }, { scope: 'Namespaced', ...FULL_DEFAULTS }],
    [
      'keeps user values inside a partly set block',
      { leaderElect: { leaseDuration: '30s' }, clusterHealthCheck: { failureThreshold: 5 } },
      {
        ...FULL_DEFAULTS,
        leaderElect: { ...FULL_DEFAULTS.leaderElect, leaseDuration: '30s' },
        clusterHealthCheck: { ...FULL_DEFAULTS.clusterHealthCheck, failureThreshold: 5 },
      },
    ],
    [
      'appends missing feature gates and sorts the list by name',
      { featureGates: [{ name: 'SchedulerPreferences', configuration: 'Disabled' }] },
      {
        ...FULL_DEFAULTS,
        featureGates: [
          { name: 'PushReconciler', configuration: 'Enabled' },
          { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
          { name: 'SchedulerPreferences', configuration: 'Disabled' },
        ],
      },
    ],
    [
      'keeps unknown gates (validation rejects them) and sorts them in',
      {
        featureGates: [
          { name: 'Zeta', configuration: 'Enabled' },
          { name: 'Alpha', configuration: 'Enabled' },
        ],
      },
      {
        ...FULL_DEFAULTS,
        featureGates: [
          { name: 'Alpha', configuration: 'Enabled' },
          ...(FULL_DEFAULTS.featureGates ?? []),
          { name: 'Zeta', configuration: 'Enabled' },
        ],
      },
    ],
  ])('defaulting %s', (_title, spec, expected) => {
    const before = structuredClone(spec);
    expect(defaultKubeFedConfigSpec(spec)).toEqual(expected);
    expect(spec).toEqual(before);
  });

  it('makes a minimal object valid by defaulting it', () => {
    const minimal = { metadata: { name: 'kubefed' }, spec: { scope: 'Cluster' } };
    expect(validateKubeFedConfig(minimal).ok).toBe(false);
    expect(validateKubeFedConfig(defaultKubeFedConfig(minimal)).ok).toBe(true);
  });

  it('resolves feature gates, taking defaults for unlisted ones', () => {
    expect(resolveFeatureGates({ featureGates: [{ name: 'PushReconciler', configuration: 'Disabled' }] })).toEqual({
      PushReconciler: false,
      RawResourceStatusCollection: true,
      SchedulerPreferences: true,
    });
  });

  it.each<[string, (o: ReturnType<typeof valid>) => void, { path: string; message: string }[]]>([
    ['a missing scope', (o) => delete o.spec.scope, [{ path: 'spec.scope', message: 'Required value' }]],
    ['an unknown scope', (o) => (o.spec.scope = 'Global'), [{ path: 'spec.scope', message: 'must be one of Cluster, Namespaced' }]],
    [
      'missing blocks',
      (o) => {
        delete o.spec.controllerDuration;
        delete o.spec.statusController;
      },
      [
        { path: 'spec.controllerDuration', message: 'Required value' },
        { path: 'spec.statusController', message: 'Required value' },
      ],
    ],
    [
      'a zero duration',
      (o) => (o.spec.controllerDuration.availableDelay = '0s'),
      [{ path: 'spec.controllerDuration.availableDelay', message: 'Invalid value: "0s": should be greater than 0' }],
    ],
    [
      'an unparseable duration',
      (o) => (o.spec.clusterHealthCheck.period = 'ten seconds'),
      [{ path: 'spec.clusterHealthCheck.period', message: 'Invalid value: "ten seconds": must be a duration such as 20s, 1m0s or 1500ms' }],
    ],
    [
      'a non-positive threshold',
      (o) => (o.spec.clusterHealthCheck.failureThreshold = 0),
      [{ path: 'spec.clusterHealthCheck.failureThreshold', message: 'Invalid value: 0: should be greater than 0' }],
    ],
    [
      'a lease not longer than the renew deadline',
      (o) => (o.spec.leaderElect.leaseDuration = '1s'),
      [{ path: 'spec.leaderElect.leaseDuration', message: 'Invalid value: "1s": leaseDuration must be greater than renewDeadline' }],
    ],
    [
      'a renew deadline within the jittered retry period',
      (o) => (o.spec.leaderElect.renewDeadline = '600ms'),
      [
        {
          path: 'spec.leaderElect.renewDeadline',
          message: 'Invalid value: "600ms": renewDeadline must be greater than retryPeriod*JitterFactor(1.2)',
        },
      ],
    ],
    [
      'an unknown resource lock',
      (o) => (o.spec.leaderElect.resourceLock = 'etcd'),
      [
        {
          path: 'spec.leaderElect.resourceLock',
          message: 'must be one of configmaps, endpoints, leases, configmapsleases, endpointsleases',
        },
      ],
    ],
    [
      'an unknown and a duplicate feature gate',
      (o) => o.spec.featureGates.push({ name: 'Foo', configuration: 'Enabled' }, { name: 'PushReconciler', configuration: 'On' }),
      [
        { path: 'spec.featureGates[3].name', message: 'must be one of PushReconciler, RawResourceStatusCollection, SchedulerPreferences' },
        { path: 'spec.featureGates[4].name', message: 'Duplicate value: "PushReconciler"' },
        { path: 'spec.featureGates[4].configuration', message: 'must be one of Enabled, Disabled' },
      ],
    ],
    [
      'an empty adoptResources',
      (o) => (o.spec.syncController.adoptResources = ''),
      [{ path: 'spec.syncController.adoptResources', message: 'Required value' }],
    ],
    [
      'a fractional reconcile count',
      (o) => (o.spec.syncController.maxConcurrentReconciles = 1.5),
      [{ path: 'spec.syncController.maxConcurrentReconciles', message: 'must be an integer' }],
    ],
  ])('reports %s with its field path', (_title, mutate, issues) => {
    const o = valid();
    mutate(o);
    expect(validateKubeFedConfig(o).issues).toEqual(issues);
  });

  it.each(['configmaps', 'endpoints', 'leases', 'configmapsleases', 'endpointsleases'])(
    'accepts the %s lock, a lock type of client-go resourcelock.New',
    (lock) => {
      const o = valid();
      o.spec.leaderElect.resourceLock = lock;
      expect(validateKubeFedConfig(o).ok).toBe(true);
    },
  );

  it('refuses to change the scope on update', () => {
    const old = valid();
    const updated = valid();
    updated.spec.scope = 'Namespaced';
    expect(validateKubeFedConfig(updated, { oldObject: old }).issues).toEqual([
      { path: 'spec.scope', message: 'Invalid value: "Namespaced": field is immutable' },
    ]);
    expect(validateKubeFedConfig(valid(), { oldObject: old }).ok).toBe(true);
  });
});
