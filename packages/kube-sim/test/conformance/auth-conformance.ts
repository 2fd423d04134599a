/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
/* eslint-disable no-restricted-imports -- the conformance suite checks kube-sim with the reference client */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { ConformanceTarget, Json, Substrate } from '../support/conformance-target.js';
import { configMap, deployment, expectCode, expectFailure } from '../support/fixtures.js';

const poll = { timeout: 20_000, interval: 100 };
const decode = (b64: string): string => Buffer.from(b64, 'base64').toString('utf8');

/** Authentication (anonymous, bearer tokens, service-account and TokenRequest tokens) and RBAC authorization. */
export function authConformance(substrate: Substrate): void {
  describe('authentication and authorization', () => {
    let t: ConformanceTarget;
    let ns: string;
    beforeAll(async () => {
      t = await substrate.open('auth');
      ns = t.namespace;
    });
    afterAll(async () => {
      await t?.close();
    });

    const serviceAccount = async (name: string): Promise<Json> =>
      expectCode(
        await t.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
          body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
        }),
        201,
      );

    /** Create ClusterRole `name` with the rules and bind it to the service account of the test namespace. */
    const grantClusterRole = async (name: string, sa: string, rules: Json[]): Promise<void> => {
      expectCode(
        await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
          body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
        }),
        201,
      );
      expectCode(
        await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
          body: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
            subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
          },
        }),
        201,
      );
    };

    /** Delete what {@link grantClusterRole} created. */
    const revokeClusterRole = async (name: string): Promise<void> => {
      await t.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}`);
      await t.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`);
    };

    /** Create a legacy token Secret for the service account and wait until it is populated. */
    const tokenSecret = async (sa: string, secret: string): Promise<{ token: string; data: Record<string, string> }> => {
      expectCode(
        await t.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
          body: {
            apiVersion: 'v1',
            kind: 'Secret',
            type: 'kubernetes.io/service-account-token',
            metadata: { name: secret, annotations: { 'kubernetes.io/service-account.name': sa } },
          },
        }),
        201,
      );
      let data: Record<string, string> = {};
      await vi.waitFor(async () => {
        const got = expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/secrets/${secret}`), 200);
        expect(got.data?.token).toBeTruthy();
        data = got.data;
      }, poll);
      return { token: decode(data['token']!), data };
    };

    it('treats a request without credentials as system:anonymous: health and version answer, everything else is 403', async () => {
      // kube-apiserver's default --anonymous-auth=true with the default ClusterRole system:public-info-viewer.
      const res = await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { auth: 'none' });
      const status = expectFailure(res, 403, 'Forbidden');
      expect(status.message).toBe(
        `configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
      );
      expect(status.details).toEqual({ kind: 'configmaps' });
      for (const path of ['/healthz', '/livez', '/readyz', '/version']) {
        const open = await t.request('GET', path, { auth: 'none', accept: path === '/version' ? 'application/json' : 'text/plain' });
        expect({ path, status: open.status }).toEqual({ path, status: 200 });
      }
      for (const path of ['/api', '/apis', '/openapi/v3', '/healthz/ping']) {
        const closed = expectFailure(await t.request('GET', path, { auth: 'none' }), 403, 'Forbidden');
        expect(closed.message).toBe(`forbidden: User "system:anonymous" cannot get path "${path}"`);
      }
    });

    it('answers a wrong bearer token with 401 Unauthorized', async () => {
      const res = await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { auth: { token: 'not-a-valid-token' } });
      const status = expectFailure(res, 401, 'Unauthorized');
      expect(status.message).toBe('Unauthorized');
    });

    it('populates a service-account-token Secret with token, ca.crt and namespace', async () => {
      const sa = await serviceAccount('populated');
      const { data } = await tokenSecret('populated', 'populated-token');
      expect(decode(data['namespace']!)).toBe(ns);
      if (t.url.startsWith('https:')) expect(decode(data['ca.crt']!)).toContain('-----BEGIN CERTIFICATE-----');
      const secret = expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/secrets/populated-token`), 200);
      expect(secret.metadata.annotations['kubernetes.io/service-account.uid']).toBe(sa.metadata.uid);
    });

    it('authenticates a service-account token and forbids what no role grants with 403 Forbidden', async () => {
      await serviceAccount('nobody');
      const { token } = await tokenSecret('nobody', 'nobody-token');
      const res = await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { auth: { token } });
      const status = expectFailure(res, 403, 'Forbidden');
      expect(status.details).toMatchObject({ kind: 'configmaps' });
      expect(status.message).toBe(
        `configmaps is forbidden: User "system:serviceaccount:${ns}:nobody" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
      );
      const get = expectFailure(
        await t.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/x`, { auth: { token } }),
        403,
        'Forbidden',
      );
      expect(get.details).toEqual({ name: 'x', group: 'apps', kind: 'deployments' });
      expect(get.message).toBe(
        `deployments.apps "x" is forbidden: User "system:serviceaccount:${ns}:nobody" cannot get resource "deployments" in API group "apps" in the namespace "${ns}"`,
      );
      const subresource = expectFailure(
        await t.request('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/x/status`, { auth: { token }, body: {} }),
        403,
        'Forbidden',
      );
      expect(subresource.message).toBe(
        `deployments.apps "x" is forbidden: User "system:serviceaccount:${ns}:nobody" cannot update resource "deployments/status" in API group "apps" in the namespace "${ns}"`,
      );
      // A named namespace is a request in that namespace (its RoleBindings apply), the collection is not.
      const namespace = expectFailure(await t.request('DELETE', `/api/v1/namespaces/${ns}`, { auth: { token } }), 403, 'Forbidden');
      expect(namespace.message).toBe(
        `namespaces "${ns}" is forbidden: User "system:serviceaccount:${ns}:nobody" cannot delete resource "namespaces" in API group "" in the namespace "${ns}"`,
      );
      expect(namespace.details).toEqual({ name: ns, kind: 'namespaces' });
      const clusterScoped = expectFailure(await t.request('GET', '/api/v1/namespaces', { auth: { token } }), 403, 'Forbidden');
      expect(clusterScoped.message).toBe(
        `namespaces is forbidden: User "system:serviceaccount:${ns}:nobody" cannot list resource "namespaces" in API group "" at the cluster scope`,
      );
      const allNamespaces = expectFailure(await t.request('GET', '/apis/apps/v1/deployments', { auth: { token } }), 403, 'Forbidden');
      expect(allNamespaces.message).toBe(
        `deployments.apps is forbidden: User "system:serviceaccount:${ns}:nobody" cannot list resource "deployments" in API group "apps" at the cluster scope`,
      );
      const nonResource = expectFailure(await t.request('GET', '/metrics', { auth: { token } }), 403, 'Forbidden');
      expect(nonResource.message).toBe(`forbidden: User "system:serviceaccount:${ns}:nobody" cannot get path "/metrics"`);
      // Discovery is open to every authenticated identity.
      expect((await t.request('GET', '/apis', { auth: { token } })).status).toBe(200);
    });

    it('allows exactly what a Role bound by a RoleBinding grants: verbs, resourceNames and subresources', async () => {
      await serviceAccount('limited');
      const { token } = await tokenSecret('limited', 'limited-token');
      const as = { auth: { token } } as const;
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'editable', { a: '1' }) });
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'readonly', { a: '1' }) });
      expectCode(await t.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(ns, 'guarded') }), 201);
      expectCode(
        await t.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
          body: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'Role',
            metadata: { name: 'limited' },
            rules: [
              { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
              { apiGroups: [''], resources: ['configmaps'], resourceNames: ['editable'], verbs: ['update', 'patch'] },
              { apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['get'] },
            ],
          },
        }),
        201,
      );
      expectCode(
        await t.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
          body: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { name: 'limited' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'limited' },
            subjects: [{ kind: 'ServiceAccount', name: 'limited', namespace: ns }],
          },
        }),
        201,
      );
      await vi.waitFor(async () => {
        expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, as), 200);
      }, poll);
      expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/readonly`, as), 200);
      const patch = (name: string) =>
        t.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}`, {
          ...as,
          contentType: 'application/merge-patch+json',
          body: { data: { a: '2' } },
        });
      expectCode(await patch('editable'), 200);
      const denied = expectFailure(await patch('readonly'), 403, 'Forbidden');
      expect(denied.details).toMatchObject({ name: 'readonly', kind: 'configmaps' });
      expectFailure(
        await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { ...as, body: configMap(ns, 'new') }),
        403,
        'Forbidden',
      );
      expectFailure(await t.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/editable`, as), 403, 'Forbidden');
      expectCode(await t.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/guarded/status`, as), 200);
      expectFailure(await t.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/guarded`, as), 403, 'Forbidden');
      // The grant is namespaced: the same verbs elsewhere are forbidden.
      expectFailure(await t.request('GET', '/api/v1/configmaps', as), 403, 'Forbidden');
      expectFailure(await t.request('GET', '/api/v1/namespaces/default/configmaps', as), 403, 'Forbidden');
    });

    it('lets a RoleBinding in a namespace grant access to that Namespace object', async () => {
      await serviceAccount('ns-reader');
      const { token } = await tokenSecret('ns-reader', 'ns-reader-token');
      expectCode(
        await t.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
          body: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'Role',
            metadata: { name: 'ns-reader' },
            rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }],
          },
        }),
        201,
      );
      expectCode(
        await t.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
          body: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { name: 'ns-reader' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ns-reader' },
            subjects: [{ kind: 'ServiceAccount', name: 'ns-reader', namespace: ns }],
          },
        }),
        201,
      );
      await vi.waitFor(async () => {
        expectCode(await t.request('GET', `/api/v1/namespaces/${ns}`, { auth: { token } }), 200);
      }, poll);
      expectFailure(await t.request('GET', '/api/v1/namespaces/default', { auth: { token } }), 403, 'Forbidden');
      expectFailure(await t.request('GET', '/api/v1/namespaces', { auth: { token } }), 403, 'Forbidden');
    });

    it('grants cluster-wide access through a ClusterRoleBinding', async () => {
      await serviceAccount('viewer');
      const { token } = await tokenSecret('viewer', 'viewer-token');
      const name = `conformance-viewer-${t.suffix}`;
      await grantClusterRole(name, 'viewer', [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] }]);
      try {
        await vi.waitFor(async () => {
          expectCode(await t.request('GET', '/api/v1/namespaces', { auth: { token } }), 200);
        }, poll);
        expectFailure(await t.request('DELETE', `/api/v1/namespaces/${ns}`, { auth: { token } }), 403, 'Forbidden');
      } finally {
        await revokeClusterRole(name);
      }
    });

    it('lets any authenticated identity read /healthz, /version and discovery', async () => {
      await serviceAccount('public');
      const { token } = await tokenSecret('public', 'public-token');
      for (const path of ['/healthz', '/readyz', '/livez', '/version', '/api', '/apis', '/api/v1', '/apis/apps/v1']) {
        const res = await t.request('GET', path, { auth: { token }, accept: path.endsWith('z') ? 'text/plain' : 'application/json' });
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
      }
    });

    it('connects with the token and ca.crt of a token Secret, as kubefedctl join does, under a wildcard ClusterRole', async () => {
      await serviceAccount('joiner');
      const { token, data } = await tokenSecret('joiner', 'joiner-token');
      const name = `conformance-joiner-${t.suffix}`;
      await grantClusterRole(name, 'joiner', [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['get'] },
      ]);
      try {
        const kc = new KubeConfig();
        kc.loadFromOptions({
          clusters: [
            { name: 'member', server: t.url, ...(t.url.startsWith('https:') ? { caData: data['ca.crt']! } : { skipTLSVerify: true }) },
          ],
          users: [{ name: 'joiner', token }],
          contexts: [{ name: 'member', cluster: 'member', user: 'joiner' }],
          currentContext: 'member',
        });
        const core = kc.makeApiClient(CoreV1Api);
        await vi.waitFor(async () => {
          const list = await core.listNamespace();
          expect(list.items.map((n) => n.metadata?.name)).toContain(ns);
        }, poll);
        const created = await core.createNamespacedConfigMap({
          namespace: ns,
          body: { metadata: { name: 'by-joiner' }, data: { a: 'b' } },
        });
        expect(created.metadata?.uid).toBeTruthy();
        const deployments = await kc
          .makeApiClient(CustomObjectsApi)
          .listClusterCustomObject({ group: 'apps', version: 'v1', plural: 'deployments' });
        expect(deployments).toMatchObject({ kind: 'DeploymentList' });
      } finally {
        await revokeClusterRole(name);
      }
    });

    it('revokes a token when its Secret is deleted', async () => {
      await serviceAccount('revoked-secret');
      const { token } = await tokenSecret('revoked-secret', 'revoked-secret-token');
      expectFailure(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { auth: { token } }), 403, 'Forbidden');
      await t.request('DELETE', `/api/v1/namespaces/${ns}/secrets/revoked-secret-token`);
      await vi.waitFor(async () => {
        expectFailure(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { auth: { token } }), 401, 'Unauthorized');
      }, poll);
    });

    it('revokes a token when its ServiceAccount is deleted', async () => {
      await serviceAccount('revoked-sa');
      const { token } = await tokenSecret('revoked-sa', 'revoked-sa-token');
      expectFailure(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { auth: { token } }), 403, 'Forbidden');
      await t.request('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/revoked-sa`);
      await vi.waitFor(async () => {
        expectFailure(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { auth: { token } }), 401, 'Unauthorized');
      }, poll);
    });

    it('answers TokenReview and SubjectAccessReview for a server that delegates authentication and authorization (secure metrics)', async () => {
      await serviceAccount('scraper');
      const scraper = expectCode(
        await t.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/scraper/token`, {
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
        }),
        201,
      ).status.token as string;
      const review = async (token: string): Promise<Json> =>
        expectCode(
          await t.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
            body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
          }),
          201,
        );
      const user = `system:serviceaccount:${ns}:scraper`;
      expect(await review(scraper)).toMatchObject({
        kind: 'TokenReview',
        status: {
          authenticated: true,
          user: { username: user, groups: expect.arrayContaining(['system:authenticated', `system:serviceaccounts:${ns}`]) as unknown },
        },
      });
      const forged = await review(`${scraper.slice(0, -4)}AAAA`);
      expect(forged.status.authenticated).not.toBe(true);
      expect(forged.status.error).toBeTruthy();

      const metricsGet = (groups: string[]): Json => ({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user, groups, nonResourceAttributes: { path: '/metrics', verb: 'get' } },
      });
      const access = async (): Promise<Json> =>
        expectCode(
          await t.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: metricsGet(['system:authenticated']) }),
          201,
        );
      expect((await access()).status.allowed).toBe(false);
      await grantClusterRole(`${ns}-metrics-reader`, 'scraper', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
      try {
        await vi.waitFor(async () => expect((await access()).status.allowed).toBe(true), poll);
      } finally {
        await revokeClusterRole(`${ns}-metrics-reader`);
      }
      // Reviewing someone else's access takes a grant of its own (system:auth-delegator).
      const asScraper = { auth: { token: scraper } } as const;
      expectFailure(
        await t.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: metricsGet([]), ...asScraper }),
        403,
        'Forbidden',
      );
      expectFailure(
        await t.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: scraper } },
          ...asScraper,
        }),
        403,
        'Forbidden',
      );
      const delegator = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `${ns}-auth-delegator` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
        subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: ns }],
      };
      expectCode(await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: delegator }), 201);
      try {
        await vi.waitFor(async () => {
          const own = expectCode(
            await t.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
              body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: scraper } },
              ...asScraper,
            }),
            201,
          );
          expect(own.status.user.username).toBe(user);
          expectCode(
            await t.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: metricsGet([]), ...asScraper }),
            201,
          );
        }, poll);
      } finally {
        await t.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${ns}-auth-delegator`);
      }
    });

    it('issues a working token through the TokenRequest subresource', async () => {
      const sa = await serviceAccount('requested');
      const res = await t.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/requested/token`, {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
      });
      const body = expectCode(res, 201);
      expect(body).toMatchObject({
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name: 'requested', namespace: ns, uid: sa.metadata.uid },
        spec: { audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 3600, boundObjectRef: null },
      });
      expect(body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(typeof body.status.token).toBe('string');
      expect(body.status.token.length).toBeGreaterThan(10);
      const expires = Date.parse(body.status.expirationTimestamp as string);
      expect(expires).toBeGreaterThan(Date.now() + 3000 * 1000);
      const as = { auth: { token: body.status.token as string } } as const;
      const denied = expectFailure(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, as), 403, 'Forbidden');
      expect(denied.message).toContain(`system:serviceaccount:${ns}:requested`);
      const missing = await t.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/absent/token`, {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
      });
      expectFailure(missing, 404, 'NotFound');
      const short = await t.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/requested/token`, {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 60 } },
      });
      const tooShort = expectFailure(short, 422, 'Invalid');
      expect(tooShort.message).toBe(
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
      );
      expect(tooShort.details).toEqual({
        group: 'authentication.k8s.io',
        kind: 'TokenRequest',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 60: may not specify a duration less than 10 minutes',
            field: 'spec.expirationSeconds',
          },
        ],
      });
    });
    it('refuses an RBAC write that grants more than the writer holds, unless it may bind or escalate (escalation prevention)', async () => {
      await serviceAccount('rbac-writer');
      const { token } = await tokenSecret('rbac-writer', 'rbac-writer-token');
      const as = { auth: { token } };
      const name = `conformance-rbac-writer-${t.suffix}`;
      const crbs = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';
      const toClusterAdmin = (n: string): Json => ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: n },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'rbac-writer', namespace: ns }],
      });
      const writeRbac = {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles', 'clusterrolebindings'],
        verbs: ['create', 'update', 'get'],
      };
      await grantClusterRole(name, 'rbac-writer', [writeRbac]);
      try {
        // Write access alone: a binding to cluster-admin, or a role with more rules, is refused.
        await vi.waitFor(async () => {
          const refused = expectFailure(await t.request('POST', crbs, { ...as, body: toClusterAdmin(`${name}-admin`) }), 403, 'Forbidden');
          expect(refused.message).toContain('is attempting to grant RBAC permissions not currently held');
        }, poll);
        const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `${name}-more` } };
        const more = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
          ...as,
          body: { ...role, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] },
        });
        expect(expectFailure(more, 403, 'Forbidden').message).toContain('is attempting to grant RBAC permissions not currently held');
        // What it holds already it may grant.
        const held = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
          ...as,
          body: { ...role, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get'] }] },
        });
        expectCode(held, 201);
        // With bind on cluster-admin the same binding is created, and the token holds everything.
        expectCode(
          await t.request('PUT', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`, {
            body: {
              apiVersion: 'rbac.authorization.k8s.io/v1',
              kind: 'ClusterRole',
              metadata: { name },
              rules: [writeRbac, { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'] }],
            },
          }),
          200,
        );
        await vi.waitFor(async () => {
          expectCode(await t.request('POST', crbs, { ...as, body: toClusterAdmin(`${name}-admin`) }), 201);
        }, poll);
        await vi.waitFor(async () => {
          expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/secrets`, as), 200);
        }, poll);
      } finally {
        await t.request('DELETE', `${crbs}/${name}-admin`);
        await t.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}-more`);
        await revokeClusterRole(name);
      }
    });
  });
}
