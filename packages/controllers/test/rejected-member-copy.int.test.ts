// Member copies through an outage of their member: the whole control plane as processes
// (kube-sim CLI, Redis, `kubefedctl join`/`enable --default-types`, kubefed-controller-manager),
// member2 made unreachable until its KubeFedCluster is not Ready, then reachable again. A copy
// that member2 rejects on update (422 Invalid: its template labels no longer match its selector)
// is kept as it is; a ReplicaSchedulingPreference keeps member2 placed (with 0 replicas) while it
// is not Ready, so the sync controller does not delete its copy once it is Ready again.
import { randomUUID } from 'node:crypto';
import { RESOURCES } from '@kubefed/api';
import type { KubeObject, ResourceClient } from '@kubefed/client';
import { consistently, type LocalFederation } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';

const FDEPLOY = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federateddeployments' };
const FNS = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' };
const RSP = { group: 'scheduling.kubefed.io', version: 'v1alpha1', resource: 'replicaschedulingpreferences' };
const MEMBERS = ['member1', 'member2'] as const;
const POLL = { timeout: 60_000, interval: 200 };

const fed: LocalFederation = useLocalFederation({ members: MEMBERS, fastHealthChecks: true });

/** A namespace in the host federated to both members, with a FederatedDeployment `web` (2 replicas) placed in both. */
async function webIn(ns: string): Promise<ResourceClient> {
  const host = fed.client('host');
  await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const placement = { clusters: MEMBERS.map((name) => ({ name })) };
  await host.resource(FNS, ns).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedNamespace',
    metadata: { name: ns, namespace: ns },
    spec: { placement },
  });
  const deployments = host.resource(FDEPLOY, ns);
  await deployments.create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedDeployment',
    metadata: { name: 'web', namespace: ns },
    spec: {
      template: {
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
        },
      },
      placement,
    },
  });
  return deployments;
}

const memberCopy = (member: string, ns: string): Promise<KubeObject | undefined> =>
  fed
    .client(member)
    .resource(RESOURCES.deployments, ns)
    .get('web')
    .catch(() => undefined);

/** The status the sync controller reports for `cluster` on the FederatedDeployment. */
async function clusterStatus(deployments: ResourceClient, cluster: string): Promise<string | undefined> {
  const status = (await deployments.get('web')).status as { clusters?: { name: string; status?: string }[] } | undefined;
  return status?.clusters?.find((c) => c.name === cluster)?.status;
}

/** member2 unreachable until its KubeFedCluster is not Ready and `during` resolved, then reachable until it is Ready again. */
async function outageOfMember2(during: () => Promise<void>): Promise<void> {
  const ready = async (): Promise<string | undefined> => {
    const kfc = await fed.client('host').resource(RESOURCES.kubeFedClusters, fed.namespace).get('member2');
    return (kfc.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.find((c) => c.type === 'Ready')
      ?.status;
  };
  await fed.fault('member2', { unreachable: true });
  try {
    await expect.poll(ready, POLL).not.toBe('True');
    await during();
  } finally {
    fed.restoreFaults();
  }
  await expect.poll(ready, POLL).toBe('True');
}

/** An override that makes member2 reject its copy: template labels that do not match the selector. */
const LABELS_MISMATCH = { path: '/spec/template/metadata/labels', value: { app: 'other' } };
const TEMPLATE_LABELS_MISMATCH = { clusterName: 'member2', clusterOverrides: [LABELS_MISMATCH] };

/** Creates the RSP `web` (4 replicas over every Ready member, rebalanced) and waits until it gave each member 2. */
async function scheduleWeb(ns: string, deployments: ResourceClient): Promise<void> {
  await fed
    .client('host')
    .resource(RSP, ns)
    .create({
      apiVersion: 'scheduling.kubefed.io/v1alpha1',
      kind: 'ReplicaSchedulingPreference',
      metadata: { name: 'web', namespace: ns },
      spec: { targetKind: 'FederatedDeployment', totalReplicas: 4, rebalance: true },
    });
  await expect.poll(() => replicaOverrides(deployments), POLL).toEqual({ member1: 2, member2: 2 });
}

/** Cluster → value of its `/spec/replicas` override in the FederatedDeployment `web`. */
async function replicaOverrides(deployments: ResourceClient): Promise<Record<string, unknown>> {
  const spec = (await deployments.get('web')).spec as {
    overrides?: { clusterName: string; clusterOverrides?: { path: string; value?: unknown }[] }[];
  };
  const replicas: Record<string, unknown> = {};
  for (const e of spec.overrides ?? [])
    for (const o of e.clusterOverrides ?? []) if (o.path === '/spec/replicas') replicas[e.clusterName] = o.value;
  return replicas;
}

const placementOf = async (deployments: ResourceClient): Promise<string[]> =>
  (((await deployments.get('web')).spec as { placement?: { clusters?: { name: string }[] } }).placement?.clusters ?? []).map((c) => c.name);

/** member2's copy is the object with `uid` for 15 s in a row. */
const keepsCopy = (ns: string, uid: string | undefined): Promise<void> =>
  consistently(async () => expect((await memberCopy('member2', ns))?.metadata.uid).toBe(uid), {
    durationMs: 15_000,
    intervalMs: 200,
    message: 'the copy in member2 after its outage',
  });

describe('member copies through an outage of their member', () => {
  it('keeps a copy its member rejects on update, unchanged, through an outage of that member', async () => {
    const ns = `rej-${randomUUID().slice(0, 8)}`;
    const deployments = await webIn(ns);
    await expect.poll(() => memberCopy('member2', ns), POLL).toBeDefined();
    const uid = (await memberCopy('member2', ns))?.metadata.uid;
    await deployments.patch('web', { spec: { overrides: [TEMPLATE_LABELS_MISMATCH] } }, 'merge');
    await expect.poll(() => clusterStatus(deployments, 'member2'), POLL).toBe('UpdateFailed');

    await outageOfMember2(() => Promise.resolve());
    await keepsCopy(ns, uid);
    expect(await clusterStatus(deployments, 'member2')).toBe('UpdateFailed');
  }, 240_000);

  it('keeps a member placed with 0 replicas by its RSP while it is not Ready, and its copy (not deleted and recreated) once it is Ready again', async () => {
    const ns = `rej-${randomUUID().slice(0, 8)}`;
    const deployments = await webIn(ns);
    await scheduleWeb(ns, deployments);
    await expect.poll(() => memberCopy('member2', ns), POLL).toBeDefined();
    const uid = (await memberCopy('member2', ns))?.metadata.uid;

    await outageOfMember2(async () => {
      await expect.poll(() => replicaOverrides(deployments), POLL).toEqual({ member1: 4, member2: 0 });
      expect(await placementOf(deployments)).toEqual(['member1', 'member2']);
    });
    await keepsCopy(ns, uid);
    // Updated to what the RSP gives member2 now, in place.
    const inStep = async (): Promise<boolean> =>
      ((await memberCopy('member2', ns))?.spec as { replicas?: number } | undefined)?.replicas ===
      (await replicaOverrides(deployments)).member2;
    await expect.poll(inStep, POLL).toBe(true);
    expect((await memberCopy('member2', ns))?.metadata.uid).toBe(uid);
  }, 240_000);

  it('keeps a copy its member rejects on update through an outage of that member while an RSP schedules the object', async () => {
    const ns = `rej-${randomUUID().slice(0, 8)}`;
    const deployments = await webIn(ns);
    await scheduleWeb(ns, deployments);
    await expect.poll(() => memberCopy('member2', ns), POLL).toBeDefined();
    const uid = (await memberCopy('member2', ns))?.metadata.uid;
    // Added to member2's entry (a second entry for the same cluster fails as ApplyOverridesFailed); the RSP's override stays.
    const overrides = ((await deployments.get('web')).spec as { overrides: { clusterName: string }[] }).overrides;
    const entry = overrides.findIndex((o) => o.clusterName === 'member2');
    await deployments.patch('web', [{ op: 'add', path: `/spec/overrides/${entry}/clusterOverrides/-`, value: LABELS_MISMATCH }], 'json');
    await expect.poll(() => clusterStatus(deployments, 'member2'), POLL).toBe('UpdateFailed');

    await outageOfMember2(() => expect.poll(() => replicaOverrides(deployments), POLL).toEqual({ member1: 4, member2: 0 }));
    await keepsCopy(ns, uid);
    expect(await placementOf(deployments)).toEqual(['member1', 'member2']);
    await expect.poll(() => clusterStatus(deployments, 'member2'), POLL).toBe('UpdateFailed');
  }, 240_000);
});
