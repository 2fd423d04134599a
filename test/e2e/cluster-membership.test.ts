// Member clusters and federated types as an operator manages them, through the real processes:
// the kube-sim CLI (host + member1..member3), Redis, the kubefed-controller-manager process, the
// kubefedctl CLI (join, unjoin, enable, disable) and kubectl. member1 and member2 (and the host,
// when it is a member: KUBEFED_E2E_HOST_AS_MEMBER=1) are joined before the tests; member3 is
// joined and unjoined by a test.
import { RESOURCES } from '@kubefed/api';
import { CLUSTER_CONNECTION_ANNOTATION, connectionDigest, getOrUndefined, type KubeObject } from '@kubefed/client';
import { consistently, POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';
import {
  createFederatedNamespace,
  FEDERATED_CONFIG_MAPS,
  federated,
  kubectl,
  propagatedTo,
  propagationOf,
  succeeded,
} from './support/e2e-federation.js';

const JOINED = ['member1', 'member2'] as const;
const FEDERATED_SECRETS = federated('federatedsecrets');

const fed = useLocalFederation({ members: [...JOINED, 'member3'], join: JOINED, fastHealthChecks: true });

/** Runs kubefedctl against the host context; the command must succeed. */
async function kubefedctl(...args: string[]): Promise<string> {
  return succeeded(await fed.kubefedctl([...args, '--host-cluster-context', 'host']), `kubefedctl ${args.join(' ')}`);
}

/**
 * `kubectl get kubefedclusters` as a map of NAME to READY, cut at the header's column offsets:
 * a KubeFedCluster without a Ready condition has an empty READY cell (a real API server sends a
 * null cell, which kubectl prints as nothing; kube-sim sends `<none>`, read here as empty too).
 */
async function readyColumn(): Promise<Record<string, string>> {
  const out = succeeded(await kubectl(fed, ['get', 'kubefedclusters', '-n', fed.namespace]), 'kubectl get kubefedclusters');
  const [header = '', ...rows] = out.trimEnd().split('\n');
  expect(header.split(/\s+/)).toEqual(['NAME', 'AGE', 'READY', 'KUBERNETES-VERSION']);
  const [age, ready, version] = [header.indexOf('AGE'), header.indexOf('READY'), header.indexOf('KUBERNETES-VERSION')];
  const cell = (row: string, from: number, to: number): string =>
    row
      .slice(from, to)
      .trim()
      .replace(/^<none>$/, '');
  return Object.fromEntries(rows.map((r) => [cell(r, 0, age), cell(r, ready, version)]));
}

/** The READY column of `kubectl get kubefedclusters` when `clusters` are joined and Ready. */
const readyClusters = (clusters: readonly string[]): Record<string, string> => Object.fromEntries(clusters.map((c) => [c, 'True']));

function configMap(name: string, ns: string, data: Record<string, string>, placement: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedConfigMap',
    metadata: { name, namespace: ns },
    spec: { template: { data }, placement },
  };
}

/** The data of a ConfigMap in a member, or `absent`. */
async function memberData(cluster: string, ns: string, name: string): Promise<unknown> {
  const obj = await getOrUndefined(fed.client(cluster).resource(RESOURCES.configMaps, ns), name);
  return obj === undefined ? 'absent' : obj.data;
}

describe('cluster membership', () => {
  it('shows the members joined with kubefedctl join as Ready in kubectl get kubefedclusters', async () => {
    await expect.poll(readyColumn, POLL).toEqual(readyClusters(fed.joined));
    const out = succeeded(
      await kubectl(fed, ['get', 'kubefedcluster', 'member1', '-n', fed.namespace, '-o', 'jsonpath={.status.kubernetesVersion}']),
      'kubectl get kubefedcluster',
    );
    expect(out).toMatch(/^v1\.\d+\.\d+/);
  });

  it('propagates to a member from its kubefedctl join on, and no longer after kubefedctl unjoin removed its KubeFedCluster', async () => {
    const ns = 'membership';
    const everyCluster = { clusterSelector: {} };
    const host = fed.client('host');
    await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await host.resource(federated('federatednamespaces'), ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: ns, namespace: ns },
      spec: { placement: everyCluster },
    });
    const cms = host.resource(FEDERATED_CONFIG_MAPS, ns);
    await cms.create(configMap('app', ns, { v: '1' }, everyCluster));
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(fed.joined));

    const joined = await kubefedctl('join', 'member3', '--cluster-context', 'member3');
    expect(joined).toContain('member3');
    await expect.poll(readyColumn, POLL).toEqual(readyClusters([...fed.joined, 'member3']));
    await expect.poll(() => memberData('member3', ns, 'app'), POLL).toEqual({ v: '1' });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo([...fed.joined, 'member3']));

    await kubefedctl('unjoin', 'member3', '--cluster-context', 'member3');
    const gone = await kubectl(fed, ['get', 'kubefedcluster', 'member3', '-n', fed.namespace]);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('NotFound');
    await expect.poll(readyColumn, POLL).toEqual(readyClusters(fed.joined));
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(fed.joined));

    // Changes and new objects reach the remaining members only; member3 keeps what it had.
    await cms.patch('app', { spec: { template: { data: { v: '2' } } } }, 'merge');
    await cms.create(configMap('after-unjoin', ns, { v: '1' }, everyCluster));
    await expect.poll(() => Promise.all(fed.joined.map((m) => memberData(m, ns, 'app'))), POLL).toEqual(fed.joined.map(() => ({ v: '2' })));
    await expect.poll(() => propagationOf(cms, 'after-unjoin'), POLL).toEqual(propagatedTo(fed.joined));
    await consistently(
      async () =>
        expect([await memberData('member3', ns, 'app'), await memberData('member3', ns, 'after-unjoin')]).toEqual([{ v: '1' }, 'absent']),
      {
        durationMs: 3000,
        intervalMs: 200,
        message: 'member3 after unjoin',
      },
    );
  }, 120_000);

  it('stops propagating a type after kubefedctl disable and catches up after kubefedctl enable', async () => {
    const ns = 'toggle';
    await createFederatedNamespace(fed, ns, JOINED);
    const secrets = fed.client('host').resource(FEDERATED_SECRETS, ns);
    const placement = { clusters: JOINED.map((name) => ({ name })) };
    const secret = (name: string, value: string): KubeObject => ({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedSecret',
      metadata: { name, namespace: ns },
      spec: { template: { data: { token: Buffer.from(value).toString('base64') } }, placement },
    });
    const memberTokens = (name: string) =>
      Promise.all(
        JOINED.map(async (m) => {
          const obj = await getOrUndefined(fed.client(m).resource(RESOURCES.secrets, ns), name);
          return obj === undefined ? 'absent' : Buffer.from(String((obj.data as Record<string, string>)['token']), 'base64').toString();
        }),
      );
    const ftcState = async () => {
      const out = succeeded(
        await kubectl(fed, [
          'get',
          'federatedtypeconfigs',
          'secrets',
          '-n',
          fed.namespace,
          '--no-headers',
          '-o',
          'custom-columns=P:.spec.propagation,C:.status.propagationController',
        ]),
        'kubectl get ftc',
      );
      return out.trim().split(/\s+/);
    };

    await secrets.create(secret('api', 'first'));
    await expect.poll(() => memberTokens('api'), POLL).toEqual(['first', 'first']);

    // As KubeFed's disable: propagation stops, then the FederatedTypeConfig is deleted; the federated and member objects stay.
    await kubefedctl('disable', 'secrets');
    const ftcs = fed.client('host').resource(RESOURCES.federatedTypeConfigs, fed.namespace);
    await expect.poll(async () => (await getOrUndefined(ftcs, 'secrets')) === undefined, POLL).toBe(true);
    await secrets.patch('api', { spec: { template: { data: { token: Buffer.from('second').toString('base64') } } } }, 'merge');
    await secrets.create(secret('late', 'new'));
    await consistently(
      async () => expect([...(await memberTokens('api')), ...(await memberTokens('late'))]).toEqual(['first', 'first', 'absent', 'absent']),
      {
        durationMs: 3000,
        intervalMs: 200,
        message: 'member secrets while secrets are disabled',
      },
    );

    await kubefedctl('enable', 'secrets');
    await expect.poll(ftcState, POLL).toEqual(['Enabled', 'Running']);
    await expect.poll(() => memberTokens('api'), POLL).toEqual(['second', 'second']);
    await expect.poll(() => memberTokens('late'), POLL).toEqual(['new', 'new']);
    await expect.poll(() => propagationOf(secrets, 'late'), POLL).toEqual(propagatedTo(JOINED));
  }, 120_000);

  it('reports ClusterNotReady while a member API server does not answer and brings the member up to date once it does', async () => {
    const ns = 'outage';
    await createFederatedNamespace(fed, ns, JOINED);
    const cms = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
    await cms.create(configMap('app', ns, { v: '1' }, { clusters: JOINED.map((name) => ({ name })) }));
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(JOINED));
    const notReady = {
      current: true,
      propagation: 'False',
      reason: 'CheckClusters',
      clusters: { member1: 'OK', member2: 'ClusterNotReady' },
    };

    // What KubeFed's own not-ready e2e does: point the member's KubeFedCluster at an address where nothing answers.
    // The token is bound to the endpoint, so the operator re-binds its Secret too (kubectl annotate).
    const kfcs = fed.client('host').resource(RESOURCES.kubeFedClusters, fed.namespace);
    const secrets = fed.client('host').resource(RESOURCES.secrets, fed.namespace);
    const spec = (await kfcs.get('member2'))['spec'] as Parameters<typeof connectionDigest>[0] & { secretRef: { name: string } };
    const bindTo = (apiEndpoint: string): Promise<KubeObject> =>
      secrets.patch(
        spec.secretRef.name,
        { metadata: { annotations: { [CLUSTER_CONNECTION_ANNOTATION]: connectionDigest({ ...spec, apiEndpoint }) } } },
        'merge',
      );
    await bindTo('https://127.0.0.1:1');
    await kfcs.patch('member2', { spec: { apiEndpoint: 'https://127.0.0.1:1' } }, 'merge');
    try {
      await expect.poll(readyColumn, POLL).toEqual({ ...readyClusters(fed.joined), member2: '' });
      const offline = await kubectl(fed, [
        'get',
        'kubefedcluster',
        'member2',
        '-n',
        fed.namespace,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Offline")].reason}',
      ]);
      expect(succeeded(offline, 'kubectl get kubefedcluster member2')).toBe('ClusterNotReachable');
      await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(notReady);
      // A change made during the outage reaches the reachable member and waits for the other.
      await cms.patch('app', { spec: { template: { data: { v: '2' } } } }, 'merge');
      await expect.poll(() => memberData('member1', ns, 'app'), POLL).toEqual({ v: '2' });
      await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(notReady);
      expect(await memberData('member2', ns, 'app')).toEqual({ v: '1' });
    } finally {
      await kfcs.patch('member2', { spec: { apiEndpoint: spec.apiEndpoint } }, 'merge');
      await bindTo(spec.apiEndpoint);
    }
    await expect.poll(readyColumn, POLL).toEqual(readyClusters(fed.joined));
    await expect.poll(() => memberData('member2', ns, 'app'), POLL).toEqual({ v: '2' });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(JOINED));
  }, 120_000);
});
