// A member whose kube-apiserver stops answering without refusing connections (SIGSTOP: the
// kernel still accepts, nobody speaks; what a hung or blackholed API server does), on real
// control planes only (vitest project `real`). The controller manager must notice it within its
// health-check timeout, report it, keep serving the other member, and bring it up to date once it
// answers again. (kube-sim's unreachable fault refuses connections instead, which the suite's
// cluster-membership test covers on both substrates.)
import { RESOURCES } from '@kubefed/api';
import { getOrUndefined, type KubeObject } from '@kubefed/client';
import { POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createFederatedNamespace, FEDERATED_CONFIG_MAPS, propagatedTo, propagationOf } from './support/e2e-federation.js';

const MEMBERS = ['member1', 'member2'] as const;

const fed = useLocalFederation({ members: MEMBERS, substrate: 'real', fastHealthChecks: true });

/** The status of a KubeFedCluster's Ready and Offline conditions (`-` when absent). */
async function health(name: string): Promise<{ ready: string; offline: string }> {
  const kfc = await fed.client('host').resource(RESOURCES.kubeFedClusters, fed.namespace).get(name);
  const conditions = (kfc.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  const of = (type: string): string => conditions.find((c) => c.type === type)?.status ?? '-';
  return { ready: of('Ready'), offline: of('Offline') };
}

const configMap = (ns: string, v: string): KubeObject => ({
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedConfigMap',
  metadata: { name: 'app', namespace: ns },
  spec: { template: { data: { v } }, placement: { clusters: MEMBERS.map((name) => ({ name })) } },
});

describe('a member kube-apiserver that stops answering', () => {
  it('is reported Offline and ClusterNotReady while it hangs, the other member keeps being served, and it catches up once it answers', async () => {
    const ns = 'hung-member';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const cms = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
    await cms.create(configMap(ns, '1'));
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(MEMBERS));
    const memberData = (m: string) => getOrUndefined(fed.client(m).resource(RESOURCES.configMaps, ns), 'app').then((o) => o?.data);

    await fed.fault('member2', { unreachable: true });
    try {
      await expect.poll(() => health('member2'), POLL).toEqual({ ready: '-', offline: 'True' });
      expect(await health('member1')).toEqual({ ready: 'True', offline: '-' });
      await cms.patch('app', { spec: { template: { data: { v: '2' } } } }, 'merge');
      await expect.poll(() => memberData('member1'), POLL).toEqual({ v: '2' });
      await expect
        .poll(() => propagationOf(cms, 'app'), POLL)
        .toEqual({ current: true, propagation: 'False', reason: 'CheckClusters', clusters: { member1: 'OK', member2: 'ClusterNotReady' } });
    } finally {
      fed.restoreFaults();
    }
    await expect.poll(() => health('member2'), POLL).toEqual({ ready: 'True', offline: '-' });
    await expect.poll(() => memberData('member2'), POLL).toEqual({ v: '2' });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(MEMBERS));
  }, 180_000);
});
