// `kubefedctl join --token-lifetime`: a member token issued through TokenRequest instead of a
// never-expiring legacy token Secret, renewable by the control plane (docs/operations.md "Member tokens").
import {
  DynamicClient,
  getOrUndefined,
  isForbidden,
  isUnauthorized,
  type KubeObject,
  requestMemberToken,
  TOKEN_EXPIRATION_ANNOTATION,
  TOKEN_LIFETIME_ANNOTATION,
} from '@kubefed/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'member']);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

const common = (ns: string): string[] => ['--cluster-context', 'member', '--host-cluster-context', 'host', '--kubefed-namespace', ns];

async function hostSecretOf(ns: string, cluster: string): Promise<{ kfc: KubeObject; secret: KubeObject }> {
  const host = fed.client('host');
  const kfc = await host.resource(gvr.kubeFedClusters, ns).get(cluster);
  const secret = await host.resource(gvr.secrets, ns).get((kfc['spec'] as { secretRef: { name: string } }).secretRef.name);
  return { kfc, secret };
}

describe('kubefedctl join --token-lifetime', () => {
  it('gives the host a TokenRequest token with its expiry, no legacy token Secret, and lets the token ask for tokens of its own service account only', async () => {
    const ns = 'fed-token-lifetime';
    await fed.controlPlane('host', ns);
    const before = Date.now();
    const r = await fed.cli(['join', 'member1', ...common(ns), '--token-lifetime', '1h']);
    expect(r.stderr).not.toContain('error:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`role.rbac.authorization.k8s.io/kubefed-controller-manager:member1-host:token created in member1`);

    const { kfc, secret } = await hostSecretOf(ns, 'member1');
    const annotations = secret.metadata.annotations ?? {};
    expect(annotations[TOKEN_LIFETIME_ANNOTATION]).toBe('3600');
    const expiresAt = Date.parse(annotations[TOKEN_EXPIRATION_ANNOTATION] ?? '');
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
    const member = fed.client('member');
    expect(await getOrUndefined(member.resource(gvr.secrets, ns), 'member1-host')).toBeUndefined();

    // The token works, and renews itself; it cannot mint tokens of any other service account.
    using asMember = DynamicClient.fromKubeFedCluster(
      kfc as unknown as Parameters<typeof DynamicClient.fromKubeFedCluster>[0],
      secret as { data?: Record<string, string> },
    );
    const renewed = await requestMemberToken(asMember, { namespace: ns, serviceAccount: 'member1-host', lifetimeSeconds: 3600 });
    expect(renewed.token).not.toBe('');
    await member.resource(gvr.serviceAccounts, ns).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'other' } });
    const refused = await requestMemberToken(asMember, { namespace: ns, serviceAccount: 'other', lifetimeSeconds: 3600 }).catch(
      (e: unknown) => e,
    );
    expect(isForbidden(refused)).toBe(true);

    // unjoin removes the token Role and its binding with the rest.
    const u = await fed.cli(['unjoin', 'member1', ...common(ns)]);
    expect(u.code).toBe(0);
    expect(await getOrUndefined(member.resource(gvr.roles, ns), 'kubefed-controller-manager:member1-host:token')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.roleBindings, ns), 'kubefed-controller-manager:member1-host:token')).toBeUndefined();
  });

  it('rotate-token re-creates the service account, which revokes the old token, and writes a new one of the same lifetime', async () => {
    const ns = 'fed-token-rotate';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(['join', 'member3', ...common(ns), '--token-lifetime', '2h'])).code).toBe(0);
    const before = await hostSecretOf(ns, 'member3');
    const client = (secret: KubeObject): DynamicClient =>
      DynamicClient.fromKubeFedCluster(
        before.kfc as unknown as Parameters<typeof DynamicClient.fromKubeFedCluster>[0],
        secret as { data?: Record<string, string> },
      );
    const self = { namespace: ns, serviceAccount: 'member3-host', lifetimeSeconds: 7200 };
    using oldClient = client(before.secret);
    await requestMemberToken(oldClient, self);

    const r = await fed.cli([
      'rotate-token',
      'member3',
      '--host-cluster-context',
      'host',
      '--cluster-context',
      'member',
      '--kubefed-namespace',
      ns,
    ]);
    expect(r.stderr).not.toContain('error:');
    expect(r.code).toBe(0);
    const after = await hostSecretOf(ns, 'member3');
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      'serviceaccount/member3-host recreated in member3',
      `secret/${after.secret.metadata.name ?? ''} updated in host`,
    ]);
    expect(after.secret.metadata.annotations?.[TOKEN_LIFETIME_ANNOTATION]).toBe('7200');
    expect((after.secret['data'] as Record<string, string>)['token']).not.toBe((before.secret['data'] as Record<string, string>)['token']);
    expect(isUnauthorized(await requestMemberToken(oldClient, self).catch((e: unknown) => e))).toBe(true);
    using newClient = client(after.secret);
    expect((await requestMemberToken(newClient, self)).token).not.toBe('');
  });

  it.each([
    ['5m', 'expected a duration of whole seconds of at least 10m'],
    ['soon', 'expected a positive duration'],
  ])('refuses --token-lifetime %s and writes nothing', async (value, message) => {
    const ns = `fed-token-bad-${value}`;
    await fed.controlPlane('host', ns);
    const r = await fed.cli(['join', 'member2', ...common(ns), '--token-lifetime', value]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(await getOrUndefined(fed.client('host').resource(gvr.kubeFedClusters, ns), 'member2')).toBeUndefined();
  });
});
