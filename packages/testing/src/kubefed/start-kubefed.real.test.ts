/**
 * KubeFed v0.10.0 itself on real clusters (vitest project `real`: needs `npm run kube:build` and
 * `npm run kubefed:build`): installed on a host as its chart would be, with its webhook; a member
 * joined and ConfigMaps enabled with its kubefedctl; a FederatedConfigMap propagated by its sync
 * controller. This is what makes KubeFed usable as the reference that other tests ask.
 */
import { RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig, type KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { startRealClusters } from '../real-clusters/start-real-clusters.js';
import { startKubeFed } from './start-kubefed.js';

const FEDERATED_CONFIG_MAPS = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' } as const;
const POLL = { timeout: 30_000, interval: 250 } as const;

interface Condition {
  type?: string;
  status?: string;
}
const conditionOf = (obj: KubeObject, type: string): string | undefined =>
  (obj['status'] as { conditions?: Condition[] } | undefined)?.conditions?.find((c) => c.type === type)?.status;

describe('startKubeFed', () => {
  it('runs KubeFed v0.10.0 with its webhook, joins a member and enables ConfigMaps with kubefedctl, and propagates a FederatedConfigMap to it', async () => {
    await using real = await startRealClusters({ names: ['host', 'member1'], nodes: 1 });
    await using kubefed = await startKubeFed({
      kubeconfigPath: real.kubeconfigPath,
      context: 'host',
      // Namespaces as the chart enables them; ConfigMaps below with `kubefedctl enable`.
      federatedTypes: ['namespaces'],
      webhook: true,
      // Health every second and no wait once a cluster is available, so the test needs seconds, not tens.
      kubeFedConfig: { clusterHealthCheck: { period: '1s' }, controllerDuration: { availableDelay: '1s' } },
    });
    expect(kubefed.version).toBe('v0.10.0');
    const kubeconfig = Kubeconfig.fromFile(real.kubeconfigPath);
    using host = DynamicClient.fromKubeconfig(kubeconfig, { context: 'host', qps: 0 });
    using member = DynamicClient.fromKubeconfig(kubeconfig, { context: 'member1', qps: 0 });

    // KubeFed's validating webhook is in the host's admission chain: the scope is immutable.
    const configs = host.resource(RESOURCES.kubeFedConfigs, kubefed.namespace);
    const config = await configs.get('kubefed');
    await expect(configs.update({ ...config, spec: { ...(config['spec'] as object), scope: 'Namespaced' } })).rejects.toThrow(
      /validating-webhook|kubefedconfigs\.core\.kubefed\.io|immutable/,
    );

    const enable = await kubefed.kubefedctl([
      'enable',
      'configmaps',
      '--host-cluster-context=host',
      `--kubefed-namespace=${kubefed.namespace}`,
      `--kubeconfig=${real.kubeconfigPath}`,
    ]);
    expect(enable, enable.stderr).toMatchObject({ code: 0 });
    await kubefed.join('member1', { context: 'member1' });
    await expect
      .poll(async () => conditionOf(await host.resource(RESOURCES.kubeFedClusters, kubefed.namespace).get('member1'), 'Ready'), POLL)
      .toBe('True');

    // A namespaced type propagates only where its namespace is federated (a FederatedNamespace).
    const placement = { clusters: [{ name: 'member1' }] };
    await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    await host.resource(RESOURCES.federatedNamespaces, 'shop').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: 'shop', namespace: 'shop' },
      spec: { placement },
    });
    await host.resource(FEDERATED_CONFIG_MAPS, 'shop').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { template: { data: { greeting: 'hello' } }, placement },
    });

    await expect
      .poll(
        async () =>
          (
            await member
              .resource(RESOURCES.configMaps, 'shop')
              .get('web')
              .catch(() => undefined)
          )?.['data'],
        POLL,
      )
      .toEqual({ greeting: 'hello' });
    const copy = await member.resource(RESOURCES.configMaps, 'shop').get('web');
    expect(copy.metadata?.labels).toMatchObject({ 'kubefed.io/managed': 'true' });
    await expect
      .poll(async () => conditionOf(await host.resource(FEDERATED_CONFIG_MAPS, 'shop').get('web'), 'Propagation'), POLL)
      .toBe('True');
    // KubeFed's version record: a ConfigMap has no generation, so its version is `rv:<resourceVersion>`.
    await expect
      .poll(
        async () =>
          (
            await host
              .resource(RESOURCES.propagatedVersions, 'shop')
              .get('configmap-web')
              .catch(() => undefined)
          )?.['status'],
        POLL,
      )
      .toMatchObject({ clusterVersions: [{ clusterName: 'member1', version: `rv:${copy.metadata?.resourceVersion ?? ''}` }] });
  });
});
