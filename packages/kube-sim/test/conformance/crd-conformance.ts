/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
/* eslint-disable no-restricted-imports -- the conformance suite checks kube-sim with the reference client */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { ConformanceTarget, Json, Substrate } from '../support/conformance-target.js';
import { expectCode, expectFailure } from '../support/fixtures.js';
import { widget, widgetCrd, widgetGroup } from '../support/widget-crd.js';

const poll = { timeout: 20_000, interval: 100 };
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** CustomResourceDefinitions and their custom resources. */
export function crdConformance(substrate: Substrate): void {
  describe('custom resource definitions', () => {
    let t: ConformanceTarget;
    let ns: string;
    let group: string;
    let crdName: string;
    beforeAll(async () => {
      t = await substrate.open('crd');
      ns = t.namespace;
      group = widgetGroup(t.suffix);
      crdName = `widgets.${group}`;
      expectCode(await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCrd(group) }), 201);
      await vi.waitFor(async () => {
        const crd = expectCode(await t.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`), 200);
        const established = (crd.status?.conditions ?? []).find((c: Json) => c.type === 'Established');
        expect(established?.status).toBe('True');
        expectCode(await t.request('GET', `/apis/${group}/v1/namespaces/${ns}/widgets`), 200);
      }, poll);
    });
    afterAll(async () => {
      if (t?.real) await t.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`);
      await t?.close();
    });

    const widgets = (): string => `/apis/${group}/v1/namespaces/${ns}/widgets`;

    it('marks the CRD Established and NamesAccepted with the accepted names', async () => {
      const crd = expectCode(await t.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`), 200);
      const conditions = new Map<string, Json>((crd.status.conditions as Json[]).map((c) => [c.type, c]));
      expect(conditions.get('Established')).toMatchObject({ status: 'True' });
      expect(conditions.get('NamesAccepted')).toMatchObject({ status: 'True' });
      expect(crd.status.acceptedNames).toMatchObject({ plural: 'widgets', kind: 'Widget', singular: 'widget', shortNames: ['wdg'] });
      expect(crd.status.storedVersions).toEqual(['v1']);
    });

    it('offers no strategic merge patch for the custom resource or its status in OpenAPI v3 (kubectl apply picks its patch type there)', async () => {
      const doc = await vi.waitFor(async () => {
        const index = expectCode(await t.request('GET', '/openapi/v3'), 200);
        const url = index.paths?.[`apis/${group}/v1`]?.serverRelativeURL as string | undefined;
        expect(url).toBeDefined();
        return expectCode(await t.request('GET', url!), 200);
      }, poll);
      const patches = Object.entries(doc.paths as Record<string, Json>).filter(([, item]) => item.patch !== undefined);
      expect(patches.map(([path]) => path)).toEqual(
        expect.arrayContaining([
          `/apis/${group}/v1/namespaces/{namespace}/widgets/{name}`,
          `/apis/${group}/v1/namespaces/{namespace}/widgets/{name}/status`,
        ]),
      );
      for (const [path, item] of patches) {
        const types = Object.keys((item.patch.requestBody?.content ?? {}) as Record<string, unknown>);
        expect(types, path).toContain('application/merge-patch+json');
        expect(types, path).not.toContain('application/strategic-merge-patch+json');
      }
    });

    it('lists the custom resource in discovery', async () => {
      const groups = expectCode(await t.request('GET', '/apis'), 200);
      const entry = (groups.groups as Json[]).find((g) => g.name === group);
      expect(entry).toMatchObject({ preferredVersion: { groupVersion: `${group}/v1`, version: 'v1' } });
      const list = expectCode(await t.request('GET', `/apis/${group}/v1`), 200);
      const resources = new Map<string, Json>((list.resources as Json[]).map((r) => [r.name, r]));
      expect(resources.get('widgets')).toMatchObject({ namespaced: true, kind: 'Widget', singularName: 'widget', shortNames: ['wdg'] });
      expect(resources.get('widgets').verbs).toEqual(
        expect.arrayContaining(['create', 'get', 'list', 'watch', 'patch', 'update', 'delete']),
      );
      expect(resources.get('widgets/status')).toMatchObject({ namespaced: true, kind: 'Widget' });
    });

    it('creates a custom resource with generation 1, and lists and gets it', async () => {
      const created = expectCode(await t.request('POST', widgets(), { body: widget(group, ns, 'w1', { size: 3, color: 'red' }) }), 201);
      expect(created).toMatchObject({ apiVersion: `${group}/v1`, kind: 'Widget', spec: { size: 3, color: 'red' } });
      expect(created.metadata.generation).toBe(1);
      expect(created.metadata.uid).toBeTruthy();
      const list = expectCode(await t.request('GET', widgets()), 200);
      expect(list).toMatchObject({ kind: 'WidgetList', apiVersion: `${group}/v1` });
      expect((list.items as Json[]).map((i) => i.metadata.name)).toContain('w1');
      const missing = expectFailure(await t.request('GET', `${widgets()}/nope`), 404, 'NotFound');
      expect(missing.details).toMatchObject({ name: 'nope', group, kind: 'widgets' });
    });

    it.each([
      ['a wrong type', { size: 'big' }, 'spec.size', 'FieldValueTypeInvalid'],
      ['a missing required field', { color: 'red' }, 'spec.size', 'FieldValueRequired'],
      ['an enum violation', { size: 1, color: 'purple' }, 'spec.color', 'FieldValueNotSupported'],
      ['a minimum violation', { size: 0 }, 'spec.size', 'FieldValueInvalid'],
      ['a wrong item type', { size: 1, tags: [1] }, 'spec.tags[0]', 'FieldValueTypeInvalid'],
    ])('rejects %s with 422 Invalid naming the field', async (_label, spec, field, reason) => {
      const name = `bad-${field.replace(/[^a-z0-9]/g, '')}-${reason.toLowerCase().slice(10, 14)}`;
      const res = await t.request('POST', widgets(), { body: widget(group, ns, name, spec) });
      const status = expectFailure(res, 422, 'Invalid');
      expect(status.details).toMatchObject({ name, group, kind: 'Widget' });
      expect(status.details.causes).toEqual(expect.arrayContaining([expect.objectContaining({ field, reason })]));
      expect(String(status.message)).toContain(`Widget.${group} "${name}" is invalid`);
      expect(String(status.message)).toContain(field);
    });

    it('prunes unknown fields unless x-kubernetes-preserve-unknown-fields', async () => {
      const body = widget(group, ns, 'pruned', { size: 2, extra: 'dropped', free: { anything: { nested: [1, 2] } } });
      body.topLevel = 'dropped';
      const created = expectCode(await t.request('POST', widgets(), { body }), 201);
      expect(created.spec).toEqual({ size: 2, free: { anything: { nested: [1, 2] } } });
      expect(created.topLevel).toBeUndefined();
      const got = expectCode(await t.request('GET', `${widgets()}/pruned`), 200);
      expect(got.spec).toEqual(created.spec);
    });

    it('isolates the status subresource from the main endpoint', async () => {
      const created = expectCode(
        await t.request('POST', widgets(), { body: { ...widget(group, ns, 'st', { size: 1 }), status: { phase: 'Ignored' } } }),
        201,
      );
      expect(created.status?.phase).toBeUndefined();
      const viaStatus = expectCode(
        await t.request('PATCH', `${widgets()}/st/status`, {
          contentType: 'application/merge-patch+json',
          body: { spec: { size: 9 }, metadata: { labels: { fromStatus: 'yes' } }, status: { phase: 'Ready', observed: 1 } },
        }),
        200,
      );
      expect(viaStatus.spec.size).toBe(1);
      // Unlike most built-in kinds, a custom resource's /status changes nothing but status.
      expect(viaStatus.metadata.labels?.fromStatus).toBeUndefined();
      expect(viaStatus.status).toEqual({ phase: 'Ready', observed: 1 });
      expect(viaStatus.metadata.generation).toBe(1);
      const viaMain = expectCode(
        await t.request('PUT', `${widgets()}/st`, { body: { ...viaStatus, spec: { size: 5 }, status: { phase: 'Overwritten' } } }),
        200,
      );
      expect(viaMain.spec.size).toBe(5);
      expect(viaMain.status).toEqual({ phase: 'Ready', observed: 1 });
      expect(viaMain.metadata.generation).toBe(2);
      const invalidStatus = await t.request('PATCH', `${widgets()}/st/status`, {
        contentType: 'application/merge-patch+json',
        body: { status: { observed: 'many' } },
      });
      expectFailure(invalidStatus, 422, 'Invalid');
    });

    it('refuses a strategic merge patch on a custom resource with 415 UnsupportedMediaType', async () => {
      await t.request('POST', widgets(), { body: widget(group, ns, 'smp', { size: 1 }) });
      const res = await t.request('PATCH', `${widgets()}/smp`, {
        contentType: 'application/strategic-merge-patch+json',
        body: { spec: { size: 2 } },
      });
      expectFailure(res, 415, 'UnsupportedMediaType');
      const ok = await t.request('PATCH', `${widgets()}/smp`, { contentType: 'application/merge-patch+json', body: { spec: { size: 2 } } });
      expect(expectCode(ok, 200).spec.size).toBe(2);
    });

    it('rejects an invalid merge patch with 422 Invalid and keeps the object', async () => {
      await t.request('POST', widgets(), { body: widget(group, ns, 'patch-invalid', { size: 4 }) });
      const res = await t.request('PATCH', `${widgets()}/patch-invalid`, {
        contentType: 'application/merge-patch+json',
        body: { spec: { size: -1 } },
      });
      expectFailure(res, 422, 'Invalid');
      expect(expectCode(await t.request('GET', `${widgets()}/patch-invalid`), 200).spec.size).toBe(4);
    });

    it('answers JSON to a client that prefers protobuf, since custom resources have no protobuf encoding', async () => {
      await t.request('POST', widgets(), { body: widget(group, ns, 'negotiated', { size: 1 }) });
      const res = await t.request('GET', `${widgets()}/negotiated`, { accept: 'application/vnd.kubernetes.protobuf,application/json' });
      expect(res.status).toBe(200);
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
      expect(res.json).toMatchObject({ kind: 'Widget', metadata: { name: 'negotiated' } });
    });

    it('renders a Table with the additionalPrinterColumns', async () => {
      await t.request('POST', widgets(), { body: widget(group, ns, 'tbl', { size: 7, color: 'green' }) });
      const res = await t.request('GET', `${widgets()}?fieldSelector=metadata.name%3Dtbl`, { accept: tableAccept });
      const table = expectCode(res, 200);
      expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      expect((table.columnDefinitions as Json[]).map((c) => c.name)).toEqual(['Name', 'Size', 'Color', 'Age']);
      expect((table.columnDefinitions as Json[])[0]).toMatchObject({ type: 'string', format: 'name' });
      expect(table.rows).toHaveLength(1);
      const cells = table.rows[0].cells as Json[];
      expect(cells.slice(0, 3)).toEqual(['tbl', 7, 'green']);
      expect(typeof cells[3]).toBe('string');
      expect(table.rows[0].object).toMatchObject({ metadata: { name: 'tbl' } });
      const one = expectCode(await t.request('GET', `${widgets()}/tbl`, { accept: tableAccept }), 200);
      expect(one.kind).toBe('Table');
      expect(one.rows[0].cells.slice(0, 3)).toEqual(['tbl', 7, 'green']);
    });

    it("sends a null cell for a printer column without a value or of another type, and a string column's value as text", async () => {
      const g = `p${group}`;
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `gauges.${g}` },
        spec: {
          group: g,
          scope: 'Namespaced',
          names: { plural: 'gauges', singular: 'gauge', kind: 'Gauge', listKind: 'GaugeList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              additionalPrinterColumns: [
                { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
                { name: 'Color', type: 'string', jsonPath: '.spec.color' },
                { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
                { name: 'On', type: 'boolean', jsonPath: '.spec.on' },
                { name: 'When', type: 'date', jsonPath: '.spec.when' },
                { name: 'List', type: 'string', jsonPath: '.spec.list' },
                { name: 'First', type: 'string', jsonPath: '.spec.list[*]' },
                { name: 'Object', type: 'string', jsonPath: '.spec.obj' },
              ],
              schema: {
                openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
              },
            },
          ],
        },
      };
      expectCode(await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }), 201);
      try {
        const path = `/apis/${g}/v1/namespaces/${ns}/gauges`;
        const gauge = (name: string, spec: Json): Json => ({ apiVersion: `${g}/v1`, kind: 'Gauge', metadata: { name }, spec });
        await vi.waitFor(async () => {
          expectCode(await t.request('POST', path, { body: gauge('empty', {}) }), 201);
        }, poll);
        const mistyped = { size: 'big', color: 5, ratio: 'half', on: 'yes', when: 'soon', list: ['a', 'b'], obj: { k: 'v' } };
        expectCode(await t.request('POST', path, { body: gauge('mistyped', mistyped) }), 201);
        const table = expectCode(await t.request('GET', `${path}?includeObject=None`, { accept: tableAccept }), 200);
        const cells = new Map<string, Json[]>((table.rows as Json[]).map((r) => [r.cells[0], r.cells.slice(1)]));
        expect(cells.get('empty')).toEqual([null, null, null, null, null, null, null, null]);
        expect(cells.get('mistyped')).toEqual([null, '5', null, null, '<invalid>', '["a","b"]', 'a', '{"k":"v"}']);
      } finally {
        await t.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gauges.${g}`);
      }
    });

    it('serves custom resources through CustomObjectsApi with merge patch and status', async () => {
      const custom = t.kc.makeApiClient(CustomObjectsApi);
      const base = { group, version: 'v1', namespace: ns, plural: 'widgets' };
      await custom.createNamespacedCustomObject({ ...base, body: widget(group, ns, 'client', { size: 2 }) });
      const patched: Json = await custom.patchNamespacedCustomObject(
        { ...base, name: 'client', body: { spec: { color: 'blue' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(patched.spec).toEqual({ size: 2, color: 'blue' });
      const status: Json = await custom.patchNamespacedCustomObjectStatus(
        { ...base, name: 'client', body: { status: { phase: 'Done' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(status.status).toEqual({ phase: 'Done' });
      const list: Json = await custom.listNamespacedCustomObject({ ...base, labelSelector: '' });
      expect((list.items as Json[]).map((i) => i.metadata.name)).toContain('client');
    });

    it('watches custom resources from the list resourceVersion', async () => {
      const list = expectCode(await t.request('GET', widgets()), 200);
      const w = await t.watch(`${widgets()}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
      try {
        expect(w.status).toBe(200);
        await t.request('POST', widgets(), { body: widget(group, ns, 'watched', { size: 1 }) });
        await t.request('PATCH', `${widgets()}/watched`, { contentType: 'application/merge-patch+json', body: { spec: { size: 2 } } });
        await t.request('DELETE', `${widgets()}/watched`);
        const mine = (e: { object?: Json }) => e.object?.metadata?.name === 'watched';
        const events = [await w.until(mine), await w.until(mine), await w.until(mine)];
        expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
        expect(events[1]!.object).toMatchObject({ apiVersion: `${group}/v1`, kind: 'Widget', spec: { size: 2 } });
      } finally {
        w.close();
      }
    });

    it('lists and watches a namespaced custom resource across all namespaces', async () => {
      const other = await t.createNamespace('conf-crd-all');
      const all = `/apis/${group}/v1/widgets`;
      const list = expectCode(await t.request('GET', `${all}?labelSelector=across%3Dyes`), 200);
      expect(list).toMatchObject({ kind: 'WidgetList', items: [] });
      const w = await t.watch(`${all}?watch=1&labelSelector=across%3Dyes&resourceVersion=${list.metadata.resourceVersion}`);
      try {
        for (const namespace of [ns, other]) {
          const body = widget(group, namespace, 'across', { size: 1 });
          body.metadata.labels = { across: 'yes' };
          expectCode(await t.request('POST', `/apis/${group}/v1/namespaces/${namespace}/widgets`, { body }), 201);
        }
        const events = [await w.next(), await w.next()];
        expect(events.map((e) => `${e.type} ${e.object.metadata.namespace}`)).toEqual([`ADDED ${ns}`, `ADDED ${other}`]);
        const listed = expectCode(await t.request('GET', `${all}?labelSelector=across%3Dyes`), 200);
        expect((listed.items as Json[]).map((i) => i.metadata.namespace).sort()).toEqual([ns, other].sort());
      } finally {
        w.close();
      }
    });

    it('keeps a finalized custom resource until its finalizer is removed, without bumping generation', async () => {
      const body = widget(group, ns, 'finalized', { size: 1 });
      body.metadata.finalizers = ['kubefed.io/sync-controller'];
      const created = expectCode(await t.request('POST', widgets(), { body }), 201);
      const w = await t.watch(
        `${widgets()}?watch=1&fieldSelector=metadata.name%3Dfinalized&resourceVersion=${created.metadata.resourceVersion}`,
      );
      try {
        const labelled = expectCode(
          await t.request('PATCH', `${widgets()}/finalized`, {
            contentType: 'application/merge-patch+json',
            body: { metadata: { labels: { l: '1' } } },
          }),
          200,
        );
        expect(labelled.metadata.generation).toBe(1);
        const deleting = expectCode(await t.request('DELETE', `${widgets()}/finalized`), 200);
        expect(deleting.metadata.deletionTimestamp).toBeTruthy();
        const stale = await t.request('PUT', `${widgets()}/finalized/status`, { body: { ...created, status: { phase: 'Stale' } } });
        expectFailure(stale, 409, 'Conflict');
        const removed = await t.request('PATCH', `${widgets()}/finalized`, {
          contentType: 'application/json-patch+json',
          body: [{ op: 'remove', path: '/metadata/finalizers' }],
        });
        expect(removed.status).toBe(200);
        const types = [await w.next(), await w.next(), await w.next()].map((e) => e.type);
        expect(types).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
        expectFailure(await t.request('GET', `${widgets()}/finalized`), 404, 'NotFound');
      } finally {
        w.close();
      }
    });

    it('serves a cluster-scoped custom resource without a namespace', async () => {
      const crd = widgetCrd(`k${group}`);
      crd.metadata.name = `widgets.k${group}`;
      crd.spec.scope = 'Cluster';
      expectCode(await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }), 201);
      try {
        const path = `/apis/k${group}/v1/widgets`;
        await vi.waitFor(async () => {
          expectCode(await t.request('GET', path), 200);
        }, poll);
        const discovery = expectCode(await t.request('GET', `/apis/k${group}/v1`), 200);
        expect((discovery.resources as Json[]).find((r) => r.name === 'widgets')).toMatchObject({ namespaced: false });
        const body = { apiVersion: `k${group}/v1`, kind: 'Widget', metadata: { name: 'global' }, spec: { size: 1 } };
        const created = expectCode(await t.request('POST', path, { body }), 201);
        expect(created.metadata.namespace).toBeUndefined();
        expectCode(await t.request('GET', `${path}/global`), 200);
        expect((await t.request('GET', `/apis/k${group}/v1/namespaces/${ns}/widgets`)).status).toBe(404);
      } finally {
        await t.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.k${group}`);
      }
    });

    it('removes custom resources when their namespace is deleted', async () => {
      const doomed = await t.createNamespace('conf-crd-ns');
      const path = `/apis/${group}/v1/namespaces/${doomed}/widgets`;
      expectCode(await t.request('POST', path, { body: widget(group, doomed, 'inside', { size: 1 }) }), 201);
      expect((await t.request('DELETE', `/api/v1/namespaces/${doomed}`)).status).toBe(200);
      await vi.waitFor(async () => {
        expect((await t.request('GET', `/api/v1/namespaces/${doomed}`)).status).toBe(404);
      }, poll);
      expect((await t.request('GET', `${path}/inside`)).status).toBe(404);
    });

    it('refuses a CRD whose schema is not structural, naming each node', async () => {
      const crd = widgetCrd(`n${group}`);
      crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size = { minimum: 1 };
      crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags = { type: 'array' };
      const res = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
      const status = expectCode(res, 422);
      // One version: kube-apiserver names the schema by its internal path, spec.validation.
      const base = 'spec.validation.openAPIV3Schema.properties[spec]';
      expect(status.details.causes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            reason: 'FieldValueRequired',
            field: `${base}.properties[size].type`,
            message: 'Required value: must not be empty for specified object fields',
          }),
          expect.objectContaining({ reason: 'FieldValueRequired', field: `${base}.properties[tags].items` }),
        ]),
      );
    });

    it('removes the objects and the discovery entry when the CRD is deleted', async () => {
      const g2 = `d${group}`;
      const name = `widgets.${g2}`;
      expectCode(await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCrd(g2) }), 201);
      const path = `/apis/${g2}/v1/namespaces/${ns}/widgets`;
      await vi.waitFor(async () => {
        expectCode(await t.request('POST', path, { body: widget(g2, ns, 'doomed', { size: 1 }) }), 201);
      }, poll);
      expect((await t.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).status).toBe(200);
      await vi.waitFor(async () => {
        expect((await t.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).status).toBe(404);
      }, poll);
      await vi.waitFor(async () => {
        expect((await t.request('GET', `/apis/${g2}/v1`)).status).toBe(404);
        const groups = expectCode(await t.request('GET', '/apis'), 200);
        expect((groups.groups as Json[]).map((g) => g.name)).not.toContain(g2);
        expect((await t.request('GET', path)).status).toBe(404);
      }, poll);
      // Re-creating the CRD must not resurrect the old objects.
      expectCode(await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCrd(g2) }), 201);
      await vi.waitFor(async () => {
        const list = expectCode(await t.request('GET', path), 200);
        expect(list.items).toEqual([]);
      }, poll);
      await t.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    });
  });
}
