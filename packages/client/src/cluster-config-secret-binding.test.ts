import { describe, expect, it } from 'vitest';
import { ConfigError } from './api-error.js';
import {
  type BoundSecretInput,
  CLUSTER_CONNECTION_ANNOTATION,
  CLUSTER_NAME_ANNOTATION,
  connectionDigest,
  memberClientFromSecret,
  secretBindingProblem,
  SecretNotBoundError,
} from './cluster-config-secret-binding.js';
import type { KubeFedClusterInput } from './cluster-config.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const cluster = (name: string) => ({
  metadata: { name, namespace: 'kube-federation-system' },
  spec: { apiEndpoint: 'https://member1.example:6443', secretRef: { name: 'member1-x7k2p' } },
});

const spec: KubeFedClusterInput['spec'] = cluster('member1').spec;
/** The annotations `kubefedctl join` writes for member1. */
const boundTo = (name: string): Record<string, string> => ({
  [CLUSTER_NAME_ANNOTATION]: name,
  [CLUSTER_CONNECTION_ANNOTATION]: connectionDigest(spec),
});

const secret = (annotations: Record<string, string> | undefined): BoundSecretInput => ({
  metadata: { name: 'member1-x7k2p', namespace: 'kube-federation-system', ...(annotations === undefined ? {} : { annotations }) },
  data: { token: b64('member1-token') },
});

describe('secretBindingProblem', () => {
  it.each([
    ['bound to the cluster and its connection settings', 'member1', boundTo('member1'), undefined],
    [
      'bound to another cluster',
      'evil',
      { [CLUSTER_NAME_ANNOTATION]: 'member1' },
      {
        kind: 'boundElsewhere',
        boundTo: 'member1',
        message:
          'secret kube-federation-system/member1-x7k2p is bound to cluster member1, not to evil (annotation kubefed.io/cluster-name): its token is not used for evil',
      },
    ],
    [
      'not bound (a join made before the binding)',
      'member1',
      undefined,
      {
        kind: 'unbound',
        message:
          'secret kube-federation-system/member1-x7k2p is not bound to a cluster (no kubefed.io/cluster-name annotation): its token is not used for member1; ' +
          'if it holds the token of member1, bind it with "kubectl annotate secret -n kube-federation-system member1-x7k2p kubefed.io/cluster-name=member1", ' +
          'or re-run "kubefedctl join member1 --error-on-existing=false"',
      },
    ],
    ['annotated with an empty name', 'member1', { [CLUSTER_NAME_ANNOTATION]: '' }, { kind: 'unbound' }],
    [
      'bound to a name that only differs in case',
      'member1',
      { [CLUSTER_NAME_ANNOTATION]: 'Member1' },
      { kind: 'boundElsewhere', boundTo: 'Member1' },
    ],
  ])('%s', (_what, name, annotations, expected) => {
    const problem = secretBindingProblem(cluster(name), secret(annotations));
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatchObject({ cluster: name, secret: 'kube-federation-system/member1-x7k2p', ...expected });
  });

  it.each<[string, Partial<KubeFedClusterInput['spec']>, 'connectionChanged' | undefined]>([
    ['the same settings', {}, undefined],
    ['the same endpoint written as host:port', { apiEndpoint: 'member1.example:6443' }, undefined],
    ['the same endpoint with a trailing slash', { apiEndpoint: 'https://member1.example:6443/' }, undefined],
    ["another apiEndpoint (a server of the editor's own)", { apiEndpoint: 'https://evil.example:6443' }, 'connectionChanged'],
    ['another port', { apiEndpoint: 'https://member1.example:6444' }, 'connectionChanged'],
    ['a proxyURL added', { proxyURL: 'http://evil.example:3128' }, 'connectionChanged'],
    ['another caBundle', { caBundle: b64('another CA') }, 'connectionChanged'],
    ['TLS validation turned off', { disabledTLSValidations: ['*'] }, 'connectionChanged'],
  ])('a Secret bound to member1 with %s', (_what, change, expected) => {
    const problem = secretBindingProblem({ ...cluster('member1'), spec: { ...spec, ...change } }, secret(boundTo('member1')));
    expect(problem?.kind).toBe(expected);
  });

  it('says how to re-bind changed connection settings, naming the endpoint and never the token', () => {
    const evil = { ...cluster('member1'), spec: { ...spec, apiEndpoint: 'https://evil.example:6443' } };
    const problem = secretBindingProblem(evil, secret(boundTo('member1')));
    expect(problem?.message).toBe(
      'the connection settings of member1 (spec.apiEndpoint "https://evil.example:6443", caBundle, proxyURL, disabledTLSValidations) differ from those secret ' +
        'kube-federation-system/member1-x7k2p is bound to (annotation kubefed.io/cluster-connection): its token is not sent; if these settings are right, ' +
        're-run "kubefedctl join member1 --error-on-existing=false", or bind them with ' +
        `"kubectl annotate --overwrite secret -n kube-federation-system member1-x7k2p kubefed.io/cluster-connection=${connectionDigest(evil.spec)}"`,
    );
  });

  it('refuses a Secret bound to the cluster by name only (a join made before the connection binding)', () => {
    expect(secretBindingProblem(cluster('member1'), secret({ [CLUSTER_NAME_ANNOTATION]: 'member1' }))?.kind).toBe('connectionUnbound');
  });

  it('names the Secret by the KubeFedCluster reference when the Secret has no metadata', () => {
    expect(secretBindingProblem(cluster('member1'), { data: {} })).toMatchObject({
      kind: 'unbound',
      secret: 'kube-federation-system/member1-x7k2p',
    });
  });
});

describe('memberClientFromSecret', () => {
  it('builds the client of a cluster from a Secret bound to it', () => {
    using client = memberClientFromSecret(cluster('member1'), secret(boundTo('member1')));
    expect(client.server).toBe('https://member1.example:6443');
  });

  it('refuses, before any connection exists, a Secret bound to another cluster', () => {
    let thrown: unknown;
    try {
      memberClientFromSecret(cluster('evil'), secret(boundTo('member1')));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(SecretNotBoundError);
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as SecretNotBoundError).problem).toMatchObject({ kind: 'boundElsewhere', cluster: 'evil', boundTo: 'member1' });
    expect(String((thrown as Error).message)).not.toContain('member1-token');
  });
});
