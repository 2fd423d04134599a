/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConformanceTarget, Json, Substrate } from '../support/conformance-target.js';
import { deployment, expectCode } from '../support/fixtures.js';

const poll = { timeout: 30_000, interval: 200 };
/** The alphabet of generated names and pod-template hashes (apimachinery's rand.SafeEncodeString). */
const safe = '[bcdfghjklmnpqrstvwxz2456789]';

/**
 * Deployments → ReplicaSets → Pods, as the deployment and replicaset controllers, the scheduler
 * and a kubelet (kwok on a real cluster) leave them. The pod-template-hash itself differs
 * (kube-apiserver hashes the defaulted Go struct), so only its shape is checked.
 */
export function workloadsConformance(substrate: Substrate): void {
  describe('workloads', () => {
    let t: ConformanceTarget;
    let ns: string;
    beforeAll(async () => {
      t = await substrate.open('workloads');
      ns = t.namespace;
    });
    afterAll(async () => {
      await t?.close();
    });

    const deploys = (): string => `/apis/apps/v1/namespaces/${ns}/deployments`;
    const replicaSets = async (app: string): Promise<Json[]> =>
      expectCode(await t.request('GET', `/apis/apps/v1/namespaces/${ns}/replicasets?labelSelector=app%3D${app}`), 200).items;
    const pods = async (app: string): Promise<Json[]> =>
      expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`), 200).items;
    const condition = (obj: Json, type: string): Json => (obj.status?.conditions as Json[] | undefined)?.find((c) => c.type === type);

    it('runs a Deployment through one ReplicaSet to Running pods and reports it available', async () => {
      const created = expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'web', 2) }), 201);
      const ready = await vi.waitFor(async () => {
        const d = expectCode(await t.request('GET', `${deploys()}/web`), 200);
        expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 });
        expect(condition(d, 'Progressing')?.reason).toBe('NewReplicaSetAvailable');
        return d;
      }, poll);
      expect(ready.metadata.generation).toBe(1);
      expect(ready.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
      expect(condition(ready, 'Available')).toMatchObject({
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      });
      expect(ready.status.unavailableReplicas).toBeUndefined();

      const [rs, ...others] = await replicaSets('web');
      expect(others).toEqual([]);
      const hash = rs.metadata.labels['pod-template-hash'] as string;
      expect(hash).toMatch(new RegExp(`^${safe}{1,10}$`));
      expect(rs.metadata.name).toBe(`web-${hash}`);
      expect(condition(ready, 'Progressing')).toMatchObject({
        status: 'True',
        message: `ReplicaSet "web-${hash}" has successfully progressed.`,
      });
      expect(rs.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(rs.metadata.annotations).toEqual({
        'deployment.kubernetes.io/desired-replicas': '2',
        'deployment.kubernetes.io/max-replicas': '3',
        'deployment.kubernetes.io/revision': '1',
      });
      expect(rs.metadata.ownerReferences).toEqual([
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true },
      ]);
      expect(rs.spec.replicas).toBe(2);
      expect(rs.spec.selector).toEqual({ matchLabels: { app: 'web', 'pod-template-hash': hash } });
      expect(rs.spec.template.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(rs.status).toMatchObject({
        replicas: 2,
        fullyLabeledReplicas: 2,
        readyReplicas: 2,
        availableReplicas: 2,
        observedGeneration: 1,
      });

      const running = await pods('web');
      expect(running).toHaveLength(2);
      for (const pod of running) {
        expect(pod.metadata.generateName).toBe(`web-${hash}-`);
        expect(pod.metadata.name).toMatch(new RegExp(`^web-${hash}-${safe}{5}$`));
        expect(pod.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
        expect(pod.metadata.ownerReferences).toEqual([
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: rs.metadata.name,
            uid: rs.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ]);
        expect(pod.spec.nodeName).toBeTruthy();
        expect(pod.status.phase).toBe('Running');
        expect(pod.status.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
        for (const type of ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'])
          expect(condition(pod, type)?.status, type).toBe('True');
        expect((pod.status.containerStatuses as Json[]).map((c) => [c.name, c.ready, Object.keys(c.state)])).toEqual([
          ['app', true, ['running']],
          ['sidecar', true, ['running']],
        ]);
      }
    });

    it('rolls a template change out to a new ReplicaSet and scales the old one to 0', async () => {
      expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'roll', 2) }), 201);
      await vi.waitFor(
        async () => expect(expectCode(await t.request('GET', `${deploys()}/roll`), 200).status?.availableReplicas).toBe(2),
        poll,
      );
      const [first] = await replicaSets('roll');
      expectCode(
        await t.request('PATCH', `${deploys()}/roll`, {
          contentType: 'application/strategic-merge-patch+json',
          body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } } },
        }),
        200,
      );
      const done = await vi.waitFor(async () => {
        const d = expectCode(await t.request('GET', `${deploys()}/roll`), 200);
        expect(d.status).toMatchObject({ observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2 });
        const sets = await replicaSets('roll');
        expect(sets.map((rs) => rs.status.replicas ?? 0).sort()).toEqual([0, 2]);
        expect((await pods('roll')).filter((p) => p.status.phase === 'Running')).toHaveLength(2);
        return { d, sets };
      }, poll);
      expect(done.d.metadata.annotations['deployment.kubernetes.io/revision']).toBe('2');
      const old = done.sets.find((rs) => rs.metadata.uid === first.metadata.uid);
      const next = done.sets.find((rs) => rs.metadata.uid !== first.metadata.uid);
      expect(old).toMatchObject({ spec: { replicas: 0 }, metadata: { annotations: { 'deployment.kubernetes.io/revision': '1' } } });
      expect(next).toMatchObject({ spec: { replicas: 2 }, metadata: { annotations: { 'deployment.kubernetes.io/revision': '2' } } });
      expect(next.spec.template.spec.containers[0].image).toBe('registry.k8s.io/pause:3.10');
      for (const pod of await pods('roll')) expect(pod.metadata.ownerReferences[0].uid).toBe(next.metadata.uid);
    });

    it('scales through the scale subresource', async () => {
      expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'scaled', 1) }), 201);
      const scale = expectCode(await t.request('GET', `${deploys()}/scaled/scale`), 200);
      expect(scale).toMatchObject({
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: { name: 'scaled', namespace: ns },
        spec: { replicas: 1 },
      });
      const stale = await t.request('PUT', `${deploys()}/scaled/scale`, {
        body: { ...scale, metadata: { ...scale.metadata, resourceVersion: '1' }, spec: { replicas: 3 } },
      });
      expect(stale.status).toBe(409);
      // The Scale carries the Deployment's resourceVersion, which status writes move on: a PUT
      // of an older read is (rightly) a 409, so read again until it meets the current version.
      await vi.waitFor(async () => {
        const current = expectCode(await t.request('GET', `${deploys()}/scaled/scale`), 200);
        expectCode(await t.request('PUT', `${deploys()}/scaled/scale`, { body: { ...current, spec: { replicas: 3 } } }), 200);
      }, poll);
      await vi.waitFor(async () => {
        const d = expectCode(await t.request('GET', `${deploys()}/scaled`), 200);
        expect(d.spec.replicas).toBe(3);
        expect(d.status).toMatchObject({ replicas: 3, availableReplicas: 3 });
        expect(expectCode(await t.request('GET', `${deploys()}/scaled/scale`), 200).status).toEqual({
          replicas: 3,
          selector: 'app=scaled',
        });
      }, poll);
      expect((await pods('scaled')).filter((p) => p.status.phase === 'Running')).toHaveLength(3);
    });

    it('deletes the ReplicaSets and Pods of a deleted Deployment', async () => {
      expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'doomed', 2) }), 201);
      await vi.waitFor(async () => expect(await pods('doomed')).toHaveLength(2), poll);
      expect((await t.request('DELETE', `${deploys()}/doomed`)).status).toBe(200);
      await vi.waitFor(async () => {
        expect(await replicaSets('doomed')).toEqual([]);
        expect(await pods('doomed')).toEqual([]);
      }, poll);
    });
  });
}
