import { DynamicClient, getOrUndefined, isUnauthorized } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const common = ['--cluster-context', 'member', '--host-cluster-context', 'host'];

async function memberViaKfc(fed: SimFederation, ns: string, cluster: string): Promise<DynamicClient> {
  const host = fed.client('host');
  const kfc = await host.resource(gvr.kubeFedClusters, ns).get(cluster);
  return DynamicClient.forKubeFedCluster(host, kfc as unknown as Parameters<typeof DynamicClient.forKubeFedCluster>[1]);
}

describe('kubefedctl unjoin against kube-sim', () => {
  it('removes every join object from host and member, after which the old token gets 401', async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-unjoin';
    await fed.controlPlane('host', ns);
    const joined = await fed.cli(['join', 'member7', ...common, '--kubefed-namespace', ns]);
    expect(joined.stderr).not.toContain('Error:');
    using oldCredentials = await memberViaKfc(fed, ns, 'member7');
    await oldCredentials.resource(gvr.nodes).list();
    const secretName = (
      (await fed.client('host').resource(gvr.kubeFedClusters, ns).get('member7'))['spec'] as { secretRef: { name: string } }
    ).secretRef.name;

    expect(await getOrUndefined(fed.client('member').resource(gvr.clusterRoles), 'kubefed-controller-manager:member7-host')).toBeDefined();

    const dry = await fed.cli(['unjoin', 'member7', ...common, '--kubefed-namespace', ns, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      'clusterrole.rbac.authorization.k8s.io/kubefed-controller-manager:member7-host deleted in member7 (dry run)',
    );
    expect(dry.stdout).toContain('kubefedcluster.core.kubefed.io/member7 deleted in host (dry run)');
    expect(dry.stdout).toContain('dry run: nothing was removed');
    expect(await getOrUndefined(fed.client('host').resource(gvr.kubeFedClusters, ns), 'member7')).toBeDefined();

    const r = await fed.cli(['unjoin', 'member7', ...common, '--kubefed-namespace', ns]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('serviceaccount/member7-host deleted in member7');
    expect(r.stdout).toContain('cluster "member7" unjoined from host cluster "host"');

    const host = fed.client('host');
    expect(await getOrUndefined(host.resource(gvr.kubeFedClusters, ns), 'member7')).toBeUndefined();
    expect(await getOrUndefined(host.resource(gvr.secrets, ns), secretName)).toBeUndefined();
    const member = fed.client('member');
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member7-host')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoleBindings), 'kubefed-controller-manager:member7-host')).toBeUndefined();
    await expect.poll(() => getOrUndefined(member.resource(gvr.namespaces), ns), { timeout: 10_000 }).toBeUndefined();
    const after = await oldCredentials
      .resource(gvr.nodes)
      .list()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isUnauthorized(after)).toBe(true);
  });

  it('refuses to unjoin an unreachable member without --force, and with --force removes the host side and reports what stayed', async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-force';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(['join', 'member8', ...common, '--kubefed-namespace', ns])).code).toBe(0);
    fed.sim('member').faults.unreachable();

    const refused = await fed.cli(['unjoin', 'member8', ...common, '--kubefed-namespace', ns]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: unjoin member8: cannot reach member cluster member8 at .*; nothing was removed$/m);
    expect(refused.stderr).toContain('use --force to remove the host side anyway');
    const host = fed.client('host');
    expect(await getOrUndefined(host.resource(gvr.kubeFedClusters, ns), 'member8')).toBeDefined();

    const forced = await fed.cli(['unjoin', 'member8', ...common, '--kubefed-namespace', ns, '--force']);
    fed.sim('member').faults.restore();
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('kubefedcluster.core.kubefed.io/member8 deleted in host');
    expect(forced.stderr).toContain(
      'warning: could not remove service account fed-force/member8-host in member8: cannot reach member cluster member8',
    );
    expect(forced.stderr).toContain('warning: could not remove cluster role kubefed-controller-manager:member8-host in member8');
    expect(await getOrUndefined(host.resource(gvr.kubeFedClusters, ns), 'member8')).toBeUndefined();
    expect(await getOrUndefined(fed.client('member').resource(gvr.serviceAccounts, ns), 'member8-host')).toBeDefined();
  });

  it('keeps the host Secret of another cluster that a KubeFedCluster names, and says so', async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-borrowed';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(['join', 'member1', ...common, '--kubefed-namespace', ns])).code).toBe(0);
    const host = fed.client('host');
    const kfcs = host.resource(gvr.kubeFedClusters, ns);
    const member1 = await kfcs.get('member1');
    const secretName = (member1['spec'] as { secretRef: { name: string } }).secretRef.name;
    // A KubeFedCluster writer registers `evil` with member1's token Secret (the controllers refuse
    // the pairing, ClusterSecretNotBound); an operator then cleans `evil` up with unjoin.
    await kfcs.create({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'KubeFedCluster',
      metadata: { name: 'evil', namespace: ns },
      spec: { apiEndpoint: (member1['spec'] as { apiEndpoint: string }).apiEndpoint, secretRef: { name: secretName } },
    });

    const r = await fed.cli(['unjoin', 'evil', ...common, '--kubefed-namespace', ns]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `secret/${secretName} kept in host (bound to cluster member1 by its kubefed.io/cluster-name annotation, not to evil)`,
    );
    expect(r.stdout).toContain(`kubefedcluster.core.kubefed.io/evil deleted in host`);
    expect(await getOrUndefined(kfcs, 'evil')).toBeUndefined();
    expect(await getOrUndefined(host.resource(gvr.secrets, ns), secretName)).toBeDefined();
    using member1Client = await memberViaKfc(fed, ns, 'member1');
    await member1Client.resource(gvr.nodes).list();
  });

  it("deletes an unbound host Secret (as KubeFed's kubefedctl joins) only when no other KubeFedCluster names it", async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-unbound';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(['join', 'member2', ...common, '--kubefed-namespace', ns])).code).toBe(0);
    const host = fed.client('host');
    const kfcs = host.resource(gvr.kubeFedClusters, ns);
    const secrets = host.resource(gvr.secrets, ns);
    const secretName = ((await kfcs.get('member2'))['spec'] as { secretRef: { name: string } }).secretRef.name;
    await secrets.patch(secretName, { metadata: { annotations: { 'kubefed.io/cluster-name': null } } }, 'merge');
    await kfcs.create({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'KubeFedCluster',
      metadata: { name: 'other', namespace: ns },
      spec: { apiEndpoint: 'https://127.0.0.1:1', secretRef: { name: secretName } },
    });

    const kept = await fed.cli(['unjoin', 'other', ...common, '--kubefed-namespace', ns]);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain(`secret/${secretName} kept in host (not bound to a cluster, and KubeFedCluster member2 names it too)`);
    expect(await getOrUndefined(secrets, secretName)).toBeDefined();

    const removed = await fed.cli(['unjoin', 'member2', ...common, '--kubefed-namespace', ns]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`secret/${secretName} deleted in host`);
    expect(await getOrUndefined(secrets, secretName)).toBeUndefined();
  });
});
