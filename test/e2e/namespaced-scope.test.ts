// Two Namespaced control planes on one host, each in its own namespace with its own KubeFedConfig
// (scope Namespaced) and controller manager process, sharing one member and one Redis. The scope
// comes from the KubeFedConfig (no DEFAULT_KUBEFED_SCOPE in the environment): each plane
// propagates only the federated objects of its own namespace, never a cluster-scoped type, and
// never touches the other plane's objects.
import { getOrUndefined } from '@kubefed/client';
import { RESOURCES } from '@kubefed/api';
import { consistently, type LocalFederation, POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';
import { federated, FEDERATED_CONFIG_MAPS, propagatedTo, propagationOf, succeeded } from './support/e2e-federation.js';

const PLANES = ['fed-a', 'fed-b'] as const;

const fed = useLocalFederation({ members: ['member1'], controllerManager: false, join: false, types: [], setup: startPlanes });

/** Per plane: its namespace and KubeFedConfig (scope Namespaced), member1 joined, two types enabled, a controller manager. */
async function startPlanes(fed: LocalFederation): Promise<void> {
  const host = fed.client('host');
  for (const plane of [...PLANES, 'outside'])
    await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: plane } });
  for (const plane of PLANES) {
    await host.resource(RESOURCES.kubeFedConfigs, plane).create({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'KubeFedConfig',
      metadata: { name: 'kubefed' },
      spec: { scope: 'Namespaced' },
    });
    const inPlane = (args: readonly string[]) => fed.kubefedctl(['--kubefed-namespace', plane, ...args, '--host-cluster-context', 'host']);
    succeeded(
      await inPlane(['join', 'member1', '--cluster-context', 'member1', '--allow-duplicate-endpoint']),
      `join member1 into ${plane}`,
    );
    // namespaces first: it names the FederatedNamespace type the configmaps sync controller waits for.
    for (const type of ['namespaces', 'configmaps', 'clusterroles.rbac.authorization.k8s.io'])
      succeeded(await inPlane(['enable', type]), `enable ${type} in ${plane}`);
    // A queue prefix per plane (the harness passes one explicitly; the default would differ by itself).
    await fed.startControllerManager(['--kubefed-namespace', plane, '--queue-prefix', `${fed.queuePrefix}-${plane}`]);
  }
}

const federatedConfigMap = (namespace: string, value: string) => ({
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedConfigMap',
  metadata: { name: 'settings', namespace },
  spec: { template: { data: { plane: value } }, placement: { clusters: [{ name: 'member1' }] } },
});

describe('two Namespaced control planes on one host', () => {
  it('each propagates only the objects of its own namespace', async () => {
    const host = fed.client('host');
    for (const ns of [...PLANES, 'outside']) await host.resource(FEDERATED_CONFIG_MAPS, ns).create(federatedConfigMap(ns, ns));
    const memberConfigMap = (ns: string) => getOrUndefined(fed.client('member1').resource(RESOURCES.configMaps, ns), 'settings');
    for (const plane of PLANES) {
      await expect
        .poll(() => propagationOf(host.resource(FEDERATED_CONFIG_MAPS, plane), 'settings'), POLL)
        .toEqual(propagatedTo(['member1']));
      await expect.poll(async () => (await memberConfigMap(plane))?.['data'], POLL).toEqual({ plane });
    }
    await consistently(
      async () => {
        expect(await getOrUndefined(fed.client('member1').resource(RESOURCES.namespaces), 'outside')).toBeUndefined();
        expect((await host.resource(FEDERATED_CONFIG_MAPS, 'outside').get('settings')).status).toBeUndefined();
        expect((await host.resource(FEDERATED_CONFIG_MAPS, 'outside').get('settings')).metadata.finalizers ?? []).toEqual([]);
      },
      { durationMs: 3000, intervalMs: 200 },
    );
  }, 120_000);

  it('never syncs a cluster-scoped type, and reports its FederatedTypeConfig NotRunning', async () => {
    const host = fed.client('host');
    for (const plane of PLANES) {
      await expect
        .poll(
          async () => (await host.resource(RESOURCES.federatedTypeConfigs, plane).get('clusterroles.rbac.authorization.k8s.io')).status,
          POLL,
        )
        .toMatchObject({ propagationController: 'NotRunning' });
      await expect
        .poll(async () => (await host.resource(RESOURCES.federatedTypeConfigs, plane).get('configmaps')).status, POLL)
        .toMatchObject({ propagationController: 'Running' });
    }
    await host.resource(federated('federatedclusterroles')).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedClusterRole',
      metadata: { name: 'namespaced-planes-never-sync-this' },
      spec: { template: { rules: [] }, placement: { clusters: [{ name: 'member1' }] } },
    });
    await consistently(
      async () =>
        expect(
          await getOrUndefined(
            fed.client('member1').resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' }),
            'namespaced-planes-never-sync-this',
          ),
        ).toBeUndefined(),
      { durationMs: 3000, intervalMs: 200 },
    );
  }, 60_000);
});
