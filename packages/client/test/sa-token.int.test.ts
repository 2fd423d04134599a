import { startCluster } from '@kubefed/kube-sim';
import { describe, expect, it, vi } from 'vitest';
import { DynamicClient, Kubeconfig, isForbidden } from '@kubefed/client';

const core = (resource: string) => ({ group: '', version: 'v1', resource });

describe('member client from a service-account token secret', () => {
  it('authenticates with the token the token controller writes into the secret, as kubefedctl join sets it up', async () => {
    await using sim = await startCluster({ name: 'member1' });
    using admin = DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()));
    const ns = `sa-${Date.now().toString(36)}`;
    await admin.resource(core('namespaces')).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await admin.resource(core('serviceaccounts'), ns).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'member1' } });
    const secrets = admin.resource(core('secrets'), ns);
    await secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'member1-token', annotations: { 'kubernetes.io/service-account.name': 'member1' } },
      type: 'kubernetes.io/service-account-token',
    });
    const secret = await vi.waitFor(
      async () => {
        const s = await secrets.get('member1-token');
        const data = s.data as Record<string, string> | undefined;
        if (data?.token === undefined || data.token === '') throw new Error('token not filled in yet');
        return s;
      },
      { timeout: 5000, interval: 50 },
    );
    const cluster = {
      metadata: { name: 'member1', namespace: ns },
      spec: { apiEndpoint: sim.url, caBundle: Buffer.from(sim.caPem!).toString('base64'), secretRef: { name: 'member1-token' } },
    };
    using member = DynamicClient.fromKubeFedCluster(cluster, secret as { data?: Record<string, string> });
    expect(await member.raw('/healthz')).toEqual({ status: 200, body: 'ok' });
    // The service account has no RBAC grants yet: authenticated, but not allowed.
    const denied = await member
      .resource(core('secrets'), ns)
      .list()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isForbidden(denied)).toBe(true);
    expect((denied as Error).message).toContain('on cluster "member1": Forbidden');
  });
});
