// Replica scheduling and status as users see them, through the real processes: the kube-sim CLI
// (host + member1, member2, whose simulated workload controllers run the pods), Redis,
// `kubefedctl join` / `enable --default-types`, the kubefed-controller-manager process, and the
// kubectl and kubefedctl CLIs. The tests run concurrently, each in a namespace of its own.
import { RESOURCES } from '@kubefed/api';
import { getOrUndefined, type KubeObject } from '@kubefed/client';
import { POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, it } from 'vitest';
import { parse } from 'yaml';
import {
  at,
  createFederatedNamespace,
  FEDERATED_CONFIG_MAPS,
  FEDERATED_DEPLOYMENTS,
  kubectl,
  propagatedTo,
  propagationOf,
  scheduledClusters,
  succeeded,
} from './support/e2e-federation.js';

const MEMBERS = ['member1', 'member2'] as const;

const fed = useLocalFederation({ members: MEMBERS });

function deployment(ns: string, name: string, spec: { replicas: number; placement: Record<string, unknown> }): KubeObject {
  return {
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedDeployment',
    metadata: { name, namespace: ns },
    spec: {
      template: {
        metadata: { labels: { app: name } },
        spec: {
          replicas: spec.replicas,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
        },
      },
      placement: spec.placement,
    },
  };
}

/** Per member: the Deployment's desired and ready replicas and its running pods (undefined when it has no Deployment). */
function workloads(
  ns: string,
  name: string,
): Promise<Record<string, { desired: unknown; ready: unknown; runningPods: number } | undefined>> {
  return Promise.all(
    MEMBERS.map(async (m) => {
      const d = await getOrUndefined(fed.client(m).resource(RESOURCES.deployments, ns), name);
      if (d === undefined) return [m, undefined] as const;
      const pods = await fed
        .client(m)
        .resource(RESOURCES.pods, ns)
        .list({ labelSelector: `app=${name}` });
      const running = pods.items.filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running').length;
      return [
        m,
        {
          desired: at(d, '/spec/replicas'),
          ready: (d.status as { readyReplicas?: number } | undefined)?.readyReplicas,
          runningPods: running,
        },
      ] as const;
    }),
  ).then(Object.fromEntries);
}

/** Runs kubefedctl against the host context; the command must succeed. */
async function kubefedctl(...args: string[]): Promise<string> {
  return succeeded(await fed.kubefedctl([...args, '--host-cluster-context', 'host']), `kubefedctl ${args.join(' ')}`);
}

/** The rows of a whitespace-aligned table (header first), cells split on runs of two or more spaces. */
const tableRows = (out: string): string[][] =>
  out
    .trimEnd()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));

describe.concurrent('replica scheduling and status', () => {
  it('divides a ReplicaSchedulingPreference of 6 replicas 4/2 by weights 2:1, runs the pods, reports the plan, and re-divides when totalReplicas changes', async ({
    expect,
  }) => {
    const ns = 'rsp';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const host = fed.client('host');
    await host.resource(FEDERATED_DEPLOYMENTS, ns).create(deployment(ns, 'web', { replicas: 1, placement: { clusters: [] } }));
    const rsps = host.resource(RESOURCES.replicaSchedulingPreferences, ns);
    await rsps.create({
      apiVersion: 'scheduling.kubefed.io/v1alpha1',
      kind: 'ReplicaSchedulingPreference',
      metadata: { name: 'web', namespace: ns },
      // rebalance: without it the planner keeps the replicas running when it looks again, as
      // KubeFed's does, so the split depends on how far the pods got: 3 running in member1 and 2 in
      // member2 plan 3/3 (packages/scheduler's planner, KubeFed's pre-allocation step).
      spec: {
        targetKind: 'FederatedDeployment',
        totalReplicas: 6,
        rebalance: true,
        clusters: { member1: { weight: 2 }, member2: { weight: 1 } },
      },
    });

    await expect
      .poll(() => workloads(ns, 'web'), POLL)
      .toEqual({ member1: { desired: 4, ready: 4, runningPods: 4 }, member2: { desired: 2, ready: 2, runningPods: 2 } });
    const scheduled = async () => {
      const status = (await rsps.get('web')).status as { clusters?: unknown; conditions?: { type: string; status: string }[] } | undefined;
      return { clusters: status?.clusters, scheduled: status?.conditions?.find((c) => c.type === 'Scheduled')?.status };
    };
    const plan = scheduledClusters(fed, { member1: 4, member2: 2 });
    await expect.poll(scheduled, POLL).toEqual({ clusters: plan, scheduled: 'True' });
    const fedDeployment = await host.resource(FEDERATED_DEPLOYMENTS, ns).get('web');
    expect(at(fedDeployment, '/spec/placement')).toEqual({ clusters: Object.keys(plan).map((name) => ({ name })) });
    await expect.poll(() => propagationOf(host.resource(FEDERATED_DEPLOYMENTS, ns), 'web'), POLL).toEqual(propagatedTo(MEMBERS));

    await rsps.patch('web', { spec: { totalReplicas: 9 } }, 'merge');
    await expect
      .poll(() => workloads(ns, 'web'), POLL)
      .toEqual({ member1: { desired: 6, ready: 6, runningPods: 6 }, member2: { desired: 3, ready: 3, runningPods: 3 } });
    await expect.poll(scheduled, POLL).toEqual({ clusters: scheduledClusters(fed, { member1: 6, member2: 3 }), scheduled: 'True' });
    const rspTable = tableRows(succeeded(await kubectl(fed, ['get', 'replicaschedulingpreferences', '-n', ns]), 'kubectl get rsp'));
    expect(rspTable[0]).toEqual(['NAME', 'TARGET-KIND', 'TOTAL-REPLICAS', 'REBALANCE', 'AGE']);
    expect(rspTable[1]?.slice(0, 3)).toEqual(['web', 'FederatedDeployment', '9']);
  });

  it('shows each object with its Propagation condition and per-cluster status in kubectl get, kubectl get -o yaml and kubefedctl status', async ({
    expect,
  }) => {
    const ns = 'views';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const host = fed.client('host');
    await host
      .resource(FEDERATED_DEPLOYMENTS, ns)
      .create(deployment(ns, 'web', { replicas: 2, placement: { clusters: MEMBERS.map((name) => ({ name })) } }));
    const cms = host.resource(FEDERATED_CONFIG_MAPS, ns);
    await cms.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'broken', namespace: ns },
      spec: {
        template: { data: { a: '1' } },
        placement: { clusters: MEMBERS.map((name) => ({ name })) },
        overrides: [{ clusterName: 'member2', clusterOverrides: [{ path: '/data/missing/key', value: 'x' }] }],
      },
    });
    await expect.poll(() => propagationOf(host.resource(FEDERATED_DEPLOYMENTS, ns), 'web'), POLL).toEqual(propagatedTo(MEMBERS));
    await expect
      .poll(() => propagationOf(cms, 'broken'), POLL)
      .toMatchObject({ current: true, propagation: 'False', clusters: { member1: 'OK', member2: 'ApplyOverridesFailed' } });
    await expect
      .poll(() => workloads(ns, 'web'), POLL)
      .toEqual({ member1: { desired: 2, ready: 2, runningPods: 2 }, member2: { desired: 2, ready: 2, runningPods: 2 } });

    const [getDeployments, getYaml, status] = await Promise.all([
      kubectl(fed, ['get', 'federateddeployments', '-n', ns]),
      kubectl(fed, ['get', 'federatedconfigmaps', 'broken', '-n', ns, '-o', 'yaml']),
      fed.kubefedctl(['status', '-n', ns, '--host-cluster-context', 'host']),
      // The remote status of the member Deployments shows once the members report it.
      expect
        .poll(async () => tableRows(await kubefedctl('status', 'deployments', 'web', '-n', ns, '-o', 'wide')), POLL)
        .toEqual([
          ['KIND', 'NAME', 'PROPAGATION', 'CLUSTER', 'STATUS', 'REMOTE', 'PLACEMENT'],
          ['FederatedDeployment', 'web', 'True', 'member1', 'OK', '2/2 ready', 'clusters: member1, member2'],
          ['member2', 'OK', '2/2 ready'],
        ]),
    ]);

    // kubectl get: the Propagation printer column.
    const deployments = tableRows(succeeded(getDeployments, 'kubectl get federateddeployments'));
    expect(deployments[0]).toEqual(['NAME', 'PROPAGATION', 'AGE']);
    expect(deployments[1]?.slice(0, 2)).toEqual(['web', 'True']);
    expect(deployments).toHaveLength(2);

    // kubectl get -o yaml: the whole status as the controller wrote it.
    const broken = parse(succeeded(getYaml, 'kubectl get federatedconfigmaps -o yaml'));
    expect(broken.status.observedGeneration).toBe(broken.metadata.generation);
    expect(broken.status.conditions).toEqual([expect.objectContaining({ type: 'Propagation', status: 'False', reason: 'CheckClusters' })]);
    expect(broken.status.clusters).toEqual([{ name: 'member1' }, { name: 'member2', status: 'ApplyOverridesFailed' }]);

    // kubefedctl status: one row per object with each cluster's status.
    expect(tableRows(succeeded(status, 'kubefedctl status'))).toEqual([
      ['KIND', 'NAME', 'PROPAGATION', 'CLUSTERS'],
      ['FederatedConfigMap', 'broken', 'False (CheckClusters)', 'member1 OK, member2 ApplyOverridesFailed'],
      ['FederatedDeployment', 'web', 'True', 'member1 OK, member2 OK'],
      ['FederatedNamespace', ns, 'True', 'member1 OK, member2 OK'],
    ]);
  });
});
