// kubefedctl rotate-token: the real CLI against kube-sim host and member clusters.
import { DynamicClient, isForbidden, isUnauthorized, type KubeObject } from '@kubefed/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'member']);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

const joinArgs = (cluster: string, ns: string): string[] => [
  'join',
  cluster,
  '--cluster-context',
  'member',
  '--host-cluster-context',
  'host',
  '--kubefed-namespace',
  ns,
];
const rotateArgs = (cluster: string, ns: string): string[] => [
  'rotate-token',
  cluster,
  '--cluster-context',
  'member',
  '--host-cluster-context',
  'host',
  '--kubefed-namespace',
  ns,
];

async function hostSecretOf(ns: string, cluster: string): Promise<KubeObject> {
  const kfc = await fed.client('host').resource(gvr.kubeFedClusters, ns).get(cluster);
  return fed
    .client('host')
    .resource(gvr.secrets, ns)
    .get((kfc['spec'] as { secretRef: { name: string } }).secretRef.name);
}

const tokenOf = (secret: KubeObject): string => Buffer.from((secret['data'] as Record<string, string>)['token'] ?? '', 'base64').toString();

/** Whether the member authenticates `token`: `ok` (allowed, or 403 for a least-privilege token), or `401`. */
async function memberAccepts(token: string): Promise<'ok' | '401'> {
  using client = DynamicClient.fromKubeFedCluster(
    {
      metadata: { name: 'member' },
      spec: {
        apiEndpoint: fed.sim('member').url,
        caBundle: Buffer.from(fed.sim('member').caPem ?? '').toString('base64'),
        secretRef: { name: 'x' },
      },
    },
    { data: { token: Buffer.from(token).toString('base64') } },
  );
  try {
    await client.resource(gvr.namespaces).list();
    return 'ok';
  } catch (e) {
    if (isUnauthorized(e)) return '401';
    if (isForbidden(e)) return 'ok';
    throw e;
  }
}

describe('kubefedctl rotate-token', () => {
  it('gives the joined cluster a new token in its host Secret and revokes the old one, keeping the binding annotations', async () => {
    const ns = 'rotate';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(joinArgs('member1', ns))).code).toBe(0);
    const before = await hostSecretOf(ns, 'member1');
    const oldToken = tokenOf(before);
    expect(await memberAccepts(oldToken)).toBe('ok');

    const r = await fed.cli(rotateArgs('member1', ns));
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'secret/member1-host recreated in member1',
      `secret/${before.metadata.name ?? ''} updated in host`,
      `rotated the token of cluster "member1": the old token is revoked, the new one is in host secret ${ns}/${before.metadata.name ?? ''}`,
      '',
    ]);
    const after = await hostSecretOf(ns, 'member1');
    const newToken = tokenOf(after);
    expect(newToken).not.toBe(oldToken);
    expect(after.metadata.annotations).toEqual(before.metadata.annotations);
    expect(await memberAccepts(newToken)).toBe('ok');
    expect(await memberAccepts(oldToken)).toBe('401');
  }, 120_000);

  it('refuses, changing nothing, a cluster whose KubeFedCluster names a Secret bound to another cluster, and a name that is not joined', async () => {
    const ns = 'rotate-refuse';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(joinArgs('member2', ns))).code).toBe(0);
    const member2Secret = await hostSecretOf(ns, 'member2');
    await fed
      .client('host')
      .resource(gvr.kubeFedClusters, ns)
      .create({
        apiVersion: 'core.kubefed.io/v1beta1',
        kind: 'KubeFedCluster',
        metadata: { name: 'thief' },
        spec: { apiEndpoint: fed.sim('member').url, secretRef: { name: member2Secret.metadata.name ?? '' } },
      });
    const r = await fed.cli(rotateArgs('thief', ns));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Error: rotate-token thief: host secret ${ns}/${member2Secret.metadata.name ?? ''} is not bound to thief (annotation kubefed.io/cluster-name); nothing was changed`,
    );
    expect(tokenOf(await hostSecretOf(ns, 'member2'))).toBe(tokenOf(member2Secret));
    expect(await memberAccepts(tokenOf(member2Secret))).toBe('ok');

    const missing = await fed.cli(rotateArgs('nobody', ns));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`Error: rotate-token nobody: no KubeFedCluster ${ns}/nobody in the host`);
  }, 120_000);
});
