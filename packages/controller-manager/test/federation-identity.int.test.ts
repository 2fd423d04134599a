import { RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig } from '@kubefed/client';
import { startCluster, type SimCluster } from '@kubefed/kube-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultQueuePrefix, OUTCOME_SIGNING_SECRET, outcomeSigningKey } from '../src/federation-identity.js';

const clusters: SimCluster[] = [];
const clients: DynamicClient[] = [];

beforeAll(async () => {
  for (const name of ['host-a', 'host-b']) {
    const cluster = await startCluster({ name });
    clusters.push(cluster);
    clients.push(DynamicClient.fromKubeconfig(Kubeconfig.fromString(cluster.kubeconfigYaml())));
  }
  await clients[0]!
    .resource(RESOURCES.namespaces)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-federation-system' } });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all(clusters.map((c) => c.stop()));
});

describe('the identity of one federation', () => {
  it('derives one default queue prefix per host cluster and kubefed namespace, the same in every process', async () => {
    const [a, b] = [clients[0]!, clients[1]!];
    const prefix = await defaultQueuePrefix(a, 'kube-federation-system');
    expect(prefix).toMatch(/^kubefed-[0-9a-f]{12}$/);
    expect(await defaultQueuePrefix(a, 'kube-federation-system')).toBe(prefix);
    expect(await defaultQueuePrefix(a, 'other-federation')).not.toBe(prefix);
    expect(await defaultQueuePrefix(b, 'kube-federation-system')).not.toBe(prefix);
  });

  it('creates the outcome signing key once, and every process, even racing, reads the same one', async () => {
    const host = clients[0]!;
    const keys = await Promise.all([1, 2, 3, 4].map(() => outcomeSigningKey(host, 'kube-federation-system')));
    expect(keys[0]!.length).toBe(32);
    for (const key of keys) expect(key.equals(keys[0]!)).toBe(true);
    const secret = await host.resource(RESOURCES.secrets, 'kube-federation-system').get(OUTCOME_SIGNING_SECRET);
    expect(Buffer.from((secret['data'] as { key: string }).key, 'base64').equals(keys[0]!)).toBe(true);
  });
});
