/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
/* eslint-disable no-restricted-imports -- the conformance suite checks kube-sim with the reference client */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { ConformanceTarget, Json, RawResponse, Substrate } from '../support/conformance-target.js';
import { configMap, deployment, expectCode, expectFailure } from '../support/fixtures.js';

const merge = 'application/merge-patch+json';
const jsonPatch = 'application/json-patch+json';
const strategic = 'application/strategic-merge-patch+json';
const apply = 'application/apply-patch+yaml';

/** Merge, JSON, strategic merge patch and server-side apply. */
export function patchConformance(substrate: Substrate): void {
  describe('patch', () => {
    let t: ConformanceTarget;
    let ns: string;
    beforeAll(async () => {
      t = await substrate.open('patch');
      ns = t.namespace;
    });
    afterAll(async () => {
      await t?.close();
    });

    const cm = (name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`;
    const deploy = (name: string): string => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;

    it('applies a JSON merge patch, deleting keys set to null', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'merge', { a: '1', b: '2' }, { keep: 'me' }) });
      const body = expectCode(
        await t.request('PATCH', cm('merge'), {
          contentType: merge,
          body: { data: { a: null, c: '3' }, metadata: { labels: { added: 'x' } } },
        }),
        200,
      );
      expect(body.data).toEqual({ b: '2', c: '3' });
      expect(body.metadata.labels).toEqual({ keep: 'me', added: 'x' });
    });

    it('answers a patch of a missing object with 404 NotFound', async () => {
      const status = expectFailure(await t.request('PATCH', cm('absent'), { contentType: merge, body: { data: {} } }), 404, 'NotFound');
      expect(status.details).toMatchObject({ name: 'absent', kind: 'configmaps' });
    });

    it('applies a JSON patch with add, replace, remove and a passing test', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'jsonpatch', { a: '1', b: '2' }) });
      const body = expectCode(
        await t.request('PATCH', cm('jsonpatch'), {
          contentType: jsonPatch,
          body: [
            { op: 'test', path: '/data/a', value: '1' },
            { op: 'replace', path: '/data/a', value: 'one' },
            { op: 'remove', path: '/data/b' },
            { op: 'add', path: '/data/c', value: '3' },
            { op: 'add', path: '/metadata/labels', value: { 'x/y': 'z' } },
          ],
        }),
        200,
      );
      expect(body.data).toEqual({ a: 'one', c: '3' });
      expect(body.metadata.labels).toEqual({ 'x/y': 'z' });
    });

    it('rejects a JSON patch whose test operation fails with 422 and leaves the object unchanged', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'jsontest', { a: '1' }) });
      const before = expectCode(await t.request('GET', cm('jsontest')), 200);
      const res = await t.request('PATCH', cm('jsontest'), {
        contentType: jsonPatch,
        body: [
          { op: 'test', path: '/data/a', value: '2' },
          { op: 'replace', path: '/data/a', value: 'changed' },
        ],
      });
      // kube-apiserver: NewGenericServerResponse(422) → reason Invalid.
      expectFailure(res, 422, 'Invalid');
      const after = expectCode(await t.request('GET', cm('jsontest')), 200);
      expect(after.data).toEqual({ a: '1' });
      expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    });

    it('rejects a JSON patch that is not an array with 400 BadRequest', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'jsonbad') });
      const res = await t.request('PATCH', cm('jsonbad'), { contentType: jsonPatch, body: { data: { a: '1' } } });
      expectFailure(res, 400, 'BadRequest');
    });

    it('rejects an unknown patch content type with 415 UnsupportedMediaType', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'badtype') });
      const res = await t.request('PATCH', cm('badtype'), { contentType: 'text/plain', body: 'data' });
      expectFailure(res, 415, 'UnsupportedMediaType');
    });

    it('merges a Deployment container list by name with a strategic merge patch', async () => {
      expectCode(await t.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(ns, 'smp') }), 201);
      const body = expectCode(
        await t.request('PATCH', deploy('smp'), {
          contentType: strategic,
          body: {
            metadata: { labels: { patched: 'yes' } },
            spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'registry.k8s.io/pause:3.10' }] } } },
          },
        }),
        200,
      );
      const containers = body.spec.template.spec.containers as Json[];
      expect(containers.map((c) => c.name)).toEqual(['app', 'sidecar']);
      expect(containers[0]).toMatchObject({ name: 'app', image: 'registry.k8s.io/pause:3.9' });
      expect(containers[1]).toMatchObject({ name: 'sidecar', image: 'registry.k8s.io/pause:3.10', args: ['--sidecar'] });
      expect(body.metadata.labels).toMatchObject({ app: 'smp', patched: 'yes' });
      expect(body.metadata.generation).toBe(2);
    });

    it('adds a container and deletes one by name with strategic merge directives', async () => {
      expectCode(await t.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(ns, 'smp-directives') }), 201);
      const body = expectCode(
        await t.request('PATCH', deploy('smp-directives'), {
          contentType: strategic,
          body: {
            spec: {
              template: {
                spec: {
                  containers: [
                    { name: 'sidecar', $patch: 'delete' },
                    { name: 'extra', image: 'registry.k8s.io/pause:3.9' },
                  ],
                },
              },
            },
          },
        }),
        200,
      );
      const names = (body.spec.template.spec.containers as Json[]).map((c) => c.name).sort();
      expect(names).toEqual(['app', 'extra']);
    });

    it('replaces a list wholesale with a merge patch, unlike strategic merge', async () => {
      expectCode(await t.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(ns, 'merge-list') }), 201);
      const body = expectCode(
        await t.request('PATCH', deploy('merge-list'), {
          contentType: merge,
          body: { spec: { template: { spec: { containers: [{ name: 'only', image: 'registry.k8s.io/pause:3.9' }] } } } },
        }),
        200,
      );
      expect((body.spec.template.spec.containers as Json[]).map((c) => c.name)).toEqual(['only']);
    });

    it('requires a fieldManager for server-side apply (422 Invalid PatchOptions)', async () => {
      // kube-apiserver validates PatchOptions first: field.Required("fieldManager") → 422 Invalid.
      const res = await t.request('PATCH', cm('applied'), { contentType: apply, body: configMap(ns, 'applied', { a: '1' }) });
      const status = expectFailure(res, 422, 'Invalid');
      expect(status.details).toMatchObject({ group: 'meta.k8s.io', kind: 'PatchOptions' });
      expect(status.details.causes).toEqual([expect.objectContaining({ reason: 'FieldValueRequired', field: 'fieldManager' })]);
    });

    it('creates and then updates an object with server-side apply', async () => {
      const created = await t.request('PATCH', `${cm('applied')}?fieldManager=conformance`, {
        contentType: apply,
        body: configMap(ns, 'applied', { a: '1' }),
      });
      expect(created.status).toBe(201);
      expect(created.json.data).toEqual({ a: '1' });
      const updated = expectCode(
        await t.request('PATCH', `${cm('applied')}?fieldManager=conformance`, {
          contentType: apply,
          body: configMap(ns, 'applied', { a: '2' }),
        }),
        200,
      );
      expect(updated.data).toEqual({ a: '2' });
      const managers = ((updated.metadata.managedFields ?? []) as Json[]).map((m) => `${m.manager}/${m.operation}`);
      expect(managers).toContain('conformance/Apply');
    });

    describe('field ownership', () => {
      const applyAs = (manager: string, body: Json, force = false): Promise<RawResponse> =>
        t.request('PATCH', `${cm(body.metadata.name)}?fieldManager=${manager}${force ? '&force=true' : ''}`, { contentType: apply, body });
      const managers = (obj: Json): Json[] =>
        ((obj.metadata.managedFields ?? []) as Json[]).map((m) => ({ manager: m.manager, operation: m.operation, fieldsV1: m.fieldsV1 }));

      it('records who applied which fields in managedFields, as FieldsV1 without the name', async () => {
        const body = {
          ...configMap(ns, 'owned', { a: '1', b: '2' }, { l: '1' }),
          metadata: { name: 'owned', labels: { l: '1' }, finalizers: ['conformance.kubefed.io/x'] },
        };
        const created = expectCode(await applyAs('alice', body), 201);
        expect(created.metadata.managedFields).toEqual([
          {
            manager: 'alice',
            operation: 'Apply',
            apiVersion: 'v1',
            time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:data': { 'f:a': {}, 'f:b': {} },
              'f:metadata': { 'f:finalizers': { 'v:"conformance.kubefed.io/x"': {} }, 'f:labels': { 'f:l': {} } },
            },
          },
        ]);
      });

      it('removes what a manager applied before and applies no longer', async () => {
        expectCode(
          await applyAs('alice', {
            ...configMap(ns, 'shrinks', { a: '1', b: '2' }),
            metadata: { name: 'shrinks', labels: { l: '1' }, finalizers: ['conformance.kubefed.io/x'] },
          }),
          201,
        );
        const shrunk = expectCode(await applyAs('alice', { ...configMap(ns, 'shrinks', { a: '1' }), metadata: { name: 'shrinks' } }), 200);
        expect(shrunk.data).toEqual({ a: '1' });
        expect(shrunk.metadata.labels).toBeUndefined();
        expect(shrunk.metadata.finalizers).toBeUndefined();
        expect(managers(shrunk)).toEqual([{ manager: 'alice', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } }]);
      });

      it('refuses to change a field another applier owns with 409, shares it at the same value, and takes it with force', async () => {
        expectCode(await applyAs('alice', configMap(ns, 'contested', { a: '1', b: '2' })), 201);
        const refused = expectFailure(await applyAs('bob', configMap(ns, 'contested', { a: '2' })), 409, 'Conflict');
        expect(refused.message).toBe('Apply failed with 1 conflict: conflict with "alice": .data.a');
        expect(refused.details).toEqual({
          causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' }],
        });
        const two = expectFailure(await applyAs('bob', configMap(ns, 'contested', { a: '2', b: '3' })), 409, 'Conflict');
        expect(two.message).toBe('Apply failed with 2 conflicts: conflicts with "alice":\n- .data.a\n- .data.b');
        const shared = expectCode(await applyAs('bob', configMap(ns, 'contested', { a: '1', c: '3' })), 200);
        expect(managers(shared)).toEqual([
          { manager: 'alice', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
          { manager: 'bob', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:c': {} } } },
        ]);
        // alice lets go of a: bob still applies it, so it stays.
        expect(expectCode(await applyAs('alice', configMap(ns, 'contested', { b: '2' })), 200).data).toEqual({ a: '1', b: '2', c: '3' });
        const forced = expectCode(await applyAs('carol', configMap(ns, 'contested', { b: '9' }), true), 200);
        expect(forced.data).toEqual({ a: '1', b: '9', c: '3' });
        expect(managers(forced).map((m) => [m.manager, Object.keys(m.fieldsV1['f:data']).sort()])).toEqual([
          ['bob', ['f:a', 'f:c']],
          ['carol', ['f:b']],
        ]);
      });

      it('records other writes as Update entries, whose fields an apply may not change without force', async () => {
        expectCode(
          await t.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldManager=creator`, {
            body: configMap(ns, 'updated', { a: '1' }),
          }),
          201,
        );
        const applied = expectCode(await applyAs('alice', configMap(ns, 'updated', { a: '1', b: '2' })), 200);
        expect(managers(applied)).toEqual([
          { manager: 'alice', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
          { manager: 'creator', operation: 'Update', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } },
        ]);
        const edited = expectCode(
          await t.request('PATCH', `${cm('updated')}?fieldManager=editor`, { contentType: merge, body: { data: { b: '9', c: '3' } } }),
          200,
        );
        expect(managers(edited)).toEqual([
          { manager: 'alice', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } },
          { manager: 'creator', operation: 'Update', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } },
          { manager: 'editor', operation: 'Update', fieldsV1: { 'f:data': { 'f:b': {}, 'f:c': {} } } },
        ]);
        const refused = expectFailure(await applyAs('alice', configMap(ns, 'updated', { a: '1', b: '2' })), 409, 'Conflict');
        expect(refused.message).toBe('Apply failed with 1 conflict: conflict with "editor" using v1: .data.b');
        // A PUT without fieldManager is named after the User-Agent: none here, so "unknown".
        const current = expectCode(await t.request('GET', cm('updated')), 200);
        const put = expectCode(await t.request('PUT', cm('updated'), { body: { ...current, data: { ...current.data, d: '4' } } }), 200);
        expect(managers(put).find((m) => m.manager === 'unknown')).toEqual({
          manager: 'unknown',
          operation: 'Update',
          fieldsV1: { 'f:data': { 'f:d': {} } },
        });
      });

      it('removes a container its manager stops applying and keeps one another manager added', async () => {
        const d = deployment(ns, 'owned-containers', 0);
        const path = `${deploy('owned-containers')}?fieldManager=alice`;
        expectCode(await t.request('PATCH', path, { contentType: apply, body: d }), 201);
        expectCode(
          await t.request('PATCH', `${deploy('owned-containers')}?fieldManager=bob`, {
            contentType: strategic,
            body: { spec: { template: { spec: { containers: [{ name: 'extra', image: 'registry.k8s.io/pause:3.9' }] } } } },
          }),
          200,
        );
        d.spec.template.spec.containers = [d.spec.template.spec.containers[0]];
        const shrunk = expectCode(await t.request('PATCH', path, { contentType: apply, body: d }), 200);
        // structured-merge-diff puts the items the configuration does not name first.
        expect((shrunk.spec.template.spec.containers as Json[]).map((c) => c.name)).toEqual(['extra', 'app']);
        const alice = (shrunk.metadata.managedFields as Json[]).find((m) => m.manager === 'alice');
        expect(Object.keys(alice.fieldsV1['f:spec']['f:template']['f:spec']['f:containers'])).toEqual(['k:{"name":"app"}']);
      });
    });

    it('sends merge and JSON patches through CustomObjectsApi', async () => {
      const custom = t.kc.makeApiClient(CustomObjectsApi);
      const base = { group: 'apps', version: 'v1', namespace: ns, plural: 'deployments' };
      await custom.createNamespacedCustomObject({ ...base, body: deployment(ns, 'client-patch') });
      const merged: Json = await custom.patchNamespacedCustomObject(
        { ...base, name: 'client-patch', body: { metadata: { labels: { via: 'merge' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(merged.metadata.labels).toMatchObject({ app: 'client-patch', via: 'merge' });
      const patched: Json = await custom.patchNamespacedCustomObject({
        ...base,
        name: 'client-patch',
        body: [{ op: 'replace', path: '/spec/replicas', value: 4 }],
      });
      expect(patched.spec.replicas).toBe(4);
      expect(patched.metadata.generation).toBe(2);
    });
  });
}
