/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
/* eslint-disable no-restricted-imports -- the conformance suite checks kube-sim with the reference client */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { ConformanceTarget, Json, Substrate } from '../support/conformance-target.js';
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
        await t.request('PATCH', cm('merge'), { contentType: merge, body: { data: { a: null, c: '3' }, metadata: { labels: { added: 'x' } } } }),
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
        await t.request('PATCH', `${cm('applied')}?fieldManager=conformance`, { contentType: apply, body: configMap(ns, 'applied', { a: '2' }) }),
        200,
      );
      expect(updated.data).toEqual({ a: '2' });
      const managers = ((updated.metadata.managedFields ?? []) as Json[]).map((m) => `${m.manager}/${m.operation}`);
      expect(managers).toContain('conformance/Apply');
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
