import { replicaSchedulingPreferenceCrd } from '@kubefed/api';
import { DynamicClient, isForbidden, isNotFound, type KubeFedClusterInput, type KubeObject } from '@kubefed/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const crdGvr = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const rspGvr = { group: 'scheduling.kubefed.io', version: 'v1alpha1', resource: 'replicaschedulingpreferences' };
const deploymentsGvr = { group: 'apps', version: 'v1', resource: 'deployments' };

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'member']);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

async function retry<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i > 50) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function rulesOf(role: KubeObject): { resources?: string[] }[] {
  return role['rules'] as { resources?: string[] }[];
}

describe('enable and disable keep least-privilege member roles in step', () => {
  it('adds and removes the target type in the role of a least-privilege member (the member token is refused once the type is disabled), and warns for one it cannot update', async () => {
    const ns = 'fed-lp';
    await fed.controlPlane('host', ns);
    const args = ['--host-cluster-context', 'host', '--kubefed-namespace', ns];
    // "member" has a kubeconfig context of its own name (the fallback when its own credentials may not
    // change RBAC); "other" has none.
    expect((await fed.cli(['join', 'member', '--cluster-context', 'member', '--least-privilege', ...args])).code).toBe(0);
    expect(
      (await fed.cli(['join', 'other', '--cluster-context', 'member', '--least-privilege', '--allow-duplicate-endpoint', ...args])).code,
    ).toBe(0);

    const enabled = await fed.cli(['enable', 'configmaps', ...args]);
    expect(enabled.stderr).not.toContain('Error:');
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toContain('clusterrole.rbac.authorization.k8s.io/kubefed-controller-manager:member-host updated in member');
    expect(enabled.stderr).toContain('warning: could not update the least-privilege role of cluster "other"');
    const roles = fed.client('member').resource(gvr.clusterRoles);
    expect(rulesOf(await roles.get('kubefed-controller-manager:member-host')).some((r) => r.resources?.includes('configmaps'))).toBe(true);
    // The control plane's member credentials (the KubeFedCluster's token) may now write ConfigMaps.
    const kfc = await fed.client('host').resource(gvr.kubeFedClusters, ns).get('member');
    using creds = await DynamicClient.forKubeFedCluster(fed.client('host'), kfc as unknown as KubeFedClusterInput);
    const configMap = (name: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' },
      data: {},
    });
    await creds.resource(gvr.configMaps, 'default').create(configMap('lp-granted'));

    const disabled = await fed.cli(['disable', 'configmaps', ...args]);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain(`No controller reports the status of FederatedTypeConfig "${ns}/configmaps"`);
    // As KubeFed's disable: propagation off, then the FederatedTypeConfig deleted.
    const gone = await fed
      .client('host')
      .resource(gvr.federatedTypeConfigs, ns)
      .get('configmaps')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isNotFound(gone)).toBe(true);
    expect(rulesOf(await roles.get('kubefed-controller-manager:member-host')).some((r) => r.resources?.includes('configmaps'))).toBe(false);
    // The revoked grant stops working at once: the same token is refused.
    const refused = await creds
      .resource(gvr.configMaps, 'default')
      .create(configMap('lp-revoked'))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isForbidden(refused)).toBe(true);
  }, 180_000);
});

describe('kubefedctl plan (live)', () => {
  it('plans with the Ready clusters and the replicas running in the members', async () => {
    const ns = 'fed-plan';
    const host = fed.client('host');
    const member = fed.client('member');
    await fed.controlPlane('host', ns);
    await host.resource(crdGvr).create(replicaSchedulingPreferenceCrd() as unknown as KubeObject);
    // Deployments are federated before the (least-privilege) join: its role may read them and their pods.
    expect((await fed.cli(['enable', 'deployments.apps', '--host-cluster-context', 'host', '--kubefed-namespace', ns])).code).toBe(0);
    expect(
      (await fed.cli(['join', 'planned', '--cluster-context', 'member', '--host-cluster-context', 'host', '--kubefed-namespace', ns])).code,
    ).toBe(0);
    const kfcs = host.resource(gvr.kubeFedClusters, ns);
    const kfc = await kfcs.get('planned');
    await kfcs.updateStatus({
      ...kfc,
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'ClusterReady',
            lastProbeTime: '2026-11-21T10:00:00Z',
            lastTransitionTime: '2026-11-21T10:00:00Z',
          },
        ],
      },
    });

    await host.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    await retry(() =>
      host.resource(rspGvr, 'shop').create({
        apiVersion: 'scheduling.kubefed.io/v1alpha1',
        kind: 'ReplicaSchedulingPreference',
        metadata: { name: 'web', namespace: 'shop' },
        spec: { targetKind: 'FederatedDeployment', totalReplicas: 6, clusters: { planned: { weight: 1, maxReplicas: 5 } } },
      }),
    );
    await member.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    await member.resource(deploymentsGvr, 'shop').create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });

    const r = await fed.cli(['plan', 'web', '-n', 'shop', '--host-cluster-context', 'host', '--kubefed-namespace', ns, '-o', 'json']);
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('FederatedDeployment shop/web does not exist');
    const out = JSON.parse(r.stdout) as {
      key: string;
      plan: Record<string, number>;
      unplaced: number;
      clusters: { name: string; current: number | null }[];
    };
    expect(out.key).toBe('shop/web');
    expect(out.plan).toEqual({ planned: 5 });
    expect(out.unplaced).toBe(1);
    expect(out.clusters[0]).toMatchObject({ name: 'planned', current: 0 });
  }, 180_000);
});
