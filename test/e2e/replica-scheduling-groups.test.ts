// ReplicaSchedulingPreferences for every schedulable FederatedTypeConfig, through the real
// processes: the kube-sim CLI (host + member1, member2), Redis, `kubefedctl join`, the
// kubefed-controller-manager process, and `kubefedctl enable` of namespaces, replicasets.apps
// (the default federated group) and deployments.apps in a federated group of its own.
import { RESOURCES } from '@kubefed/api';
import { getOrUndefined, type GroupVersionResource, type KubeObject } from '@kubefed/client';
import { POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, it } from 'vitest';
import { at, createFederatedNamespace, federated, scheduledClusters } from './support/e2e-federation.js';

const MEMBERS = ['member1', 'member2'] as const;
const CUSTOM_GROUP = 'fed.example.io';
const FEDERATED_REPLICA_SETS = federated('federatedreplicasets');
const CUSTOM_FEDERATED_DEPLOYMENTS: GroupVersionResource = { group: CUSTOM_GROUP, version: 'v1beta1', resource: 'federateddeployments' };
const REPLICA_SETS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'replicasets' };

const fed = useLocalFederation({
  members: MEMBERS,
  types: ['namespaces', 'replicasets.apps', ['deployments.apps', '--federated-group', CUSTOM_GROUP]],
});

/** A federated workload of `kind` (ReplicaSet or Deployment) with 1 replica and no placement: the RSP places it. */
function workload(apiVersion: string, kind: 'ReplicaSet' | 'Deployment', ns: string, name: string): KubeObject {
  return {
    apiVersion,
    kind: `Federated${kind}`,
    metadata: { name, namespace: ns },
    spec: {
      template: {
        metadata: { labels: { app: name } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
        },
      },
      placement: { clusters: [] },
    },
  };
}

/** A ReplicaSchedulingPreference of `totalReplicas` over member1 and member2 by weights 2:1. */
function preference(ns: string, name: string, targetKind: string, totalReplicas: number): KubeObject {
  return {
    apiVersion: 'scheduling.kubefed.io/v1alpha1',
    kind: 'ReplicaSchedulingPreference',
    metadata: { name, namespace: ns },
    spec: { targetKind, totalReplicas, clusters: { member1: { weight: 2 }, member2: { weight: 1 } } },
  };
}

/** `spec.replicas` of the member copies (undefined where there is none). */
function memberReplicas(resource: GroupVersionResource, ns: string, name: string): Promise<Record<string, unknown>> {
  return Promise.all(
    MEMBERS.map(async (m) => [m, at(await getOrUndefined(fed.client(m).resource(resource, ns), name), '/spec/replicas')] as const),
  ).then(Object.fromEntries);
}

/** The RSP's scheduled clusters and its Scheduled condition's status. */
async function scheduled(ns: string, name: string): Promise<{ clusters: unknown; scheduled: unknown }> {
  const status = (await fed.client('host').resource(RESOURCES.replicaSchedulingPreferences, ns).get(name)).status as
    { clusters?: unknown; conditions?: { type: string; status: string }[] } | undefined;
  return { clusters: status?.clusters, scheduled: status?.conditions?.find((c) => c.type === 'Scheduled')?.status };
}

describe.concurrent('replica scheduling of every schedulable federated type', () => {
  it('divides a ReplicaSchedulingPreference over a FederatedReplicaSet, and re-divides when totalReplicas changes', async ({ expect }) => {
    const ns = 'rsp-replicasets';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const host = fed.client('host');
    await host.resource(FEDERATED_REPLICA_SETS, ns).create(workload('types.kubefed.io/v1beta1', 'ReplicaSet', ns, 'web'));
    await host.resource(RESOURCES.replicaSchedulingPreferences, ns).create(preference(ns, 'web', 'FederatedReplicaSet', 6));

    await expect.poll(() => memberReplicas(REPLICA_SETS, ns, 'web'), POLL).toEqual({ member1: 4, member2: 2 });
    const plan = scheduledClusters(fed, { member1: 4, member2: 2 });
    await expect.poll(() => scheduled(ns, 'web'), POLL).toEqual({ clusters: plan, scheduled: 'True' });
    expect(at(await host.resource(FEDERATED_REPLICA_SETS, ns).get('web'), '/spec/placement')).toEqual({
      clusters: Object.keys(plan).map((name) => ({ name })),
    });

    await host.resource(RESOURCES.replicaSchedulingPreferences, ns).patch('web', { spec: { totalReplicas: 9 } }, 'merge');
    await expect.poll(() => memberReplicas(REPLICA_SETS, ns, 'web'), POLL).toEqual({ member1: 6, member2: 3 });
  });

  it(`divides a ReplicaSchedulingPreference over a FederatedDeployment of the federated group ${CUSTOM_GROUP}`, async ({ expect }) => {
    const ns = 'rsp-custom-group';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const host = fed.client('host');
    await host.resource(CUSTOM_FEDERATED_DEPLOYMENTS, ns).create(workload(`${CUSTOM_GROUP}/v1beta1`, 'Deployment', ns, 'api'));
    await host.resource(RESOURCES.replicaSchedulingPreferences, ns).create(preference(ns, 'api', 'FederatedDeployment', 9));

    await expect.poll(() => memberReplicas(RESOURCES.deployments, ns, 'api'), POLL).toEqual({ member1: 6, member2: 3 });
    const plan = scheduledClusters(fed, { member1: 6, member2: 3 });
    await expect.poll(() => scheduled(ns, 'api'), POLL).toEqual({ clusters: plan, scheduled: 'True' });
    const overrides = at(await host.resource(CUSTOM_FEDERATED_DEPLOYMENTS, ns).get('api'), '/spec/overrides') as {
      clusterName: string;
      clusterOverrides: unknown;
    }[];
    expect(overrides.sort((a, b) => a.clusterName.localeCompare(b.clusterName))).toEqual(
      Object.entries(plan).map(([clusterName, { replicas }]) => ({
        clusterName,
        clusterOverrides: [{ path: '/spec/replicas', value: replicas }],
      })),
    );
  });
});
