import { getOrUndefined } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

function joinArgs(cluster: string, ns: string, ...extra: string[]): string[] {
  return ['join', cluster, '--cluster-context', 'member', '--host-cluster-context', 'host', '--kubefed-namespace', ns, ...extra];
}

describe('kubefedctl join failures against kube-sim', () => {
  it('fails with a clear message for an unreachable member and leaves nothing behind in host or member', async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-unreachable';
    await fed.controlPlane('host', ns);
    fed.sim('member').faults.unreachable();
    const r = await fed.cli(joinArgs('member5', ns));
    fed.sim('member').faults.restore();

    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^Error: cannot reach member cluster member5 at ${fed.sim('member').url}: .*NetworkError`, 'm'));
    expect(r.stderr).toContain('hint: check that the member API server is up');
    expect(r.stderr).not.toContain('    at ');
    const host = fed.client('host');
    expect(await getOrUndefined(host.resource(gvr.kubeFedClusters, ns), 'member5')).toBeUndefined();
    expect((await host.resource(gvr.secrets, ns).list()).items.filter((s) => s.metadata.name?.startsWith('member5-'))).toEqual([]);
    const member = fed.client('member');
    expect(await getOrUndefined(member.resource(gvr.namespaces), ns)).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member5-host')).toBeUndefined();
  });

  it('removes what it created, newest first, when a later step fails, and names the failed step', async () => {
    // A host without the KubeFedCluster CRD: every step succeeds until the KubeFedCluster is created.
    await using fed = await SimFederation.start(['host', 'member'], { kubefedClusterCrd: false });
    const ns = 'fed-rollback';
    await fed.controlPlane('host', ns);
    const r = await fed.cli(joinArgs('member6', ns));

    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: join member6: step "create KubeFedCluster fed-rollback/member6 in host" failed: ');
    expect(r.stderr).toContain('rolling back: removing service account fed-rollback/member6-host in member6');
    const host = fed.client('host');
    expect((await host.resource(gvr.secrets, ns).list()).items.filter((s) => s.metadata.name?.startsWith('member6-'))).toEqual([]);
    const member = fed.client('member');
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member6-host')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoleBindings), 'kubefed-controller-manager:member6-host')).toBeUndefined();
    // The namespace join created goes too (namespace deletion finishes asynchronously).
    await expect.poll(() => getOrUndefined(member.resource(gvr.namespaces), ns), { timeout: 10_000 }).toBeUndefined();
  });
});
