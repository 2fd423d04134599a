import { randomUUID } from 'node:crypto';
import { buildFederatedTypeCrd, RESOURCES } from '@kubefed/api';
import type { DynamicClient, KubeObject } from '@kubefed/client';
import {
  DEFAULT_SCHEDULING_TARGETS,
  registerKubeFedClusterController,
  registerReplicaSchedulingController,
  ReplicaSchedulingPreferenceReconciler,
  RSP_GVR,
  staticHealthCheckSettings,
  type ClusterChangeDelays,
  type MemberFleet,
} from '@kubefed/controllers';
import { createLogger, Manager, Store, systemClock, type Clock } from '@kubefed/runtime';
import { planReplicas, schedulingResult, type PlanInput } from '@kubefed/scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientFor,
  consistently,
  createNamespace,
  type InProcessFederation,
  joinMember,
  kubeFedClusterCondition,
  startInProcessFederation,
} from '@kubefed/testing';

const KFC = RESOURCES.kubeFedClusters;

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const FDEPLOY = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federateddeployments' };
const FNS = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' };
const DEPLOY = { group: 'apps', version: 'v1', resource: 'deployments' };
const PODS = { group: '', version: 'v1', resource: 'pods' };
const RBAC = (resource: string) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });
const FAST = { periodMs: 200, timeoutMs: 1000, failureThreshold: 2, successThreshold: 1 };

let fed: InProcessFederation;

beforeAll(async () => {
  fed = await startInProcessFederation({ members: { member1: {}, member2: {}, member3: { podCapacity: 2 } } });
  const crds = fed.hostClient.resource(CRDS);
  const fdeploy = buildFederatedTypeCrd({
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    pluralName: 'deployments',
    scope: 'Namespaced',
    hasReplicas: true,
  });
  await crds.create(fdeploy as unknown as KubeObject);
  const fns = buildFederatedTypeCrd({ group: '', version: 'v1', kind: 'Namespace', pluralName: 'namespaces', scope: 'Cluster' });
  await crds.create(fns as unknown as KubeObject);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

interface Running extends AsyncDisposable {
  readonly fleet: MemberFleet;
}

/** Runs the cluster health controller and the RSP controller for the namespace-scoped plane `ns`, in process, both on `options.host` (default the host client; RSPs looked at every 500 ms unless `options` say otherwise). */
function runManager(
  ns: string,
  clock?: Clock,
  options: { resyncPeriodMs?: number; clusterChangeDelays?: ClusterChangeDelays; host?: DynamicClient } = {},
): Running {
  const manager = new Manager({ healthAddress: null, metricsAddress: null });
  const { fleet } = registerKubeFedClusterController(manager, {
    host: options.host ?? fed.hostClient,
    namespace: ns,
    settings: staticHealthCheckSettings(FAST),
  });
  registerReplicaSchedulingController(manager, {
    host: options.host ?? fed.hostClient,
    kubefedNamespace: ns,
    targetNamespace: ns,
    clusters: fleet,
    targets: { FederatedDeployment: { federated: FDEPLOY, member: DEPLOY } },
    resyncPeriodMs: options.resyncPeriodMs ?? 500,
    ...(options.clusterChangeDelays === undefined ? {} : { clusterChangeDelays: () => options.clusterChangeDelays as ClusterChangeDelays }),
    ...(clock === undefined ? {} : { clock }),
  });
  const stop = new AbortController();
  const finished = manager.start(stop.signal).then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  return {
    fleet,
    async [Symbol.asyncDispose]() {
      stop.abort();
      const err = await finished;
      if (err !== undefined) throw err;
    },
  };
}

/** A fresh namespace with the given members joined. */
async function plane(...members: string[]): Promise<string> {
  const ns = `rsp-${randomUUID().slice(0, 8)}`;
  await createNamespace(fed.hostClient, ns);
  for (const m of members) {
    await joinMember(fed, fed.member(m), ns);
    await grantFullAccess(m, ns);
  }
  return ns;
}

/** What `kubefedctl join` grants the member's service account: every verb on every resource. */
async function grantFullAccess(member: string, ns: string): Promise<void> {
  using m = clientFor(fed.member(member));
  const name = `kubefed-controller-manager-${ns}`;
  await m.resource(RBAC('clusterroles')).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  await m.resource(RBAC('clusterrolebindings')).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: `${member}-host`, namespace: ns }],
  });
}

async function createFederatedDeployment(ns: string, spec: Record<string, unknown> = {}): Promise<void> {
  await fed.hostClient.resource(FDEPLOY, ns).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedDeployment',
    metadata: { name: 'web' },
    spec: {
      template: {
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
        },
      },
      ...spec,
    },
  });
}

function memberDeployment(replicas: number): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    },
  };
}

async function createRsp(ns: string, spec: Record<string, unknown>): Promise<void> {
  await fed.hostClient
    .resource(RSP_GVR, ns)
    .create({ apiVersion: 'scheduling.kubefed.io/v1alpha1', kind: 'ReplicaSchedulingPreference', metadata: { name: 'web' }, spec });
}

interface Scheduled {
  placement: string[];
  replicas: Record<string, unknown>;
  overrides: unknown;
}

async function scheduled(ns: string): Promise<Scheduled> {
  const obj = await fed.hostClient.resource(FDEPLOY, ns).get('web');
  const spec = obj.spec as {
    placement?: { clusters?: { name: string }[] };
    overrides?: { clusterName: string; clusterOverrides?: { path: string; value?: unknown }[] }[];
  };
  const replicas: Record<string, unknown> = {};
  for (const e of spec.overrides ?? [])
    for (const o of e.clusterOverrides ?? []) if (o.path === '/spec/replicas') replicas[e.clusterName] = o.value;
  return { placement: (spec.placement?.clusters ?? []).map((c) => c.name), replicas, overrides: spec.overrides };
}

/** What the controller should write for `input` (the planner's own answer, not hand numbers). */
function expected(input: Omit<PlanInput, 'key'>, ns: string): Record<string, number> {
  return schedulingResult(planReplicas({ ...input, key: `${ns}/web` }), input.currentReplicas ?? {});
}

/** `client`, recording the resource of every list request made through it in `lists` (the requests go to kube-sim as they are). */
function recordingLists(client: DynamicClient, lists: string[]): DynamicClient {
  const forward = <T extends object>(target: T, prop: string | symbol): unknown => {
    const value: unknown = Reflect.get(target, prop);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  };
  return new Proxy(client, {
    get: (target, prop) =>
      prop !== 'resource'
        ? forward(target, prop)
        : (...args: Parameters<DynamicClient['resource']>) => {
            const resource = target.resource(...args);
            return new Proxy(resource, {
              get: (r, p) =>
                p !== 'list'
                  ? forward(r, p)
                  : (...listArgs: Parameters<typeof resource.list>) => {
                      lists.push(args[0].resource);
                      return r.list(...listArgs);
                    },
            });
          },
  });
}

const sum = (r: Record<string, unknown>): number => Object.values(r).reduce<number>((s, n) => s + (n as number), 0);

describe('replica scheduling controller against kube-sim', () => {
  it('splits totalReplicas 1:2 over two ready members and reports the plan in the RSP status', async () => {
    const ns = await plane('member1', 'member2');
    await createFederatedDeployment(ns);
    await createRsp(ns, {
      targetKind: 'FederatedDeployment',
      totalReplicas: 9,
      clusters: { member1: { weight: 1 }, member2: { weight: 2 } },
    });
    await using _running = runManager(ns);

    const want = expected(
      { totalReplicas: 9, clusters: { member1: { weight: 1 }, member2: { weight: 2 } }, availableClusters: ['member1', 'member2'] },
      ns,
    );
    await expect
      .poll(() => scheduled(ns), { timeout: 10_000, interval: 100 })
      .toMatchObject({ placement: ['member1', 'member2'], replicas: want });
    expect(sum(want)).toBe(9);
    await expect
      .poll(async () => (await fed.hostClient.resource(RSP_GVR, ns).get('web')).status, { timeout: 5000, interval: 100 })
      .toMatchObject({
        clusters: { member1: { replicas: want.member1 }, member2: { replicas: want.member2 } },
        conditions: [{ type: 'Scheduled', status: 'True', reason: 'Scheduled' }],
      });
  });

  it("respects min and max replicas and keeps the user's overrides on other paths", async () => {
    const ns = await plane('member1', 'member2');
    const image = { path: '/spec/template/spec/containers/0/image', value: 'nginx:2' };
    await createFederatedDeployment(ns, { overrides: [{ clusterName: 'member1', clusterOverrides: [image] }] });
    const clusters = { member1: { minReplicas: 4, weight: 1 }, member2: { maxReplicas: 2, weight: 5 } };
    await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 10, clusters });
    await using _running = runManager(ns);

    const want = expected({ totalReplicas: 10, clusters, availableClusters: ['member1', 'member2'] }, ns);
    expect(want.member1).toBeGreaterThanOrEqual(4);
    expect(want.member2).toBeLessThanOrEqual(2);
    await expect.poll(() => scheduled(ns), { timeout: 10_000, interval: 100 }).toMatchObject({ replicas: want });
    const { overrides } = await scheduled(ns);
    expect(overrides).toContainEqual({
      clusterName: 'member1',
      clusterOverrides: [image, { path: '/spec/replicas', value: want.member1 }],
    });
  });

  it('moves the replicas of a member that became unreachable to the others once it is not ready, keeping it placed with 0 replicas', async () => {
    const ns = await plane('member1', 'member2');
    await createFederatedDeployment(ns);
    await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 6 });
    await using running = runManager(ns);
    const both = expected({ totalReplicas: 6, clusters: { '*': { weight: 1 } }, availableClusters: ['member1', 'member2'] }, ns);
    await expect
      .poll(() => scheduled(ns), { timeout: 10_000, interval: 100 })
      .toMatchObject({ placement: ['member1', 'member2'], replicas: both });

    const member2 = fed.member('member2');
    member2.faults.unreachable();
    try {
      await expect.poll(() => running.fleet.isReady('member2'), { timeout: 10_000, interval: 100 }).toBe(false);
      await expect
        .poll(() => scheduled(ns), { timeout: 10_000, interval: 100 })
        .toEqual(expect.objectContaining({ placement: ['member1', 'member2'], replicas: { member1: 6, member2: 0 } }));
    } finally {
      member2.faults.restore();
    }
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member2', 'Ready'), { timeout: 10_000, interval: 100 })
      .toMatchObject({ status: 'True' });
    await expect
      .poll(() => scheduled(ns), { timeout: 10_000, interval: 100 })
      .toMatchObject({ placement: ['member1', 'member2'], replicas: both });
  });

  it('shares the KubeFedCluster informer with the health controller and reads it while a placed member is not ready: no KubeFedCluster list per reconcile', async () => {
    const ns = await plane('member1', 'member2');
    await createFederatedDeployment(ns);
    await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 6 });
    const lists: string[] = [];
    await using running = runManager(ns, undefined, { host: recordingLists(fed.hostClient, lists) });
    await expect.poll(() => scheduled(ns), { timeout: 10_000, interval: 100 }).toMatchObject({ placement: ['member1', 'member2'] });
    // The one list of the informer both controllers share.
    expect(lists.filter((r) => r === 'kubefedclusters')).toEqual(['kubefedclusters']);

    const member2 = fed.member('member2');
    member2.faults.unreachable();
    try {
      await expect.poll(() => running.fleet.isReady('member2'), { timeout: 10_000, interval: 100 }).toBe(false);
      await expect
        .poll(() => scheduled(ns), { timeout: 10_000, interval: 100 })
        .toMatchObject({ placement: ['member1', 'member2'], replicas: { member1: 6, member2: 0 } });
      // Reconciles go on every 500 ms; each keeps member2 placed, reading that it is registered from the cache.
      await consistently(() => expect(lists.filter((r) => r === 'kubefedclusters')).toHaveLength(1), {
        durationMs: 1500,
        intervalMs: 100,
      });
    } finally {
      member2.faults.restore();
    }
    await expect.poll(() => running.fleet.isReady('member2'), { timeout: 10_000, interval: 100 }).toBe(true);
  });

  it('re-divides after the cluster unavailable delay when a member stops being ready, and after the available delay when it is ready again', async () => {
    const ns = await plane('member1', 'member2');
    await createFederatedDeployment(ns);
    await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 6 });
    // No periodic look: only the readiness change re-reconciles the RSP.
    const delays = { availableDelayMs: 1500, unavailableDelayMs: 3000 };
    await using running = runManager(ns, undefined, { resyncPeriodMs: 600_000, clusterChangeDelays: delays });
    const even = expected({ totalReplicas: 6, clusters: { '*': { weight: 1 } }, availableClusters: ['member1', 'member2'] }, ns);
    await expect.poll(() => scheduled(ns), { timeout: 10_000, interval: 100 }).toMatchObject({ placement: ['member1', 'member2'] });

    const member2 = fed.member('member2');
    member2.faults.unreachable();
    let since: number;
    try {
      await expect.poll(() => running.fleet.isReady('member2'), { timeout: 10_000, interval: 50 }).toBe(false);
      since = Date.now();
      await expect
        .poll(() => scheduled(ns), { timeout: 15_000, interval: 50 })
        .toMatchObject({ placement: ['member1', 'member2'], replicas: { member1: 6, member2: 0 } });
      // The Fleet announced the change at most one poll interval before `since`.
      expect(Date.now() - since).toBeGreaterThanOrEqual(delays.unavailableDelayMs - 200);
    } finally {
      member2.faults.restore();
    }
    await expect.poll(() => running.fleet.isReady('member2'), { timeout: 10_000, interval: 50 }).toBe(true);
    since = Date.now();
    await expect.poll(() => scheduled(ns), { timeout: 15_000, interval: 50 }).toMatchObject({ replicas: even });
    expect(Date.now() - since).toBeGreaterThanOrEqual(delays.availableDelayMs - 200);
  });

  it('writes its status on a fresh read when someone else wrote the RSP after the cache saw it (a 409 on the status write)', async () => {
    const ns = await plane('member1', 'member2');
    await createFederatedDeployment(ns);
    await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 4 });
    const rsps = fed.hostClient.resource(RSP_GVR, ns);
    // The reconciler's cache holds this copy; a concurrent writer then labels the RSP.
    const cache = new Store();
    cache.upsert(await rsps.get('web'));
    await rsps.patch('web', { metadata: { labels: { team: 'payments' } } }, 'merge');

    const manager = new Manager({ healthAddress: null, metricsAddress: null });
    const { fleet } = registerKubeFedClusterController(manager, {
      host: fed.hostClient,
      namespace: ns,
      settings: staticHealthCheckSettings(FAST),
    });
    const stop = new AbortController();
    const finished = manager.start(stop.signal);
    try {
      await expect.poll(() => fleet.readyClusters().size, { timeout: 10_000, interval: 100 }).toBe(2);
      const lines: string[] = [];
      const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
      const reconciler = new ReplicaSchedulingPreferenceReconciler({
        host: fed.hostClient,
        preferences: cache,
        registeredClusters: new Store(),
        federatedNamespaceCache: { store: new Store(), hasSynced: () => true },
        clusters: fleet,
        targets: DEFAULT_SCHEDULING_TARGETS,
      });
      await reconciler.reconcile(`${ns}/web`, { logger, signal: stop.signal, attempt: 0 });

      const rsp = await rsps.get('web');
      expect(rsp.metadata.labels).toEqual({ team: 'payments' });
      expect(rsp.status).toMatchObject({
        clusters: { member1: { replicas: 2 }, member2: { replicas: 2 } },
        conditions: [{ type: 'Scheduled', status: 'True' }],
      });
      expect(lines.filter((l) => l.includes('cannot write ReplicaSchedulingPreference status'))).toEqual([]);
    } finally {
      stop.abort();
      await finished;
    }
  });

  it('lowers the capacity of a member whose pods have been unschedulable for over a minute', async () => {
    const ns = await plane('member1', 'member3');
    // member3 runs at most 2 pods: a member Deployment of 5 leaves 3 Pending (Unschedulable).
    using m3 = clientFor(fed.member('member3'));
    await m3.resource(DEPLOY, ns).create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 5,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
    await createFederatedDeployment(ns);
    await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 10, rebalance: true });
    // Two minutes ahead: the Pending pods count as unschedulable for longer than 60 s.
    await using _running = runManager(ns, { ...systemClock, now: () => Date.now() + 120_000 });

    const want = expected(
      {
        totalReplicas: 10,
        rebalance: true,
        clusters: { '*': { weight: 1 } },
        availableClusters: ['member1', 'member3'],
        currentReplicas: { member3: 2 },
        capacity: { member3: 2 },
      },
      ns,
    );
    await expect.poll(() => scheduled(ns), { timeout: 10_000, interval: 100 }).toMatchObject({ replicas: want });
    expect(want.member1).toBe(8);
  });

  it.each([
    [true, 'returns the replicas to the member once its capacity comes back'],
    [false, 'keeps the moved replicas where they are once its capacity comes back'],
  ])('with rebalance %s, moves replicas off a member short of capacity and %s', async (rebalance) => {
    const ns = await plane('member1', 'member2');
    const member2 = fed.member('member2');
    using m1 = clientFor(fed.member('member1'));
    using m2 = clientFor(member2);
    // member2 can run 2 more pods than it runs now: 3 replicas there leave one Pending.
    const pods = await m2.resource(PODS).list();
    const running = pods.items.filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running').length;
    member2.setPodCapacity(running + 2);
    try {
      const members = { member1: m1, member2: m2 };
      // What the sync controller would do: the member Deployments follow the scheduled replicas.
      const propagate = async (replicas: Record<string, unknown>): Promise<void> => {
        for (const [cluster, client] of Object.entries(members)) {
          const deployments = client.resource(DEPLOY, ns);
          const count = replicas[cluster] as number;
          const existing = await deployments.get('web').catch(() => undefined);
          if (existing === undefined) await deployments.create(memberDeployment(count));
          else await deployments.patch('web', { spec: { replicas: count } }, 'merge');
        }
      };
      const readyReplicas = async (cluster: keyof typeof members): Promise<number> =>
        ((await members[cluster].resource(DEPLOY, ns).get('web')).status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;
      await propagate({ member1: 3, member2: 3 });
      await expect.poll(() => readyReplicas('member2'), { timeout: 10_000, interval: 100 }).toBe(2);

      await createFederatedDeployment(ns);
      await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 6, rebalance });
      // Two minutes ahead: the Pending pod counts as unschedulable for longer than 60 s.
      const clock = { ...systemClock, now: () => Date.now() + 120_000 };
      await using first = runManager(ns, clock);

      const short = expected(
        {
          totalReplicas: 6,
          rebalance,
          clusters: { '*': { weight: 1 } },
          availableClusters: ['member1', 'member2'],
          currentReplicas: { member1: 3, member2: 2 },
          capacity: { member2: 2 },
        },
        ns,
      );
      expect(short.member1).toBe(4);
      await expect.poll(() => scheduled(ns), { timeout: 10_000, interval: 100 }).toMatchObject({ replicas: short });
      // Stopped while the members follow: looked at with 3 of member1's 4 pods ready, the planner
      // would keep those 3 and plan 3/3 (KubeFed's, with rebalance false).
      await first[Symbol.asyncDispose]();
      await propagate(short);
      await expect.poll(() => readyReplicas('member1'), { timeout: 10_000, interval: 100 }).toBe(4);

      // Capacity comes back: the Pending pod runs, no pod is unschedulable any more.
      member2.setPodCapacity(Infinity);
      await expect.poll(() => readyReplicas('member2'), { timeout: 10_000, interval: 100 }).toBe(short.member2);
      await using _second = runManager(ns, clock);
      const back = expected(
        {
          totalReplicas: 6,
          rebalance,
          clusters: { '*': { weight: 1 } },
          availableClusters: ['member1', 'member2'],
          currentReplicas: { member1: 4, member2: short.member2 ?? 0 },
        },
        ns,
      );
      if (rebalance) {
        expect(back).toEqual({ member1: 3, member2: 3 });
        await expect.poll(() => scheduled(ns), { timeout: 10_000, interval: 100 }).toMatchObject({ replicas: back });
      } else {
        expect(back.member1).toBe(4);
        // Several resyncs (every 500 ms) see the new capacity and keep the current replicas.
        await consistently(async () => expect((await scheduled(ns)).replicas).toEqual(short), { durationMs: 3000, intervalMs: 200 });
        expect((await fed.hostClient.resource(RSP_GVR, ns).get('web')).status).toMatchObject({
          conditions: [{ type: 'Scheduled', status: 'True' }],
        });
      }
    } finally {
      member2.setPodCapacity(Infinity);
    }
  });

  it('plans only over ready clusters matching the clusterSelector with intersectWithClusterSelector', async () => {
    const ns = await plane('member1', 'member2');
    const clusters = fed.hostClient.resource(KFC, ns);
    const m1 = await clusters.get('member1');
    await clusters.update({ ...m1, metadata: { ...m1.metadata, labels: { tier: 'gold' } } });
    await fed.hostClient.resource(FNS, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: ns },
      spec: { placement: { clusterSelector: {} } },
    });
    await createFederatedDeployment(ns, { placement: { clusterSelector: { matchLabels: { tier: 'gold' } } } });
    await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 4, intersectWithClusterSelector: true });
    await using _running = runManager(ns);
    await expect
      .poll(() => scheduled(ns), { timeout: 10_000, interval: 100 })
      .toMatchObject({ placement: ['member1'], replicas: { member1: 4 } });
    const obj = await fed.hostClient.resource(FDEPLOY, ns).get('web');
    expect((obj.spec as { placement: unknown }).placement).toEqual({
      clusterSelector: { matchLabels: { tier: 'gold' } },
      clusters: [{ name: 'member1' }],
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a negative totalReplicas', { targetKind: 'FederatedDeployment', totalReplicas: -5 }, 'spec.totalReplicas'],
    [
      'a negative weight',
      { targetKind: 'FederatedDeployment', totalReplicas: 3, clusters: { member1: { weight: -1 } } },
      'spec.clusters.member1.weight',
    ],
  ])('refuses %s at admission, naming the field, and touches nothing', async (_title, spec, path) => {
    const ns = await plane('member1');
    await createFederatedDeployment(ns);
    await using _running = runManager(ns);
    await expect(createRsp(ns, spec)).rejects.toThrow(path);
    await consistently(async () => expect(await scheduled(ns)).toMatchObject({ placement: [], replicas: {} }), {
      durationMs: 1000,
      intervalMs: 100,
    });
  });

  it('reports a bad targetKind as Scheduled False without touching the federated object', async () => {
    const ns = await plane('member1');
    await createFederatedDeployment(ns);
    await createRsp(ns, { targetKind: 'FederatedStatefulSet', totalReplicas: 3 });
    await using _running = runManager(ns);
    await expect
      .poll(async () => (await fed.hostClient.resource(RSP_GVR, ns).get('web')).status, { timeout: 5000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Scheduled', status: 'False', reason: 'InvalidTargetKind' }] });
    expect(await scheduled(ns)).toMatchObject({ placement: [], replicas: {} });
  });

  it('reports NamespaceNotFederated when intersectWithClusterSelector has no FederatedNamespace to intersect with', async () => {
    const ns = await plane('member1');
    await createFederatedDeployment(ns, { placement: { clusterSelector: {} } });
    await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 3, intersectWithClusterSelector: true });
    await using _running = runManager(ns);
    await expect
      .poll(async () => (await fed.hostClient.resource(RSP_GVR, ns).get('web')).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({ conditions: [{ type: 'Scheduled', status: 'False', reason: 'NamespaceNotFederated' }] });
    expect(await scheduled(ns)).toMatchObject({ placement: [], replicas: {} });
  });

  it('reports MissingSelector for a member workload whose pods cannot be counted, naming object and cluster', async () => {
    // member3 runs at most 2 pods: its 5 replicas are never all ready, so its pods must be counted, and there is no matchLabels.
    const ns = await plane('member3');
    using m1 = clientFor(fed.member('member3'));
    const member = memberDeployment(5);
    (member.spec as { selector: unknown }).selector = { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] };
    await m1.resource(DEPLOY, ns).create(member);
    await createFederatedDeployment(ns);
    await createRsp(ns, { targetKind: 'FederatedDeployment', totalReplicas: 3 });
    await using _running = runManager(ns);
    await expect
      .poll(async () => (await fed.hostClient.resource(RSP_GVR, ns).get('web')).status, { timeout: 10_000, interval: 100 })
      .toMatchObject({
        conditions: [
          {
            type: 'Scheduled',
            status: 'False',
            reason: 'MissingSelector',
            message: expect.stringContaining(`missing selector on object ${ns}/web in cluster "member3"`),
          },
        ],
      });
  });
});
