// What a KubeFedCluster costs the controller manager (issue #37 item 7), through the real
// processes (the kube-sim CLI, Redis, `kubefedctl join`, a controller-manager process): one that
// can never be synced (its token Secret missing or not bound to it) costs no sync worker and no
// Redis connection, and beyond `--max-member-clusters` a KubeFedCluster is refused with a reason.
// docs/operations.md ("Who can write what") says what a KubeFedCluster writer can do.
import { RESOURCES } from '@kubefed/api';
import { CLUSTER_NAME_ANNOTATION, type KubeObject } from '@kubefed/client';
import { createRedisConnection } from '@kubefed/queue';
import type { LocalFederation } from '@kubefed/testing';
import { describe, expect, it } from 'vitest';
import { createFederatedConfigMaps, FEDERATED_CONFIG_MAPS, processFederationFixtures } from './process-federation.js';

const { federation } = processFederationFixtures();

interface Condition {
  type: string;
  status: string;
  reason?: string;
}

/** The clients connected to Redis, as `CLIENT LIST` names them (one entry per connection). */
async function redisClients(url: string): Promise<string[]> {
  const connection = createRedisConnection(url, { role: 'producer' });
  try {
    const list = (await connection.client('LIST')) as string;
    return list
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => /(?:^| )name=(\S*)/.exec(line)?.[1] ?? '');
  } finally {
    connection.disconnect();
  }
}

/** The blocking connections of the sync workers: BullMQ names each `<queue prefix>:<base64 of the queue name>`. */
async function workerConnections(fed: LocalFederation): Promise<number> {
  return (await redisClients(fed.redis.url)).filter((name) => name.startsWith(`${fed.queuePrefix}:`)).length;
}

/** Every client but the one {@link redisClients} opens to ask. */
async function otherConnections(fed: LocalFederation): Promise<number> {
  return (await redisClients(fed.redis.url)).length - 1;
}

function readyCondition(cluster: KubeObject): Condition | undefined {
  return ((cluster.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
}

describe('the cost of a KubeFedCluster', () => {
  it('runs no sync worker for KubeFedClusters without a usable Secret, and refuses those beyond --max-member-clusters', async () => {
    const fed = await federation();
    // member1, member2 and one more.
    const cm = await fed.startControllerManager(['--max-member-clusters', '3']);
    await fed.waitForReady(30_000);
    await expect.poll(() => workerConnections(fed), { timeout: 15_000, interval: 200 }).toBe(2);
    const before = await otherConnections(fed);

    const host = fed.client('host');
    const clusters = host.resource(RESOURCES.kubeFedClusters, fed.namespace);
    const secrets = host.resource(RESOURCES.secrets, fed.namespace);
    const member1 = await clusters.get('member1');
    const member1Secret = await secrets.get((member1.spec as { secretRef: { name: string } }).secretRef.name);
    const kubeFedCluster = (name: string, secretName: string): KubeObject => ({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'KubeFedCluster',
      metadata: { name, namespace: fed.namespace },
      spec: { ...(member1.spec as Record<string, unknown>), secretRef: { name: secretName } },
    });
    /** A copy of member1's token Secret bound to `cluster`. */
    const boundSecret = (name: string, cluster: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name,
        namespace: fed.namespace,
        annotations: { ...member1Secret.metadata.annotations, [CLUSTER_NAME_ANNOTATION]: cluster },
      },
      type: member1Secret['type'],
      data: member1Secret['data'],
    });

    // 15 KubeFedClusters whose Secret does not exist and 15 pointing at member1's Secret (bound to member1).
    const bogus = Array.from({ length: 30 }, (_, i) => `bogus-${String(i).padStart(2, '0')}`);
    for (const [i, name] of bogus.entries()) {
      const secretName = i < 15 ? `${name}-missing` : (member1.spec as { secretRef: { name: string } }).secretRef.name;
      await clusters.create(kubeFedCluster(name, secretName));
    }
    await expect
      .poll(
        async () => {
          const listed = (await clusters.list()).items.filter((c) => bogus.includes(c.metadata.name ?? ''));
          return listed.filter((c) => readyCondition(c) !== undefined || c.status !== undefined).length;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(30);
    // Probed and reported; still no worker and no connection of theirs, for a while.
    const windowEnd = Date.now() + 3000;
    while (Date.now() < windowEnd) {
      expect(await workerConnections(fed)).toBe(2);
      expect(await otherConnections(fed)).toBeLessThanOrEqual(before);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    // A valid member still syncs.
    const ns = 'cost';
    await createFederatedConfigMaps(fed, ns, 0);
    await host.resource(FEDERATED_CONFIG_MAPS, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'still-synced', namespace: ns },
      spec: { template: { data: { a: 'b' } }, placement: { clusters: [{ name: 'member1' }] } },
    });
    await expect
      .poll(async () => (await fed.client('member1').resource(RESOURCES.configMaps, ns).list()).items.map((o) => o.metadata.name), {
        timeout: 30_000,
        interval: 200,
      })
      .toContain('still-synced');

    // A third usable cluster fills the last place (it gets a worker); a fourth is refused.
    await secrets.create(boundSecret('extra-a-token', 'extra-a'));
    await clusters.create(kubeFedCluster('extra-a', 'extra-a-token'));
    await expect.poll(() => workerConnections(fed), { timeout: 15_000, interval: 200 }).toBe(3);
    await secrets.create(boundSecret('extra-b-token', 'extra-b'));
    await clusters.create(kubeFedCluster('extra-b', 'extra-b-token'));
    await expect
      .poll(async () => readyCondition(await clusters.get('extra-b')), { timeout: 15_000, interval: 200 })
      .toMatchObject({ status: 'False', reason: 'TooManyMemberClusters' });
    const events = await host.resource(RESOURCES.events, fed.namespace).list();
    expect(events.items.filter((e) => (e['involvedObject'] as { name?: string }).name === 'extra-b').map((e) => e['reason'])).toContain(
      'TooManyMemberClusters',
    );
    expect(cm.lines.some((line) => line.includes('too many member clusters: the cluster is not used') && line.includes('extra-b'))).toBe(
      true,
    );
    expect(await workerConnections(fed)).toBe(3);

    // Once a place is free, the refused cluster is engaged (at its next probe) and gets its worker.
    await clusters.delete('extra-a');
    await expect
      .poll(async () => readyCondition(await clusters.get('extra-b'))?.reason, { timeout: 30_000, interval: 200 })
      .not.toBe('TooManyMemberClusters');
    await expect.poll(() => workerConnections(fed), { timeout: 15_000, interval: 200 }).toBe(3);
  }, 180_000);
});
