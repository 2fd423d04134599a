import { RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig, type KubeObject } from '@kubefed/client';
import { ClusterStatusProvider, createMemberFleet } from '@kubefed/controllers';
import { startCluster } from '@kubefed/kube-sim';
import { silentLogger } from '@kubefed/runtime';
import { describe, expect, it } from 'vitest';

const NS = 'kube-federation-system';

const kubeFedCluster = (ready: boolean): KubeObject => ({
  apiVersion: 'core.kubefed.io/v1beta1',
  kind: 'KubeFedCluster',
  metadata: { name: 'member1', namespace: NS, resourceVersion: ready ? '2' : '1' },
  spec: { apiEndpoint: 'https://127.0.0.1:1', secretRef: { name: 'member1-secret' } },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

describe('ClusterStatusProvider of a workers-only process', () => {
  it('says why a Ready cluster has no client (its Secret has no token), and nothing for a cluster that is not Ready', async () => {
    await using host = await startCluster({ name: 'host' });
    using client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(host.kubeconfigYaml()));
    await client.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await client
      .resource(RESOURCES.secrets, NS)
      .create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'member1-secret' }, data: {} });
    const fleet = createMemberFleet();
    const members = new ClusterStatusProvider({ host: client, namespace: NS, fleet, logger: silentLogger() });
    const stop = new AbortController();
    const running = fleet.start(stop.signal);
    try {
      await members.update(kubeFedCluster(false));
      expect(members.clientError('member1')).toBeUndefined();

      await members.update(kubeFedCluster(true));
      expect(fleet.readyClient('member1')).toBeUndefined();
      expect(members.clientError('member1')).toBeInstanceOf(Error);
    } finally {
      stop.abort();
      await running;
    }
  });
});
