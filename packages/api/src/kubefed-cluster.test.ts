import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ValidationError } from './errors.js';
import { apiEndpointProblem, isClusterReady, parseKubeFedCluster, validateKubeFedCluster } from './kubefed-cluster.js';

const CLUSTER_YAML = `
apiVersion: core.kubefed.io/v1beta1
kind: KubeFedCluster
metadata:
  name: cluster1
  namespace: kube-federation-system
  uid: 7d1e3a55-1f0c-4c36-9a5e-3f1b2c8d9e01
  resourceVersion: "4711"
  generation: 2
  creationTimestamp: "2026-11-21T10:00:00Z"
  labels:
    region: eu
  annotations:
    note: primary
  finalizers:
    - example.com/keep
  managedFields:
    - manager: kubefedctl
      operation: Update
  selfLink: /apis/core.kubefed.io/v1beta1/namespaces/kube-federation-system/kubefedclusters/cluster1
spec:
  apiEndpoint: https://cluster1.example.com:6443
  caBundle: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
  secretRef:
    name: cluster1-secret
  disabledTLSValidations:
    - SubjectName
    - ValidityPeriod
  proxyURL: socks5://proxy.example.com:1080
status:
  conditions:
    - type: Ready
      status: "True"
      lastProbeTime: "2026-11-21T10:00:10Z"
      lastTransitionTime: "2026-11-21T10:00:10Z"
      reason: ClusterReady
      message: /healthz responded with ok
  kubernetesVersion: v1.29.2
  zones:
    - eu-1a
  region: eu-1
`;

const valid = () => parse(CLUSTER_YAML);

describe('KubeFedCluster', () => {
  it('round-trips a realistic document exactly, keeping unknown metadata fields', () => {
    const input = valid();
    expect(stringify(parseKubeFedCluster(input))).toBe(stringify(input));
  });

  it('drops unknown spec fields as a structural CRD prunes them', () => {
    const input = valid();
    input.spec.unknownField = 1;
    expect(parseKubeFedCluster(input).spec).not.toHaveProperty('unknownField');
  });

  it('is ready only with a Ready=True condition', () => {
    const c = parseKubeFedCluster(valid());
    expect(isClusterReady(c)).toBe(true);
    expect(isClusterReady({ status: { conditions: [{ type: 'Offline', status: 'True', lastProbeTime: 'x' }] } })).toBe(false);
    expect(isClusterReady({})).toBe(false);
  });

  it.each([
    ['cluster.example.com', undefined],
    ['cluster.example.com:6443', undefined],
    ['10.0.0.1', undefined],
    ['10.0.0.1:6443', undefined],
    ['http://127.0.0.1:8080', undefined],
    ['https://[::1]:6443', undefined],
    ['https://host/prefix', undefined],
    ['', 'Required value'],
    [
      'cluster.example.com/path',
      'Invalid value: "cluster.example.com/path": host must be a URL or a host:port pair: "cluster.example.com/path"',
    ],
    ['ftp://cluster.example.com', 'Invalid value: "ftp://cluster.example.com": scheme must be one of: [http, https]'],
    ['cluster.example.com:0', 'Invalid value: "cluster.example.com:0": invalid port "0": must be between 1 and 65535'],
    [
      'https://cluster.example.com:70000',
      'Invalid value: "https://cluster.example.com:70000": invalid port "70000": must be between 1 and 65535',
    ],
    ['https://h:abc', 'Invalid value: "https://h:abc": invalid port "abc": must be between 1 and 65535'],
  ])('judges apiEndpoint %j: %s', (endpoint, problem) => {
    expect(apiEndpointProblem(endpoint)).toBe(problem);
  });

  it.each<[string, (o: ReturnType<typeof valid>) => void, { path: string; message: string }[]]>([
    ['a missing spec', (o) => delete o.spec, [{ path: 'spec', message: 'Required value' }]],
    ['a missing apiEndpoint', (o) => delete o.spec.apiEndpoint, [{ path: 'spec.apiEndpoint', message: 'Required value' }]],
    ['a numeric apiEndpoint', (o) => (o.spec.apiEndpoint = 5), [{ path: 'spec.apiEndpoint', message: 'must be a string' }]],
    ['an empty secret name', (o) => (o.spec.secretRef.name = ''), [{ path: 'spec.secretRef.name', message: 'Required value' }]],
    [
      'a secret name that is not a DNS subdomain',
      (o) => (o.spec.secretRef.name = 'Bad_Name'),
      [{ path: 'spec.secretRef.name', message: expect.stringContaining('Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain') }],
    ],
    [
      'an unknown TLS validation',
      (o) => (o.spec.disabledTLSValidations = ['Hostname']),
      [{ path: 'spec.disabledTLSValidations[0]', message: 'must be one of *, SubjectName, ValidityPeriod' }],
    ],
    [
      '* together with other TLS validations',
      (o) => (o.spec.disabledTLSValidations = ['*', 'SubjectName']),
      [{ path: 'spec.disabledTLSValidations', message: 'when * is specified, it is expected to be the only option in list' }],
    ],
    [
      'a proxy URL with another scheme',
      (o) => (o.spec.proxyURL = 'ftp://proxy'),
      [{ path: 'spec.proxyURL', message: 'Invalid value: "ftp://proxy": proxy URL scheme must be one of: [http, https, socks5]' }],
    ],
    [
      'a caBundle that is not base64',
      (o) => (o.spec.caBundle = 'not base64!'),
      [{ path: 'spec.caBundle', message: 'must be base64-encoded data' }],
    ],
    [
      'an unknown condition type and status',
      (o) => Object.assign(o.status.conditions[0], { type: 'Healthy', status: 'Yes' }),
      [
        { path: 'status.conditions[0].type', message: 'must be one of Ready, Offline, ConfigMalformed' },
        { path: 'status.conditions[0].status', message: 'must be one of True, False, Unknown' },
      ],
    ],
    [
      'a condition without lastProbeTime',
      (o) => delete o.status.conditions[0].lastProbeTime,
      [{ path: 'status.conditions[0].lastProbeTime', message: 'Required value' }],
    ],
    ['status without conditions', (o) => delete o.status.conditions, [{ path: 'status.conditions', message: 'Required value' }]],
  ])('reports %s with its field path', (_title, mutate, issues) => {
    const o = valid();
    mutate(o);
    const result = validateKubeFedCluster(o);
    expect(result.ok).toBe(false);
    expect(result.issues).toEqual(issues);
  });

  it('reports every problem at once and names the object in the thrown error', () => {
    const o = valid();
    o.spec.apiEndpoint = 'ftp://x';
    o.spec.proxyURL = 'gopher://p';
    o.spec.secretRef = {};
    let error: unknown;
    try {
      parseKubeFedCluster(o);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const ve = error as ValidationError;
    expect(ve.issues.map((i) => i.path)).toEqual(['spec.secretRef.name', 'spec.apiEndpoint', 'spec.proxyURL']);
    expect(ve.message).toMatch(/^KubeFedCluster "kube-federation-system\/cluster1" is invalid: spec\.secretRef\.name: Required value; /);
  });
});
