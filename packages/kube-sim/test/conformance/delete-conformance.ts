/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConformanceTarget, Json, Substrate } from '../support/conformance-target.js';
import { configMap, deployment, expectCode, expectFailure } from '../support/fixtures.js';

const poll = { timeout: 20_000, interval: 100 };

/** Delete: finalizers, propagation policies and the garbage collector, preconditions, collections, namespace termination. */
export function deleteConformance(substrate: Substrate): void {
  describe('delete', () => {
    let t: ConformanceTarget;
    let ns: string;
    beforeAll(async () => {
      t = await substrate.open('delete');
      ns = t.namespace;
    });
    afterAll(async () => {
      await t?.close();
    });

    const cms = (namespace = ns): string => `/api/v1/namespaces/${namespace}/configmaps`;
    const create = async (body: Json, namespace = ns): Promise<Json> => expectCode(await t.request('POST', cms(namespace), { body }), 201);
    const gone = async (path: string): Promise<void> => {
      await vi.waitFor(async () => {
        const res = await t.request('GET', path);
        expect(res.status, `${path} still exists`).toBe(404);
      }, poll);
    };
    const ownedBy = (owner: Json, blockOwnerDeletion = false): Json => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: owner.metadata.name,
      uid: owner.metadata.uid,
      ...(blockOwnerDeletion ? { blockOwnerDeletion: true } : {}),
    });

    it('deletes an object and answers with a Success Status or the object, then 404', async () => {
      await create(configMap(ns, 'plain'));
      const res = await t.request('DELETE', `${cms()}/plain`);
      expect(res.status).toBe(200);
      expect(['Status', 'ConfigMap']).toContain(res.json.kind);
      if (res.json.kind === 'Status') expect(res.json).toMatchObject({ status: 'Success', details: { name: 'plain', kind: 'configmaps' } });
      expectFailure(await t.request('GET', `${cms()}/plain`), 404, 'NotFound');
      expectFailure(await t.request('DELETE', `${cms()}/plain`), 404, 'NotFound');
    });

    it('keeps an object with finalizers, marked with deletionTimestamp, until the finalizers are removed', async () => {
      await create({ ...configMap(ns, 'held'), metadata: { name: 'held', namespace: ns, finalizers: ['conformance.kubefed.io/hold'] } });
      const res = await t.request('DELETE', `${cms()}/held`);
      const marked = expectCode(res, 200);
      expect(marked.kind).toBe('ConfigMap');
      expect(marked.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(marked.metadata.finalizers).toEqual(['conformance.kubefed.io/hold']);
      const got = expectCode(await t.request('GET', `${cms()}/held`), 200);
      expect(got.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
      expect(got.metadata.deletionGracePeriodSeconds).toBe(0);
      // A second delete keeps the first deletionTimestamp.
      const again = expectCode(await t.request('DELETE', `${cms()}/held`), 200);
      expect(again.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
      // New finalizers may not be added once deletion started; removing them completes the delete.
      const added = await t.request('PATCH', `${cms()}/held`, {
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: ['conformance.kubefed.io/hold', 'conformance.kubefed.io/late'] } },
      });
      expectFailure(added, 422, 'Invalid');
      expectCode(
        await t.request('PATCH', `${cms()}/held`, {
          contentType: 'application/merge-patch+json',
          body: { metadata: { finalizers: null } },
        }),
        200,
      );
      await gone(`${cms()}/held`);
    });

    it('has the token controller delete a service-account token Secret whose ServiceAccount does not exist, or is deleted', async () => {
      const tokenSecret = (name: string, sa: string): Json => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, annotations: { 'kubernetes.io/service-account.name': sa } },
        type: 'kubernetes.io/service-account-token',
      });
      const secrets = `/api/v1/namespaces/${ns}/secrets`;
      expectCode(await t.request('POST', secrets, { body: tokenSecret('orphan-token', 'nobody') }), 201);
      expectCode(
        await t.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
          body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'owner' } },
        }),
        201,
      );
      expectCode(await t.request('POST', secrets, { body: tokenSecret('owned-token', 'owner') }), 201);
      await vi.waitFor(async () => {
        expect((await t.request('GET', `${secrets}/orphan-token`)).status).toBe(404);
        const owned = expectCode(await t.request('GET', `${secrets}/owned-token`), 200);
        expect(owned.data?.token).toBeTruthy();
      }, poll);
      expect((await t.request('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/owner`)).status).toBe(200);
      await vi.waitFor(async () => {
        expect((await t.request('GET', `${secrets}/owned-token`)).status).toBe(404);
      }, poll);
    });

    it('deletes dependents in the background with propagationPolicy Background', async () => {
      const owner = await create(configMap(ns, 'bg-owner'));
      for (const name of ['bg-dep-1', 'bg-dep-2']) {
        await create({ ...configMap(ns, name), metadata: { name, namespace: ns, ownerReferences: [ownedBy(owner)] } });
      }
      const res = await t.request('DELETE', `${cms()}/bg-owner`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
      });
      expect(res.status).toBe(200);
      expectFailure(await t.request('GET', `${cms()}/bg-owner`), 404, 'NotFound');
      await gone(`${cms()}/bg-dep-1`);
      await gone(`${cms()}/bg-dep-2`);
    });

    it('orphans dependents with propagationPolicy Orphan, removing their ownerReference', async () => {
      const owner = await create(configMap(ns, 'orphan-owner'));
      await create({
        ...configMap(ns, 'orphan-dep'),
        metadata: { name: 'orphan-dep', namespace: ns, ownerReferences: [ownedBy(owner)] },
      });
      const res = await t.request('DELETE', `${cms()}/orphan-owner?propagationPolicy=Orphan`);
      expect(res.status).toBe(200);
      await gone(`${cms()}/orphan-owner`);
      await vi.waitFor(async () => {
        const dep = expectCode(await t.request('GET', `${cms()}/orphan-dep`), 200);
        expect(dep.metadata.ownerReferences ?? []).toEqual([]);
      }, poll);
      // Still there after the owner is gone.
      expectCode(await t.request('GET', `${cms()}/orphan-dep`), 200);
    });

    it('keeps the owner until its blocking dependents are gone with propagationPolicy Foreground', async () => {
      const owner = await create(configMap(ns, 'fg-owner'));
      await create({
        ...configMap(ns, 'fg-dep'),
        metadata: { name: 'fg-dep', namespace: ns, finalizers: ['conformance.kubefed.io/hold'], ownerReferences: [ownedBy(owner, true)] },
      });
      const res = await t.request('DELETE', `${cms()}/fg-owner`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' },
      });
      expect(res.status).toBe(200);
      const marked = expectCode(await t.request('GET', `${cms()}/fg-owner`), 200);
      expect(marked.metadata.deletionTimestamp).toBeTruthy();
      expect(marked.metadata.finalizers).toContain('foregroundDeletion');
      await vi.waitFor(async () => {
        const dep = expectCode(await t.request('GET', `${cms()}/fg-dep`), 200);
        expect(dep.metadata.deletionTimestamp).toBeTruthy();
      }, poll);
      expectCode(await t.request('GET', `${cms()}/fg-owner`), 200);
      await t.request('PATCH', `${cms()}/fg-dep`, {
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: null } },
      });
      await gone(`${cms()}/fg-dep`);
      await gone(`${cms()}/fg-owner`);
    });

    it('refuses a delete whose uid or resourceVersion precondition does not match with 409 Conflict naming the kind', async () => {
      const obj = await create(configMap(ns, 'precond'));
      const zero = '00000000-0000-0000-0000-000000000000';
      const byUid = await t.request('DELETE', `${cms()}/precond`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: zero } },
      });
      // kube-apiserver's rest.BeforeDelete names the kind where other conflicts name the resource.
      const status = expectFailure(byUid, 409, 'Conflict');
      expect(status.details).toEqual({ name: 'precond', kind: 'ConfigMap' });
      expect(status.message).toBe(
        `Operation cannot be fulfilled on ConfigMap "precond": the UID in the precondition (${zero}) does not match the UID in record (${obj.metadata.uid}). The object might have been deleted and then recreated`,
      );
      const byRv = await t.request('DELETE', `${cms()}/precond`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } },
      });
      expect(expectFailure(byRv, 409, 'Conflict').message).toBe(
        `Operation cannot be fulfilled on ConfigMap "precond": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${obj.metadata.resourceVersion}). The object might have been modified`,
      );
      expectCode(await t.request('GET', `${cms()}/precond`), 200);
      expectCode(await t.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(ns, 'precond') }), 201);
      const deploy = await t.request('DELETE', `/apis/apps/v1/namespaces/${ns}/deployments/precond`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: zero } },
      });
      const deployConflict = expectFailure(deploy, 409, 'Conflict');
      expect(deployConflict.details).toEqual({ name: 'precond', group: 'apps', kind: 'Deployment' });
      expect(deployConflict.message).toMatch(/^Operation cannot be fulfilled on Deployment\.apps "precond": the UID in the precondition/);
      const ok = await t.request('DELETE', `${cms()}/precond`, {
        body: {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          preconditions: { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion },
        },
      });
      expect(ok.status).toBe(200);
      await gone(`${cms()}/precond`);
    });

    it('takes the uid of a PUT body as a precondition (409) but refuses a PATCH that changes the uid as immutable (422)', async () => {
      const obj = await create(configMap(ns, 'uid-change', { a: '1' }));
      const zero = '00000000-0000-0000-0000-000000000000';
      const put = await t.request('PUT', `${cms()}/uid-change`, {
        body: { ...configMap(ns, 'uid-change'), metadata: { name: 'uid-change', uid: zero } },
      });
      const conflict = expectFailure(put, 409, 'Conflict');
      expect(conflict.details).toEqual({ name: 'uid-change', kind: 'configmaps' });
      // The real message embeds a StorageError with the etcd key, which depends on the etcd prefix.
      expect(conflict.message).toMatch(/^Operation cannot be fulfilled on configmaps "uid-change": /);
      expect(conflict.message).toContain(`Precondition failed: UID in precondition: ${zero}, UID in object meta: ${obj.metadata.uid}`);
      const patch = await t.request('PATCH', `${cms()}/uid-change`, {
        contentType: 'application/merge-patch+json',
        body: { metadata: { uid: zero } },
      });
      const invalid = expectFailure(patch, 422, 'Invalid');
      expect(invalid.details).toMatchObject({ name: 'uid-change', kind: 'ConfigMap' });
      expect(invalid.details.causes).toContainEqual({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${zero}": field is immutable`,
        field: 'metadata.uid',
      });
      expect(expectCode(await t.request('GET', `${cms()}/uid-change`), 200).metadata.uid).toBe(obj.metadata.uid);
    });

    it('deletes a collection selected by label and keeps the rest', async () => {
      const colNs = await t.createNamespace('conf-col');
      for (const [name, batch] of [
        ['c1', 'x'],
        ['c2', 'x'],
        ['c3', 'y'],
      ] as const) {
        await create(configMap(colNs, name, {}, { batch }), colNs);
      }
      const res = await t.request('DELETE', `${cms(colNs)}?labelSelector=batch%3Dx`);
      expect(res.status).toBe(200);
      await vi.waitFor(async () => {
        const list = expectCode(await t.request('GET', `${cms(colNs)}?labelSelector=batch`), 200);
        expect((list.items as Json[]).map((i) => i.metadata.name)).toEqual(['c3']);
      }, poll);
    });

    it.each(['default', 'kube-system', 'kube-public'])('refuses to delete the %s namespace with 403 Forbidden', async (name) => {
      const status = expectFailure(await t.request('DELETE', `/api/v1/namespaces/${name}`), 403, 'Forbidden');
      expect(status.message).toBe(`namespaces "${name}" is forbidden: this namespace may not be deleted`);
      expect(status.details).toEqual({ name, kind: 'namespaces' });
      const ns = expectCode(await t.request('GET', `/api/v1/namespaces/${name}`), 200);
      expect(ns.metadata.deletionTimestamp).toBeUndefined();
    });

    it('answers a deletecollection of namespaces with 405 MethodNotAllowed', async () => {
      // The selector matches nothing, should a server ever accept the request.
      const res = await t.request('DELETE', `/api/v1/namespaces?labelSelector=conformance.kubefed.io%2Fnone%3D${t.suffix}`);
      expectFailure(res, 405, 'MethodNotAllowed');
    });

    it('terminates a namespace: phase Terminating, no new content, contents removed, then gone', async () => {
      const doomed = await t.createNamespace('conf-doomed');
      await create(configMap(doomed, 'plain'), doomed);
      await create(
        { ...configMap(doomed, 'held'), metadata: { name: 'held', namespace: doomed, finalizers: ['conformance.kubefed.io/hold'] } },
        doomed,
      );
      const res = await t.request('DELETE', `/api/v1/namespaces/${doomed}`);
      expect(res.status).toBe(200);
      const marked = expectCode(await t.request('GET', `/api/v1/namespaces/${doomed}`), 200);
      expect(marked.status.phase).toBe('Terminating');
      expect(marked.metadata.deletionTimestamp).toBeTruthy();
      const refused = await t.request('POST', cms(doomed), { body: configMap(doomed, 'late') });
      const status = expectFailure(refused, 403, 'Forbidden');
      expect(String(status.message)).toContain('because it is being terminated');
      expect(status.details).toMatchObject({ name: 'late', kind: 'configmaps' });
      await gone(`${cms(doomed)}/plain`);
      const held = expectCode(await t.request('GET', `${cms(doomed)}/held`), 200);
      expect(held.metadata.deletionTimestamp).toBeTruthy();
      expectCode(await t.request('GET', `/api/v1/namespaces/${doomed}`), 200);
      await t.request('PATCH', `${cms(doomed)}/held`, {
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: null } },
      });
      await gone(`/api/v1/namespaces/${doomed}`);
    });
  });
}
