import { readFile } from 'node:fs/promises';
import { type FederatedTypeOptions, RESOURCES } from '@kubefed/api';
import { CLUSTER_CONNECTION_ANNOTATION, DynamicClient, isForbidden, type KubeFedClusterInput } from '@kubefed/client';
import { createNamespace, joinMember, kubeFedClusterCondition, startInProcessFederation, TestingError } from '@kubefed/testing';
import { describe, expect, it } from 'vitest';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const CONFIG_MAPS: FederatedTypeOptions = { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' };

describe('startInProcessFederation', () => {
  it('starts a host with the KubeFed CRDs and those of the named federated types, the members, and a kubeconfig of all', async () => {
    let path: string;
    {
      await using fed = await startInProcessFederation({
        members: { member1: {}, member2: { podCapacity: 2 } },
        federatedTypes: [CONFIG_MAPS],
      });
      path = fed.kubeconfigPath;
      expect(fed.clusters.map((c) => c.name)).toEqual(['host', 'member1', 'member2']);
      expect(fed.members.map((c) => c.name)).toEqual(['member1', 'member2']);
      expect(fed.member('member2').url).toBe(fed.clusters[2]?.url);
      expect(() => fed.member('host')).toThrow(TestingError);
      expect(fed.client('host')).toBe(fed.hostClient);
      const crds = (await fed.hostClient.resource(CRDS).list()).items.map((c) => c.metadata.name);
      expect(crds).toEqual(
        expect.arrayContaining([
          'kubefedclusters.core.kubefed.io',
          'federatedtypeconfigs.core.kubefed.io',
          'federatedconfigmaps.types.kubefed.io',
        ]),
      );
      expect(await fed.client('member1').resource(CRDS).list()).toMatchObject({ items: [] });
      const yaml = await readFile(path, 'utf8');
      expect(yaml).toContain('current-context: host');
      for (const c of fed.clusters) expect(yaml).toContain(c.url);
    }
    await expect(readFile(path, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('joins a member as kubefedctl join does: a token Secret bound to the cluster and its KubeFedCluster, with the access asked for', async () => {
    await using fed = await startInProcessFederation({ members: { member1: {} } });
    const ns = 'kubefed-in-process';
    await createNamespace(fed.hostClient, ns);
    await joinMember(fed, fed.member('member1'), ns);

    const kfc = await fed.hostClient.resource(RESOURCES.kubeFedClusters, ns).get('member1');
    expect(kfc.spec).toMatchObject({ apiEndpoint: fed.member('member1').url, secretRef: { name: 'member1-secret' } });
    const secret = await fed.hostClient.resource(RESOURCES.secrets, ns).get('member1-secret');
    expect(secret.metadata.annotations).toMatchObject({ 'kubefed.io/cluster-name': 'member1' });
    expect(secret.metadata.annotations?.[CLUSTER_CONNECTION_ANNOTATION]).toBeTruthy();
    expect(await kubeFedClusterCondition(fed, ns, 'member1', 'Ready')).toBeUndefined();

    // The token reads Nodes (list-nodes access) and nothing else.
    using asMember = await DynamicClient.forKubeFedCluster(fed.hostClient, kfc as unknown as KubeFedClusterInput);
    expect((await asMember.resource(RESOURCES.nodes).list()).items.length).toBeGreaterThan(0);
    const refused = await asMember
      .resource(RESOURCES.configMaps, 'default')
      .list()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isForbidden(refused)).toBe(true);
  });
});
