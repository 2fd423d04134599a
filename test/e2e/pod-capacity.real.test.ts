// Replica scheduling against real kube-schedulers (vitest project `real` only): member2's fake
// Nodes take 2 pods in all, so the third of its replicas stays Pending with PodScheduled=False,
// reason Unschedulable, as the real scheduler writes it. After a minute of that, the
// ReplicaSchedulingPreference adds a replica in member1; once member2's Nodes have room again
// (their allocatable pods raised) the Pending pod runs and rebalance returns to 3 and 3. Takes about two minutes: the
// unschedulable threshold is 60 s of wall time. Beside it, on the same federation: the
// PropagatedVersions real API servers store hold exactly KubeFed's version strings.
import { getOrUndefined, type GroupVersionResource } from '@kubefed/client';
import { RESOURCES } from '@kubefed/api';
import { POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createFederatedNamespace, FEDERATED_CONFIG_MAPS, FEDERATED_DEPLOYMENTS, scheduledClusters } from './support/e2e-federation.js';

const MEMBERS = ['member1', 'member2'] as const;
/** Longer than the 60 s a pod must stay unschedulable before its member's capacity counts. */
const CAPACITY_POLL = { timeout: 150_000, interval: 1_000 } as const;

const fed = useLocalFederation({ members: MEMBERS, substrate: 'real', podCapacity: { member2: 2 } });

interface PodView {
  status?: { phase?: string; conditions?: { type?: string; status?: string; reason?: string }[] };
}

/** Per member: running and unschedulable pods of app `web`, and the member Deployment's replicas. */
async function pods(ns: string): Promise<Record<string, { replicas: unknown; running: number; unschedulable: number }>> {
  const entries = await Promise.all(
    MEMBERS.map(async (m) => {
      const items = (await fed.client(m).resource(RESOURCES.pods, ns).list({ labelSelector: 'app=web' })).items as PodView[];
      const deployment = await getOrUndefined(fed.client(m).resource(RESOURCES.deployments, ns), 'web');
      const unschedulable = items.filter(
        (p) =>
          p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable') === true,
      );
      return [
        m,
        {
          replicas: (deployment?.spec as { replicas?: number } | undefined)?.replicas,
          running: items.filter((p) => p.status?.phase === 'Running').length,
          unschedulable: unschedulable.length,
        },
      ] as const;
    }),
  );
  return Object.fromEntries(entries);
}

describe('version records on real API servers', () => {
  it('records exactly KubeFed’s strings in the PropagatedVersions: gen:<generation> of each member Deployment, rv:<resourceVersion> of each ConfigMap', async () => {
    const ns = 'versions';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const host = fed.client('host');
    const placement = { clusters: MEMBERS.map((name) => ({ name })) };
    const labels = { app: 'versions' };
    await host.resource(FEDERATED_DEPLOYMENTS, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedDeployment',
      metadata: { name: 'web', namespace: ns },
      spec: {
        template: {
          spec: {
            replicas: 0,
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
          },
        },
        placement,
      },
    });
    await host.resource(FEDERATED_CONFIG_MAPS, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'settings', namespace: ns },
      spec: { template: { data: { color: 'blue' } }, placement },
    });
    const records = host.resource(RESOURCES.propagatedVersions, ns);
    /** The record's clusterVersions beside the strings KubeFed would write for the member copies now. */
    const versions = async (record: string, resource: GroupVersionResource, name: string) => {
      const stored = await getOrUndefined(records, record);
      const expected = await Promise.all(
        MEMBERS.map(async (m) => {
          const copy = await getOrUndefined(fed.client(m).resource(resource, ns), name);
          const generation = copy?.metadata.generation ?? 0;
          const version = generation !== 0 ? `gen:${generation}` : `rv:${copy?.metadata.resourceVersion ?? ''}`;
          return { clusterName: m, version };
        }),
      );
      return { stored: (stored?.status as { clusterVersions?: unknown } | undefined)?.clusterVersions, expected };
    };
    await expect
      .poll(async () => {
        const { stored, expected } = await versions('deployment-web', RESOURCES.deployments, 'web');
        return { stored, expected, same: JSON.stringify(stored) === JSON.stringify(expected) };
      }, POLL)
      .toMatchObject({
        same: true,
        stored: MEMBERS.map((m) => ({ clusterName: m, version: expect.stringMatching(/^gen:[1-9][0-9]*$/) as unknown })),
      });
    await expect
      .poll(async () => {
        const { stored, expected } = await versions('configmap-settings', RESOURCES.configMaps, 'settings');
        return { stored, expected, same: JSON.stringify(stored) === JSON.stringify(expected) };
      }, POLL)
      .toMatchObject({
        same: true,
        stored: MEMBERS.map((m) => ({ clusterName: m, version: expect.stringMatching(/^rv:[0-9]+$/) as unknown })),
      });
  });
});

describe('replica scheduling with real pods and Node capacity', () => {
  it('adds a replica elsewhere for a member whose pods stay Unschedulable for over a minute, and rebalances once its Nodes have room', async () => {
    const ns = 'capacity';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const host = fed.client('host');
    await host.resource(FEDERATED_DEPLOYMENTS, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedDeployment',
      metadata: { name: 'web', namespace: ns },
      spec: {
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'web' } },
            template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
          },
        },
        placement: { clusters: [] },
      },
    });
    await host.resource(RESOURCES.replicaSchedulingPreferences, ns).create({
      apiVersion: 'scheduling.kubefed.io/v1alpha1',
      kind: 'ReplicaSchedulingPreference',
      metadata: { name: 'web', namespace: ns },
      spec: {
        targetKind: 'FederatedDeployment',
        totalReplicas: 6,
        rebalance: true,
        clusters: { member1: { weight: 1 }, member2: { weight: 1 } },
      },
    });

    // 3 and 3: member2 runs two, the real scheduler leaves the third Pending as Unschedulable.
    await expect
      .poll(() => pods(ns), POLL)
      .toEqual({ member1: { replicas: 3, running: 3, unschedulable: 0 }, member2: { replicas: 3, running: 2, unschedulable: 1 } });
    // A minute later member2's capacity (2) counts: member1 gets 4; member2 keeps 3, its capacity
    // plus the overflow KubeFed adds on top of the plan (7 in all), so one pod stays Pending.
    await expect
      .poll(() => pods(ns), CAPACITY_POLL)
      .toEqual({ member1: { replicas: 4, running: 4, unschedulable: 0 }, member2: { replicas: 3, running: 2, unschedulable: 1 } });
    const rsp = await host.resource(RESOURCES.replicaSchedulingPreferences, ns).get('web');
    // Every other joined cluster (the host, when it is a member) is planned 0, as KubeFed's planner does.
    expect((rsp.status as { clusters?: unknown } | undefined)?.clusters).toEqual(scheduledClusters(fed, { member1: 4, member2: 3 }));

    // Room again on member2's Nodes: with rebalance the plan returns to 3 and 3 once a pod there runs.
    await fed.fault('member2', { podCapacity: null });
    await expect
      .poll(() => pods(ns), CAPACITY_POLL)
      .toEqual({ member1: { replicas: 3, running: 3, unschedulable: 0 }, member2: { replicas: 3, running: 3, unschedulable: 0 } });
  }, 360_000);
});
