import { randomUUID } from 'node:crypto';
import { buildFederatedTypeConfig, buildFederatedTypeCrd, type FederatedTypeOptions, RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig, type KubeObject, type ResourceClient } from '@kubefed/client';
import { BullMqJobProducer, createRedisConnection, type JobProducer, type SyncJob, SyncWorkerHost } from '@kubefed/queue';
import { EventRecorder, Manager } from '@kubefed/runtime';
import {
  clientFor,
  consistently,
  createNamespace,
  type InProcessFederation as Federation,
  joinMember,
  startInProcessFederation,
  startRedis,
  type RedisHandle,
} from '@kubefed/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  FEDERATED_TYPE_CONFIG_GVR,
  KubeFedConfigSource,
  registerFederatedTypeConfigController,
  registerKubeFedClusterController,
  registerKubeFedConfigController,
  registerSyncPath,
  StatusRecorder,
  type SyncSettings,
} from '@kubefed/controllers';

const KFC = RESOURCES.kubeFedClusters;
const KFCONFIG = RESOURCES.kubeFedConfigs;

const CLUSTER_ROLES: FederatedTypeOptions = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  pluralName: 'clusterroles',
  scope: 'Cluster',
};
const NAMESPACES: FederatedTypeOptions = { group: '', version: 'v1', kind: 'Namespace', pluralName: 'namespaces', scope: 'Cluster' };
/** `namespaces` federated into a group and version other than KubeFed's defaults. */
const NAMESPACES_ELSEWHERE: FederatedTypeOptions = { ...NAMESPACES, federatedGroup: 'fed.example.io', federatedVersion: 'v1alpha1' };
const CONFIG_MAPS: FederatedTypeOptions = { group: '', version: 'v1', kind: 'ConfigMap', pluralName: 'configmaps', scope: 'Namespaced' };
const FED_CLUSTER_ROLES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' };
const MEMBER_CLUSTER_ROLES = RESOURCES.clusterRoles;
const DEPLOYMENTS: FederatedTypeOptions = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  pluralName: 'deployments',
  scope: 'Namespaced',
};
const SERVICES: FederatedTypeOptions = { group: '', version: 'v1', kind: 'Service', pluralName: 'services', scope: 'Namespaced' };
const EVENTS = RESOURCES.events;
const FAST = { scope: 'Cluster', clusterHealthCheck: { period: '200ms', timeout: '1s', failureThreshold: 3, successThreshold: 1 } };

let fed: Federation;
let redis: RedisHandle;
const cleanups: (() => Promise<void>)[] = [];
/**
 * By kubefed namespace: stops the control plane {@link startControlPlane} runs there and starts a
 * new one, as a restarted process (running `whileStopped` in between).
 */
const restarts = new Map<string, (whileStopped?: () => Promise<void>) => Promise<void>>();

beforeAll(async () => {
  fed = await startInProcessFederation({ members: { member1: {}, member2: {} } });
  redis = await startRedis({ url: process.env.REDIS_URL });
  const crds = fed.hostClient.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' });
  for (const type of [CLUSTER_ROLES, NAMESPACES, NAMESPACES_ELSEWHERE, CONFIG_MAPS, DEPLOYMENTS, SERVICES])
    await crds.create(buildFederatedTypeCrd(type) as unknown as KubeObject);
});

afterAll(async () => {
  await redis.stop();
  await fed[Symbol.asyncDispose]();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A kubefed namespace with both members joined, the health + FTC controllers and a sync worker host running in process. */
async function startControlPlane(
  types: readonly (FederatedTypeOptions & { statusCollection?: boolean })[] = [CLUSTER_ROLES],
  options: {
    resyncPeriodMs?: number;
    syncController?: Record<string, unknown>;
    coreOnlyMember?: string;
    reporting?: DynamicClient;
    /** Every job the sync controllers enqueue is appended here, with its priority. */
    jobs?: RecordedJob[];
    /** The outcomes the workers report to and the status writers read; default the FTC controller's own. */
    recorder?: StatusRecorder;
  } = {},
): Promise<string> {
  const ns = `kf-${randomUUID().slice(0, 8)}`;
  await createNamespace(fed.hostClient, ns);
  const spec = options.syncController === undefined ? FAST : { ...FAST, syncController: options.syncController };
  await fed.hostClient
    .resource(KFCONFIG, ns)
    .create({ apiVersion: 'core.kubefed.io/v1beta1', kind: 'KubeFedConfig', metadata: { name: 'kubefed' }, spec });
  await joinMember(fed, fed.member('member1'), ns);
  await joinMember(fed, fed.member('member2'), ns);
  for (const member of ['member1', 'member2']) await grantAccess(member, ns, member === options.coreOnlyMember ? CORE_ONLY : FULL_ACCESS);

  const prefix = redis.prefix('sync');
  const producerConnection = createRedisConnection(redis.url, { role: 'producer' });
  const workerConnection = createRedisConnection(redis.url, { role: 'worker' });
  cleanups.push(() => Promise.resolve(producerConnection.disconnect()));
  cleanups.push(() => Promise.resolve(workerConnection.disconnect()));
  const producer = new BullMqJobProducer({
    connection: producerConnection,
    prefix,
    retry: { attempts: 10, backoffDelayMs: 50, jitter: 0 },
  });
  cleanups.push(() => producer.close());

  // One controller manager process: its manager (health, FTC and sync controllers) and its sync workers.
  const launch = async (): Promise<() => Promise<void>> => {
    const manager = new Manager({ healthAddress: null, metricsAddress: null });
    const source = new KubeFedConfigSource(ns);
    registerKubeFedConfigController(manager, { host: fed.hostClient, namespace: ns, source });
    const clusters = registerKubeFedClusterController(manager, {
      host: fed.hostClient,
      namespace: ns,
      settings: { current: () => source.current().clusterHealthCheck, onChange: (l) => source.onChange(() => l()) },
    });
    const settings = (): SyncSettings => ({
      adoptResources: source.current().syncController.adoptResources ? 'Enabled' : 'Disabled',
      remoteStatusCollection: source.current().featureGates.RawResourceStatusCollection,
    });
    const scope = { kubefedNamespace: ns };
    // As the controller manager runs its sync path in `--mode all`: both sides in one process.
    const path = registerSyncPath(manager, {
      host: fed.hostClient,
      ...(options.reporting === undefined ? {} : { reporting: options.reporting }),
      scope,
      fleet: clusters.fleet,
      clusters: () => clusters.informer.store.list(),
      settings,
      events: new EventRecorder({ events: (namespace) => fed.hostClient.resource(EVENTS, namespace), component: 'kubefed-sync' }),
      timing: { statusFlushMs: 100, removalPollMs: 200, resyncPeriodMs: options.resyncPeriodMs ?? 500 },
      // As the controller manager runs its own workers: versions read from the watch cache.
      versions: 'watched',
      controllers: {
        producer: options.jobs === undefined ? producer : recording(producer, options.jobs),
        clustersKnown: clusters.clustersKnown,
        ...(options.recorder === undefined ? {} : { recorder: options.recorder }),
        onClusterLabelsChange: (listener) =>
          clusters.informer.addEventHandler({
            onUpdate: (o, n) => JSON.stringify(o.metadata.labels ?? {}) !== JSON.stringify(n.metadata.labels ?? {}) && listener(),
          }),
      },
      workers: {},
    });
    registerFederatedTypeConfigController(manager, {
      host: fed.hostClient,
      scope,
      fleet: clusters.fleet,
      clustersKnown: clusters.clustersKnown,
      syncController: path.syncController!,
      rawResourceStatusCollection: () => settings().remoteStatusCollection,
      pushReconciler: () => source.current().featureGates.PushReconciler,
      onConfigChange: (listener) => source.onChange(() => listener()),
    });
    const processor = path.processor!;
    const workers = await SyncWorkerHost.start({
      connection: workerConnection,
      prefix,
      processor,
      clusters: ['member1', 'member2'],
    });
    const stop = new AbortController();
    const finished = manager.start(stop.signal);
    return async () => {
      stop.abort();
      await finished;
      await workers.close({ timeoutMs: 2000 });
    };
  };
  let stopCurrent = await launch();
  cleanups.push(() => {
    restarts.delete(ns);
    return stopCurrent();
  });
  restarts.set(ns, async (whileStopped) => {
    await stopCurrent();
    await whileStopped?.();
    stopCurrent = await launch();
  });
  for (const type of types) {
    const ftc = buildFederatedTypeConfig(type, ns);
    if (type.statusCollection === true) ftc.spec.statusCollection = 'Enabled';
    await fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns).create(ftc as unknown as KubeObject);
  }
  return ns;
}

/** Whether a KubeFedCluster's status says Ready. */
function isReadyCluster(cluster: KubeObject): boolean {
  const conditions = (cluster.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** A job a sync controller enqueued, and the priority it was enqueued at. */
type RecordedJob = SyncJob & { readonly priority: 'normal' | 'low' };

/** `producer`, appending every job enqueued to `jobs`. */
function recording(producer: JobProducer, jobs: RecordedJob[]): JobProducer {
  return {
    enqueue: (job) => {
      jobs.push({ ...job, priority: 'normal' });
      return producer.enqueue(job);
    },
    enqueueBulk: (bulk, options) => {
      jobs.push(...bulk.map((job) => ({ ...job, priority: options?.priority ?? 'normal' })));
      return producer.enqueueBulk(bulk, options);
    },
    close: () => producer.close(),
  };
}

const FULL_ACCESS = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }];
/** Everything in the core group only: the member's health check works, reading ClusterRoles is Forbidden. */
const CORE_ONLY = [{ apiGroups: [''], resources: ['*'], verbs: ['*'] }];
const accessRole = (member: string, ns: string): string => `kubefed-controller-manager:${ns}-${member}-host`;

/** Grants the joined service account `rules` in its member (full access, as `kubefedctl join` does, by default). */
async function grantAccess(member: string, ns: string, rules: readonly object[] = FULL_ACCESS): Promise<void> {
  using client = clientFor(fed.member(member));
  const role = accessRole(member, ns);
  await client.resource(MEMBER_CLUSTER_ROLES).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: role },
    rules,
  });
  await client.resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' }).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: role },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: `${member}-host`, namespace: ns }],
  });
}

/**
 * Propagates a FederatedClusterRole (with `annotations`) to both members, makes member2
 * unreachable until it reports ClusterNotReady, deletes the object and runs `check` before
 * member2 comes back.
 */
async function deleteWhileMember2Unreachable(
  annotations: Record<string, string>,
  check: (o: { name: string; objects: ResourceClient }) => Promise<void>,
): Promise<{ name: string; objects: ResourceClient }> {
  await startControlPlane();
  const name = `fcr-${randomUUID().slice(0, 8)}`;
  const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
  await objects.create({ ...federatedClusterRole(name, ['member1', 'member2']), metadata: { name, annotations } });
  await expect.poll(() => inMember('member2', name), { timeout: 15_000, interval: 100 }).toBeDefined();
  await expect
    .poll(async () => (await objects.get(name)).metadata.finalizers, { timeout: 10_000, interval: 100 })
    .toContain('kubefed.io/sync-controller');
  const member2 = fed.member('member2');
  member2.faults.unreachable();
  try {
    await expect
      .poll(async () => ((await objects.get(name)).status as { clusters?: unknown } | undefined)?.clusters, {
        timeout: 15_000,
        interval: 100,
      })
      .toContainEqual({ name: 'member2', status: 'ClusterNotReady' });
    await objects.delete(name);
    await check({ name, objects });
  } finally {
    member2.faults.restore();
  }
  return { name, objects };
}

function federatedClusterRole(name: string, clusters: string[]): KubeObject {
  return {
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedClusterRole',
    metadata: { name },
    spec: {
      template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
      placement: { clusters: clusters.map((c) => ({ name: c })) },
      overrides: [{ clusterName: 'member2', clusterOverrides: [{ path: '/metadata/labels', value: { tier: 'second' } }] }],
    },
  };
}

const inMember = (member: string, name: string): Promise<KubeObject | undefined> => {
  using client = clientFor(fed.member(member));
  return client
    .resource(MEMBER_CLUSTER_ROLES)
    .get(name)
    .catch(() => undefined);
};

describe('sync controller against kube-sim and Redis', () => {
  it('reports propagation Running in the FederatedTypeConfig status', async () => {
    const ns = await startControlPlane();
    await expect
      .poll(
        async () => (await fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns).get('clusterroles.rbac.authorization.k8s.io')).status,
        { timeout: 10_000, interval: 100 },
      )
      .toEqual({
        observedGeneration: 1,
        propagationController: 'Running',
        statusController: 'NotRunning',
        conditions: [expect.objectContaining({ type: 'Ready', status: 'True', reason: 'TypesServed' }) as unknown],
      });
  });

  it('propagates a federated object to the placed members with the managed label and overrides, then reports Propagation True', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    await fed.hostClient.resource(FED_CLUSTER_ROLES).create(federatedClusterRole(name, ['member1', 'member2']));

    await expect
      .poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 })
      .toMatchObject({
        metadata: { labels: { 'kubefed.io/managed': 'true' } },
        rules: [{ verbs: ['get'] }],
      });
    await expect
      .poll(() => inMember('member2', name), { timeout: 15_000, interval: 100 })
      .toMatchObject({
        metadata: { labels: { 'kubefed.io/managed': 'true', tier: 'second' } },
      });
    await expect
      .poll(async () => (await fed.hostClient.resource(FED_CLUSTER_ROLES).get(name)).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({
        observedGeneration: 1,
        conditions: [{ type: 'Propagation', status: 'True' }],
        clusters: [{ name: 'member1' }, { name: 'member2' }],
      });
    expect((await fed.hostClient.resource(FED_CLUSTER_ROLES).get(name)).metadata.finalizers).toContain('kubefed.io/sync-controller');
    await expect
      .poll(
        async () =>
          (
            await fed.hostClient
              .resource({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'clusterpropagatedversions' })
              .get(`clusterrole-${name}`)
          ).status,
        {
          timeout: 10_000,
          interval: 100,
        },
      )
      .toMatchObject({ clusterVersions: [{ clusterName: 'member1', version: expect.stringMatching(/^rv:/) }, { clusterName: 'member2' }] });
  });

  it('writes the status of federated objects through the reporting client: a saturated reporting budget delays the status, not member writes', async () => {
    // A host client of its own for the status writes: 2 requests/s with 40 requests queued ahead (20 s).
    using reporting = DynamicClient.fromKubeconfig(Kubeconfig.fromString(fed.host.kubeconfigYaml()), {
      userAgent: 'kubefed-test-reporting',
      qps: 2,
      burst: 1,
    });
    const saturated = performance.now();
    const queued = Array.from({ length: 40 }, () =>
      reporting
        .resource(EVENTS, 'default')
        .list()
        .catch(() => undefined),
    );
    await startControlPlane([CLUSTER_ROLES], { reporting });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1', 'member2']));
    await expect.poll(() => inMember('member1', name), { timeout: 10_000, interval: 100 }).toBeDefined();
    await objects.patch(name, { spec: { template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] } } }, 'merge');
    await expect
      .poll(async () => (await inMember('member1', name))?.['rules'], { timeout: 10_000, interval: 100 })
      .toMatchObject([{ verbs: ['list'] }]);
    // Both member writes happened while the status writes still waited for the reporting budget.
    expect(performance.now() - saturated).toBeLessThan(20_000);
    expect((await objects.get(name)).status).toBeUndefined();
    await Promise.all(queued);
    const statusManagers = async (): Promise<(string | undefined)[]> => {
      const fields = ((await objects.get(name)).metadata['managedFields'] ?? []) as { manager?: string; subresource?: string }[];
      return fields.filter((f) => f.subresource === 'status').map((f) => f.manager);
    };
    await expect.poll(statusManagers, { timeout: 15_000, interval: 100 }).toEqual(['kubefed-test-reporting']);
    await expect
      .poll(async () => (await objects.get(name)).status, { timeout: 15_000, interval: 100 })
      .toMatchObject({ observedGeneration: 2, conditions: [{ type: 'Propagation', status: 'True' }] });
  });

  it('drops a cluster from the ClusterPropagatedVersion once its copy is removed', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1', 'member2']));
    const versions = async (): Promise<string[]> => {
      const record = await fed.hostClient
        .resource({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'clusterpropagatedversions' })
        .get(`clusterrole-${name}`)
        .catch(() => undefined);
      return ((record?.status as { clusterVersions?: { clusterName: string }[] } | undefined)?.clusterVersions ?? []).map(
        (v) => v.clusterName,
      );
    };
    await expect.poll(versions, { timeout: 15_000, interval: 100 }).toEqual(['member1', 'member2']);
    await objects.patch(name, { spec: { placement: { clusters: [{ name: 'member1' }] } } }, 'merge');
    await expect.poll(() => inMember('member2', name), { timeout: 15_000, interval: 100 }).toBeUndefined();
    await expect.poll(versions, { timeout: 15_000, interval: 100 }).toEqual(['member1']);
  });

  it('propagates updates, removes the copy of a cluster that leaves placement, and removes every copy before the object on deletion', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1', 'member2']));
    await expect.poll(() => inMember('member2', name), { timeout: 15_000, interval: 100 }).toBeDefined();

    // Merge patches: a get + update could race with the controller's own writes.
    await objects.patch(
      name,
      { spec: { template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] } } },
      'merge',
    );
    await expect
      .poll(async () => (await inMember('member1', name))?.rules, { timeout: 15_000, interval: 100 })
      .toMatchObject([{ verbs: ['get', 'list'] }]);

    await objects.patch(name, { spec: { placement: { clusters: [{ name: 'member1' }] } } }, 'merge');
    await expect.poll(() => inMember('member2', name), { timeout: 15_000, interval: 100 }).toBeUndefined();
    await expect
      .poll(async () => (await objects.get(name)).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }] });
    expect(await inMember('member1', name)).toBeDefined();

    await objects.delete(name);
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeUndefined();
    await expect
      .poll(
        () =>
          objects.get(name).then(
            () => 'present',
            () => 'gone',
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toBe('gone');
  });

  it('records CreateInCluster, UpdateInCluster and DeleteInCluster once per member write, and none on resyncs that write nothing', async () => {
    await startControlPlane([CLUSTER_ROLES], { resyncPeriodMs: 300 });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    const normalEvents = async (): Promise<Record<string, number>> => {
      const tally: Record<string, number> = {};
      for (const e of (await fed.hostClient.resource(EVENTS, 'default').list()).items) {
        const event = e as { involvedObject?: { name?: string }; type?: string; reason?: string; message?: string; count?: number };
        if (event.involvedObject?.name !== name || event.type !== 'Normal') continue;
        const key = `${event.reason ?? ''}: ${event.message ?? ''}`;
        tally[key] = (tally[key] ?? 0) + (event.count ?? 1);
      }
      return tally;
    };
    const created = (c: string): string => `CreateInCluster: Creating ClusterRole "${name}" in cluster "${c}"`;
    const updated = (c: string): string => `UpdateInCluster: Updating ClusterRole "${name}" in cluster "${c}"`;
    const deleted = (c: string): string => `DeleteInCluster: Deleting ClusterRole "${name}" in cluster "${c}"`;
    const settled = async (expected: Record<string, number>): Promise<void> => {
      await expect.poll(normalEvents, { timeout: 15_000, interval: 100 }).toEqual(expected);
      // Resyncs every 300 ms find every copy current: no write, no event.
      await consistently(async () => expect(await normalEvents()).toEqual(expected), { durationMs: 2000, intervalMs: 200 });
    };

    await objects.create(federatedClusterRole(name, ['member1', 'member2']));
    await settled({ [created('member1')]: 1, [created('member2')]: 1 });

    await objects.patch(name, { spec: { template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] } } }, 'merge');
    await settled({ [created('member1')]: 1, [created('member2')]: 1, [updated('member1')]: 1, [updated('member2')]: 1 });

    await objects.patch(name, { spec: { placement: { clusters: [{ name: 'member1' }] } } }, 'merge');
    await settled({
      [created('member1')]: 1,
      [created('member2')]: 1,
      [updated('member1')]: 1,
      [updated('member2')]: 1,
      [deleted('member2')]: 1,
    });

    // A copy deleted by hand is created again: one more write, one more event (aggregated into the first).
    using member1 = clientFor(fed.member('member1'));
    await member1.resource(MEMBER_CLUSTER_ROLES).delete(name);
    await settled({
      [created('member1')]: 2,
      [created('member2')]: 1,
      [updated('member1')]: 1,
      [updated('member2')]: 1,
      [deleted('member2')]: 1,
    });
  });

  it('reports a member whose copy cannot be read as CachedRetrievalFailed beside the entries of the others, and propagates once it can', async () => {
    const ns = await startControlPlane([CLUSTER_ROLES], { coreOnlyMember: 'member2' });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1', 'member2']));
    await expect
      .poll(async () => (await objects.get(name)).status, { timeout: 15_000, interval: 100 })
      .toMatchObject({
        observedGeneration: 1,
        conditions: [{ type: 'Propagation', status: 'False', reason: 'CheckClusters' }],
        clusters: [{ name: 'member1' }, { name: 'member2', status: 'CachedRetrievalFailed' }],
      });
    // member1 is propagated: its entry has no status.
    expect(((await objects.get(name)).status as { clusters: unknown[] }).clusters[0]).toEqual({ name: 'member1' });
    await expect
      .poll(
        async () =>
          (await fed.hostClient.resource(EVENTS, 'default').list()).items.filter(
            (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toContainEqual(
        expect.objectContaining({
          type: 'Warning',
          reason: 'CachedRetrievalFailed',
          message: expect.stringContaining('Failed to retrieve cached cluster object: ') as unknown,
        }),
      );

    using member2 = clientFor(fed.member('member2'));
    await member2.resource(MEMBER_CLUSTER_ROLES).patch(accessRole('member2', ns), { rules: FULL_ACCESS }, 'merge');
    await expect.poll(() => inMember('member2', name), { timeout: 20_000, interval: 100 }).toBeDefined();
    await expect
      .poll(async () => (await objects.get(name)).status, { timeout: 20_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }, { name: 'member2' }] });
  });

  it('reports a new generation as propagated only after every placed member holds it', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1', 'member2']));
    await expect
      .poll(async () => (await objects.get(name)).status, { timeout: 15_000, interval: 100 })
      .toMatchObject({ observedGeneration: 1, conditions: [{ type: 'Propagation', status: 'True' }] });

    // member2 answers slowly; its copy's change is seen on a watch opened before.
    using m2 = clientFor(fed.member('member2'));
    const roles = m2.resource(MEMBER_CLUSTER_ROLES);
    const abort = new AbortController();
    let member2Updated = false;
    let watchLive = false;
    const rv = (await roles.list({ limit: 1 })).metadata.resourceVersion;
    const watching = (async () => {
      for await (const event of roles.watch({ resourceVersion: rv, signal: abort.signal })) {
        if (event.object.metadata.name === `${name}-sentinel`) watchLive = true;
        if (event.type === 'MODIFIED' && event.object.metadata.name === name) member2Updated = true;
      }
    })().catch(() => undefined);
    // The watch is established (it delivered the sentinel) before member2 turns slow.
    await roles.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `${name}-sentinel` },
      rules: [],
    });
    await vi.waitFor(() => expect(watchLive).toBe(true), { timeout: 10_000, interval: 20 });
    fed.member('member2').faults.latency(700);
    try {
      await objects.patch(
        name,
        { spec: { template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] } } },
        'merge',
      );
      // The first status that claims generation 2 comes after member2's copy changed.
      const firstClaim = await vi.waitFor(
        async () => {
          const status = (await objects.get(name)).status as { observedGeneration?: number } | undefined;
          if (status?.observedGeneration !== 2) throw new Error('generation 2 not observed yet');
          return { member2Updated };
        },
        { timeout: 15_000, interval: 10 },
      );
      expect(firstClaim).toEqual({ member2Updated: true });
      await expect
        .poll(async () => (await objects.get(name)).status, { timeout: 10_000, interval: 100 })
        .toMatchObject({ observedGeneration: 2, conditions: [{ type: 'Propagation', status: 'True' }] });
    } finally {
      fed.member('member2').faults.restore();
      abort.abort();
      await watching;
    }
  });

  it('only removes the managed label from member copies when the deleted object carries the orphan annotation', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    const obj = federatedClusterRole(name, ['member1']);
    obj.metadata.annotations = { 'kubefed.io/orphan': 'true' };
    await objects.create(obj);
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeDefined();

    await objects.delete(name);
    await expect
      .poll(
        () =>
          objects.get(name).then(
            () => 'present',
            () => 'gone',
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toBe('gone');
    const orphaned = await inMember('member1', name);
    expect(orphaned).toBeDefined();
    expect(orphaned?.metadata.labels?.['kubefed.io/managed']).toBeUndefined();
  });

  it('stops propagating when the FederatedTypeConfig disables propagation, without touching member copies', async () => {
    const ns = await startControlPlane();
    const ftcs = fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns);
    const ftcName = 'clusterroles.rbac.authorization.k8s.io';
    await expect
      .poll(async () => (await ftcs.get(ftcName)).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({ propagationController: 'Running' });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1']));
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeDefined();

    await ftcs.patch(ftcName, { spec: { propagation: 'Disabled' } }, 'merge');
    await expect
      .poll(async () => (await ftcs.get(ftcName)).status, { timeout: 10_000, interval: 100 })
      .toEqual({
        observedGeneration: 2,
        propagationController: 'NotRunning',
        statusController: 'NotRunning',
        conditions: [expect.objectContaining({ type: 'Ready', status: 'True', reason: 'TypesServed' }) as unknown],
      });
    const other = `fcr-${randomUUID().slice(0, 8)}`;
    await objects.create(federatedClusterRole(other, ['member1']));
    await consistently(async () => expect(await inMember('member1', other)).toBeUndefined(), { durationMs: 1000, intervalMs: 100 });
    expect(await inMember('member1', name)).toBeDefined();
    // No controller runs any more: remove the objects and the finalizer by hand.
    await objects.delete(other);
    await objects.delete(name);
    await objects.patch(name, { metadata: { finalizers: null } }, 'merge');
  });

  it('propagates a FederatedConfigMap into the members its FederatedNamespace is placed in, creating the namespace first', async () => {
    await startControlPlane([NAMESPACES, CONFIG_MAPS]);
    const target = `app-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, target);
    const types = (resource: string) => fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource }, target);
    await types('federatednamespaces').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: target },
      spec: { placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] } },
    });
    await types('federatedconfigmaps').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'settings' },
      spec: {
        template: { data: { mode: 'default' } },
        placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] },
        overrides: [{ clusterName: 'member2', clusterOverrides: [{ path: '/data/mode', value: 'override' }] }],
      },
    });
    const configMap = (member: string): Promise<KubeObject | undefined> => {
      using client = clientFor(fed.member(member));
      return client
        .resource({ group: '', version: 'v1', resource: 'configmaps' }, target)
        .get('settings')
        .catch(() => undefined);
    };
    await expect
      .poll(() => configMap('member1'), { timeout: 15_000, interval: 100 })
      .toMatchObject({
        metadata: { labels: { 'kubefed.io/managed': 'true' } },
        data: { mode: 'default' },
      });
    await expect.poll(() => configMap('member2'), { timeout: 15_000, interval: 100 }).toMatchObject({ data: { mode: 'override' } });
    await expect
      .poll(async () => (await types('federatedconfigmaps').get('settings')).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }, { name: 'member2' }] });

    // Narrowing the FederatedNamespace narrows its objects' placement.
    await types('federatednamespaces').patch(target, { spec: { placement: { clusters: [{ name: 'member1' }] } } }, 'merge');
    await expect.poll(() => configMap('member2'), { timeout: 15_000, interval: 100 }).toBeUndefined();
    await expect
      .poll(async () => ((await types('federatedconfigmaps').get('settings')).status as { clusters?: unknown } | undefined)?.clusters, {
        timeout: 10_000,
        interval: 100,
      })
      .toEqual([{ name: 'member1' }]);
    expect(await configMap('member1')).toBeDefined();
  });

  it('re-checks the objects of a namespace when its FederatedNamespace changes, not when only its status does', async () => {
    const jobs: RecordedJob[] = [];
    await startControlPlane([NAMESPACES, CONFIG_MAPS], { resyncPeriodMs: 0, jobs });
    const target = `app-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, target);
    const types = (resource: string) => fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource }, target);
    const namespaces = types('federatednamespaces');
    await namespaces.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: target },
      spec: { placement: { clusters: [{ name: 'member1' }] } },
    });
    await types('federatedconfigmaps').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'settings' },
      spec: { template: { data: { mode: 'default' } }, placement: { clusters: [{ name: 'member1' }] } },
    });
    const versions = fed.hostClient.resource({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'propagatedversions' }, target);
    await expect.poll(() => versions.get('configmap-settings'), { timeout: 15_000, interval: 100 }).toBeDefined();
    await expect
      .poll(async () => (await types('federatedconfigmaps').get('settings')).status, { timeout: 15_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }] });
    const settings = (): RecordedJob[] => jobs.filter((j) => j.name === 'settings' && j.namespace === target);
    // Without its version record, the copy is no longer known current: a reconcile of it sends a job.
    await versions.delete('configmap-settings');
    const before = settings().length;

    const current = await namespaces.get(target);
    await namespaces.updateStatus({ ...current, status: { observedGeneration: 1, conditions: [], clusters: [{ name: 'member1' }] } });
    await consistently(() => expect(settings()).toHaveLength(before), { durationMs: 1500, intervalMs: 100 });

    await namespaces.patch(target, { metadata: { labels: { team: 'a' } } }, 'merge');
    await expect.poll(() => settings().length, { timeout: 15_000, interval: 100 }).toBeGreaterThan(before);
    await expect.poll(() => versions.get('configmap-settings').catch(() => undefined), { timeout: 15_000, interval: 100 }).toBeDefined();
  });

  it('limits placement by the FederatedNamespace type the namespaces FederatedTypeConfig names (fed.example.io/v1alpha1)', async () => {
    await startControlPlane([NAMESPACES_ELSEWHERE, CONFIG_MAPS]);
    const target = `app-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, target);
    await fed.hostClient.resource({ group: 'fed.example.io', version: 'v1alpha1', resource: 'federatednamespaces' }, target).create({
      apiVersion: 'fed.example.io/v1alpha1',
      kind: 'FederatedNamespace',
      metadata: { name: target },
      spec: { placement: { clusters: [{ name: 'member1' }] } },
    });
    const configMaps = fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' }, target);
    await configMaps.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'settings' },
      spec: { template: { data: { mode: 'default' } }, placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] } },
    });
    const configMap = (member: string): Promise<KubeObject | undefined> => {
      using client = clientFor(fed.member(member));
      return client
        .resource({ group: '', version: 'v1', resource: 'configmaps' }, target)
        .get('settings')
        .catch(() => undefined);
    };
    await expect.poll(() => configMap('member1'), { timeout: 15_000, interval: 100 }).toMatchObject({ data: { mode: 'default' } });
    await expect
      .poll(async () => (await configMaps.get('settings')).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }] });
    expect(await configMap('member2')).toBeUndefined();
  });

  it("never adopts, relabels or deletes a member Namespace other than the FederatedNamespace's own namespace", async () => {
    const ns = await startControlPlane([NAMESPACES]);
    const tenant = `tenant-${randomUUID().slice(0, 8)}`;
    const victim = `victim-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, tenant);
    using member1 = clientFor(fed.member('member1'));
    const memberNamespaces = member1.resource({ group: '', version: 'v1', resource: 'namespaces' });
    const podSecurity = { 'pod-security.kubernetes.io/enforce': 'restricted' };
    await memberNamespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: victim, labels: podSecurity } });
    const fedNamespaces = fed.hostClient.resource(
      { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' },
      tenant,
    );
    // A tenant names another namespace, and the system namespaces, from their own namespace.
    for (const name of [victim, 'kube-system', ns]) {
      await fedNamespaces.create({
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedNamespace',
        metadata: { name },
        spec: { placement: { clusters: [{ name: 'member1' }] } },
      });
    }
    const events = fed.hostClient.resource(EVENTS, tenant);
    await expect
      .poll(
        async () =>
          (await events.list()).items
            .filter((e) => (e as { reason?: string }).reason === 'InvalidName')
            .map((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name)
            .sort(),
        { timeout: 15_000, interval: 100 },
      )
      .toEqual([ns, 'kube-system', victim].sort());
    const untouched = async (): Promise<void> => {
      const got = await memberNamespaces.get(victim);
      expect(got.metadata.deletionTimestamp).toBeUndefined();
      expect(got.metadata.labels).toMatchObject(podSecurity);
      expect(got.metadata.labels?.['kubefed.io/managed']).toBeUndefined();
      expect((await memberNamespaces.get('kube-system')).metadata.labels?.['kubefed.io/managed']).toBeUndefined();
    };
    await consistently(untouched, { durationMs: 2000, intervalMs: 100 });
    expect((await fedNamespaces.get(victim)).metadata.finalizers ?? []).toEqual([]);
    await fedNamespaces.delete(victim);
    await consistently(untouched, { durationMs: 2000, intervalMs: 100 });
  });

  it('never propagates an object in the kubefed namespace, and says why in its Propagation condition', async () => {
    const ns = await startControlPlane([NAMESPACES, CONFIG_MAPS]);
    const types = (resource: string) => fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource }, ns);
    const placement = { clusters: [{ name: 'member1' }] };
    await types('federatednamespaces').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: ns },
      spec: { placement },
    });
    await types('federatedconfigmaps').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'smuggled' },
      spec: { template: { data: { a: '1' } }, placement },
    });
    await expect
      .poll(async () => ((await types('federatedconfigmaps').get('smuggled')).status as { conditions?: unknown } | undefined)?.conditions, {
        timeout: 15_000,
        interval: 100,
      })
      .toEqual([
        expect.objectContaining({
          type: 'Propagation',
          status: 'False',
          reason: 'KubeFedNamespaceNotPropagated',
          message: `objects in the kubefed namespace "${ns}" are never propagated to member clusters`,
        }),
      ]);
    using member1 = clientFor(fed.member('member1'));
    const memberConfigMaps = member1.resource({ group: '', version: 'v1', resource: 'configmaps' }, ns);
    await consistently(async () => expect(await memberConfigMaps.get('smuggled').catch(() => undefined)).toBeUndefined(), {
      durationMs: 2000,
      intervalMs: 100,
    });
    expect((await types('federatedconfigmaps').get('smuggled')).metadata.finalizers ?? []).toEqual([]);
  });

  it('reports ClusterNotReady for a placed member that goes offline, and Propagation True again once it is back', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1', 'member2']));
    const status = async (): Promise<unknown> => (await objects.get(name)).status;
    await expect.poll(status, { timeout: 15_000, interval: 100 }).toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }] });

    const member2 = fed.member('member2');
    member2.faults.unreachable();
    try {
      await expect.poll(status, { timeout: 15_000, interval: 100 }).toMatchObject({
        conditions: [{ type: 'Propagation', status: 'False', reason: 'CheckClusters' }],
        clusters: [{ name: 'member1' }, { name: 'member2', status: 'ClusterNotReady' }],
      });
    } finally {
      member2.faults.restore();
    }
    await expect.poll(status, { timeout: 15_000, interval: 100 }).toMatchObject({
      conditions: [{ type: 'Propagation', status: 'True' }],
      clusters: [{ name: 'member1' }, { name: 'member2' }],
    });
  });

  it('sends jobs only to the member whose readiness changed: member1 gets none while member2 goes away and comes back', async () => {
    const jobs: RecordedJob[] = [];
    await startControlPlane([CLUSTER_ROLES], { resyncPeriodMs: 0, jobs });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1', 'member2']));
    const status = async (): Promise<unknown> => (await objects.get(name)).status;
    await expect.poll(status, { timeout: 15_000, interval: 100 }).toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }] });
    const toMember1 = (): SyncJob[] => jobs.filter((j) => j.name === name && j.cluster === 'member1');
    const before = toMember1().length;
    expect(before).toBeGreaterThan(0);
    // Without its version record no copy is known current, so a reconcile that dispatched to a
    // cluster would send it a job (a current copy gets none anyway): the jobs below tell the scope.
    const versions = fed.hostClient.resource({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'clusterpropagatedversions' });
    await expect.poll(() => versions.get(`clusterrole-${name}`), { timeout: 15_000, interval: 100 }).toBeDefined();
    await versions.delete(`clusterrole-${name}`);

    const member2 = fed.member('member2');
    member2.faults.unreachable();
    try {
      await expect.poll(status, { timeout: 15_000, interval: 100 }).toMatchObject({
        clusters: [{ name: 'member1' }, { name: 'member2', status: 'ClusterNotReady' }],
      });
    } finally {
      member2.faults.restore();
    }
    const toMember2 = jobs.filter((j) => j.name === name && j.cluster === 'member2').length;
    await expect.poll(status, { timeout: 15_000, interval: 100 }).toMatchObject({
      conditions: [{ type: 'Propagation', status: 'True' }],
      clusters: [{ name: 'member1' }, { name: 'member2' }],
    });
    expect(jobs.filter((j) => j.name === name && j.cluster === 'member2').length).toBeGreaterThan(toMember2);
    expect(toMember1()).toHaveLength(before);
    // A change of the object still goes to every member.
    await objects.patch(name, { spec: { template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] } } }, 'merge');
    await expect
      .poll(async () => (await inMember('member1', name))?.rules, { timeout: 15_000, interval: 100 })
      .toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }]);
    await expect
      .poll(async () => (await inMember('member2', name))?.rules, { timeout: 15_000, interval: 100 })
      .toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }]);
  });

  it('keeps the members Ready from their stored status across a restart until its first probes: no ClusterNotReady entry or event, no job', async () => {
    const jobs: RecordedJob[] = [];
    const ns = await startControlPlane([CLUSTER_ROLES], { resyncPeriodMs: 0, jobs });
    // Newly joined members are not Ready until their first probe (as in KubeFed): the object is
    // created once both are, so that any ClusterNotReady below comes from the restart.
    await expect
      .poll(async () => (await fed.hostClient.resource(KFC, ns).list()).items.filter(isReadyCluster).length, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe(2);
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1', 'member2']));
    const status = async (): Promise<unknown> => (await objects.get(name)).status;
    const propagated = { conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }, { name: 'member2' }] };
    await expect.poll(status, { timeout: 15_000, interval: 100 }).toMatchObject(propagated);
    const versions = fed.hostClient.resource({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'clusterpropagatedversions' });
    await expect.poll(() => versions.get(`clusterrole-${name}`), { timeout: 15_000, interval: 100 }).toBeDefined();

    // The new process's first probe of member1 takes over 4 s (/healthz, /version and Nodes, each
    // 1.5 s late, within a 10 s timeout): until it ends, member1's readiness is the one its
    // KubeFedCluster's status stores.
    await fed.hostClient.resource(KFCONFIG, ns).patch('kubefed', { spec: { clusterHealthCheck: { timeout: '10s' } } }, 'merge');
    const member1 = fed.member('member1');
    const lastProbe = async (): Promise<unknown> =>
      ((await fed.hostClient.resource(KFC, ns).get('member1')).status as { conditions: { lastProbeTime?: string }[] }).conditions[0]
        ?.lastProbeTime;
    const before = jobs.length;
    const seen = new Set<string>();
    const entries = async (): Promise<void> => {
      const clusters = ((await status()) as { clusters?: { name: string; status?: string }[] }).clusters ?? [];
      for (const c of clusters) seen.add(`${c.name}:${c.status ?? 'OK'}`);
    };
    member1.faults.latency(1500);
    try {
      await restarts.get(ns)?.();
      const restarted = await lastProbe();
      // Every status is looked at until a probe of the new process has ended: member1's
      // lastProbeTime (when a probe started, to the second) moved past the last one before.
      await expect
        .poll(
          async () => {
            await entries();
            return lastProbe();
          },
          { timeout: 30_000, interval: 100 },
        )
        .not.toBe(restarted);
    } finally {
      member1.faults.restore();
    }
    await consistently(entries, { durationMs: 1000, intervalMs: 100 });
    expect([...seen].sort()).toEqual(['member1:OK', 'member2:OK']);
    await expect.poll(status).toMatchObject(propagated);
    const reasons = (await fed.hostClient.resource(EVENTS).list()).items
      .filter((e) => (e['involvedObject'] as { name?: string }).name === name)
      .map((e) => e['reason']);
    expect(reasons).not.toContain('ClusterNotReady');
    expect(jobs.slice(before).filter((j) => j.name === name)).toEqual([]);
  });

  it('enqueues the jobs of a change at normal priority, none on a periodic resync while every copy is current, and low-priority ones once a resync finds work', async () => {
    const jobs: RecordedJob[] = [];
    const ns = await startControlPlane([CLUSTER_ROLES], { resyncPeriodMs: 300, jobs });
    // Created before member1 is Ready, the object's first job for member1 would come from the
    // readiness fan-out, at low priority, which is right but not what this test looks at.
    await expect
      .poll(async () => (await fed.hostClient.resource(KFC, ns).list()).items.filter(isReadyCluster).length, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe(2);
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    await fed.hostClient.resource(FED_CLUSTER_ROLES).create(federatedClusterRole(name, ['member1']));
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeDefined();
    const mine = (): RecordedJob[] => jobs.filter((j) => j.name === name);
    // The create's reconcile is normal (a resync that sees the new object first may run ahead of it, at low priority).
    expect(mine().some((j) => j.cluster === 'member1' && j.priority === 'normal')).toBe(true);
    const versions = fed.hostClient.resource({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'clusterpropagatedversions' });
    await expect.poll(() => versions.get(`clusterrole-${name}`), { timeout: 15_000, interval: 100 }).toBeDefined();
    await expect
      .poll(async () => (await fed.hostClient.resource(FED_CLUSTER_ROLES).get(name)).status, { timeout: 15_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }] });
    // Converged (once the watches have shown the writes): resyncs every 300 ms find the copy current in the caches and enqueue nothing.
    let seen = -1;
    const settled = (): boolean => {
      const same = mine().length === seen;
      seen = mine().length;
      return same;
    };
    await expect.poll(settled, { timeout: 15_000, interval: 700 }).toBe(true);
    const converged = mine().length;
    await consistently(() => expect(mine()).toHaveLength(converged), { durationMs: 1500, intervalMs: 100 });
    // Without its version record the copy is no longer known current: the next resync sends a job, at low priority.
    await versions.delete(`clusterrole-${name}`);
    await expect
      .poll(() => mine().filter((j) => j.cluster === 'member1' && j.priority === 'low').length, { timeout: 15_000, interval: 100 })
      .toBeGreaterThan(0);
    await expect.poll(() => versions.get(`clusterrole-${name}`).catch(() => undefined), { timeout: 15_000, interval: 100 }).toBeDefined();
    const from = mine().length;
    await fed.hostClient
      .resource(FED_CLUSTER_ROLES)
      .patch(name, { spec: { template: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] } } }, 'merge');
    await expect
      .poll(async () => (await inMember('member1', name))?.rules, { timeout: 15_000, interval: 100 })
      .toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }]);
    expect(
      mine()
        .slice(from)
        .some((j) => j.priority === 'normal'),
    ).toBe(true);
  });

  it('clears a recorded failure of a cluster the object left once the copy is gone, though no retry of it ran', async () => {
    const recorder = new StatusRecorder();
    await startControlPlane([CLUSTER_ROLES], { recorder, resyncPeriodMs: 0 });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1']));
    const status = async () => (await objects.get(name)).status;
    await expect
      .poll(status, { timeout: 15_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }] });
    // What a removal from member2 leaves when it failed and its retry was dropped while member2
    // was not Ready: member2 holds no copy, but its failure stays recorded (and in the status).
    const generation = (await objects.get(name)).metadata.generation;
    recorder.record({ federatedType: 'clusterroles.rbac.authorization.k8s.io', name }, 'member2', { status: 'DeletionFailed', generation });
    await expect
      .poll(status, { timeout: 15_000, interval: 100 })
      .toMatchObject({ clusters: [{ name: 'member1' }, { name: 'member2', status: 'DeletionFailed' }] });
    // The next reconcile of the object (here: an annotation) sends member2 a job that clears it.
    await objects.patch(name, { metadata: { annotations: { touched: 'yes' } } }, 'merge');
    await expect
      .poll(async () => ((await status()) as { clusters?: unknown } | undefined)?.clusters, { timeout: 15_000, interval: 100 })
      .toEqual([{ name: 'member1' }]);
    expect(await status()).toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }] });
  });

  it('keeps a deleted object until its placed clusters are Ready again, then removes their copies', async () => {
    const { name, objects } = await deleteWhileMember2Unreachable({}, async ({ name, objects }) => {
      await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeUndefined();
      await consistently(async () => expect((await objects.get(name)).metadata.finalizers).toContain('kubefed.io/sync-controller'), {
        durationMs: 1500,
        intervalMs: 100,
      });
    });
    await expect.poll(() => inMember('member2', name), { timeout: 15_000, interval: 100 }).toBeUndefined();
    await expect
      .poll(
        () =>
          objects.get(name).then(
            () => 'present',
            () => 'gone',
          ),
        { timeout: 15_000, interval: 100 },
      )
      .toBe('gone');
  });

  it('orphaning deletion does not wait for unready clusters: the Ready copies are unlabelled and the object goes', async () => {
    await deleteWhileMember2Unreachable({ 'kubefed.io/orphan': 'true' }, async ({ name, objects }) => {
      await expect
        .poll(
          () =>
            objects.get(name).then(
              () => 'present',
              () => 'gone',
            ),
          { timeout: 15_000, interval: 100 },
        )
        .toBe('gone');
      expect((await inMember('member1', name))?.metadata.labels?.['kubefed.io/managed']).toBeUndefined();
    });
  });

  it('repairs a member copy changed behind its back at the next resync', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    await fed.hostClient.resource(FED_CLUSTER_ROLES).create(federatedClusterRole(name, ['member1']));
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeDefined();

    using member1 = clientFor(fed.member('member1'));
    await member1
      .resource(MEMBER_CLUSTER_ROLES)
      .patch(name, { rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }] }, 'merge');
    await expect
      .poll(async () => (await inMember('member1', name))?.rules, { timeout: 10_000, interval: 100 })
      .toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
  });

  it('reverts a member copy changed or deleted by hand at once, without waiting for a resync', async () => {
    await startControlPlane([CLUSTER_ROLES], { resyncPeriodMs: 0 });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    await fed.hostClient.resource(FED_CLUSTER_ROLES).create(federatedClusterRole(name, ['member1']));
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeDefined();

    using member1 = clientFor(fed.member('member1'));
    // `rules` is not in the member watch's slim copy, and a ClusterRole has no generation: only
    // the copy's fingerprint tells this edit (sync/slim-member-copy.ts).
    await member1
      .resource(MEMBER_CLUSTER_ROLES)
      .patch(name, { rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }] }, 'merge');
    await expect
      .poll(async () => (await inMember('member1', name))?.rules, { timeout: 10_000, interval: 100 })
      .toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
    const uid = (await inMember('member1', name))?.metadata.uid;
    await member1.resource(MEMBER_CLUSTER_ROLES).delete(name);
    await expect
      .poll(
        async () => {
          const recreated = await inMember('member1', name);
          return recreated !== undefined && recreated.metadata.uid !== uid;
        },
        { timeout: 10_000, interval: 100 },
      )
      .toBe(true);
    expect(await inMember('member1', name)).toMatchObject({
      metadata: { labels: { 'kubefed.io/managed': 'true' } },
      rules: [{ resources: ['pods'] }],
    });
  });

  it('rewrites a member copy deleted and recreated by someone else with the same generation', async () => {
    await startControlPlane([NAMESPACES, DEPLOYMENTS]);
    const target = `app-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, target);
    const types = (resource: string) => fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource }, target);
    const placement = { clusters: [{ name: 'member1' }] };
    await types('federatednamespaces').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: target },
      spec: { placement },
    });
    const labels = { app: 'web' };
    await types('federateddeployments').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedDeployment',
      metadata: { name: 'web' },
      spec: {
        template: {
          spec: {
            replicas: 2,
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
          },
        },
        placement,
      },
    });
    await expect
      .poll(async () => ((await types('federateddeployments').get('web')).status as { conditions?: unknown } | undefined)?.conditions, {
        timeout: 20_000,
        interval: 100,
      })
      .toEqual([expect.objectContaining({ type: 'Propagation', status: 'True' })]);
    using member1 = clientFor(fed.member('member1'));
    const deployments = member1.resource({ group: 'apps', version: 'v1', resource: 'deployments' }, target);
    const original = await deployments.get('web');
    // Someone else deletes the copy and creates their own in its place: same metadata (so the
    // same generation), another spec. The sync may recreate its copy in between: try again.
    const metadata = {
      name: 'web',
      namespace: target,
      labels: original.metadata.labels ?? {},
      annotations: original.metadata.annotations ?? {},
    };
    const forged: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: { ...(original['spec'] as object), replicas: 7 },
    };
    const mine = await vi.waitFor(
      async () => {
        await deployments.delete('web').catch(() => undefined);
        return deployments.create(forged);
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(mine.metadata.generation).toBe(original.metadata.generation);
    await expect
      .poll(async () => ((await deployments.get('web'))['spec'] as { replicas?: number }).replicas, { timeout: 15_000, interval: 100 })
      .toBe(2);
    expect((await deployments.get('web')).metadata.uid).toBe(mine.metadata.uid);
    // The record keeps KubeFed's string; the uid of the copy now written is in the annotation beside it.
    const records = fed.hostClient.resource({ group: 'core.kubefed.io', version: 'v1alpha1', resource: 'propagatedversions' }, target);
    await expect
      .poll(async () => (await records.get('deployment-web')).metadata.annotations?.['kubefed.io/member-uids'], {
        timeout: 15_000,
        interval: 100,
      })
      .toBe(JSON.stringify({ member1: mine.metadata.uid }));
    const written = await deployments.get('web');
    expect((await records.get('deployment-web')).status).toMatchObject({
      clusterVersions: [{ clusterName: 'member1', version: `gen:${written.metadata.generation ?? 0}` }],
    });
  });

  describe('version records (PropagatedVersion)', () => {
    const UIDS = 'kubefed.io/member-uids';
    const PROPAGATED_VERSIONS = RESOURCES.propagatedVersions;
    type ClusterVersions = { clusterName: string; version: string }[] | undefined;
    const clusterVersions = (record: KubeObject | undefined): ClusterVersions =>
      (record?.status as { clusterVersions?: { clusterName: string; version: string }[] } | undefined)?.clusterVersions;

    /**
     * A FederatedDeployment `web` and a FederatedConfigMap `settings` placed on both members, in a
     * namespace of their own, propagated; with the control plane's kubefed namespace.
     */
    async function propagateDeploymentAndConfigMap(options: { jobs?: RecordedJob[] } = {}) {
      const ns = await startControlPlane([NAMESPACES, DEPLOYMENTS, CONFIG_MAPS], { resyncPeriodMs: 300, ...options });
      const target = `app-${randomUUID().slice(0, 8)}`;
      await createNamespace(fed.hostClient, target);
      const types = (resource: string) => fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource }, target);
      const placement = { clusters: [{ name: 'member1' }, { name: 'member2' }] };
      await types('federatednamespaces').create({
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedNamespace',
        metadata: { name: target },
        spec: { placement },
      });
      const labels = { app: 'web' };
      const deployment = {
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
        },
      };
      await types('federateddeployments').create({
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedDeployment',
        metadata: { name: 'web' },
        spec: { template: deployment, placement },
      });
      await types('federatedconfigmaps').create({
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedConfigMap',
        metadata: { name: 'settings' },
        spec: { template: { data: { color: 'blue' } }, placement },
      });
      for (const [resource, name] of [
        ['federateddeployments', 'web'],
        ['federatedconfigmaps', 'settings'],
      ] as const) {
        await expect
          .poll(async () => ((await types(resource).get(name)).status as { conditions?: unknown } | undefined)?.conditions, {
            timeout: 20_000,
            interval: 100,
          })
          .toEqual([expect.objectContaining({ type: 'Propagation', status: 'True' })]);
      }
      const clients = { member1: clientFor(fed.member('member1')), member2: clientFor(fed.member('member2')) };
      cleanups.push(() => Promise.resolve(Object.values(clients).forEach((c) => c[Symbol.dispose]())));
      const copies = async (resource: string, name: string, group = ''): Promise<Record<string, KubeObject>> => ({
        member1: await clients.member1.resource({ group, version: 'v1', resource }, target).get(name),
        member2: await clients.member2.resource({ group, version: 'v1', resource }, target).get(name),
      });
      const records = fed.hostClient.resource(PROPAGATED_VERSIONS, target);
      /** Normal events of `web` and `settings` that announce a member write. */
      const memberWrites = async (): Promise<string[]> =>
        (await fed.hostClient.resource(EVENTS, target).list()).items
          .map((e) => e as { involvedObject?: { name?: string }; type?: string; reason?: string; message?: string; count?: number })
          .filter((e) => ['web', 'settings'].includes(e.involvedObject?.name ?? '') && e.type === 'Normal')
          .filter((e) => e.reason === 'CreateInCluster' || e.reason === 'UpdateInCluster')
          .flatMap((e) => Array.from({ length: e.count ?? 1 }, () => `${e.reason ?? ''}: ${e.message ?? ''}`))
          .sort();
      return { ns, target, copies, records, memberWrites };
    }

    it('records exactly KubeFed’s strings, gen:<generation> for a Deployment and rv:<resourceVersion> for a ConfigMap, and the copies’ uids in an annotation of its own', async () => {
      const { copies, records } = await propagateDeploymentAndConfigMap();
      const deployments = await copies('deployments', 'web', 'apps');
      await expect
        .poll(async () => clusterVersions(await records.get('deployment-web')), { timeout: 15_000, interval: 100 })
        .toEqual([
          { clusterName: 'member1', version: `gen:${deployments['member1']?.metadata.generation ?? 0}` },
          { clusterName: 'member2', version: `gen:${deployments['member2']?.metadata.generation ?? 0}` },
        ]);
      const deploymentRecord = await records.get('deployment-web');
      expect(clusterVersions(deploymentRecord)?.map((v) => v.version)).toEqual(['gen:1', 'gen:1']);
      expect(JSON.parse(deploymentRecord.metadata.annotations?.[UIDS] ?? '{}')).toEqual({
        member1: deployments['member1']?.metadata.uid,
        member2: deployments['member2']?.metadata.uid,
      });
      const configMaps = await copies('configmaps', 'settings');
      await expect
        .poll(async () => clusterVersions(await records.get('configmap-settings')), { timeout: 15_000, interval: 100 })
        .toEqual([
          { clusterName: 'member1', version: `rv:${configMaps['member1']?.metadata.resourceVersion ?? ''}` },
          { clusterName: 'member2', version: `rv:${configMaps['member2']?.metadata.resourceVersion ?? ''}` },
        ]);
      expect((await records.get('configmap-settings')).metadata.annotations?.[UIDS]).toBeUndefined();
    });

    it('takes over a PropagatedVersion as KubeFed leaves it, with matching member copies, without a member write', async () => {
      const jobs: RecordedJob[] = [];
      const { ns, copies, records, memberWrites } = await propagateDeploymentAndConfigMap({ jobs });
      const deployments = await copies('deployments', 'web', 'apps');
      await expect
        .poll(async () => (await records.get('deployment-web')).metadata.annotations?.[UIDS], { timeout: 15_000, interval: 100 })
        .toBeDefined();
      // One create per copy: web and settings in both members.
      await expect
        .poll(async () => (await memberWrites()).filter((w) => w.startsWith('CreateInCluster: ')), { timeout: 15_000, interval: 100 })
        .toHaveLength(4);
      let kubefedRecord: ClusterVersions;
      let writes: string[] = [];
      await restarts.get(ns)?.(async () => {
        // Every write of the stopped process is in the events by now.
        writes = await memberWrites();
        // As KubeFed leaves the record: its strings, and no annotation of ours (it never writes one).
        const { [UIDS]: _ours, ...others } = (await records.get('deployment-web')).metadata.annotations ?? {};
        const record = await records.get('deployment-web');
        await records.update({ ...record, metadata: { ...record.metadata, annotations: others } });
        kubefedRecord = clusterVersions(await records.get('deployment-web'));
      });
      expect(kubefedRecord).toEqual([
        { clusterName: 'member1', version: `gen:${deployments['member1']?.metadata.generation ?? 0}` },
        { clusterName: 'member2', version: `gen:${deployments['member2']?.metadata.generation ?? 0}` },
      ]);
      const before = jobs.length;
      // Resyncs every 300 ms find every copy current by KubeFed's record: no job, no member write.
      await consistently(
        async () => {
          expect(await memberWrites()).toEqual(writes);
          expect(jobs.slice(before).filter((j) => j.name === 'web')).toEqual([]);
        },
        { durationMs: 3000, intervalMs: 200 },
      );
      expect(clusterVersions(await records.get('deployment-web'))).toEqual(kubefedRecord);
      expect((await copies('deployments', 'web', 'apps'))['member1']?.metadata.resourceVersion).toBe(
        deployments['member1']?.metadata.resourceVersion,
      );
      // The restarted control plane was at work all along: a copy deleted by hand comes back.
      const gone = (await copies('deployments', 'web', 'apps'))['member2'];
      using member2 = clientFor(fed.member('member2'));
      const copies2 = member2.resource({ group: 'apps', version: 'v1', resource: 'deployments' }, gone?.metadata.namespace);
      await copies2.delete('web');
      await expect
        .poll(async () => (await copies2.get('web').catch(() => undefined))?.metadata.uid ?? gone?.metadata.uid, {
          timeout: 15_000,
          interval: 100,
        })
        .not.toBe(gone?.metadata.uid);
    });

    it('reads the gen:<generation>/<uid> strings an older version wrote without a member write, and rewrites them in KubeFed’s form', async () => {
      const { ns, copies, records, memberWrites } = await propagateDeploymentAndConfigMap();
      const deployments = await copies('deployments', 'web', 'apps');
      await expect
        .poll(async () => (await records.get('deployment-web')).metadata.annotations?.[UIDS], { timeout: 15_000, interval: 100 })
        .toBeDefined();
      let writes: string[] = [];
      const older = ['member1', 'member2'].map((c) => ({
        clusterName: c,
        version: `gen:${deployments[c]?.metadata.generation ?? 0}/${deployments[c]?.metadata.uid ?? ''}`,
      }));
      await restarts.get(ns)?.(async () => {
        writes = await memberWrites();
        const { [UIDS]: _ours, ...others } = (await records.get('deployment-web')).metadata.annotations ?? {};
        const record = await records.get('deployment-web');
        const stripped = await records.update({ ...record, metadata: { ...record.metadata, annotations: others } });
        await records.updateStatus({ ...stripped, status: { ...(stripped.status as object), clusterVersions: older } });
      });
      await expect
        .poll(async () => clusterVersions(await records.get('deployment-web')), { timeout: 15_000, interval: 100 })
        .toEqual(older.map((v) => ({ ...v, version: v.version.slice(0, v.version.indexOf('/')) })));
      expect(JSON.parse((await records.get('deployment-web')).metadata.annotations?.[UIDS] ?? '{}')).toEqual({
        member1: deployments['member1']?.metadata.uid,
        member2: deployments['member2']?.metadata.uid,
      });
      await consistently(async () => expect(await memberWrites()).toEqual(writes), { durationMs: 2000, intervalMs: 200 });
    });
  });

  it('reports each member workload status as remoteStatus when the type collects status', async () => {
    await startControlPlane([NAMESPACES, { ...DEPLOYMENTS, statusCollection: true }]);
    const target = `app-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, target);
    const types = (resource: string) => fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource }, target);
    await types('federatednamespaces').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: target },
      spec: { placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] } },
    });
    const labels = { app: 'web' };
    await types('federateddeployments').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedDeployment',
      metadata: { name: 'web' },
      spec: {
        template: {
          spec: {
            replicas: 2,
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
          },
        },
        placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] },
        overrides: [{ clusterName: 'member2', clusterOverrides: [{ path: '/spec/replicas', value: 3 }] }],
      },
    });
    await expect
      .poll(async () => (await types('federateddeployments').get('web')).status, { timeout: 20_000, interval: 200 })
      .toMatchObject({
        conditions: [{ type: 'Propagation', status: 'True' }],
        clusters: [
          { name: 'member1', remoteStatus: { replicas: 2, readyReplicas: 2 } },
          { name: 'member2', remoteStatus: { replicas: 3, readyReplicas: 3 } },
        ],
      });
  });

  it('reports AlreadyExists with a Warning event for an unmanaged copy while adoption is disabled, and adopts it once enabled', async () => {
    const ns = await startControlPlane([CLUSTER_ROLES], { syncController: { adoptResources: 'Disabled' } });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    using member1 = clientFor(fed.member('member1'));
    await member1
      .resource(MEMBER_CLUSTER_ROLES)
      .create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [] });
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1']));
    await expect
      .poll(async () => (await objects.get(name)).status, { timeout: 15_000, interval: 100 })
      .toMatchObject({
        conditions: [{ type: 'Propagation', status: 'False', reason: 'CheckClusters' }],
        clusters: [{ name: 'member1', status: 'AlreadyExists' }],
      });
    await expect
      .poll(
        async () =>
          (await fed.hostClient.resource(EVENTS, 'default').list()).items.filter(
            (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
          ),
        {
          timeout: 10_000,
          interval: 100,
        },
      )
      .toContainEqual(
        expect.objectContaining({
          type: 'Warning',
          reason: 'CreateInClusterFailed',
          message: `Failed to create ClusterRole "${name}" in cluster "member1": Resource pre-exist in cluster`,
          source: { component: 'federatedclusterrole-controller' },
        }),
      );
    expect((await inMember('member1', name))?.metadata.labels?.['kubefed.io/managed']).toBeUndefined();

    await fed.hostClient.resource(KFCONFIG, ns).patch('kubefed', { spec: { syncController: { adoptResources: 'Enabled' } } }, 'merge');
    await expect
      .poll(async () => inMember('member1', name), { timeout: 15_000, interval: 100 })
      .toMatchObject({ metadata: { labels: { 'kubefed.io/managed': 'true' } }, rules: [{ resources: ['pods'] }] });
    await expect
      .poll(async () => (await objects.get(name)).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }] });
  });

  it('fails only the cluster whose override cannot be applied, with ApplyOverridesFailed and one Warning event, without retrying', async () => {
    await startControlPlane([CLUSTER_ROLES], { resyncPeriodMs: 600_000 });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    const obj = federatedClusterRole(name, ['member1', 'member2']);
    (obj.spec as { overrides: unknown[] }).overrides = [
      { clusterName: 'member2', clusterOverrides: [{ op: 'remove', path: '/no/such/field' }] },
    ];
    await objects.create(obj);
    await expect
      .poll(async () => (await objects.get(name)).status, { timeout: 15_000, interval: 100 })
      .toMatchObject({
        conditions: [{ type: 'Propagation', status: 'False', reason: 'CheckClusters' }],
        clusters: [{ name: 'member1' }, { name: 'member2', status: 'ApplyOverridesFailed' }],
      });
    expect(await inMember('member1', name)).toBeDefined();
    expect(await inMember('member2', name)).toBeUndefined();
    await expect
      .poll(
        async () =>
          (await fed.hostClient.resource(EVENTS, 'default').list()).items.filter(
            (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
          ),
        {
          timeout: 10_000,
          interval: 100,
        },
      )
      .toContainEqual(
        expect.objectContaining({
          type: 'Warning',
          reason: 'CreateInClusterFailed',
          message: expect.stringContaining(`Failed to create ClusterRole "${name}" in cluster "member2"`) as unknown,
        }),
      );
    // Retrying cannot heal a bad override: the event is not repeated (its count stays 1).
    const failureCounts = async (): Promise<number[]> =>
      (await fed.hostClient.resource(EVENTS, 'default').list()).items
        .filter(
          (e) =>
            (e as { involvedObject?: { name?: string } }).involvedObject?.name === name &&
            (e as { reason?: string }).reason === 'CreateInClusterFailed',
        )
        .map((e) => (e as { count?: number }).count ?? 1);
    await consistently(async () => expect(await failureCounts()).toEqual([1]), { durationMs: 3000, intervalMs: 200 });
  });

  it('keeps the clusterIP a member assigned to a Service when the template changes (field retention)', async () => {
    await startControlPlane([NAMESPACES, SERVICES]);
    const target = `app-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, target);
    const types = (resource: string) => fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource }, target);
    await types('federatednamespaces').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: target },
      spec: { placement: { clusters: [{ name: 'member1' }] } },
    });
    await types('federatedservices').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedService',
      metadata: { name: 'web' },
      spec: { template: { spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }, placement: { clusters: [{ name: 'member1' }] } },
    });
    using member1 = clientFor(fed.member('member1'));
    const service = () =>
      member1
        .resource({ group: '', version: 'v1', resource: 'services' }, target)
        .get('web')
        .catch(() => undefined);
    await expect
      .poll(async () => ((await service())?.spec as { clusterIP?: string } | undefined)?.clusterIP, { timeout: 15_000, interval: 100 })
      .toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const clusterIP = ((await service())?.spec as { clusterIP: string }).clusterIP;

    await types('federatedservices').patch(
      'web',
      { spec: { template: { spec: { selector: { app: 'web' }, ports: [{ port: 8080 }] } } } },
      'merge',
    );
    await expect
      .poll(async () => (await service())?.spec, { timeout: 15_000, interval: 100 })
      .toMatchObject({ clusterIP, ports: [{ port: 8080 }] });
    await expect
      .poll(async () => (await types('federatedservices').get('web')).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({ observedGeneration: 2, conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }] });
  });

  it("reports a member's huge copy status as omitted, so the federated object stays small, and the other member's status as it is", async () => {
    await startControlPlane([NAMESPACES, { ...SERVICES, statusCollection: true }]);
    const target = `app-${randomUUID().slice(0, 8)}`;
    await createNamespace(fed.hostClient, target);
    const types = (resource: string) => fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource }, target);
    const placement = { clusters: [{ name: 'member1' }, { name: 'member2' }] };
    await types('federatednamespaces').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: target },
      spec: { placement },
    });
    await types('federatedservices').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedService',
      metadata: { name: 'web' },
      spec: { template: { spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }, placement },
    });
    using member1 = clientFor(fed.member('member1'));
    const services = member1.resource({ group: '', version: 'v1', resource: 'services' }, target);
    await expect
      .poll(async () => (await services.get('web').catch(() => undefined))?.metadata.name, { timeout: 15_000, interval: 100 })
      .toBe('web');
    // member1's admin writes 300 KB into the copy's status: 3,000 load balancer ingress points.
    const ingress = Array.from({ length: 3000 }, (_, i) => ({
      hostname: `lb-${String(i).padStart(4, '0')}.${'x'.repeat(80)}.example.com`,
    }));
    await services.patch('web', { status: { loadBalancer: { ingress } } }, 'merge', { subresource: 'status' });
    await expect
      .poll(
        async () => {
          const status = (await types('federatedservices').get('web')).status as { clusters?: { name: string; remoteStatus?: unknown }[] };
          return status.clusters;
        },
        { timeout: 15_000, interval: 200 },
      )
      .toEqual([
        {
          name: 'member1',
          remoteStatus: {
            'kubefed.io/status-omitted': expect.stringMatching(/^the status of the copy is \d+ KiB as JSON, more than the 64 KiB/),
          },
        },
        { name: 'member2', remoteStatus: { loadBalancer: {} } },
      ]);
    expect(JSON.stringify(await types('federatedservices').get('web')).length).toBeLessThan(10_000);
  });

  it('places by clusterSelector on KubeFedCluster labels and follows label changes without a resync', async () => {
    const ns = await startControlPlane([CLUSTER_ROLES], { resyncPeriodMs: 0 });
    const clusters = fed.hostClient.resource(KFC, ns);
    await clusters.patch('member2', { metadata: { labels: { region: 'eu' } } }, 'merge');
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const obj = federatedClusterRole(name, []);
    (obj.spec as { placement: unknown }).placement = { clusterSelector: { matchLabels: { region: 'eu' } } };
    await fed.hostClient.resource(FED_CLUSTER_ROLES).create(obj);
    await expect.poll(() => inMember('member2', name), { timeout: 15_000, interval: 100 }).toBeDefined();
    expect(await inMember('member1', name)).toBeUndefined();

    await clusters.patch('member1', { metadata: { labels: { region: 'eu' } } }, 'merge');
    await clusters.patch('member2', { metadata: { labels: { region: null } } }, 'merge');
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeDefined();
    await expect.poll(() => inMember('member2', name), { timeout: 15_000, interval: 100 }).toBeUndefined();
  });

  it('explains an invalid cluster selector in the Propagation condition and a Warning event', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const obj = federatedClusterRole(name, []);
    (obj.spec as { placement: unknown }).placement = {
      clusterSelector: { matchExpressions: [{ key: 'region', operator: 'Near', values: ['eu'] }] },
    };
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(obj);
    await expect
      .poll(async () => ((await objects.get(name)).status as { conditions?: unknown[] } | undefined)?.conditions, {
        timeout: 15_000,
        interval: 100,
      })
      .toMatchObject([
        {
          type: 'Propagation',
          status: 'False',
          reason: 'ComputePlacementFailed',
          message: expect.stringContaining('spec.placement.clusterSelector') as unknown,
        },
      ]);
    await expect
      .poll(
        async () =>
          (await fed.hostClient.resource(EVENTS, 'default').list()).items.filter(
            (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toContainEqual(
        expect.objectContaining({
          type: 'Warning',
          reason: 'ComputePlacementFailed',
          message: expect.stringContaining('matchExpressions[0].operator') as unknown,
        }),
      );
  });

  it('propagates to the joined clusters of a placement that names an unknown one, and says so in a Warning event', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1', 'no-such-cluster']));
    await expect
      .poll(async () => (await objects.get(name)).status, { timeout: 15_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Propagation', status: 'True' }], clusters: [{ name: 'member1' }] });
    await expect
      .poll(
        async () =>
          (await fed.hostClient.resource(EVENTS, 'default').list()).items.filter(
            (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toContainEqual(
        expect.objectContaining({
          type: 'Warning',
          reason: 'ClusterNotJoined',
          message: expect.stringContaining('no-such-cluster') as unknown,
        }),
      );
  });

  it('reports a FederatedTypeConfig for a type the host does not serve as NotRunning with a reason, and starts once it is served', async () => {
    // namespaces: the sync controller of a namespaced type waits for its FederatedTypeConfig.
    const ns = await startControlPlane([NAMESPACES]);
    const suffix = randomUUID().slice(0, 8);
    const widgets: FederatedTypeOptions = {
      group: `w${suffix}.example.com`,
      version: 'v1',
      kind: 'Widget',
      pluralName: 'widgets',
      scope: 'Namespaced',
    };
    const ftcs = fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns);
    const ftc = buildFederatedTypeConfig(widgets, ns);
    await ftcs.create(ftc as unknown as KubeObject);
    const status = async (): Promise<unknown> => (await ftcs.get(ftc.metadata.name ?? '')).status;
    await expect.poll(status, { timeout: 15_000, interval: 100 }).toMatchObject({
      propagationController: 'NotRunning',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'TargetTypeNotFound',
          message: expect.stringContaining(
            `spec.targetType: the host API server does not serve widgets.w${suffix}.example.com/v1`,
          ) as unknown,
        },
      ],
    });
    const crds = fed.hostClient.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' });
    await crds.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.w${suffix}.example.com` },
      spec: {
        group: `w${suffix}.example.com`,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    await expect
      .poll(status, { timeout: 30_000, interval: 200 })
      .toMatchObject({ propagationController: 'NotRunning', conditions: [{ reason: 'FederatedTypeNotFound' }] });
    await crds.create(buildFederatedTypeCrd(widgets) as unknown as KubeObject);
    await expect
      .poll(status, { timeout: 30_000, interval: 200 })
      .toMatchObject({ propagationController: 'Running', conditions: [{ type: 'Ready', status: 'True', reason: 'TypesServed' }] });
  }, 90_000);

  it('refuses a FederatedTypeConfig whose federated type is not one (the target type itself) with Ready False InvalidSpec, and never touches those objects', async () => {
    const ns = await startControlPlane([]);
    const clusterRoles = {
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind: 'ClusterRole',
      pluralName: 'clusterroles',
      scope: 'Cluster',
    };
    const ftcs = fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns);
    await ftcs.create({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'FederatedTypeConfig',
      metadata: { name: 'clusterroles.rbac.authorization.k8s.io' },
      spec: { targetType: clusterRoles, federatedType: clusterRoles, propagation: 'Enabled' },
    });
    await expect
      .poll(async () => (await ftcs.get('clusterroles.rbac.authorization.k8s.io')).status, { timeout: 15_000, interval: 100 })
      .toMatchObject({
        propagationController: 'NotRunning',
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'InvalidSpec',
            message: expect.stringContaining(
              'spec.federatedType: clusterroles.rbac.authorization.k8s.io is the target type itself',
            ) as unknown,
          },
        ],
      });
    const hostRole = `victim-${randomUUID().slice(0, 8)}`;
    const hostRoles = fed.hostClient.resource(MEMBER_CLUSTER_ROLES);
    await hostRoles.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: hostRole }, rules: [] });
    await consistently(async () => expect((await hostRoles.get(hostRole)).metadata.finalizers ?? []).toEqual([]), {
      durationMs: 2000,
      intervalMs: 100,
    });
  });

  it('removes the managed label from a member object that has no federated object (a possible orphan), and never deletes it', async () => {
    await startControlPlane();
    const name = `orphan-${randomUUID().slice(0, 8)}`;
    using member1 = clientFor(fed.member('member1'));
    const roles = member1.resource(MEMBER_CLUSTER_ROLES);
    // The member watch must be running before the object appears: retry the create until it is reported.
    await roles.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name, labels: { 'kubefed.io/managed': 'true', keep: 'me' } },
      rules: [],
    });
    await expect
      .poll(
        async () => {
          const obj = await roles.get(name);
          if (obj.metadata.labels?.['kubefed.io/managed'] !== undefined)
            await roles.patch(name, { metadata: { annotations: { poke: randomUUID() } } }, 'merge');
          return obj.metadata.labels;
        },
        { timeout: 15_000, interval: 500 },
      )
      .toEqual({ keep: 'me' });
    expect(await inMember('member1', name)).toBeDefined();
  });

  it('pauses propagation while the PushReconciler feature gate is Disabled, and resumes when it is Enabled again', async () => {
    const ns = await startControlPlane();
    const ftcs = fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns);
    const ftcName = 'clusterroles.rbac.authorization.k8s.io';
    await expect
      .poll(async () => (await ftcs.get(ftcName)).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({ propagationController: 'Running' });
    const gate = (configuration: 'Enabled' | 'Disabled') =>
      fed.hostClient
        .resource(KFCONFIG, ns)
        .patch('kubefed', { spec: { featureGates: [{ name: 'PushReconciler', configuration }] } }, 'merge');
    await gate('Disabled');
    await expect
      .poll(async () => (await ftcs.get(ftcName)).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({
        propagationController: 'NotRunning',
        conditions: [{ type: 'Ready', status: 'False', reason: 'PushReconcilerDisabled' }],
      });
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    await fed.hostClient.resource(FED_CLUSTER_ROLES).create(federatedClusterRole(name, ['member1']));
    await consistently(async () => expect(await inMember('member1', name)).toBeUndefined(), { durationMs: 1500, intervalMs: 100 });
    await gate('Enabled');
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeDefined();
  });

  it('reports template annotations it cannot propagate as a Warning event AnnotationsNotSupported, and propagates the rest', async () => {
    await startControlPlane();
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const obj = federatedClusterRole(name, ['member1']);
    (obj.spec as { template: { metadata?: unknown } }).template.metadata = { annotations: { team: 'a' } };
    await fed.hostClient.resource(FED_CLUSTER_ROLES).create(obj);
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeDefined();
    await expect
      .poll(
        async () =>
          (await fed.hostClient.resource(EVENTS, 'default').list()).items.filter(
            (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'AnnotationsNotSupported' }));
  });

  it('stops the sync controller and releases its finalizer when the FederatedTypeConfig is deleted', async () => {
    const ns = await startControlPlane();
    const ftcs = fed.hostClient.resource(FEDERATED_TYPE_CONFIG_GVR, ns);
    const ftcName = 'clusterroles.rbac.authorization.k8s.io';
    await expect
      .poll(async () => (await ftcs.get(ftcName)).metadata.finalizers, { timeout: 10_000, interval: 100 })
      .toEqual(['core.kubefed.io/federated-type-config']);
    const name = `fcr-${randomUUID().slice(0, 8)}`;
    const objects = fed.hostClient.resource(FED_CLUSTER_ROLES);
    await objects.create(federatedClusterRole(name, ['member1']));
    await expect.poll(() => inMember('member1', name), { timeout: 15_000, interval: 100 }).toBeDefined();

    await ftcs.delete(ftcName);
    await expect
      .poll(
        () =>
          ftcs.get(ftcName).then(
            () => 'present',
            () => 'gone',
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toBe('gone');
    const other = `fcr-${randomUUID().slice(0, 8)}`;
    await objects.create(federatedClusterRole(other, ['member1']));
    await consistently(async () => expect(await inMember('member1', other)).toBeUndefined(), { durationMs: 1000, intervalMs: 100 });
    expect(await inMember('member1', name)).toBeDefined();
    await objects.delete(other);
    await objects.delete(name);
    await objects.patch(name, { metadata: { finalizers: null } }, 'merge');
  });
});
