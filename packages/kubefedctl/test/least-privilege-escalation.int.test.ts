// The default least-privilege member token can grant itself more while RBAC (and Secret) types are
// federated: join and enable say so, and the token really can bind cluster-admin (kube-sim's
// RBAC escalation prevention matches kube-apiserver's). Disabling those types bounds it.
import { DynamicClient, isForbidden, type KubeFedClusterInput, type KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const ns = 'fed-escalation';
const args = ['--host-cluster-context', 'host', '--kubefed-namespace', ns];
const ssarGvr = { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews' };
const rbacTypes = ['clusterroles.rbac.authorization.k8s.io', 'clusterrolebindings.rbac.authorization.k8s.io'];
const warning = 'warning: the member token of member1 can grant itself more';

/** Whether the caller of `client` may do every verb on every resource (kubectl auth can-i '*' '*'). */
async function canDoEverything(client: DynamicClient): Promise<boolean> {
  const review = await client.resource(ssarGvr).create({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: { resourceAttributes: { verb: '*', group: '*', resource: '*' } },
  });
  return (review['status'] as { allowed?: boolean } | undefined)?.allowed === true;
}

function bindingToClusterAdmin(name: string, serviceAccount: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace: ns }],
  };
}

describe('the least-privilege member token with federated RBAC types', () => {
  it('can bind cluster-admin to itself with the default types, and join says so; once the RBAC and Secret types are disabled it cannot, and enable says nothing', async () => {
    await using fed = await SimFederation.start(['host', 'member1']);
    await fed.controlPlane('host', ns);
    const enabled = await fed.cli(['enable', '--default-types', ...args], 120_000);
    expect(enabled.stderr).not.toContain('Error:');
    expect(enabled.code).toBe(0);

    const joined = await fed.cli(['join', 'member1', '--cluster-context', 'member1', ...args]);
    expect(joined.stderr).not.toContain('Error:');
    expect(joined.code).toBe(0);
    expect(joined.stderr).toContain(warning);
    for (const t of [...rbacTypes, 'secrets']) expect(joined.stderr).toContain(t);
    expect(joined.stderr).toContain('cluster-admin included');

    // The member token, as the control plane reads it from the host Secret.
    const kfc = await fed.client('host').resource(gvr.kubeFedClusters, ns).get('member1');
    using token = await DynamicClient.forKubeFedCluster(fed.client('host'), kfc as unknown as KubeFedClusterInput);
    const serviceAccount = 'member1-host';
    expect(await canDoEverything(token)).toBe(false);
    await token.resource(gvr.clusterRoleBindings).create(bindingToClusterAdmin('escalated', serviceAccount));
    await expect.poll(() => canDoEverything(token), { timeout: 10_000 }).toBe(true);
    await fed.client('member1').resource(gvr.clusterRoleBindings).delete('escalated');
    await expect.poll(() => canDoEverything(token), { timeout: 10_000 }).toBe(false);

    for (const t of [...rbacTypes, 'secrets', 'configmaps']) {
      const disabled = await fed.cli(['disable', t, ...args]);
      expect(disabled.stderr).not.toContain('Error:');
      expect(disabled.code).toBe(0);
    }
    const refused = await token
      .resource(gvr.clusterRoleBindings)
      .create(bindingToClusterAdmin('escalated-again', serviceAccount))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isForbidden(refused)).toBe(true);

    const harmless = await fed.cli(['enable', 'configmaps', ...args]);
    expect(harmless.code).toBe(0);
    expect(harmless.stdout).toContain('clusterrole.rbac.authorization.k8s.io/kubefed-controller-manager:member1-host updated in member1');
    expect(harmless.stderr).not.toContain(warning);
    expect(await canDoEverything(token)).toBe(false);

    // Enabling an RBAC type again: enable says so.
    const rbacAgain = await fed.cli(['enable', 'clusterroles.rbac.authorization.k8s.io', ...args]);
    expect(rbacAgain.code).toBe(0);
    expect(rbacAgain.stderr).toContain(
      `${warning} than least privilege (in effect cluster-admin): the enabled type clusterroles.rbac.authorization.k8s.io`,
    );
  }, 300_000);
});
