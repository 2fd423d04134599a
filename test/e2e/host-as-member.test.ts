// The host joined as a member of its own federation, as KubeFed users often do: its namespaces
// hold the federated objects themselves, so a FederatedNamespace placed there must never delete
// the host's Namespace (it is unlabelled instead, KubeFed docs/kubefed-compatibility.md §4.4.12),
// and when the user deletes that Namespace the deletion must not wait for it (KubeFed
// pkg/controller/sync/controller.go, deleteFromClusters): the Namespace waits for the
// FederatedNamespace inside it, whose finalizer would otherwise wait for the Namespace.
import { getOrUndefined, type ResourceClient } from '@kubefed/client';
import { RESOURCES } from '@kubefed/api';
import { POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';
import {
  createFederatedNamespace,
  FEDERATED_CONFIG_MAPS,
  FEDERATED_NAMESPACES,
  kubectl,
  propagatedTo,
  propagationOf,
  succeeded,
} from './support/e2e-federation.js';

const CLUSTERS = ['host', 'member1'] as const;
// kube-controller-manager's namespace controller looks again 8 s after it found content with
// finalizers (the FederatedNamespace's), so a deleted namespace may take a few of those rounds.
const NAMESPACE_GONE = { ...POLL, timeout: 60_000 } as const;

const fed = useLocalFederation({ members: ['member1'], hostAsMember: true });

const labelsOf = async (cluster: string, ns: string): Promise<Record<string, string> | 'absent'> => {
  const obj = await getOrUndefined(fed.client(cluster).resource(RESOURCES.namespaces), ns);
  return obj === undefined
    ? 'absent'
    : { ...(obj.metadata.labels ?? {}), phase: String((obj.status as { phase?: string } | undefined)?.phase) };
};

/** The FederatedNamespace `ns` and a FederatedConfigMap `settings` in it, both propagated to every cluster. */
async function federatedNamespaceWithSettings(ns: string): Promise<{ fedNamespaces: ResourceClient; fedConfigMaps: ResourceClient }> {
  await createFederatedNamespace(fed, ns, CLUSTERS);
  const fedNamespaces = fed.client('host').resource(FEDERATED_NAMESPACES, ns);
  const fedConfigMaps = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
  await fedConfigMaps.create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedConfigMap',
    metadata: { name: 'settings', namespace: ns },
    spec: { template: { data: { a: 'b' } }, placement: { clusters: CLUSTERS.map((name) => ({ name })) } },
  });
  await expect.poll(() => propagationOf(fedNamespaces, ns), POLL).toEqual(propagatedTo(CLUSTERS));
  await expect.poll(() => propagationOf(fedConfigMaps, 'settings'), POLL).toEqual(propagatedTo(CLUSTERS));
  return { fedNamespaces, fedConfigMaps };
}

describe('the host cluster joined as a member', () => {
  it("propagates into the host's own namespace and, when the FederatedNamespace is deleted, unlabels it instead of deleting it", async () => {
    const ns = 'shared';
    const { fedNamespaces, fedConfigMaps } = await federatedNamespaceWithSettings(ns);
    await expect.poll(() => labelsOf('host', ns), POLL).toMatchObject({ 'kubefed.io/managed': 'true', phase: 'Active' });
    await expect.poll(() => labelsOf('member1', ns), POLL).toMatchObject({ 'kubefed.io/managed': 'true', phase: 'Active' });

    await fedNamespaces.delete(ns);
    await expect.poll(() => getOrUndefined(fedNamespaces, ns), POLL).toBeUndefined();
    await expect.poll(() => labelsOf('member1', ns), POLL).toBe('absent');
    const hostNamespace = await labelsOf('host', ns);
    expect(hostNamespace).toMatchObject({ phase: 'Active' });
    expect(hostNamespace).not.toHaveProperty('kubefed.io/managed');
    // The federated objects in it are still there.
    expect(await getOrUndefined(fedConfigMaps, 'settings')).toBeDefined();
  }, 120_000);

  it('removes the FederatedNamespace and every copy of the namespace when the user deletes the host namespace', async () => {
    const ns = 'deleted-with-host';
    await createFederatedNamespace(fed, ns, CLUSTERS);
    const fedNamespaces = fed.client('host').resource(FEDERATED_NAMESPACES, ns);
    await expect.poll(() => propagationOf(fedNamespaces, ns), POLL).toEqual(propagatedTo(CLUSTERS));
    await expect.poll(() => labelsOf('host', ns), POLL).toMatchObject({ 'kubefed.io/managed': 'true', phase: 'Active' });
    await expect.poll(() => labelsOf('member1', ns), POLL).toMatchObject({ 'kubefed.io/managed': 'true', phase: 'Active' });

    succeeded(await kubectl(fed, ['delete', 'namespace', ns, '--wait=false']), 'kubectl delete namespace');
    // The member's copy is deleted, the finalizer goes, and the host namespace then finishes terminating.
    await expect.poll(() => labelsOf('member1', ns), POLL).toBe('absent');
    await expect.poll(() => getOrUndefined(fedNamespaces, ns), POLL).toBeUndefined();
    await expect.poll(() => labelsOf('host', ns), NAMESPACE_GONE).toBe('absent');
  }, 120_000);

  it('removes the federated objects inside a deleted host namespace and all their copies', async () => {
    const ns = 'deleted-with-objects';
    const { fedNamespaces, fedConfigMaps } = await federatedNamespaceWithSettings(ns);
    const memberConfigMaps = fed.client('member1').resource(RESOURCES.configMaps, ns);
    await expect
      .poll(async () => (await getOrUndefined(memberConfigMaps, 'settings'))?.metadata.labels, POLL)
      .toMatchObject({
        'kubefed.io/managed': 'true',
      });

    succeeded(await kubectl(fed, ['delete', 'namespace', ns, '--wait=false']), 'kubectl delete namespace');
    await expect.poll(() => getOrUndefined(fedConfigMaps, 'settings'), POLL).toBeUndefined();
    await expect.poll(() => getOrUndefined(fedNamespaces, ns), POLL).toBeUndefined();
    await expect.poll(() => labelsOf('member1', ns), POLL).toBe('absent');
    await expect.poll(() => labelsOf('host', ns), NAMESPACE_GONE).toBe('absent');
  }, 120_000);
});
