// `kubefedctl join --least-privilege` end to end through the real processes: the kube-sim CLI
// (host + member1), the kubefedctl CLI for join/enable/disable/unjoin, and the controller
// manager process (`--mode all`) with Redis. The member credentials the control plane holds
// propagate the enabled types and nothing else.
import { RESOURCES } from '@kubefed/api';
import { DynamicClient, isForbidden, isUnauthorized, type KubeFedClusterInput, type KubeObject } from '@kubefed/client';
import { type LocalFederation, POLL, startLocalFederation } from '@kubefed/testing';
import { afterEach, describe, expect, it } from 'vitest';

const FEDERATED_NAMESPACES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' };
const FEDERATED_CONFIG_MAPS = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The member client the controller manager uses: built from the KubeFedCluster and its token Secret in the host. */
async function controlPlaneCredentials(fed: LocalFederation, cluster: string): Promise<DynamicClient> {
  const host = fed.client('host');
  const kfc = await host.resource(RESOURCES.kubeFedClusters, fed.namespace).get(cluster);
  return DynamicClient.forKubeFedCluster(host, kfc as unknown as KubeFedClusterInput);
}

/** The error a promise rejects with, or undefined when it resolves. */
const failureOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('kubefedctl join --least-privilege with the controller manager process', () => {
  it('propagates the enabled types while the member refuses (403) any other write with the same credentials, until the grant is revoked', async () => {
    const fed = await startLocalFederation({
      members: ['member1'],
      controllerManager: false,
      join: false,
      types: [],
      scope: 'Cluster',
    });
    cleanups.push(() => fed.stop());
    const host = fed.client('host');
    const member = fed.client('member1');
    const ctl = (...args: string[]) => fed.kubefedctl([...args, '--host-cluster-context', 'host']);

    const joined = await ctl('join', 'member1', '--cluster-context', 'member1', '--least-privilege');
    expect(joined.stderr).not.toContain('Error:');
    expect(joined.code).toBe(0);
    for (const type of ['namespaces', 'configmaps']) {
      const enabled = await ctl('enable', type);
      expect(enabled.stderr).not.toContain('Error:');
      expect(enabled.code).toBe(0);
      expect(enabled.stdout).toContain('clusterrole.rbac.authorization.k8s.io/kubefed-controller-manager:member1-host updated in member1');
    }

    await fed.startControllerManager();
    await expect
      .poll(async () => (await host.resource(RESOURCES.kubeFedClusters, fed.namespace).get('member1')).status, {
        timeout: 30_000,
        interval: 200,
      })
      .toMatchObject({ conditions: [{ type: 'Ready', status: 'True' }] });

    const ns = 'lp-app';
    const placement = { clusters: [{ name: 'member1' }] };
    await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await host.resource(FEDERATED_NAMESPACES, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: ns, namespace: ns },
      spec: { placement },
    });
    const fedConfigMaps = host.resource(FEDERATED_CONFIG_MAPS, ns);
    await fedConfigMaps.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'settings', namespace: ns },
      spec: { template: { data: { mode: 'least' } }, placement },
    });

    await expect
      .poll(
        () =>
          member
            .resource(RESOURCES.configMaps, ns)
            .get('settings')
            .catch(() => undefined),
        POLL,
      )
      .toMatchObject({ metadata: { labels: { 'kubefed.io/managed': 'true' } }, data: { mode: 'least' } });
    await expect
      .poll(async () => (await fedConfigMaps.get('settings')).status, { timeout: 15_000, interval: 200 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }] });
    // A change propagates too (update through the same grant).
    await fedConfigMaps.patch('settings', { spec: { template: { data: { mode: 'changed' } } } }, 'merge');
    await expect
      .poll(async () => (await member.resource(RESOURCES.configMaps, ns).get('settings')).data, POLL)
      .toEqual({ mode: 'changed' });

    // The same credentials may write nothing outside the enabled types.
    using creds = await controlPlaneCredentials(fed, 'member1');
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'outside', namespace: ns }, data: {} };
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'outside', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'x', image: 'x' }] } },
      },
    };
    expect(isForbidden(await failureOf(creds.resource(RESOURCES.secrets, ns).create(secret)))).toBe(true);
    expect(isForbidden(await failureOf(creds.resource(RESOURCES.deployments, ns).create(deployment)))).toBe(true);
    expect(isForbidden(await failureOf(creds.resource(RESOURCES.clusterRoles).delete('cluster-admin')))).toBe(true);
    await creds
      .resource(RESOURCES.configMaps, ns)
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inside', namespace: ns }, data: {} });

    // disable takes the type out of the grant: the member refuses it from then on.
    const disabled = await ctl('disable', 'configmaps');
    expect(disabled.code).toBe(0);
    expect(
      isForbidden(
        await failureOf(
          creds
            .resource(RESOURCES.configMaps, ns)
            .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'revoked', namespace: ns }, data: {} }),
        ),
      ),
    ).toBe(true);

    // unjoin deletes the service account: its token stops working altogether.
    const unjoined = await ctl('unjoin', 'member1', '--cluster-context', 'member1');
    expect(unjoined.stderr).not.toContain('Error:');
    expect(unjoined.code).toBe(0);
    await expect
      .poll(async () => isUnauthorized(await failureOf(creds.resource(RESOURCES.namespaces).list())), { timeout: 10_000, interval: 200 })
      .toBe(true);
  }, 180_000);
});
