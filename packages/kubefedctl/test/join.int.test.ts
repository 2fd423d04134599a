import { buildFederatedTypeConfig } from '@kubefed/api';
import { DynamicClient, getOrUndefined, isForbidden, isUnauthorized, type KubeObject } from '@kubefed/client';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leastPrivilegeRules } from '../src/index.js';
import { SimFederation, gvr } from './sim-federation.js';

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'member']);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

function joinArgs(cluster: string, ns: string, ...extra: string[]): string[] {
  return ['join', cluster, '--cluster-context', 'member', '--host-cluster-context', 'host', '--kubefed-namespace', ns, ...extra];
}

async function kfcAndSecret(ns: string, cluster: string): Promise<{ kfc: KubeObject; secret: KubeObject }> {
  const host = fed.client('host');
  const kfc = await host.resource(gvr.kubeFedClusters, ns).get(cluster);
  const secretName = (kfc['spec'] as { secretRef: { name: string } }).secretRef.name;
  const secret = await host.resource(gvr.secrets, ns).get(secretName);
  return { kfc, secret };
}

function memberClientFor(kfc: KubeObject, secret: KubeObject): DynamicClient {
  return DynamicClient.fromKubeFedCluster(
    kfc as unknown as Parameters<typeof DynamicClient.fromKubeFedCluster>[0],
    secret as { data?: Record<string, string> },
  );
}

describe('kubefedctl join against kube-sim', () => {
  it('with --cluster-admin creates every KubeFed object in member and host, and the KubeFedCluster credentials work; a second join fails naming what exists', async () => {
    const ns = 'fed-join';
    await fed.controlPlane('host', ns);
    const r = await fed.cli(joinArgs('member1', ns, '--cluster-admin'));
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('cluster "member1" joined host cluster "host" (KubeFedCluster fed-join/member1)');

    const member = fed.client('member');
    const sa = await member.resource(gvr.serviceAccounts, ns).get('member1-host');
    expect(sa.metadata.annotations).toMatchObject({ 'kubernetes.io/enforce-mountable-secrets': 'true' });
    expect(sa['automountServiceAccountToken']).toBe(false);
    const tokenSecret = await member.resource(gvr.secrets, ns).get('member1-host');
    expect(tokenSecret['type']).toBe('kubernetes.io/service-account-token');
    expect(tokenSecret.metadata.annotations).toMatchObject({ 'kubernetes.io/service-account.name': 'member1-host' });
    const role = await member.resource(gvr.clusterRoles).get('kubefed-controller-manager:member1-host');
    expect(role['rules']).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['get'], nonResourceURLs: ['*'] },
    ]);
    const binding = await member.resource(gvr.clusterRoleBindings).get('kubefed-controller-manager:member1-host');
    expect(binding['roleRef']).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'kubefed-controller-manager:member1-host',
    });
    expect(binding['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'member1-host', namespace: ns }]);

    const { kfc, secret } = await kfcAndSecret(ns, 'member1');
    expect(kfc['spec']).toEqual({
      apiEndpoint: fed.sim('member').url,
      caBundle: Buffer.from(fed.sim('member').caPem!).toString('base64'),
      secretRef: { name: secret.metadata.name },
    });
    expect(kfc.metadata.annotations).toEqual({ 'kubefed.io/join-scope': 'Cluster' });
    expect(secret.metadata.name).toMatch(/^member1-[a-z0-9]+$/);
    const memberData = tokenSecret['data'] as Record<string, string>;
    expect(secret['data']).toEqual({ token: memberData['token'], 'ca.crt': memberData['ca.crt'] });
    expect(r.stdout + r.stderr).not.toContain(Buffer.from(memberData['token']!, 'base64').toString('utf8'));

    using viaKfc = memberClientFor(kfc, secret);
    const list = await viaKfc.resource(gvr.namespaces).list();
    expect(list.items.map((n) => n.metadata.name)).toContain(ns);

    const again = await fed.cli(joinArgs('member1', ns));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Error: join member1: already exists: service account fed-join/member1-host in member1');
    expect(again.stderr).toContain('KubeFedCluster fed-join/member1 in host');
    expect(again.stderr).toContain('hint: run "kubefedctl unjoin member1" first, or re-run join with --error-on-existing=false');
  });

  it('is idempotent with --error-on-existing=false and repairs a deleted piece', async () => {
    const ns = 'fed-rejoin';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(joinArgs('member2', ns))).code).toBe(0);
    const before = await kfcAndSecret(ns, 'member2');
    const member = fed.client('member');
    await member.resource(gvr.clusterRoleBindings).delete('kubefed-controller-manager:member2-host');

    const r = await fed.cli(joinArgs('member2', ns, '--error-on-existing=false'));
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('clusterrolebinding.rbac.authorization.k8s.io/kubefed-controller-manager:member2-host created in member2');
    expect(r.stdout).toContain('serviceaccount/member2-host unchanged in member2');
    expect(r.stdout).toContain('kubefedcluster.core.kubefed.io/member2 unchanged in host');
    expect(await getOrUndefined(member.resource(gvr.clusterRoleBindings), 'kubefed-controller-manager:member2-host')).toBeDefined();
    const after = await kfcAndSecret(ns, 'member2');
    expect(after.kfc['spec']).toEqual(before.kfc['spec']);
    expect(after.secret.metadata.name).toBe(before.secret.metadata.name);
    const secrets = await fed.client('host').resource(gvr.secrets, ns).list();
    expect(secrets.items.filter((s) => s.metadata.name?.startsWith('member2-'))).toHaveLength(1);
  });

  it('with --cluster-admin creates a Role, RoleBinding and the health-check ClusterRole when the control plane is Namespaced', async () => {
    const ns = 'fed-nsscope';
    await fed.controlPlane('host', ns, 'Namespaced');
    const r = await fed.cli(joinArgs('member9', ns, '--cluster-admin'));
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    const member = fed.client('member');
    const role = await member.resource(gvr.roles, ns).get('kubefed-controller-manager:member9-host');
    expect(role['rules']).toEqual([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    const binding = await member.resource(gvr.roleBindings, ns).get('kubefed-controller-manager:member9-host');
    expect(binding['roleRef']).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'kubefed-controller-manager:member9-host',
    });
    const health = await member.resource(gvr.clusterRoles).get(`kubefed-controller-manager:${ns}:healthcheck-member9-host`);
    expect(health['rules']).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] },
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
    ]);
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member9-host')).toBeUndefined();
    expect(
      await getOrUndefined(member.resource(gvr.clusterRoleBindings), `kubefed-controller-manager:${ns}:healthcheck-member9-host`),
    ).toBeDefined();
    expect((await kfcAndSecret(ns, 'member9')).kfc.metadata.annotations).toEqual({ 'kubefed.io/join-scope': 'Namespaced' });
  });

  it('writes the join scope on the KubeFedCluster of an older join when re-joined with --error-on-existing=false', async () => {
    const ns = 'fed-rejoin-scope';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(joinArgs('member7', ns))).code).toBe(0);
    await fed
      .client('host')
      .resource(gvr.kubeFedClusters, ns)
      .patch('member7', { metadata: { annotations: { 'kubefed.io/join-scope': null } } }, 'merge');
    expect((await kfcAndSecret(ns, 'member7')).kfc.metadata.annotations ?? {}).toEqual({});

    const r = await fed.cli(joinArgs('member7', ns, '--error-on-existing=false'));
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('kubefedcluster.core.kubefed.io/member7 updated in host');
    expect((await kfcAndSecret(ns, 'member7')).kfc.metadata.annotations).toEqual({ 'kubefed.io/join-scope': 'Cluster' });
  });

  it('prints every object with --dry-run -o yaml and writes nothing', async () => {
    const ns = 'fed-dry';
    await fed.controlPlane('host', ns);
    const r = await fed.cli(joinArgs('member3', ns, '--dry-run', '-o', 'yaml'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJSON() as KubeObject);
    expect(docs.map((d) => `${d.kind}/${String(d.metadata.name ?? d.metadata['generateName'])}`)).toEqual([
      'Namespace/fed-dry',
      'ServiceAccount/member3-host',
      'Secret/member3-host',
      'ClusterRole/kubefed-controller-manager:member3-host',
      'ClusterRoleBinding/kubefed-controller-manager:member3-host',
      'Secret/member3-',
      'KubeFedCluster/member3',
    ]);
    expect(r.stdout).toContain('# member cluster "member3"');
    expect(r.stdout).toContain('# host cluster "host"');
    expect(docs[6]!['spec']).toMatchObject({ apiEndpoint: fed.sim('member').url });

    const plain = await fed.cli(joinArgs('member3', ns, '--dry-run'));
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('serviceaccount/member3-host created in member3 (dry run)');
    expect(plain.stdout).toContain('kubefedcluster.core.kubefed.io/member3 created in host (dry run)');
    expect(plain.stdout).toContain('dry run: nothing was written');

    const member = fed.client('member');
    expect(await getOrUndefined(member.resource(gvr.namespaces), ns)).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member3-host')).toBeUndefined();
    expect(await getOrUndefined(fed.client('host').resource(gvr.kubeFedClusters, ns), 'member3')).toBeUndefined();
    const hostSecrets = await fed.client('host').resource(gvr.secrets, ns).list();
    expect(hostSecrets.items.filter((s) => s.metadata.name?.startsWith('member3-'))).toEqual([]);
  });

  it('with --least-privilege grants only the enabled federated types, the pod reads of the replica scheduler and health checks, and the member refuses other writes', async () => {
    const ns = 'fed-lp';
    await fed.controlPlane('host', ns);
    const ftcClient = fed.client('host').resource(gvr.federatedTypeConfigs, ns);
    const configMaps = buildFederatedTypeConfig(
      { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' },
      ns,
    );
    const deployments = buildFederatedTypeConfig(
      { group: 'apps', version: 'v1', kind: 'Deployment', pluralName: 'deployments', scope: 'Namespaced' },
      ns,
    );
    const secrets = buildFederatedTypeConfig({ group: '', version: 'v1', kind: 'Secret', pluralName: 'secrets', scope: 'Namespaced' }, ns);
    secrets.spec.propagation = 'Disabled';
    for (const f of [configMaps, deployments, secrets]) await ftcClient.create(f as unknown as KubeObject);

    const r = await fed.cli(joinArgs('member4', ns, '--least-privilege'));
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    const role = await fed.client('member').resource(gvr.clusterRoles).get('kubefed-controller-manager:member4-host');
    expect(role.metadata.labels).toEqual({ 'kubefed.io/least-privilege': 'true' });
    expect(role['rules']).toEqual(leastPrivilegeRules([configMaps, deployments, secrets]));

    const { kfc, secret } = await kfcAndSecret(ns, 'member4');
    using viaKfc = memberClientFor(kfc, secret);
    const cm = await viaKfc
      .resource(gvr.configMaps, 'default')
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'allowed' }, data: { a: 'b' } });
    expect(cm.metadata.name).toBe('allowed');
    expect((await viaKfc.raw('/healthz')).status).toBe(200);
    // What the replica scheduler reads of a FederatedDeployment's member copy: the Deployment and its pods.
    expect(
      await getOrUndefined(viaKfc.resource({ group: 'apps', version: 'v1', resource: 'deployments' }, 'default'), 'web'),
    ).toBeUndefined();
    const pods = await viaKfc.resource(gvr.pods, 'default').list({ labelSelector: 'app=web' });
    expect(pods.items).toEqual([]);
    const denied = await viaKfc
      .resource(gvr.secrets, 'default')
      .create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'denied' } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isForbidden(denied)).toBe(true);
  });

  it('joins with least privilege by default (--least-privilege changes nothing), and a re-join keeps the access of the existing join unless a flag says otherwise', async () => {
    const ns = 'fed-default';
    await fed.controlPlane('host', ns);
    const roles = fed.client('member').resource(gvr.clusterRoles);
    const r = await fed.cli(joinArgs('member5', ns));
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    const role = await roles.get('kubefed-controller-manager:member5-host');
    expect(role.metadata.labels).toEqual({ 'kubefed.io/least-privilege': 'true' });
    expect(role['rules']).toEqual(leastPrivilegeRules([]));
    const alias = await fed.cli(joinArgs('member5', ns, '--least-privilege', '--error-on-existing=false'));
    expect(alias.code).toBe(0);
    expect(alias.stdout).toContain('clusterrole.rbac.authorization.k8s.io/kubefed-controller-manager:member5-host unchanged in member5');

    // A join made with full access (as the default used to be) keeps it on a plain re-join ...
    expect((await fed.cli(joinArgs('member6', ns, '--cluster-admin', '--allow-duplicate-endpoint'))).code).toBe(0);
    const rejoin = await fed.cli(joinArgs('member6', ns, '--error-on-existing=false', '--allow-duplicate-endpoint'));
    expect(rejoin.code).toBe(0);
    expect(rejoin.stderr).toContain(
      'note: member6 keeps the full access (cluster-admin) of its existing join; pass --least-privilege to reduce it',
    );
    expect((await roles.get('kubefed-controller-manager:member6-host'))['rules']).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['get'], nonResourceURLs: ['*'] },
    ]);
    // ... and --least-privilege reduces it.
    const reduced = await fed.cli(joinArgs('member6', ns, '--error-on-existing=false', '--allow-duplicate-endpoint', '--least-privilege'));
    expect(reduced.code).toBe(0);
    expect(reduced.stdout).toContain('clusterrole.rbac.authorization.k8s.io/kubefed-controller-manager:member6-host updated in member6');
    expect((await roles.get('kubefed-controller-manager:member6-host'))['rules']).toEqual(leastPrivilegeRules([]));
  });

  it('rotates the join token as documented: deleting the member token Secret revokes it, a re-join issues a new one and updates the host Secret', async () => {
    const ns = 'fed-rotate';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(joinArgs('member8', ns))).code).toBe(0);
    const before = await kfcAndSecret(ns, 'member8');
    using oldToken = memberClientFor(before.kfc, before.secret);
    await oldToken.resource(gvr.nodes).list();

    await fed.client('member').resource(gvr.secrets, ns).delete('member8-host');
    await expect
      .poll(
        async () =>
          isUnauthorized(
            await oldToken
              .resource(gvr.nodes)
              .list()
              .then(
                () => undefined,
                (e: unknown) => e,
              ),
          ),
        { timeout: 10_000, interval: 200 },
      )
      .toBe(true);

    const r = await fed.cli(joinArgs('member8', ns, '--error-on-existing=false'));
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`secret/member8-host created in member8`);
    expect(r.stdout).toContain(`secret/${before.secret.metadata.name ?? ''} updated in host`);
    const after = await kfcAndSecret(ns, 'member8');
    expect(after.secret.metadata.name).toBe(before.secret.metadata.name);
    expect((after.secret['data'] as Record<string, string>)['token']).not.toBe((before.secret['data'] as Record<string, string>)['token']);
    using newToken = memberClientFor(after.kfc, after.secret);
    await newToken.resource(gvr.nodes).list();
  });
});
