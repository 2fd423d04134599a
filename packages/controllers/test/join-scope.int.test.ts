import { randomUUID } from 'node:crypto';
import { JOIN_SCOPE_ANNOTATION, RESOURCES } from '@kubefed/api';
import { registerKubeFedClusterController, type MemberFleet, type ControlPlaneScope } from '@kubefed/controllers';
import { Manager } from '@kubefed/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, type InProcessFederation, joinMember, kubeFedClusterCondition, startInProcessFederation } from '@kubefed/testing';

const KFC = RESOURCES.kubeFedClusters;

let fed: InProcessFederation;

beforeAll(async () => {
  fed = await startInProcessFederation({ members: { member1: {}, member2: {} } });
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

const FAST = { current: () => ({ periodMs: 200, timeoutMs: 1000, failureThreshold: 3, successThreshold: 1 }), onChange: () => () => {} };
const EVENTS = { group: '', version: 'v1', resource: 'events' };

interface Running extends AsyncDisposable {
  readonly fleet: MemberFleet;
}

/** Runs the cluster health controller for `namespace` as a control plane of `scope`. */
function runHealthController(namespace: string, scope: ControlPlaneScope): Running {
  const manager = new Manager({ healthAddress: null, metricsAddress: null });
  const { fleet } = registerKubeFedClusterController(manager, { host: fed.hostClient, namespace, settings: FAST, scope });
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

/** A fresh kubefed namespace with member1 and member2 joined; `joinScopes` annotates their KubeFedClusters. */
async function joined(joinScopes: Readonly<Record<string, string>>): Promise<string> {
  const ns = `kf-${randomUUID().slice(0, 8)}`;
  await createNamespace(fed.hostClient, ns);
  for (const name of ['member1', 'member2']) {
    await joinMember(fed, fed.member(name), ns);
    const scope = joinScopes[name];
    if (scope !== undefined)
      await fed.hostClient.resource(KFC, ns).patch(name, { metadata: { annotations: { [JOIN_SCOPE_ANNOTATION]: scope } } }, 'merge');
  }
  return ns;
}

describe('join scope against the running scope', () => {
  it('reports a member joined with Namespaced-scope RBAC as not Ready (JoinScopeMismatch) under a Cluster-scope control plane, and uses the others', async () => {
    const ns = await joined({ member1: 'Namespaced', member2: 'Cluster' });
    await using running = runHealthController(ns, 'Cluster');

    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'Ready'), { timeout: 10_000, interval: 100 })
      .toMatchObject({
        status: 'False',
        reason: 'JoinScopeMismatch',
        message: expect.stringContaining(
          `cluster member1 was joined for scope Namespaced (annotation kubefed.io/join-scope of KubeFedCluster ${ns}/member1) but the control plane runs with scope Cluster`,
        ) as unknown,
      });
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member2', 'Ready'), { timeout: 10_000, interval: 100 })
      .toMatchObject({ status: 'True' });
    expect([...running.fleet.readyClusters().keys()]).toEqual(['member2']);
    await expect
      .poll(
        async () =>
          (await fed.hostClient.resource(EVENTS, ns).list()).items
            .filter((e) => e['reason'] === 'JoinScopeMismatch')
            .map((e) => (e['involvedObject'] as { name: string }).name),
        {
          timeout: 10_000,
          interval: 100,
        },
      )
      .toEqual(['member1']);
  });

  it('reports a member joined with Cluster-scope RBAC under a Namespaced-scope control plane, and an annotation that names no scope', async () => {
    const ns = await joined({ member1: 'Cluster', member2: 'namespaced' });
    await using running = runHealthController(ns, 'Namespaced');

    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'Ready'), { timeout: 10_000, interval: 100 })
      .toMatchObject({ status: 'False', reason: 'JoinScopeMismatch' });
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member2', 'Ready'), { timeout: 10_000, interval: 100 })
      .toMatchObject({
        status: 'False',
        reason: 'JoinScopeMismatch',
        message: `cluster member2 has join scope "namespaced" (annotation kubefed.io/join-scope of KubeFedCluster ${ns}/member2), which is neither Cluster nor Namespaced: it is not used`,
      });
    expect(running.fleet.readyClusters().size).toBe(0);
  });

  it('takes a member without a join scope (a KubeFed join) as it is, and a corrected annotation makes the member Ready', async () => {
    const ns = await joined({ member2: 'Namespaced' });
    await using running = runHealthController(ns, 'Cluster');

    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'Ready'), { timeout: 10_000, interval: 100 })
      .toMatchObject({ status: 'True', reason: 'ClusterReady' });
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member2', 'Ready'), { timeout: 10_000, interval: 100 })
      .toMatchObject({ status: 'False', reason: 'JoinScopeMismatch' });

    await fed.hostClient.resource(KFC, ns).patch('member2', { metadata: { annotations: { [JOIN_SCOPE_ANNOTATION]: 'Cluster' } } }, 'merge');
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member2', 'Ready'), { timeout: 10_000, interval: 100 })
      .toMatchObject({ status: 'True', reason: 'ClusterReady' });
    await expect.poll(() => [...running.fleet.readyClusters().keys()], { timeout: 10_000, interval: 100 }).toEqual(['member1', 'member2']);
  });
});
