import { randomUUID } from 'node:crypto';
import { MANAGED_LABEL, MANAGED_LABEL_TRUE, RESOURCES } from '@kubefed/api';
import type { DynamicClient, KubeObject } from '@kubefed/client';
import type { JobProducer } from '@kubefed/queue';
import { startCluster } from '@kubefed/kube-sim';
import { Fleet, Manager, RuntimeMetrics } from '@kubefed/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FEDERATED_TYPE_CONFIG_GVR,
  registerFederatedTypeConfigController,
  registerSyncPath,
  registerKubeFedClusterController,
  ServiceStatusController,
  serviceStatusTypeOf,
  staticHealthCheckSettings,
} from '@kubefed/controllers';
import { clientFor, consistently, createNamespace, type InProcessFederation, joinMember, startInProcessFederation } from '@kubefed/testing';
import { SERVICE_STATUS_TYPE, servicesTypeConfig, TARGET_TYPES } from '@kubefed/testing/fixtures';

const KFC = RESOURCES.kubeFedClusters;

const FEDERATED_SERVICES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedservices' };
const SERVICE_STATUSES = { group: 'core.kubefed.io', version: 'v1alpha1', resource: 'federatedservicestatuses' };
const MEMBER_SERVICES = { group: '', version: 'v1', resource: 'services' };
const POLL = { timeout: 20_000, interval: 100 };

/** Jobs go nowhere: these tests look at the status controller alone (an in-memory JobProducer). */
const discardingProducer: JobProducer = {
  enqueue: () => Promise.resolve(),
  enqueueBulk: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

let fed: InProcessFederation;

beforeAll(async () => {
  fed = await startInProcessFederation({ members: { member1: {}, member2: {} }, federatedTypes: [TARGET_TYPES.services] });
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

interface ControlPlane extends AsyncDisposable {
  readonly ns: string;
}

/** A kubefed namespace with both members joined and Ready, and the cluster and FTC controllers running with the gate as given. */
async function startControlPlane(rawResourceStatusCollection: boolean): Promise<ControlPlane> {
  const ns = `kf-${randomUUID().slice(0, 8)}`;
  await createNamespace(fed.hostClient, ns);
  for (const member of fed.members) {
    await joinMember(fed, member, ns);
    await grantServiceReads(member.name, ns);
  }
  const manager = new Manager({ healthAddress: null, metricsAddress: null });
  const clusters = registerKubeFedClusterController(manager, {
    host: fed.hostClient,
    namespace: ns,
    settings: staticHealthCheckSettings({ periodMs: 200, timeoutMs: 1000, failureThreshold: 2, successThreshold: 1 }),
  });
  const scope = { kubefedNamespace: ns };
  const path = registerSyncPath(manager, {
    host: fed.hostClient,
    scope,
    fleet: clusters.fleet,
    clusters: () => clusters.informer.store.list(),
    settings: () => ({ adoptResources: 'Enabled', remoteStatusCollection: rawResourceStatusCollection }),
    versions: 'memory',
    controllers: { producer: discardingProducer, watchMembers: false },
  });
  registerFederatedTypeConfigController(manager, {
    host: fed.hostClient,
    scope,
    fleet: clusters.fleet,
    syncController: path.syncController!,
    rawResourceStatusCollection: () => rawResourceStatusCollection,
    maxConcurrentStatusReconciles: 2,
  });
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  await expect.poll(() => clusters.fleet.readyClusters().size, POLL).toBe(2);
  return {
    ns,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
    },
  };
}

/** Lets the joined service account of `member` read Services (what the status controller reads there). */
async function grantServiceReads(member: string, ns: string): Promise<void> {
  using client = clientFor(fed.member(member));
  const role = `kubefed-status:${ns}-${member}`;
  const rbac = (resource: string) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });
  await client.resource(rbac('clusterroles')).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: role },
    rules: [{ apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] }],
  });
  await client.resource(rbac('clusterrolebindings')).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: role },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: `${member}-host`, namespace: ns }],
  });
}

/** Creates the `services` FTC with KubeFed's legacy status collection turned on. */
async function createServicesFtc(ns: string): Promise<void> {
  const ftc = servicesTypeConfig(ns);
  await fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns).create(ftc as unknown as KubeObject);
}

/** A managed copy of Service `name` in a member, as the sync workers would have written it. */
async function createMemberService(member: DynamicClient, ns: string, name: string): Promise<void> {
  await member.resource(MEMBER_SERVICES, ns).create({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels: { [MANAGED_LABEL]: MANAGED_LABEL_TRUE } },
    spec: { ports: [{ port: 80 }] },
  });
}

async function setLoadBalancerIp(member: DynamicClient, ns: string, name: string, ip: string): Promise<void> {
  await member
    .resource(MEMBER_SERVICES, ns)
    .patch(name, { status: { loadBalancer: { ingress: [{ ip }] } } }, 'merge', { subresource: 'status' });
}

const ftcStatus = async (ns: string): Promise<unknown> =>
  (await fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns).get('services')).status;

async function clusterStatus(ns: string, name: string): Promise<unknown> {
  try {
    return (await fed.hostClient.resource(SERVICE_STATUSES, ns).get(name)).clusterStatus;
  } catch {
    return undefined;
  }
}

describe('service status controller', () => {
  it('writes a FederatedServiceStatus owned by the FederatedService with the Service status of every Ready member, and follows the members', async () => {
    await using plane = await startControlPlane(false);
    const { ns } = plane;
    using member1 = clientFor(fed.member('member1'));
    using member2 = clientFor(fed.member('member2'));
    await createMemberService(member1, ns, 'web');
    await createMemberService(member2, ns, 'web');
    await setLoadBalancerIp(member1, ns, 'web', '10.0.0.1');
    await createServicesFtc(ns);
    await expect.poll(() => ftcStatus(ns), POLL).toMatchObject({ statusController: 'Running' });
    const fedService = await fed.hostClient.resource(FEDERATED_SERVICES, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedService',
      metadata: { name: 'web' },
      spec: { template: { spec: { ports: [{ port: 80 }] } }, placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] } },
    });
    await expect
      .poll(() => clusterStatus(ns, 'web'), POLL)
      .toEqual([
        { clusterName: 'member1', status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } },
        { clusterName: 'member2', status: { loadBalancer: {} } },
      ]);
    const statusObject = await fed.hostClient.resource(SERVICE_STATUSES, ns).get('web');
    expect(statusObject.metadata.ownerReferences).toEqual([
      { apiVersion: 'types.kubefed.io/v1beta1', kind: 'FederatedService', name: 'web', uid: fedService.metadata.uid },
    ]);

    // A member's status change, a member copy deleted, and a member no longer Ready each show.
    await setLoadBalancerIp(member2, ns, 'web', '10.0.0.2');
    await expect
      .poll(() => clusterStatus(ns, 'web'), POLL)
      .toEqual([
        { clusterName: 'member1', status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } },
        { clusterName: 'member2', status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }] } } },
      ]);
    await member1.resource(MEMBER_SERVICES, ns).delete('web');
    await expect
      .poll(() => clusterStatus(ns, 'web'), POLL)
      .toEqual([
        { clusterName: 'member1', status: {} },
        { clusterName: 'member2', status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }] } } },
      ]);
    await fed.hostClient.resource(KFC, ns).delete('member1');
    await expect
      .poll(() => clusterStatus(ns, 'web'), POLL)
      .toEqual([{ clusterName: 'member2', status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }] } } }]);

    // Status collection turned off: the status controller stops.
    await fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns).patch('services', { spec: { statusCollection: 'Disabled' } }, 'merge');
    await expect.poll(() => ftcStatus(ns), POLL).toMatchObject({ statusController: 'NotRunning' });
    await setLoadBalancerIp(member2, ns, 'web', '10.0.0.3');
    await consistently(
      async () =>
        expect(await clusterStatus(ns, 'web')).toEqual([
          { clusterName: 'member2', status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }] } } },
        ]),
      {
        durationMs: 1000,
      },
    );
  }, 90_000);

  it('runs no status controller while the RawResourceStatusCollection feature gate is enabled', async () => {
    await using plane = await startControlPlane(true);
    const { ns } = plane;
    using member1 = clientFor(fed.member('member1'));
    await createMemberService(member1, ns, 'api');
    await createServicesFtc(ns);
    await fed.hostClient.resource(FEDERATED_SERVICES, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedService',
      metadata: { name: 'api' },
      spec: { template: {}, placement: { clusters: [{ name: 'member1' }] } },
    });
    await expect.poll(() => ftcStatus(ns), POLL).toMatchObject({ observedGeneration: 1, statusController: 'NotRunning' });
    await consistently(async () => expect(await clusterStatus(ns, 'api')).toBeUndefined(), { durationMs: 1000 });
  }, 60_000);

  it('runs no status controller for a statusType the host does not serve', async () => {
    await using plane = await startControlPlane(false);
    const { ns } = plane;
    const ftc = servicesTypeConfig(ns, { statusType: { ...SERVICE_STATUS_TYPE, group: 'status.example.io' } });
    await fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns).create(ftc as unknown as KubeObject);
    await expect.poll(() => ftcStatus(ns), POLL).toMatchObject({ observedGeneration: 1, statusController: 'NotRunning' });
    await consistently(async () => expect(await ftcStatus(ns)).toMatchObject({ statusController: 'NotRunning' }), { durationMs: 1500 });
  }, 60_000);

  it('reconciles at most maxConcurrentReconciles FederatedServices at a time', async () => {
    const ns = `kf-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, ns);
    // A member that accepts requests and never answers: every reconcile waits on it.
    const slow = await startCluster({ name: `slow-${ns}` });
    using slowClient = clientFor(slow);
    try {
      slow.faults.hang();
      const ftc = servicesTypeConfig(ns);
      const type = serviceStatusTypeOf(ftc);
      if (type === undefined) throw new Error('no status type');
      const metrics = new RuntimeMetrics();
      const slowFleet = new Fleet({ connect: () => slowClient });
      slowFleet.engage('slow', {});
      slowFleet.setReady('slow', true);
      const controller = new ServiceStatusController({
        host: fed.hostClient,
        type,
        fleet: slowFleet,
        namespace: ns,
        maxConcurrentReconciles: 2,
        metrics,
      });
      for (let i = 0; i < 6; i++)
        await fed.hostClient.resource(FEDERATED_SERVICES, ns).create({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedService',
          metadata: { name: `svc-${i}` },
          spec: { template: {}, placement: { clusters: [{ name: 'slow' }] } },
        });
      const activeWorkers = async (): Promise<number> => {
        const line = (await metrics.text())
          .split('\n')
          .find((l) => l.startsWith('kubefed_controller_active_workers{controller="status-services"}'));
        return Number(line?.split(' ').pop() ?? NaN);
      };
      const stop = new AbortController();
      const running = controller.start(stop.signal);
      try {
        await expect.poll(activeWorkers, POLL).toBe(2);
        await consistently(async () => expect(await activeWorkers()).toBe(2), { durationMs: 1000 });
      } finally {
        stop.abort();
        await running;
      }
    } finally {
      slow.faults.restore();
      await slow.stop();
    }
  }, 60_000);
});
