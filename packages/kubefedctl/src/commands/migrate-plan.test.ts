import { kubeFedCrds } from '@kubefed/api';
import { CLUSTER_CONNECTION_ANNOTATION, CLUSTER_NAME_ANNOTATION, connectionDigest, type KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import {
  compareCrd,
  holdExpiresAt,
  isKubeFedDeployment,
  LEADER_ANNOTATION,
  leaderRecordOf,
  notKubeFedWebhookReason,
  ruleDelta,
  secretActions,
  tokenServiceAccount,
} from './migrate-plan.js';

const NS = 'kube-federation-system';

const lockConfigMap = (record: object): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'kubefed-controller-manager', namespace: NS, annotations: { [LEADER_ANNOTATION]: JSON.stringify(record) } },
});

describe('leaderRecordOf and holdExpiresAt', () => {
  it.each([
    [
      'a held ConfigMap lock',
      lockConfigMap({ holderIdentity: 'kubefed-1_abc', leaseDurationSeconds: 15, renewTime: '2026-12-01T10:00:00Z' }),
      Date.parse('2026-12-01T10:00:15Z'),
    ],
    ['a released lock', lockConfigMap({ holderIdentity: '', leaseDurationSeconds: 1, renewTime: '2026-12-01T10:00:00Z' }), undefined],
    [
      'a held Lease',
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'kubefed-controller-manager' },
        spec: { holderIdentity: 'x', leaseDurationSeconds: 30, renewTime: '2026-12-01T10:00:00.000000Z' },
      },
      Date.parse('2026-12-01T10:00:30Z'),
    ],
  ])('reads %s', (_title, lock, expires) => {
    const record = leaderRecordOf(lock);
    expect(record).toBeDefined();
    expect(holdExpiresAt(record!)).toBe(expires);
  });

  it('finds no record in a ConfigMap without the annotation or with garbage in it', () => {
    expect(leaderRecordOf({ kind: 'ConfigMap', metadata: { name: 'x' } })).toBeUndefined();
    expect(leaderRecordOf({ kind: 'ConfigMap', metadata: { name: 'x', annotations: { [LEADER_ANNOTATION]: '{' } } })).toBeUndefined();
  });
});

describe('isKubeFedDeployment', () => {
  const deployment = (image: string): KubeObject => ({
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { template: { spec: { containers: [{ image }] } } },
  });
  it.each([
    ['quay.io/kubernetes-multicluster/kubefed:v0.10.0', true],
    ['quay.io/kubernetes-multicluster/kubefed@sha256:00', true],
    ['kubefed', true],
    ['ghcr.io/example/kubefed-controller-manager:1.0', false],
    ['kubefed-controller-manager', false],
  ])('%s is KubeFed: %s', (image, expected) => {
    expect(isKubeFedDeployment(deployment(image))).toBe(expected);
  });
});

describe('notKubeFedWebhookReason', () => {
  const service = (path: string, namespace = NS, name = 'kubefed-admission-webhook') => ({ service: { namespace, name, path } });
  const validating = (name: string, webhooks: object[]): KubeObject => ({
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks,
  });
  const chart = [
    { name: 'federatedtypeconfigs.core.kubefed.io', clientConfig: service('/validate-federatedtypeconfigs') },
    { name: 'kubefedclusters.core.kubefed.io', clientConfig: service('/validate-kubefedcluster') },
    { name: 'kubefedconfigs.core.kubefed.io', clientConfig: service('/validate-kubefedconfig') },
  ];
  it.each([
    ["the chart's cluster-scoped configuration", validating('validations.core.kubefed.io', chart), undefined],
    ["the chart's namespaced configuration", validating(`validations.core.kubefed.io-${NS}`, chart), undefined],
    [
      'one sent to a URL with KubeFed’s path',
      validating('validations.core.kubefed.io', [
        { name: 'kubefedconfigs.core.kubefed.io', clientConfig: { url: 'https://127.0.0.1:1/validate-kubefedconfig' } },
      ]),
      undefined,
    ],
    [
      'the mutating configuration',
      {
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'mutation.core.kubefed.io' },
        webhooks: [{ name: 'kubefedconfigs.core.kubefed.io', clientConfig: service('/default-kubefedconfig') }],
      },
      undefined,
    ],
    ['another name', validating('validations.example.kubefed.io', chart), 'its name is not validations.core.kubefed.io'],
    [
      'another namespace’s installation',
      validating('validations.core.kubefed.io-other', chart),
      'its name is not validations.core.kubefed.io',
    ],
    [
      'a service in another namespace',
      validating('validations.core.kubefed.io', [
        { name: 'kubefedconfigs.core.kubefed.io', clientConfig: service('/validate-kubefedconfig', 'other') },
      ]),
      `its webhook kubefedconfigs.core.kubefed.io calls service other/kubefed-admission-webhook, not ${NS}/kubefed-admission-webhook`,
    ],
    [
      'an extra webhook',
      validating('validations.core.kubefed.io', [...chart, { name: 'pods.example.com', clientConfig: service('/x') }]),
      "its webhook pods.example.com is not one of KubeFed's",
    ],
  ])('%s', (_title, config, reason) => {
    expect(notKubeFedWebhookReason(config, NS)).toBe(reason);
  });
});

describe('secretActions', () => {
  const cluster = (name: string, secret: string): KubeObject => ({
    kind: 'KubeFedCluster',
    metadata: { name },
    spec: { apiEndpoint: `https://${name}:6443`, caBundle: 'Y2E=', secretRef: { name: secret } },
  });
  const secret = (name: string, annotations?: Record<string, string>): KubeObject => ({
    kind: 'Secret',
    metadata: { name, ...(annotations === undefined ? {} : { annotations }) },
  });
  const digest = (name: string) => connectionDigest({ apiEndpoint: `https://${name}:6443`, caBundle: 'Y2E=' });

  it('binds a Secret named by exactly one KubeFedCluster to it', () => {
    expect(secretActions([cluster('member1', 'member1-abc')], [secret('member1-abc')])).toEqual([
      {
        kind: 'annotate',
        secret: 'member1-abc',
        cluster: 'member1',
        annotations: { [CLUSTER_NAME_ANNOTATION]: 'member1', [CLUSTER_CONNECTION_ANNOTATION]: digest('member1') },
      },
    ]);
  });

  it('leaves a Secret that is already bound as it is', () => {
    const bound = secret('s', { [CLUSTER_NAME_ANNOTATION]: 'member1', [CLUSTER_CONNECTION_ANNOTATION]: digest('member1') });
    expect(secretActions([cluster('member1', 's')], [bound])).toEqual([{ kind: 'unchanged', secret: 's', cluster: 'member1' }]);
  });

  it.each([
    ['named by two clusters', [cluster('a', 's'), cluster('b', 's')], [secret('s')], 'named by 2 KubeFedClusters (a, b)'],
    ['missing', [cluster('a', 's')], [], 'not found (named by KubeFedCluster a)'],
    ['bound to another cluster', [cluster('a', 's')], [secret('s', { [CLUSTER_NAME_ANNOTATION]: 'b' })], 'bound to cluster b, not to a'],
  ])('skips a Secret %s', (_title, clusters, secrets, reason) => {
    const [action] = secretActions(clusters, secrets);
    expect(action).toMatchObject({ kind: 'skip', secret: 's' });
    expect(action?.kind === 'skip' ? action.reason : '').toContain(reason);
  });
});

describe('compareCrd', () => {
  const ours = kubeFedCrds().find((c) => c.metadata.name === 'kubefedclusters.core.kubefed.io')!;
  const installed = (mutate: (spec: Record<string, unknown>) => void): KubeObject => {
    const copy = structuredClone(ours) as unknown as KubeObject;
    mutate(copy['spec'] as Record<string, unknown>);
    return copy;
  };
  type Version = {
    schema: { openAPIV3Schema: { description?: string; properties: Record<string, unknown> } };
    additionalPrinterColumns?: unknown[];
  };
  const v0 = (spec: Record<string, unknown>) => (spec['versions'] as Version[])[0]!;

  it('finds ours equal to itself, with the conversion the API server adds aside', () => {
    expect(
      compareCrd(
        installed((s) => (s['conversion'] = { strategy: 'None' })),
        ours,
      ),
    ).toEqual({ kind: 'equal' });
  });

  it('may replace a CRD whose descriptions and printer columns differ', () => {
    const cmp = compareCrd(
      installed((s) => {
        v0(s).schema.openAPIV3Schema.description = 'theirs';
        v0(s).additionalPrinterColumns = [];
      }),
      ours,
    );
    expect(cmp.kind).toBe('safe');
  });

  it('may replace a CRD whose schema alone differs once its stored objects pass ours, naming where', () => {
    const version = (ours.spec.versions[0] ?? { name: '' }).name;
    const cmp = compareCrd(
      installed((s) => {
        v0(s).schema.openAPIV3Schema.properties['extra'] = { type: 'string' };
      }),
      ours,
    );
    expect(cmp).toEqual({ kind: 'schema', version, paths: [`spec.versions[${version}].schema.openAPIV3Schema.properties.extra`] });
  });

  it('keeps a CRD that differs beyond the schema (scope, versions), naming where', () => {
    const cmp = compareCrd(
      installed((s) => {
        v0(s).schema.openAPIV3Schema.properties['extra'] = { type: 'string' };
        s['scope'] = 'Cluster';
      }),
      ours,
    );
    expect(cmp.kind).toBe('unsafe');
    expect(cmp.kind === 'unsafe' ? cmp.paths : []).toEqual(
      expect.arrayContaining([
        'spec.scope',
        `spec.versions[${(ours.spec.versions[0] ?? { name: '' }).name}].schema.openAPIV3Schema.properties.extra`,
      ]),
    );
    const twoVersions = compareCrd(
      installed((s) => {
        const versions = s['versions'] as Version[];
        versions.push({ ...structuredClone(versions[0]!), name: 'v1' } as Version);
      }),
      ours,
    );
    expect(twoVersions.kind).toBe('unsafe');
  });
});

describe('tokenServiceAccount', () => {
  const jwt = (claims: object): string =>
    ['{"alg":"RS256"}', JSON.stringify(claims), 'signature'].map((p) => Buffer.from(p).toString('base64url')).join('.');
  it.each([
    [
      "a legacy Secret token (KubeFed's join)",
      jwt({
        iss: 'kubernetes/serviceaccount',
        'kubernetes.io/serviceaccount/namespace': 'kube-federation-system',
        'kubernetes.io/serviceaccount/service-account.name': 'member1-host',
      }),
      { namespace: 'kube-federation-system', name: 'member1-host' },
    ],
    [
      'a bound token',
      jwt({ 'kubernetes.io': { namespace: 'kube-federation-system', serviceaccount: { name: 'member1-host', uid: 'u' } } }),
      { namespace: 'kube-federation-system', name: 'member1-host' },
    ],
    ['a token of a user', jwt({ sub: 'alice' }), undefined],
    ['an opaque token', 'abcdef0123456789', undefined],
    ['a payload that is not JSON', `x.${Buffer.from('{').toString('base64url')}.y`, undefined],
  ])('reads %s', (_title, token, expected) => {
    expect(tokenServiceAccount(token)).toEqual(expected);
  });
});

describe('ruleDelta', () => {
  const KUBEFED_CLUSTER_ROLE = [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['get'], nonResourceURLs: ['*'] },
  ];
  const NARROW = [
    { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] },
    { verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] },
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
  ];
  it.each([
    ["KubeFed's full access narrowed", KUBEFED_CLUSTER_ROLE, NARROW, { loses: ['* *.*', 'get *'], gains: [] }],
    ['nothing changed', NARROW, NARROW, { loses: [], gains: [] }],
    [
      // KubeFed's health-check role says `Get`, which RBAC does not match: ours grants it.
      "KubeFed's health-check role replaced",
      [
        { verbs: ['Get'], nonResourceURLs: ['/healthz'] },
        { verbs: ['list'], apiGroups: [''], resources: ['nodes'] },
      ],
      [
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] },
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
      ],
      { loses: ['Get /healthz'], gains: ['get /healthz', 'get /version', 'get nodes'] },
    ],
    [
      'a rule of named objects and a URL prefix',
      [
        { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
        { verbs: ['get'], nonResourceURLs: ['/metrics/*'] },
      ],
      [
        { verbs: ['get', 'update'], apiGroups: ['apps'], resources: ['deployments'] },
        { verbs: ['get'], nonResourceURLs: ['/metrics/cadvisor'] },
      ],
      { loses: ['get /metrics/*'], gains: ['get,update deployments.apps'] },
    ],
  ])('%s', (_title, before, after, expected) => {
    expect(ruleDelta(before, after)).toEqual(expected);
  });
});
