/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
/* eslint-disable no-restricted-imports -- the conformance suite checks kube-sim with the reference client */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Watch } from '@kubernetes/client-node';
import type { ConformanceTarget, Json, Substrate, WatchEvent, WatchStream } from '../support/conformance-target.js';
import { configMap, expectCode, rvNumber } from '../support/fixtures.js';

const merge = 'application/merge-patch+json';

/** Watch streams: event order, initial state, selectors, bookmarks, timeouts, client-node Watch. */
export function watchConformance(substrate: Substrate): void {
  describe('watch', () => {
    let t: ConformanceTarget;
    const open: WatchStream[] = [];
    beforeAll(async () => {
      t = await substrate.open('watch');
    });
    afterAll(async () => {
      for (const w of open) w.close();
      await t?.close();
    });

    const watch = async (path: string): Promise<WatchStream> => {
      const w = await t.watch(path);
      open.push(w);
      expect(w.status).toBe(200);
      return w;
    };
    const ofName = (name: string) => (e: WatchEvent) => e.object?.metadata?.name === name;

    it('delivers ADDED, MODIFIED and DELETED in order from the list resourceVersion', async () => {
      const ns = await t.createNamespace('conf-w1');
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const list = expectCode(await t.request('GET', base), 200);
      const w = await watch(`${base}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
      expect(String(w.headers['content-type'])).toMatch(/^application\/json/);
      const created = expectCode(await t.request('POST', base, { body: configMap(ns, 'w', { v: '1' }) }), 201);
      const updated = expectCode(await t.request('PATCH', `${base}/w`, { contentType: merge, body: { data: { v: '2' } } }), 200);
      expect((await t.request('DELETE', `${base}/w`)).status).toBe(200);
      const events = [await w.until(ofName('w')), await w.until(ofName('w')), await w.until(ofName('w'))];
      expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(events[0]!.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { v: '1' } });
      expect(events[0]!.object.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      expect(events[1]!.object.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
      expect(events[2]!.object).toMatchObject({ kind: 'ConfigMap', data: { v: '2' }, metadata: { uid: created.metadata.uid } });
      const rvs = events.map((e) => rvNumber(e.object.metadata.resourceVersion));
      expect(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!).toBe(true);
      expect(rvNumber(list.metadata.resourceVersion) < rvs[0]!).toBe(true);
    });

    it.each([
      ['without resourceVersion', ''],
      ['with resourceVersion=0', '&resourceVersion=0'],
    ])('starts %s with a synthetic ADDED per existing object', async (_label, query) => {
      const ns = await t.createNamespace('conf-w2');
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      for (const name of ['e1', 'e2']) await t.request('POST', base, { body: configMap(ns, name, {}, { set: 'existing' }) });
      const w = await watch(`${base}?watch=true&labelSelector=set%3Dexisting${query}`);
      const first = [await w.next(), await w.next()];
      expect(first.map((e) => e.type)).toEqual(['ADDED', 'ADDED']);
      expect(first.map((e) => e.object.metadata.name).sort()).toEqual(['e1', 'e2']);
      await t.request('POST', base, { body: configMap(ns, 'e3', {}, { set: 'existing' }) });
      const third = await w.next();
      expect(third).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'e3' } } });
    });

    it('filters by label selector, sending DELETED when an object stops matching and ADDED when it starts', async () => {
      const ns = await t.createNamespace('conf-w3');
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const list = expectCode(await t.request('GET', base), 200);
      const w = await watch(`${base}?watch=1&labelSelector=team%3Dblue&resourceVersion=${list.metadata.resourceVersion}`);
      await t.request('POST', base, { body: configMap(ns, 'red', {}, { team: 'red' }) });
      await t.request('POST', base, { body: configMap(ns, 'blue', {}, { team: 'blue' }) });
      const relabelled = expectCode(
        await t.request('PATCH', `${base}/blue`, { contentType: merge, body: { metadata: { labels: { team: 'green' } } } }),
        200,
      );
      await t.request('PATCH', `${base}/red`, { contentType: merge, body: { metadata: { labels: { team: 'blue' } } } });
      const events = [await w.next(), await w.next(), await w.next()];
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED blue', 'DELETED blue', 'ADDED red']);
      // The DELETED event carries the last state that matched, with the resourceVersion of the change.
      expect(events[1]!.object.metadata.labels).toEqual({ team: 'blue' });
      expect(events[1]!.object.metadata.resourceVersion).toBe(relabelled.metadata.resourceVersion);
    });

    it('sends BOOKMARK events with a resourceVersion when allowWatchBookmarks is set', async () => {
      const ns = await t.createNamespace('conf-w4');
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const list = expectCode(await t.request('GET', base), 200);
      const w = await watch(`${base}?watch=1&allowWatchBookmarks=true&timeoutSeconds=6&resourceVersion=${list.metadata.resourceVersion}`);
      await t.request('POST', base, { body: configMap(ns, 'b') });
      const bookmark = await w.until((e) => e.type === 'BOOKMARK', 15_000);
      expect(bookmark.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(typeof bookmark.object.metadata.resourceVersion).toBe('string');
      expect(rvNumber(bookmark.object.metadata.resourceVersion) >= rvNumber(list.metadata.resourceVersion)).toBe(true);
    });

    it('closes the stream after timeoutSeconds', async () => {
      const started = Date.now();
      const w = await watch(`/api/v1/namespaces/${t.namespace}/configmaps?watch=1&timeoutSeconds=1`);
      await vi.waitFor(() => expect(w.isEnded(), 'watch still open').toBe(true), { timeout: 8000, interval: 20 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    });

    it('watches across namespaces at the cluster-wide path', async () => {
      const a = await t.createNamespace('conf-wa');
      const b = await t.createNamespace('conf-wb');
      const list = expectCode(await t.request('GET', '/api/v1/configmaps?limit=1'), 200);
      const w = await watch(
        `/api/v1/configmaps?watch=1&labelSelector=cross%3D${t.suffix}&resourceVersion=${list.metadata.resourceVersion}`,
      );
      await t.request('POST', `/api/v1/namespaces/${a}/configmaps`, { body: configMap(a, 'x', {}, { cross: t.suffix }) });
      await t.request('POST', `/api/v1/namespaces/${b}/configmaps`, { body: configMap(b, 'x', {}, { cross: t.suffix }) });
      const events = [await w.next(), await w.next()];
      expect(events.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`)).toEqual([
        `ADDED ${a}/x`,
        `ADDED ${b}/x`,
      ]);
    });

    it('watches a single object with a metadata.name field selector', async () => {
      const ns = await t.createNamespace('conf-w5');
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const list = expectCode(await t.request('GET', base), 200);
      const w = await watch(`${base}?watch=1&fieldSelector=metadata.name%3Done&resourceVersion=${list.metadata.resourceVersion}`);
      await t.request('POST', base, { body: configMap(ns, 'other') });
      await t.request('POST', base, { body: configMap(ns, 'one') });
      const event = await w.next();
      expect(event).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'one' } } });
    });

    it('works with the Watch of @kubernetes/client-node', async () => {
      const ns = await t.createNamespace('conf-w7');
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const list = expectCode(await t.request('GET', base), 200);
      const seen: string[] = [];
      const controller = await new Watch(t.kc).watch(
        base,
        { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true },
        (type, obj) => {
          if (type !== 'BOOKMARK') seen.push(`${type} ${obj.metadata?.name}`);
        },
        () => undefined,
      );
      try {
        await t.request('POST', base, { body: configMap(ns, 'cw') });
        await t.request('PATCH', `${base}/cw`, { contentType: merge, body: { data: { a: 'b' } } });
        await t.request('DELETE', `${base}/cw`);
        await expect.poll(() => seen, { timeout: 10_000 }).toEqual(['ADDED cw', 'MODIFIED cw', 'DELETED cw']);
      } finally {
        controller.abort();
      }
    });

    it('reports a non-200 watch to the client-node Watch done callback', async () => {
      const done = new Promise<Json>((resolve) => {
        void new Watch(t.kc).watch('/apis/nonexistent.example.com/v1/things', {}, () => undefined, resolve).catch(resolve);
      });
      const err = await done;
      expect(err).toBeTruthy();
      expect(err.statusCode ?? err.code).toBe(404);
    });
  });
}
