import { connectionDigest, type KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import {
  bindToConnection,
  hostSecretObject,
  joinNames,
  kubeFedClusterObject,
  kubeFedClusterSpec,
  memberRbacObjects,
  namespaceObject,
  normalizeEndpoint,
  otherJoinsOfMember,
  serviceAccountObject,
  tokenSecretObject,
} from './join-objects.js';
import { HEALTH_CHECK_RULES } from './least-privilege.js';

const names = joinNames('member1', 'host', 'kube-federation-system');

describe('joinNames', () => {
  it.each([
    [
      'member1',
      'host',
      'kube-federation-system',
      'member1-host',
      'kubefed-controller-manager:member1-host',
      'kubefed-controller-manager:kube-federation-system:healthcheck-member1-host',
    ],
    [
      'c2',
      'kind-host',
      'fed',
      'c2-kind-host',
      'kubefed-controller-manager:c2-kind-host',
      'kubefed-controller-manager:fed:healthcheck-c2-kind-host',
    ],
  ])('derives KubeFed names for cluster %s, host %s, namespace %s', (cluster, host, ns, sa, role, health) => {
    expect(joinNames(cluster, host, ns)).toEqual({
      cluster,
      host,
      namespace: ns,
      serviceAccount: sa,
      role,
      healthCheckRole: health,
      tokenRole: `${role}:token`,
    });
  });
});

describe('member objects', () => {
  it.each([
    [
      'namespace',
      namespaceObject(names),
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'kube-federation-system', annotations: { 'kubefed.io/namespace-created-by-join': 'member1' } },
      },
    ],
    [
      'service account',
      serviceAccountObject(names),
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: {
          name: 'member1-host',
          namespace: 'kube-federation-system',
          annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true', 'kubefed.io/joined-cluster': 'member1' },
        },
        automountServiceAccountToken: false,
      },
    ],
    [
      'token secret',
      tokenSecretObject(names),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'member1-host',
          namespace: 'kube-federation-system',
          annotations: { 'kubernetes.io/service-account.name': 'member1-host', 'kubefed.io/joined-cluster': 'member1' },
        },
        type: 'kubernetes.io/service-account-token',
      },
    ],
  ])('builds the %s as KubeFed does, annotated with the join that created it', (_what, actual, expected) => {
    expect(actual).toEqual(expected);
  });
});

const subject = [{ kind: 'ServiceAccount', name: 'member1-host', namespace: 'kube-federation-system' }];
const rbac = 'rbac.authorization.k8s.io/v1';
const joinedByMember1 = { 'kubefed.io/joined-cluster': 'member1' };

describe('memberRbacObjects', () => {
  it('grants full access through a ClusterRole and ClusterRoleBinding in scope Cluster', () => {
    expect(memberRbacObjects(names, { scope: 'Cluster' })).toEqual([
      {
        apiVersion: rbac,
        kind: 'ClusterRole',
        metadata: { name: 'kubefed-controller-manager:member1-host', annotations: joinedByMember1 },
        rules: [
          { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
          { verbs: ['get'], nonResourceURLs: ['*'] },
        ],
      },
      {
        apiVersion: rbac,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'kubefed-controller-manager:member1-host', annotations: joinedByMember1 },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kubefed-controller-manager:member1-host' },
        subjects: subject,
      },
    ]);
  });

  it('grants namespace access and a health-check cluster role in scope Namespaced', () => {
    const objs = memberRbacObjects(names, { scope: 'Namespaced' });
    expect(objs.map((o) => [o.kind, o.metadata.name, o.metadata.namespace])).toEqual([
      ['Role', 'kubefed-controller-manager:member1-host', 'kube-federation-system'],
      ['RoleBinding', 'kubefed-controller-manager:member1-host', 'kube-federation-system'],
      ['ClusterRole', 'kubefed-controller-manager:kube-federation-system:healthcheck-member1-host', undefined],
      ['ClusterRoleBinding', 'kubefed-controller-manager:kube-federation-system:healthcheck-member1-host', undefined],
    ]);
    expect(objs[0]!['rules']).toEqual([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    expect(objs[1]!['roleRef']).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'kubefed-controller-manager:member1-host',
    });
    expect(objs[2]!['rules']).toEqual(HEALTH_CHECK_RULES);
    expect(objs[3]!['subjects']).toEqual(subject);
    expect(objs.map((o) => o.metadata.annotations)).toEqual([joinedByMember1, joinedByMember1, joinedByMember1, joinedByMember1]);
  });

  it('labels least-privilege roles and uses the given rules', () => {
    const clusterRules = [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }];
    const [role] = memberRbacObjects(names, { scope: 'Cluster', leastPrivilege: { clusterRules, namespaceRules: [] } });
    expect(role!.metadata.labels).toEqual({ 'kubefed.io/least-privilege': 'true' });
    expect(role!['rules']).toEqual(clusterRules);
  });
});

describe('host objects', () => {
  it.each([
    [
      'a generated name without --secret-name',
      hostSecretObject(names, { token: 'dG9r', caCrt: 'Y2E=' }, undefined),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          generateName: 'member1-',
          namespace: 'kube-federation-system',
          annotations: { 'kubefed.io/cluster-name': 'member1', 'kubefed.io/join-service-account': 'member1-host' },
        },
        type: 'Opaque',
        data: { token: 'dG9r', 'ca.crt': 'Y2E=' },
      },
    ],
    [
      'the given name with --secret-name and no ca.crt',
      hostSecretObject(names, { token: 'dG9r' }, 'm1-token'),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'm1-token',
          namespace: 'kube-federation-system',
          annotations: { 'kubefed.io/cluster-name': 'member1', 'kubefed.io/join-service-account': 'member1-host' },
        },
        type: 'Opaque',
        data: { token: 'dG9r' },
      },
    ],
  ])('builds the host secret with %s, bound to the joining cluster', (_what, actual, expected) => {
    expect(actual).toEqual(expected);
  });

  it('binds the host secret to the connection settings of the KubeFedCluster join writes', () => {
    const kfc = kubeFedClusterObject(names, {
      apiEndpoint: 'https://member1.example:6443',
      caBundle: 'Y2E=',
      secretName: 'm1-token',
      insecureSkipTlsVerify: false,
      proxyUrl: undefined,
    });
    const secret = hostSecretObject(names, { token: 'dG9r' }, 'm1-token');
    const bound = bindToConnection(secret, kfc);
    expect(bound.metadata.annotations).toEqual({
      'kubefed.io/cluster-name': 'member1',
      'kubefed.io/join-service-account': 'member1-host',
      'kubefed.io/cluster-connection': connectionDigest({ apiEndpoint: 'https://member1.example:6443', caBundle: 'Y2E=' }),
    });
    expect(secret.metadata.annotations).not.toHaveProperty('kubefed.io/cluster-connection');
  });

  it.each([
    [
      {
        apiEndpoint: 'https://127.0.0.1:6443',
        caBundle: 'Q0E=',
        secretName: 'member1-abcde',
        insecureSkipTlsVerify: false,
        proxyUrl: undefined,
      },
      { apiEndpoint: 'https://127.0.0.1:6443', caBundle: 'Q0E=', secretRef: { name: 'member1-abcde' } },
    ],
    [
      { apiEndpoint: 'https://m:6443', caBundle: undefined, secretName: 's', insecureSkipTlsVerify: true, proxyUrl: 'http://proxy:3128' },
      { apiEndpoint: 'https://m:6443', secretRef: { name: 's' }, disabledTLSValidations: ['*'], proxyURL: 'http://proxy:3128' },
    ],
  ])('computes the KubeFedCluster spec from %j', (inputs, spec) => {
    expect(kubeFedClusterSpec(inputs)).toEqual(spec);
  });

  it('names the KubeFedCluster after the joining cluster in the kubefed namespace', () => {
    const kfc = kubeFedClusterObject(names, {
      apiEndpoint: 'https://m',
      caBundle: undefined,
      secretName: 's',
      insecureSkipTlsVerify: false,
      proxyUrl: undefined,
    });
    expect(kfc).toMatchObject({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'KubeFedCluster',
      metadata: { name: 'member1', namespace: 'kube-federation-system' },
    });
    expect(kfc.metadata.annotations).toBeUndefined();
  });

  it.each(['Cluster', 'Namespaced'] as const)('annotates the KubeFedCluster with the join scope %s', (scope) => {
    const kfc = kubeFedClusterObject(
      names,
      { apiEndpoint: 'https://m', caBundle: undefined, secretName: 's', insecureSkipTlsVerify: false, proxyUrl: undefined },
      scope,
    );
    expect(kfc.metadata.annotations).toEqual({ 'kubefed.io/join-scope': scope });
  });
});

describe('normalizeEndpoint', () => {
  it.each([
    ['https://Member.example:443/', 'https://member.example'],
    ['https://127.0.0.1:6443', 'https://127.0.0.1:6443'],
    ['https://m:6443/prefix/', 'https://m:6443/prefix'],
    ['not a url/', 'not a url'],
  ])('normalises %s to %s', (url, normal) => {
    expect(normalizeEndpoint(url)).toBe(normal);
  });
});

describe('otherJoinsOfMember', () => {
  const ns = 'kube-federation-system';
  const kfc = (name: string, apiEndpoint: string): KubeObject => ({
    apiVersion: 'core.kubefed.io/v1beta1',
    kind: 'KubeFedCluster',
    metadata: { name, namespace: ns },
    spec: { apiEndpoint },
  });
  const sa = (name: string, joinedCluster?: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name,
      namespace: ns,
      ...(joinedCluster === undefined ? {} : { annotations: { 'kubefed.io/joined-cluster': joinedCluster } }),
    },
  });
  const joining = joinNames('member2b', 'host', ns);

  it.each<[string, KubeObject[], KubeObject[], { cluster: string; evidence: string | undefined }[]]>([
    ['nothing joined', [], [], []],
    ['the same name re-joined', [kfc('member2b', 'https://m2:6443')], [sa('member2b-host', 'member2b')], []],
    ['another member', [kfc('member1', 'https://m1:6443')], [sa('default')], []],
    ['the same endpoint under another name', [kfc('member2', 'https://M2:6443/')], [], [{ cluster: 'member2', evidence: undefined }]],
    [
      "another name's service account in the member (endpoint rewritten)",
      [kfc('member2', 'https://10.0.0.2:6443')],
      [sa('default'), sa('member2-host')],
      [{ cluster: 'member2', evidence: `its service account ${ns}/member2-host is in the member` }],
    ],
    [
      "a service account named like another name's but created by a third join",
      [kfc('member2', 'https://10.0.0.2:6443')],
      [sa('member2-host', 'member')],
      [],
    ],
  ])('finds %s', (_what, kubeFedClusters, memberServiceAccounts, expected) => {
    expect(otherJoinsOfMember({ names: joining, endpoint: 'https://m2:6443', kubeFedClusters, memberServiceAccounts })).toEqual(expected);
  });
});
