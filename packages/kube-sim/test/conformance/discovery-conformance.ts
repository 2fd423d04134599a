/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
/* eslint-disable no-restricted-imports -- the conformance suite checks kube-sim with the reference client */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApisApi, CoreApi, VersionApi } from '@kubernetes/client-node';
import type { ConformanceTarget, Json, Substrate } from '../support/conformance-target.js';
import { expectCode } from '../support/fixtures.js';

const aggregatedAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/** Discovery (/version, health, /api, /apis, aggregated discovery) and OpenAPI. */
export function discoveryConformance(substrate: Substrate): void {
  describe('discovery', () => {
    let t: ConformanceTarget;
    beforeAll(async () => {
      t = await substrate.open('discovery');
    });
    afterAll(async () => {
      await t?.close();
    });

    it('serves /version with a semantic gitVersion, major and minor', async () => {
      const body = expectCode(await t.request('GET', '/version'), 200);
      expect(body.gitVersion).toMatch(/^v\d+\.\d+\.\d+/);
      const [, major, minor] = /^v(\d+)\.(\d+)/.exec(body.gitVersion as string)!;
      expect(body.major).toBe(major);
      expect(String(body.minor).replace(/\+$/, '')).toBe(minor);
      expect(typeof body.platform).toBe('string');
      const viaClient = await t.kc.makeApiClient(VersionApi).getCode();
      expect(viaClient.gitVersion).toBe(body.gitVersion);
    });

    it.each(['/healthz', '/livez', '/readyz'])('answers %s with 200 ok', async (path) => {
      const res = await t.request('GET', path, { accept: 'text/plain' });
      expect(res.status).toBe(200);
      expect(res.text.trim()).toBe('ok');
    });

    it('lists the core group version at /api', async () => {
      const body = expectCode(await t.request('GET', '/api'), 200);
      expect(body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
      const viaClient = await t.kc.makeApiClient(CoreApi).getAPIVersions();
      expect(viaClient.versions).toEqual(['v1']);
    });

    it('lists API groups with versions and a preferred version at /apis', async () => {
      const body = expectCode(await t.request('GET', '/apis'), 200);
      expect(body).toMatchObject({ kind: 'APIGroupList', apiVersion: 'v1' });
      const byName = new Map<string, Json>((body.groups as Json[]).map((g) => [g.name, g]));
      for (const name of ['apps', 'rbac.authorization.k8s.io', 'apiextensions.k8s.io', 'coordination.k8s.io']) {
        expect(byName.get(name), name).toBeDefined();
      }
      expect(byName.get('apps')).toMatchObject({
        name: 'apps',
        versions: expect.arrayContaining([{ groupVersion: 'apps/v1', version: 'v1' }]),
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      });
      const viaClient = await t.kc.makeApiClient(ApisApi).getAPIVersions();
      expect(viaClient.groups.map((g) => g.name)).toContain('apps');
    });

    it('describes deployments in the apps/v1 resource list', async () => {
      const body = expectCode(await t.request('GET', '/apis/apps/v1'), 200);
      expect(body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'apps/v1' });
      const resources = new Map<string, Json>((body.resources as Json[]).map((r) => [r.name, r]));
      const deployments = resources.get('deployments');
      expect(deployments).toMatchObject({
        name: 'deployments',
        singularName: 'deployment',
        namespaced: true,
        kind: 'Deployment',
        shortNames: ['deploy'],
      });
      expect([...(deployments.verbs as string[])].sort()).toEqual(
        ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'].sort(),
      );
      const status = resources.get('deployments/status');
      expect(status).toMatchObject({ name: 'deployments/status', namespaced: true, kind: 'Deployment' });
      expect([...(status.verbs as string[])].sort()).toEqual(['get', 'patch', 'update']);
      for (const name of ['statefulsets', 'daemonsets', 'replicasets']) expect(resources.has(name), name).toBe(true);
    });

    it('describes core resources with their scope in the v1 resource list', async () => {
      const body = expectCode(await t.request('GET', '/api/v1'), 200);
      expect(body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
      const resources = new Map<string, Json>((body.resources as Json[]).map((r) => [r.name, r]));
      expect(resources.get('namespaces')).toMatchObject({ namespaced: false, kind: 'Namespace', shortNames: ['ns'] });
      expect([...(resources.get('namespaces').verbs as string[])].sort()).toEqual([
        'create',
        'delete',
        'get',
        'list',
        'patch',
        'update',
        'watch',
      ]);
      expect(resources.get('configmaps')).toMatchObject({ namespaced: true, kind: 'ConfigMap', shortNames: ['cm'] });
      expect(resources.get('secrets')).toMatchObject({ namespaced: true, kind: 'Secret' });
      expect(resources.get('nodes')).toMatchObject({ namespaced: false, kind: 'Node' });
      expect(resources.get('serviceaccounts/token')).toMatchObject({ namespaced: true, kind: 'TokenRequest' });
      expect(resources.get('namespaces/status')).toMatchObject({ namespaced: false, kind: 'Namespace' });
    });

    it('answers an unknown group version with 404', async () => {
      const res = await t.request('GET', '/apis/nonexistent.example.com/v1');
      expect(res.status).toBe(404);
    });

    it('answers the aggregated discovery Accept header with an APIGroupDiscoveryList', async () => {
      const res = await t.request('GET', '/apis', { accept: aggregatedAccept });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      expect(res.json).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
      const apps = (res.json.items as Json[]).find((g) => g.metadata?.name === 'apps');
      expect(apps.metadata).toEqual({ name: 'apps' });
      const v1 = (apps.versions as Json[]).find((v) => v.version === 'v1');
      expect(v1.freshness).toBe('Current');
      const deployments = (v1.resources as Json[]).find((r) => r.resource === 'deployments');
      expect(deployments).toEqual({
        resource: 'deployments',
        // kube-apiserver leaves group/version empty here: they default to the enclosing group version.
        responseKind: { group: '', version: '', kind: 'Deployment' },
        scope: 'Namespaced',
        singularResource: 'deployment',
        shortNames: ['deploy'],
        categories: ['all'],
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        subresources: [
          { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
          { subresource: 'status', responseKind: { group: '', version: '', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
        ],
      });
      const core = await t.request('GET', '/api', { accept: aggregatedAccept });
      expect(core.json.kind).toBe('APIGroupDiscoveryList');
      expect(core.json.items).toHaveLength(1);
      expect(core.json.items[0].metadata).toEqual({});
      const namespaces = (core.json.items[0].versions[0].resources as Json[]).find((r) => r.resource === 'namespaces');
      expect((namespaces.subresources as Json[]).map((s) => s.subresource)).toEqual(['finalize', 'status']);
    });

    it('answers a plain Accept header at /apis with an APIGroupList', async () => {
      const res = await t.request('GET', '/apis');
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
      expect(res.json).toMatchObject({ kind: 'APIGroupList' });
    });

    it('publishes the storageVersionHash of kube-apiserver (sha256 of group/version/kind, 8 bytes, base64)', async () => {
      const body = expectCode(await t.request('GET', '/apis/apps/v1'), 200);
      const hashes = Object.fromEntries(
        (body.resources as Json[]).filter((r) => !String(r.name).includes('/')).map((r) => [r.name, r.storageVersionHash]),
      );
      expect(hashes).toMatchObject({
        deployments: '8aSe+NMegvE=',
        replicasets: 'P1RzHs8/mWQ=',
        statefulsets: 'H+vl74LkKdo=',
        daemonsets: 'dd7pWHUlMKQ=',
      });
    });

    it('serves /openapi/v2 as JSON and in the protobuf encoding client-go asks for', async () => {
      const json = expectCode(await t.request('GET', '/openapi/v2'), 200);
      expect(json).toMatchObject({ swagger: '2.0', info: { title: 'Kubernetes' } });
      const proto = await t.request('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
      expect(proto.status).toBe(200);
      expect(proto.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
      // Field 1 (swagger) of openapi_v2.Document: tag 0x0a, length 3, "2.0".
      expect(proto.text.startsWith('\n\u00032.0')).toBe(true);
    });

    it('serves an OpenAPI v3 index whose documents declare the PATCH operation of deployments', async () => {
      const index = expectCode(await t.request('GET', '/openapi/v3'), 200);
      const entry = index.paths?.['apis/apps/v1'];
      expect(entry?.serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/apps\/v1/);
      expect(index.paths?.['api/v1']?.serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1/);
      const doc = expectCode(await t.request('GET', entry.serverRelativeURL as string), 200);
      expect(String(doc.openapi)).toMatch(/^3\./);
      const item = doc.paths?.['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
      expect(item?.patch?.['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
      const params = [...(item.parameters ?? []), ...(item.patch.parameters ?? [])] as Json[];
      const names = params.map((p) => p.name ?? p.$ref);
      expect(names.some((n: string) => n.includes('fieldValidation'))).toBe(true);
    });

    it('publishes the typed OpenAPI v3 schema of a built-in kind, ObjectMeta included', async () => {
      const doc = expectCode(await t.request('GET', '/openapi/v3/apis/apps/v1'), 200);
      const schemas = doc.components?.schemas ?? {};
      const deployment = schemas['io.k8s.api.apps.v1.Deployment'];
      expect(deployment?.['x-kubernetes-group-version-kind']).toContainEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
      const specRef = deployment.properties.spec.allOf[0].$ref as string;
      const spec = schemas[specRef.replace('#/components/schemas/', '')];
      expect(spec.properties.replicas).toMatchObject({ type: 'integer', format: 'int32' });
      const meta = schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
      expect(meta.properties.annotations).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
      expect(meta.properties.labels).toMatchObject({ type: 'object' });
    });
  });
}
