// kubefedctl join, --least-privilege, enable/disable and unjoin against real API servers (the
// vitest project `real`): token Secrets that kube-controller-manager's token controller fills
// (Kubernetes >= 1.24 creates none by itself), RBAC decisions and their 403s from the real RBAC
// authorizer, and token revocation by the real service-account authenticator. One host and one
// member for the whole file; every test works in a kubefed namespace and a join name of its own.
import { API_VERSIONS, buildFederatedTypeConfig, RESOURCES } from '@kubefed/api';
import {
  DynamicClient,
  getOrUndefined,
  isForbidden,
  isUnauthorized,
  requestMemberToken,
  TOKEN_EXPIRATION_ANNOTATION,
  type KubeFedClusterInput,
  type KubeObject,
} from '@kubefed/client';
import { POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';

const gvr = RESOURCES;

const fed = useLocalFederation({ substrate: 'real', members: ['member'], controllerManager: false, join: false, types: [] });

/** The kubefed namespace `ns` in the host, with a KubeFedConfig of the given scope. */
async function controlPlane(ns: string, scope: 'Cluster' | 'Namespaced' = 'Cluster'): Promise<void> {
  const host = fed.client('host');
  await host.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await host
    .resource(gvr.kubeFedConfigs, ns)
    .create({ apiVersion: API_VERSIONS.core, kind: 'KubeFedConfig', metadata: { name: 'kubefed', namespace: ns }, spec: { scope } });
}

/** Runs kubefedctl against host and member in kubefed namespace `ns`. */
function cli(ns: string, ...args: string[]) {
  return fed.kubefedctl([...args, '--host-cluster-context', 'host', '--kubefed-namespace', ns], { timeoutMs: 90_000 });
}

/** A client of the member with the credentials the KubeFedCluster `name` points at (what the controller manager uses). */
async function viaKubeFedCluster(ns: string, name: string): Promise<DynamicClient> {
  const kfc = await fed.client('host').resource(gvr.kubeFedClusters, ns).get(name);
  return DynamicClient.forKubeFedCluster(fed.client('host'), kfc as unknown as KubeFedClusterInput);
}

/** A SelfSubjectReview by a client: HTTP status and, when authenticated, the user name. */
async function review(client: DynamicClient): Promise<{ status: number; user?: string }> {
  const res = await client.raw('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    method: 'POST',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  if (res.status !== 201) return { status: res.status };
  return { status: res.status, user: (JSON.parse(res.body) as { status: { userInfo: { username: string } } }).status.userInfo.username };
}

/** The error a promise rejects with (undefined when it resolves). */
const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

const configMap = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: {},
});
const secret = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' } });

describe('kubefedctl join against a real API server', () => {
  it('creates a service-account-token Secret that the token controller fills, and the KubeFedCluster credentials act as the join ServiceAccount', async () => {
    const ns = 'real-join';
    await controlPlane(ns);
    const r = await cli(ns, 'join', 'member1', '--cluster-context', 'member');
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);

    const member = fed.client('member');
    const tokenSecret = await member.resource(gvr.secrets, ns).get('member1-host');
    expect(tokenSecret['type']).toBe('kubernetes.io/service-account-token');
    const data = tokenSecret['data'] as Record<string, string>;
    expect(Buffer.from(data['token'] ?? '', 'base64').toString()).toMatch(/^eyJ/);
    expect(Buffer.from(data['ca.crt'] ?? '', 'base64').toString()).toBe(fed.realClusters?.get('member').caPem);
    expect(r.stdout + r.stderr).not.toContain(Buffer.from(data['token'] ?? '', 'base64').toString());

    const kfc = await fed.client('host').resource(gvr.kubeFedClusters, ns).get('member1');
    const hostSecret = await fed
      .client('host')
      .resource(gvr.secrets, ns)
      .get((kfc['spec'] as { secretRef: { name: string } }).secretRef.name);
    expect((hostSecret['data'] as Record<string, string>)['token']).toBe(data['token']);
    expect((kfc['spec'] as { apiEndpoint: string }).apiEndpoint).toBe(fed.realClusters?.get('member').url);

    using creds = await viaKubeFedCluster(ns, 'member1');
    expect(await review(creds)).toEqual({ status: 201, user: `system:serviceaccount:${ns}:member1-host` });
    // The real RBAC authorizer learns of the new ClusterRoleBinding from its informer, moments later
    // (kube-sim authorizes from its store at once).
    await expect.poll(async () => (await creds.raw('/healthz')).status, POLL).toBe(200);
    expect((await creds.resource(gvr.nodes).list()).items.map((n) => n.metadata.name).sort()).toEqual(
      fed.realClusters?.get('member').nodeNames,
    );
  });

  it('with --token-lifetime gets a TokenRequest token the real authenticator accepts, that may renew itself only, and that rotate-token revokes', async () => {
    const ns = 'real-join-token-lifetime';
    await controlPlane(ns);
    const r = await cli(ns, 'join', 'member3', '--cluster-context', 'member', '--token-lifetime', '1h');
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    const member = fed.client('member');
    expect(await getOrUndefined(member.resource(gvr.secrets, ns), 'member3-host')).toBeUndefined();
    const kfc = await fed.client('host').resource(gvr.kubeFedClusters, ns).get('member3');
    const hostSecret = await fed
      .client('host')
      .resource(gvr.secrets, ns)
      .get((kfc['spec'] as { secretRef: { name: string } }).secretRef.name);
    expect(Date.parse(hostSecret.metadata.annotations?.[TOKEN_EXPIRATION_ANNOTATION] ?? '')).toBeGreaterThan(Date.now() + 3000_000);

    using creds = await viaKubeFedCluster(ns, 'member3');
    expect(await review(creds)).toEqual({ status: 201, user: `system:serviceaccount:${ns}:member3-host` });
    const self = { namespace: ns, serviceAccount: 'member3-host', lifetimeSeconds: 3600 };
    // The real RBAC authorizer sees the token Role moments after join wrote it.
    await expect.poll(async () => (await failure(requestMemberToken(creds, self))) === undefined, POLL).toBe(true);
    await member.resource(gvr.serviceAccounts, ns).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'other' } });
    expect(isForbidden(await failure(requestMemberToken(creds, { ...self, serviceAccount: 'other' })))).toBe(true);

    const rotated = await cli(ns, 'rotate-token', 'member3', '--cluster-context', 'member');
    expect(rotated.code).toBe(0);
    await expect.poll(async () => (await review(creds)).status, POLL).toBe(401);
    using renewed = await viaKubeFedCluster(ns, 'member3');
    expect(await review(renewed)).toEqual({ status: 201, user: `system:serviceaccount:${ns}:member3-host` });
  });

  it('with --least-privilege the member answers 403 for every type that is not enabled; enable and disable grant and revoke at once', async () => {
    const ns = 'real-lp';
    await controlPlane(ns);
    const ftcs = fed.client('host').resource(gvr.federatedTypeConfigs, ns);
    const configMaps = buildFederatedTypeConfig(
      { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' },
      ns,
    );
    await ftcs.create(configMaps as unknown as KubeObject);
    // Joined under its context's name: enable and disable update the role through that context
    // (the least-privilege token itself may not change RBAC).
    const r = await cli(ns, 'join', 'member', '--cluster-context', 'member', '--least-privilege');
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);

    using creds = await viaKubeFedCluster(ns, 'member');
    await expect.poll(() => failure(creds.resource(gvr.configMaps, 'default').create(configMap('lp-allowed'))), POLL).toBeUndefined();
    expect((await creds.raw('/healthz')).status).toBe(200);
    expect((await creds.raw('/version')).status).toBe(200);
    const denied = await failure(creds.resource(gvr.secrets, 'default').create(secret('lp-denied')));
    expect(isForbidden(denied)).toBe(true);
    expect(String(denied)).toContain(
      `User "system:serviceaccount:${ns}:member-host" cannot create resource "secrets" in API group "" in the namespace "default"`,
    );

    // enable updates the member role; the real RBAC authorizer follows its informer within moments.
    const enabled = await cli(ns, 'enable', 'secrets');
    expect(enabled.stderr).not.toContain('Error:');
    expect(enabled.stdout).toContain('clusterrole.rbac.authorization.k8s.io/kubefed-controller-manager:member-host updated in member');
    await expect.poll(() => failure(creds.resource(gvr.secrets, 'default').create(secret('lp-granted'))), POLL).toBeUndefined();

    expect((await cli(ns, 'disable', 'secrets')).code).toBe(0);
    await expect
      .poll(async () => isForbidden(await failure(creds.resource(gvr.secrets, 'default').create(secret(`lp-revoked-${Date.now()}`)))), POLL)
      .toBe(true);
  });

  it('unjoin removes every join object, after which the old token gets 401 Unauthorized', async () => {
    const ns = 'real-unjoin';
    await controlPlane(ns);
    expect((await cli(ns, 'join', 'member7', '--cluster-context', 'member')).code).toBe(0);
    using oldCredentials = await viaKubeFedCluster(ns, 'member7');
    expect((await review(oldCredentials)).status).toBe(201);

    const r = await cli(ns, 'unjoin', 'member7', '--cluster-context', 'member');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const member = fed.client('member');
    expect(await getOrUndefined(fed.client('host').resource(gvr.kubeFedClusters, ns), 'member7')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member7-host')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.serviceAccounts, ns), 'member7-host')).toBeUndefined();
    // The real namespace controller finishes the deletion of the namespace join created.
    await expect.poll(() => getOrUndefined(member.resource(gvr.namespaces), ns), POLL).toBeUndefined();
    // kube-apiserver caches a successful token authentication for 10 s (kube-sim refuses at once).
    await expect.poll(async () => (await review(oldCredentials)).status, POLL).toBe(401);
    expect(isUnauthorized(await failure(oldCredentials.resource(gvr.namespaces).list()))).toBe(true);
  });

  it('refuses to unjoin a member whose API server does not answer, and with --force removes the host side', async () => {
    const ns = 'real-force';
    await controlPlane(ns);
    expect((await cli(ns, 'join', 'member8', '--cluster-context', 'member')).code).toBe(0);
    await fed.fault('member', { unreachable: true });
    try {
      const refused = await cli(ns, 'unjoin', 'member8', '--cluster-context', 'member');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^Error: unjoin member8: cannot reach member cluster member8 at .*; nothing was removed$/m);
      expect(await getOrUndefined(fed.client('host').resource(gvr.kubeFedClusters, ns), 'member8')).toBeDefined();

      const forced = await cli(ns, 'unjoin', 'member8', '--cluster-context', 'member', '--force');
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain(`kubefedcluster.core.kubefed.io/member8 deleted in host`);
      expect(forced.stderr).toContain(
        `warning: could not remove service account ${ns}/member8-host in member8: cannot reach member cluster member8`,
      );
      expect(await getOrUndefined(fed.client('host').resource(gvr.kubeFedClusters, ns), 'member8')).toBeUndefined();
    } finally {
      fed.restoreFaults();
    }
    // The member side stayed. (Polled: a keep-alive connection from before the stop may be reset.)
    await expect
      .poll(
        () =>
          failure(
            getOrUndefined(fed.client('member').resource(gvr.serviceAccounts, ns), 'member8-host').then((sa) => expect(sa).toBeDefined()),
          ),
        POLL,
      )
      .toBeUndefined();
  });
});
