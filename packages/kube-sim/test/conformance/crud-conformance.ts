/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
/* eslint-disable no-restricted-imports -- the conformance suite checks kube-sim with the reference client */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiException, CoreV1Api, CustomObjectsApi, KubernetesObjectApi } from '@kubernetes/client-node';
import type { ConformanceTarget, Json, RawResponse, Substrate } from '../support/conformance-target.js';
import { configMap, deployment, expectCode, expectFailure } from '../support/fixtures.js';

const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** Create, read, update, list and the typed client-node APIs. */
export function crudConformance(substrate: Substrate): void {
  describe('create, read, update', () => {
    let t: ConformanceTarget;
    let ns: string;
    beforeAll(async () => {
      t = await substrate.open('crud');
      ns = t.namespace;
    });
    afterAll(async () => {
      await t?.close();
    });

    const cms = (): string => `/api/v1/namespaces/${ns}/configmaps`;
    const deploys = (): string => `/apis/apps/v1/namespaces/${ns}/deployments`;

    it('creates an object with generateName, a uid, a creationTimestamp and a string resourceVersion', async () => {
      const res = await t.request('POST', cms(), {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' }, data: { a: '1' } },
      });
      const body = expectCode(res, 201);
      expect(body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
      expect(body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
      expect(body.metadata.generateName).toBe('gen-');
      expect(body.metadata.namespace).toBe(ns);
      expect(body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.metadata.creationTimestamp).toMatch(timestamp);
      expect(typeof body.metadata.resourceVersion).toBe('string');
      const got = expectCode(await t.request('GET', `${cms()}/${body.metadata.name}`), 200);
      expect(got.metadata).toMatchObject({ uid: body.metadata.uid, resourceVersion: body.metadata.resourceVersion });
    });

    it('sets generation 1 on a created Deployment', async () => {
      const body = expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'gen-one') }), 201);
      expect(body.metadata.generation).toBe(1);
      expect(body.metadata.uid).toBeTruthy();
    });

    it('refuses a duplicate name with 409 AlreadyExists naming the object', async () => {
      expectCode(await t.request('POST', cms(), { body: configMap(ns, 'dup') }), 201);
      const status = expectFailure(await t.request('POST', cms(), { body: configMap(ns, 'dup') }), 409, 'AlreadyExists');
      expect(status.details).toMatchObject({ name: 'dup', kind: 'configmaps' });
      expect(status.message).toBe('configmaps "dup" already exists');
      await t.request('POST', deploys(), { body: deployment(ns, 'dup-deploy') });
      const d = expectFailure(await t.request('POST', deploys(), { body: deployment(ns, 'dup-deploy') }), 409, 'AlreadyExists');
      expect(d.details).toMatchObject({ name: 'dup-deploy', group: 'apps', kind: 'deployments' });
      expect(d.message).toBe('deployments.apps "dup-deploy" already exists');
    });

    it('answers a get of a missing object with 404 NotFound naming it', async () => {
      const status = expectFailure(await t.request('GET', `${cms()}/missing`), 404, 'NotFound');
      expect(status.details).toMatchObject({ name: 'missing', kind: 'configmaps' });
      expect(status.message).toBe('configmaps "missing" not found');
      const d = expectFailure(await t.request('GET', `${deploys()}/missing`), 404, 'NotFound');
      expect(d.details).toMatchObject({ name: 'missing', group: 'apps', kind: 'deployments' });
    });

    it('answers a create in a missing namespace with 404 NotFound naming the namespace', async () => {
      const missing = `missing-${t.suffix}`;
      const res = await t.request('POST', `/api/v1/namespaces/${missing}/configmaps`, { body: configMap(missing, 'x') });
      const status = expectFailure(res, 404, 'NotFound');
      expect(status.details).toMatchObject({ name: missing, kind: 'namespaces' });
      expect(status.message).toBe(`namespaces "${missing}" not found`);
    });

    it('rejects a body whose namespace differs from the URL with 400 BadRequest', async () => {
      const res = await t.request('POST', cms(), { body: configMap('another-namespace', 'wrong-ns') });
      expectFailure(res, 400, 'BadRequest');
    });

    it('rejects an update with a stale resourceVersion with 409 Conflict', async () => {
      const created = expectCode(await t.request('POST', cms(), { body: configMap(ns, 'stale', { v: '1' }) }), 201);
      const first = { ...created, data: { v: '2' } };
      const updated = expectCode(await t.request('PUT', `${cms()}/stale`, { body: first }), 200);
      expect(updated.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
      const second = { ...created, data: { v: '3' } };
      const status = expectFailure(await t.request('PUT', `${cms()}/stale`, { body: second }), 409, 'Conflict');
      expect(status.details).toMatchObject({ name: 'stale', kind: 'configmaps' });
      expect(status.message).toContain('the object has been modified');
      const got = expectCode(await t.request('GET', `${cms()}/stale`), 200);
      expect(got.data).toEqual({ v: '2' });
    });

    it('answers an update of a missing ConfigMap with 404 NotFound (no create-on-update)', async () => {
      const res = await t.request('PUT', `${cms()}/put-missing`, { body: configMap(ns, 'put-missing', { a: 'b' }) });
      const status = expectFailure(res, 404, 'NotFound');
      expect(status.details).toMatchObject({ name: 'put-missing', kind: 'configmaps' });
    });

    it('rejects an update whose name differs from the URL with 400 BadRequest', async () => {
      await t.request('POST', cms(), { body: configMap(ns, 'named') });
      const res = await t.request('PUT', `${cms()}/named`, { body: configMap(ns, 'other-name') });
      expectFailure(res, 400, 'BadRequest');
    });

    it("bumps a Deployment's generation on spec and annotation changes but not on label changes", async () => {
      const created = expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'generations') }), 201);
      expect(created.metadata.generation).toBe(1);
      const patch = async (body: Json): Promise<Json> =>
        expectCode(await t.request('PATCH', `${deploys()}/generations`, { contentType: 'application/merge-patch+json', body }), 200);
      const labelled = await patch({ metadata: { labels: { extra: 'yes' } } });
      expect(labelled.metadata.generation).toBe(1);
      expect(labelled.metadata.labels).toMatchObject({ extra: 'yes' });
      // The Deployment strategy bumps on annotations too: they are copied to its ReplicaSets.
      const annotated = await patch({ metadata: { annotations: { note: 'x' } } });
      expect(annotated.metadata.generation).toBe(2);
      const scaled = await patch({ spec: { replicas: 3 } });
      expect(scaled.metadata.generation).toBe(3);
      // A read-modify-write races the deployment controller's status writes (409 on both
      // substrates): read again and retry, as every client does.
      const replace = async (): Promise<RawResponse> => {
        const fresh = expectCode(await t.request('GET', `${deploys()}/generations`), 200);
        return t.request('PUT', `${deploys()}/generations`, { body: { ...fresh, spec: { ...fresh.spec, minReadySeconds: 5 } } });
      };
      let res = await replace();
      for (let attempt = 1; res.status === 409 && attempt < 5; attempt++) res = await replace();
      const put = expectCode(res, 200);
      expect(put.metadata.generation).toBe(4);
    });

    it("bumps a ReplicaSet's generation on spec changes only", async () => {
      const rs = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'rs-generations' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'rs-generations' } },
          template: {
            metadata: { labels: { app: 'rs-generations' } },
            spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] },
          },
        },
      };
      const path = `/apis/apps/v1/namespaces/${ns}/replicasets`;
      expect(expectCode(await t.request('POST', path, { body: rs }), 201).metadata.generation).toBe(1);
      const patch = async (body: Json): Promise<Json> =>
        expectCode(await t.request('PATCH', `${path}/rs-generations`, { contentType: 'application/merge-patch+json', body }), 200);
      expect((await patch({ metadata: { labels: { l: '1' }, annotations: { a: '1' } } })).metadata.generation).toBe(1);
      expect((await patch({ spec: { minReadySeconds: 1 } })).metadata.generation).toBe(2);
    });

    it('starts a created Job with the empty status, whatever status the request carried', async () => {
      const job = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'empty-status', namespace: ns },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
        status: { succeeded: 5 },
      };
      const created = expectCode(await t.request('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, { body: job }), 201);
      expect(created.status).toEqual({});
    });

    it('ignores status changes sent to the main endpoint and spec changes sent to /status', async () => {
      expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'status-split', 1) }), 201);
      const viaMain = expectCode(
        await t.request('PATCH', `${deploys()}/status-split`, {
          contentType: 'application/merge-patch+json',
          body: { status: { replicas: 7, observedGeneration: 42 } },
        }),
        200,
      );
      expect(viaMain.status?.observedGeneration).not.toBe(42);
      const viaStatus = expectCode(
        await t.request('PATCH', `${deploys()}/status-split/status`, {
          contentType: 'application/merge-patch+json',
          body: { spec: { replicas: 9 }, metadata: { labels: { fromStatus: 'yes' } }, status: { observedGeneration: 1, replicas: 1 } },
        }),
        200,
      );
      expect(viaStatus.spec.replicas).toBe(1);
      expect(viaStatus.metadata.generation).toBe(1);
      expect(viaStatus.metadata.labels?.fromStatus).toBeUndefined();
      expect(viaStatus.status.observedGeneration).toBe(1);
      const got = expectCode(await t.request('GET', `${deploys()}/status-split/status`), 200);
      expect(got).toMatchObject({ kind: 'Deployment', spec: { replicas: 1 } });
    });

    it("takes label, annotation and finalizer changes through /status of a built-in kind, but not a Deployment's labels", async () => {
      const services = `/api/v1/namespaces/${ns}/services`;
      expectCode(
        await t.request('POST', services, {
          body: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'via-status' },
            spec: { selector: { app: 'x' }, ports: [{ port: 80 }] },
          },
        }),
        201,
      );
      const metadata = { labels: { fromStatus: 'l' }, annotations: { fromStatus: 'a' }, finalizers: ['conformance.kubefed.io/status'] };
      const svc = expectCode(
        await t.request('PATCH', `${services}/via-status/status`, {
          contentType: 'application/merge-patch+json',
          body: { metadata, spec: { ports: [{ port: 81 }] } },
        }),
        200,
      );
      expect(svc.metadata).toMatchObject(metadata);
      expect(svc.spec.ports[0].port).toBe(80);
      expectCode(
        await t.request('PATCH', `${services}/via-status`, {
          contentType: 'application/merge-patch+json',
          body: { metadata: { finalizers: null } },
        }),
        200,
      );
      expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'status-meta') }), 201);
      const d = expectCode(
        await t.request('PATCH', `${deploys()}/status-meta/status`, {
          contentType: 'application/merge-patch+json',
          body: { metadata: { labels: metadata.labels, annotations: metadata.annotations } },
        }),
        200,
      );
      expect(d.metadata.labels?.fromStatus).toBeUndefined();
      expect(d.metadata.annotations?.fromStatus).toBe('a');
      expect(d.metadata.generation).toBe(1);
    });

    it('keeps every field of a Deployment it does not interpret, byte for byte', async () => {
      const d = deployment(ns, 'rich', 2);
      d.spec.revisionHistoryLimit = 4;
      d.spec.minReadySeconds = 3;
      d.spec.progressDeadlineSeconds = 120;
      d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 } };
      const pod = d.spec.template.spec;
      pod.tolerations = [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }];
      pod.topologySpreadConstraints = [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { app: 'rich' } },
        },
      ];
      pod.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/region', operator: 'In', values: ['r1'] }] }],
          },
        },
      };
      pod.containers[0] = {
        ...pod.containers[0],
        env: [
          { name: 'PLAIN', value: 'v' },
          { name: 'FROM_CM', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k', optional: true } } },
        ],
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '64Mi' } },
        securityContext: { runAsNonRoot: true, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
      };
      const created = expectCode(await t.request('POST', deploys(), { body: d }), 201);
      const got = expectCode(await t.request('GET', `${deploys()}/rich`), 200);
      for (const body of [created, got]) {
        expect(body.spec).toMatchObject({
          revisionHistoryLimit: 4,
          minReadySeconds: 3,
          progressDeadlineSeconds: 120,
          strategy: d.spec.strategy,
        });
        expect(body.spec.template.spec).toMatchObject({
          tolerations: pod.tolerations,
          topologySpreadConstraints: pod.topologySpreadConstraints,
          affinity: pod.affinity,
        });
        expect(body.spec.template.spec.containers[0]).toMatchObject(pod.containers[0]);
      }
    });

    it('omits the empty optional maps and lists of a built-in kind, as the typed encoding does, and keeps empty structs', async () => {
      const cm = expectCode(
        await t.request('POST', cms(), {
          body: {
            ...configMap(ns, 'empties'),
            metadata: { name: 'empties', labels: {}, annotations: {}, finalizers: [], ownerReferences: [] },
            binaryData: {},
          },
        }),
        201,
      );
      for (const body of [cm, expectCode(await t.request('GET', `${cms()}/empties`), 200)]) {
        expect(Object.keys(body).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
        for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences']) expect(body.metadata[k], k).toBeUndefined();
      }
      const d = deployment(ns, 'empties');
      d.spec.template.metadata.annotations = {};
      d.spec.template.spec.nodeSelector = {};
      d.spec.template.spec.volumes = [];
      d.spec.template.spec.containers[0] = { ...d.spec.template.spec.containers[0], env: [], args: [], resources: {}, securityContext: {} };
      const created = expectCode(await t.request('POST', deploys(), { body: d }), 201);
      const template = created.spec.template;
      expect(template.metadata.annotations).toBeUndefined();
      expect(template.spec.nodeSelector).toBeUndefined();
      expect(template.spec.volumes).toBeUndefined();
      expect(template.spec.containers[0]).toMatchObject({ resources: {}, securityContext: {} });
      expect(template.spec.containers[0].env).toBeUndefined();
      expect(template.spec.containers[0].args).toBeUndefined();
      const cleared = expectCode(
        await t.request('PATCH', `${cms()}/empties`, {
          contentType: 'application/merge-patch+json',
          body: { data: { a: '1' }, metadata: { labels: { l: '1' } } },
        }),
        200,
      );
      expect(cleared.data).toEqual({ a: '1' });
      const emptied = expectCode(
        await t.request('PATCH', `${cms()}/empties`, {
          contentType: 'application/merge-patch+json',
          body: { data: { a: null }, metadata: { labels: { l: null } } },
        }),
        200,
      );
      expect(emptied.data).toBeUndefined();
      expect(emptied.metadata.labels).toBeUndefined();
    });

    it('rejects an unknown field with fieldValidation=Strict and drops it with a warning by default', async () => {
      const strict = await t.request('POST', `${cms()}?fieldValidation=Strict`, {
        body: { ...configMap(ns, 'unknown-strict'), bogusField: 1 },
      });
      const status = expectFailure(strict, 400, 'BadRequest');
      expect(status.message).toContain('unknown field "bogusField"');
      const lenient = await t.request('POST', cms(), { body: { ...configMap(ns, 'unknown-warn'), bogusField: 1 } });
      const body = expectCode(lenient, 201);
      expect(body.bogusField).toBeUndefined();
      expect(String(lenient.headers['warning'])).toMatch(/unknown field \\?"bogusField\\?"/);
    });

    it('rejects an invalid name with 422 Invalid and a cause on metadata.name', async () => {
      const status = expectFailure(await t.request('POST', cms(), { body: configMap(ns, 'Bad_Name') }), 422, 'Invalid');
      expect(status.details).toMatchObject({ name: 'Bad_Name', kind: 'ConfigMap' });
      expect(status.details.causes).toEqual(
        expect.arrayContaining([expect.objectContaining({ reason: 'FieldValueInvalid', field: 'metadata.name' })]),
      );
      expect(String(status.message)).toMatch(/^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name"/);
    });

    it('refuses invalid label keys, label values and annotation keys with 422 Invalid', async () => {
      const withMeta = (name: string, meta: Json): Json => ({ ...configMap(ns, name), metadata: { name, ...meta } });
      const value = expectFailure(
        await t.request('POST', cms(), { body: withMeta('bad-label', { labels: { a: 'has space' } }) }),
        422,
        'Invalid',
      );
      expect(value.message).toBe(
        `ConfigMap "bad-label" is invalid: metadata.labels: Invalid value: "has space": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      );
      const key = expectFailure(
        await t.request('POST', cms(), { body: withMeta('bad-label-key', { labels: { 'bad key': 'x' } }) }),
        422,
        'Invalid',
      );
      expect(key.details.causes).toEqual([
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
          field: 'metadata.labels',
        },
      ]);
      const long = expectFailure(
        await t.request('POST', cms(), { body: withMeta('long-label', { labels: { a: 'x'.repeat(64) } }) }),
        422,
        'Invalid',
      );
      expect(long.details.causes[0].message).toBe(`Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`);
      const annotation = expectFailure(
        await t.request('POST', cms(), { body: withMeta('bad-annotation', { annotations: { 'bad key': 'x' } }) }),
        422,
        'Invalid',
      );
      expect(annotation.details.causes.map((c: Json) => c.field)).toEqual(['metadata.annotations']);
      // Annotation keys are checked lower-cased; values are free.
      expectCode(
        await t.request('POST', cms(), {
          body: withMeta('fine-meta', { labels: { 'example.com/app': '' }, annotations: { 'Example.com/Note': 'any value at all' } }),
        }),
        201,
      );
      const relabelled = await t.request('PATCH', `${cms()}/fine-meta`, {
        contentType: 'application/merge-patch+json',
        body: { metadata: { labels: { '-x': 'y' } } },
      });
      expectFailure(relabelled, 422, 'Invalid');
    });

    it('refuses ConfigMap and Secret keys outside [-._a-zA-Z0-9]+ and a Secret type change with 422 Invalid', async () => {
      const cmKey = expectFailure(await t.request('POST', cms(), { body: configMap(ns, 'bad-key', { 'a b': '1' }) }), 422, 'Invalid');
      expect(cmKey.message).toBe(
        `ConfigMap "bad-key" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      );
      const secrets = `/api/v1/namespaces/${ns}/secrets`;
      const secretKey = expectFailure(
        await t.request('POST', secrets, {
          body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad-key' }, data: { '..x': 'eA==' } },
        }),
        422,
        'Invalid',
      );
      expect(secretKey.details.causes).toEqual([
        { reason: 'FieldValueInvalid', message: `Invalid value: "..x": must not start with '..'`, field: 'data[..x]' },
      ]);
      expectCode(
        await t.request('POST', secrets, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'typed' }, type: 'Opaque' } }),
        201,
      );
      const retyped = expectFailure(
        await t.request('PATCH', `${secrets}/typed`, { contentType: 'application/merge-patch+json', body: { type: 'example.com/other' } }),
        422,
        'Invalid',
      );
      expect(retyped.details.causes).toEqual([
        { reason: 'FieldValueInvalid', message: 'Invalid value: "example.com/other": field is immutable', field: 'type' },
      ]);
    });

    it('rejects a create without name or generateName with 422 Invalid', async () => {
      const res = await t.request('POST', cms(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data: {} } });
      const status = expectFailure(res, 422, 'Invalid');
      expect(status.message).toBe('ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
      expect(status.details).toEqual({
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }],
      });
    });

    it('rejects a body of another kind with 400 BadRequest', async () => {
      const res = await t.request('POST', cms(), {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-kind', namespace: ns }, data: {} },
      });
      expectFailure(res, 400, 'BadRequest');
      expectFailure(await t.request('GET', `${cms()}/wrong-kind`), 404, 'NotFound');
    });

    it('rejects a change of an immutable Deployment selector with 422 Invalid on spec.selector', async () => {
      expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'immutable') }), 201);
      // The workload controller writes status soon after the create: a PUT based on an older read
      // is (rightly) a 409 Conflict, so read again until the PUT meets the current version.
      const res = await vi.waitFor(
        async () => {
          const changed = expectCode(await t.request('GET', `${deploys()}/immutable`), 200);
          changed.spec.selector = { matchLabels: { app: 'immutable', extra: 'x' } };
          changed.spec.template.metadata.labels = { app: 'immutable', extra: 'x' };
          const put = await t.request('PUT', `${deploys()}/immutable`, { body: changed });
          if (put.status === 409) throw new Error('conflict with a status write, read again');
          return put;
        },
        { timeout: 10_000, interval: 50 },
      );
      const status = expectFailure(res, 422, 'Invalid');
      expect(status.details).toMatchObject({ name: 'immutable', group: 'apps', kind: 'Deployment' });
      expect(status.details.causes).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'spec.selector' })]));
      expect(String(status.message)).toContain('field is immutable');
    });

    it('rejects a Deployment whose selector does not match its template labels with 422 Invalid', async () => {
      const d = deployment(ns, 'mismatch');
      d.spec.template.metadata.labels = { app: 'other' };
      const status = expectFailure(await t.request('POST', deploys(), { body: d }), 422, 'Invalid');
      expect(status.details).toMatchObject({ name: 'mismatch', group: 'apps', kind: 'Deployment' });
      expect(status.details.causes).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'spec.template.metadata.labels' })]));
    });

    it('validates but does not persist a create with dryRun=All', async () => {
      const res = await t.request('POST', `${cms()}?dryRun=All`, { body: configMap(ns, 'dry', { a: '1' }) });
      const body = expectCode(res, 201);
      expect(body.metadata.name).toBe('dry');
      expectFailure(await t.request('GET', `${cms()}/dry`), 404, 'NotFound');
    });

    it('keeps Lease MicroTime values and enforces optimistic concurrency on Leases', async () => {
      const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
      const micro = '2026-11-21T10:00:00.123456Z';
      const created = expectCode(
        await t.request('POST', leases, {
          body: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: 'leader' },
            spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: micro, renewTime: micro, leaseTransitions: 0 },
          },
        }),
        201,
      );
      expect(created.spec).toMatchObject({ holderIdentity: 'a', acquireTime: micro, renewTime: micro, leaseDurationSeconds: 15 });
      const renewed = expectCode(
        await t.request('PUT', `${leases}/leader`, {
          body: { ...created, spec: { ...created.spec, renewTime: '2026-11-21T10:00:05.000000Z' } },
        }),
        200,
      );
      expect(renewed.spec.renewTime).toBe('2026-11-21T10:00:05.000000Z');
      const lost = await t.request('PUT', `${leases}/leader`, { body: { ...created, spec: { ...created.spec, holderIdentity: 'b' } } });
      expectFailure(lost, 409, 'Conflict');
    });

    it('answers JSON to a client that lists JSON before protobuf', async () => {
      // A client that lists protobuf first gets protobuf from kube-apiserver for built-in kinds;
      // kube-sim speaks JSON only (README: remaining differences). Custom resources: crd suite.
      await t.request('POST', cms(), { body: configMap(ns, 'negotiated') });
      const res = await t.request('GET', `${cms()}/negotiated`, { accept: 'application/json, application/vnd.kubernetes.protobuf' });
      expect(res.status).toBe(200);
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
      expect(res.json).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'negotiated' } });
    });

    it('answers an unknown resource of a served group version with 404 NotFound', async () => {
      const res = await t.request('GET', `/api/v1/namespaces/${ns}/widgets`);
      expectFailure(res, 404, 'NotFound');
    });

    it('answers a POST to a named object with 405 MethodNotAllowed', async () => {
      await t.request('POST', cms(), { body: configMap(ns, 'no-post') });
      const res = await t.request('POST', `${cms()}/no-post`, { body: configMap(ns, 'no-post') });
      expectFailure(res, 405, 'MethodNotAllowed');
    });

    it('allocates a ClusterIP and keeps it when an update omits it (patchAllocatedValues)', async () => {
      const services = `/api/v1/namespaces/${ns}/services`;
      const created = expectCode(
        await t.request('POST', services, {
          body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { selector: { app: 'svc' }, ports: [{ port: 80 }] } },
        }),
        201,
      );
      expect(created.spec.type).toBe('ClusterIP');
      expect(created.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(created.spec.clusterIPs).toEqual([created.spec.clusterIP]);
      expect(created.spec.ports[0]).toMatchObject({ port: 80, protocol: 'TCP', targetPort: 80 });
      const resubmitted = structuredClone(created);
      delete resubmitted.spec.clusterIP;
      delete resubmitted.spec.clusterIPs;
      resubmitted.metadata.labels = { resubmitted: 'yes' };
      const updated = expectCode(await t.request('PUT', `${services}/svc`, { body: resubmitted }), 200);
      expect(updated.spec.clusterIP).toBe(created.spec.clusterIP);
      const moved = structuredClone(updated);
      moved.spec.clusterIP = created.spec.clusterIP === '10.96.0.250' ? '10.96.0.251' : '10.96.0.250';
      moved.spec.clusterIPs = [moved.spec.clusterIP];
      const status = expectFailure(await t.request('PUT', `${services}/svc`, { body: moved }), 422, 'Invalid');
      expect((status.details.causes as Json[]).some((c) => String(c.field).startsWith('spec.clusterIP'))).toBe(true);
    });

    it('allocates a nodePort in the default range for a NodePort Service', async () => {
      const created = expectCode(
        await t.request('POST', `/api/v1/namespaces/${ns}/services`, {
          body: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'nodeport' },
            spec: { type: 'NodePort', selector: { app: 'np' }, ports: [{ port: 80, targetPort: 8080 }] },
          },
        }),
        201,
      );
      expect(created.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
      expect(created.spec.ports[0].nodePort).toBeLessThanOrEqual(32767);
    });

    it('folds Secret stringData into base64 data and rejects invalid base64 with 400', async () => {
      const secrets = `/api/v1/namespaces/${ns}/secrets`;
      const created = expectCode(
        await t.request('POST', secrets, {
          body: {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'strdata' },
            type: 'Opaque',
            stringData: { user: 'admin' },
            data: { pass: 'cHc=' },
          },
        }),
        201,
      );
      expect(created.data).toEqual({ user: Buffer.from('admin').toString('base64'), pass: 'cHc=' });
      expect(created.stringData).toBeUndefined();
      const bad = await t.request('POST', secrets, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'badb64' }, data: { x: 'not base64!' } },
      });
      expectFailure(bad, 400, 'BadRequest');
    });

    it('refuses a ConfigMap whose data and binaryData exceed 1 MiB with 422 Invalid, and takes one of exactly 1 MiB', async () => {
      const mib = 1024 * 1024;
      const status = expectFailure(
        await t.request('POST', cms(), {
          body: { ...configMap(ns, 'too-big', { a: 'x'.repeat(mib - 10) }), binaryData: { b: Buffer.alloc(11).toString('base64') } },
        }),
        422,
        'Invalid',
      );
      expect(status.message).toBe('ConfigMap "too-big" is invalid: []: Too long: may not be more than 1048576 bytes');
      expect(status.details).toEqual({
        name: 'too-big',
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes', field: '[]' }],
      });
      // Values count in UTF-8 bytes, keys not at all.
      expectFailure(
        await t.request('POST', cms(), { body: configMap(ns, 'too-big-utf8', { a: 'é'.repeat(mib / 2 + 1) }) }),
        422,
        'Invalid',
      );
      expectCode(await t.request('POST', cms(), { body: configMap(ns, 'just-fits', { a: 'x'.repeat(mib) }) }), 201);
      const grown = await t.request('PATCH', `${cms()}/just-fits`, {
        contentType: 'application/merge-patch+json',
        body: { data: { b: 'y' } },
      });
      expectFailure(grown, 422, 'Invalid');
    });

    it('refuses a Secret whose decoded data exceeds 1 MiB with 422 Invalid on data, also through stringData', async () => {
      const mib = 1024 * 1024;
      const secrets = `/api/v1/namespaces/${ns}/secrets`;
      const secret = (name: string, extra: Json): Json => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name },
        type: 'Opaque',
        ...extra,
      });
      const big = expectFailure(
        await t.request('POST', secrets, { body: secret('too-big', { data: { a: Buffer.alloc(mib + 1).toString('base64') } }) }),
        422,
        'Invalid',
      );
      expect(big.message).toBe('Secret "too-big" is invalid: data: Too long: may not be more than 1048576 bytes');
      expect(big.details.causes).toEqual([
        { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes', field: 'data' },
      ]);
      expectFailure(
        await t.request('POST', secrets, { body: secret('too-big-string', { stringData: { a: 'y'.repeat(mib), b: 'z' } }) }),
        422,
        'Invalid',
      );
      expectCode(
        await t.request('POST', secrets, { body: secret('just-fits', { data: { a: Buffer.alloc(mib).toString('base64') } }) }),
        201,
      );
    });

    it('lets exactly one of many concurrent creates of a name succeed', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => t.request('POST', cms(), { body: configMap(ns, 'race-create') })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    });

    it('lets exactly one of many concurrent updates from the same resourceVersion succeed', async () => {
      const created = expectCode(await t.request('POST', cms(), { body: configMap(ns, 'race-update', { v: '0' }) }), 201);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_v, i) =>
          t.request('PUT', `${cms()}/race-update`, { body: { ...created, data: { v: String(i + 1) } } }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
      const winner = results.find((r) => r.status === 200)!;
      const got = expectCode(await t.request('GET', `${cms()}/race-update`), 200);
      expect(got.data).toEqual(winner.json.data);
    });

    describe('lists', () => {
      const labelled: Record<string, Record<string, string> | undefined> = {
        'sel-a': { app: 'a', tier: 'web' },
        'sel-b': { app: 'b', tier: 'db' },
        'sel-c': { app: 'c' },
        'sel-none': undefined,
      };
      let selNs: string;
      beforeAll(async () => {
        selNs = await t.createNamespace('conf-sel');
        for (const [name, labels] of Object.entries(labelled)) {
          expectCode(await t.request('POST', `/api/v1/namespaces/${selNs}/configmaps`, { body: configMap(selNs, name, {}, labels) }), 201);
        }
      });

      const namesFor = async (query: string): Promise<string[]> => {
        const body = expectCode(await t.request('GET', `/api/v1/namespaces/${selNs}/configmaps?${query}`), 200);
        return (body.items as Json[])
          .map((i) => i.metadata.name as string)
          .filter((n) => n.startsWith('sel-'))
          .sort();
      };

      it.each([
        ['app=a', ['sel-a']],
        ['app==a', ['sel-a']],
        ['app!=a', ['sel-b', 'sel-c', 'sel-none']],
        ['app in (a,b)', ['sel-a', 'sel-b']],
        ['app notin (a,b)', ['sel-c', 'sel-none']],
        ['tier', ['sel-a', 'sel-b']],
        ['!tier', ['sel-c', 'sel-none']],
        ['app,!tier', ['sel-c']],
        ['app in (a,b),tier=db', ['sel-b']],
        ['app=zzz', []],
      ])('selects by label selector %s', async (selector, expected) => {
        expect(await namesFor(`labelSelector=${encodeURIComponent(selector)}`)).toEqual(expected);
      });

      it('rejects a malformed label selector with 400 BadRequest', async () => {
        const res = await t.request('GET', `/api/v1/namespaces/${selNs}/configmaps?labelSelector=${encodeURIComponent('app in (a')}`);
        expectFailure(res, 400, 'BadRequest');
      });

      it('selects by the metadata.name and metadata.namespace field selectors', async () => {
        expect(await namesFor('fieldSelector=metadata.name%3Dsel-b')).toEqual(['sel-b']);
        expect(await namesFor('fieldSelector=metadata.name%21%3Dsel-b')).toEqual(['sel-a', 'sel-c', 'sel-none']);
        const all = expectCode(await t.request('GET', `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${selNs}`), 200);
        const names = (all.items as Json[]).map((i) => `${i.metadata.namespace}/${i.metadata.name}`);
        expect(names.filter((n) => n.includes('/sel-')).sort()).toEqual(
          Object.keys(labelled)
            .map((n) => `${selNs}/${n}`)
            .sort(),
        );
        expect(names.every((n) => n.startsWith(`${selNs}/`))).toBe(true);
      });

      it('returns a List kind with a string resourceVersion', async () => {
        const body = expectCode(await t.request('GET', `/api/v1/namespaces/${selNs}/configmaps`), 200);
        expect(body).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
        expect(body.metadata.resourceVersion).toMatch(/^\d+$/);
        const apps = expectCode(await t.request('GET', `/apis/apps/v1/namespaces/${selNs}/deployments`), 200);
        expect(apps).toMatchObject({ kind: 'DeploymentList', apiVersion: 'apps/v1', items: [] });
      });

      it('pages with limit and continue, returning every item exactly once', async () => {
        const pageNs = await t.createNamespace('conf-page');
        const expected: string[] = [];
        for (let i = 0; i < 23; i++) {
          const name = `page-${String(i).padStart(2, '0')}`;
          expected.push(name);
          expectCode(await t.request('POST', `/api/v1/namespaces/${pageNs}/configmaps`, { body: configMap(pageNs, name) }), 201);
        }
        const seen: string[] = [];
        let token: string | undefined;
        let pages = 0;
        do {
          const query = `limit=5${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`;
          const body = expectCode(await t.request('GET', `/api/v1/namespaces/${pageNs}/configmaps?${query}`), 200);
          expect((body.items as Json[]).length).toBeLessThanOrEqual(5);
          seen.push(...(body.items as Json[]).map((i) => i.metadata.name as string));
          token = body.metadata.continue || undefined;
          if (token !== undefined) expect(body.metadata.remainingItemCount).toBeGreaterThan(0);
          pages += 1;
          // A write between pages must not disturb the snapshot being paged.
          if (pages === 2) await t.request('POST', `/api/v1/namespaces/${pageNs}/configmaps`, { body: configMap(pageNs, 'page-late') });
        } while (token !== undefined && pages < 20);
        const pagesSeen = seen.filter((n) => n !== 'kube-root-ca.crt');
        expect(pagesSeen.sort()).toEqual(expected);
        expect(pages).toBeGreaterThanOrEqual(5);
      });

      it('rejects an invalid continue token with 410 or 400, never 5xx', async () => {
        const res = await t.request('GET', `/api/v1/namespaces/${selNs}/configmaps?limit=1&continue=not-a-token`);
        expect([400, 410]).toContain(res.status);
        expect(res.json).toMatchObject({ kind: 'Status', status: 'Failure' });
      });
    });

    describe('tables', () => {
      const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
      const s = (n: string, p = 0, format = ''): [string, string, string, number] => [n, 'string', format, p];
      const i = (n: string): [string, string, string, number] => [n, 'integer', '', 0];
      const nameCol = s('Name', 0, 'name');
      it.each([
        ['/api/v1/namespaces/{ns}/configmaps', [nameCol, s('Data'), s('Age')]],
        ['/api/v1/namespaces/{ns}/secrets', [nameCol, s('Type'), s('Data'), s('Age')]],
        [
          '/api/v1/namespaces/{ns}/pods',
          [
            nameCol,
            s('Ready'),
            s('Status'),
            s('Restarts'),
            s('Age'),
            s('IP', 1),
            s('Node', 1),
            s('Nominated Node', 1),
            s('Readiness Gates', 1),
          ],
        ],
        [
          '/api/v1/namespaces/{ns}/events',
          [
            s('Last Seen'),
            s('Type'),
            s('Reason'),
            s('Object'),
            s('Subobject', 1),
            s('Source', 1),
            s('Message'),
            s('First Seen', 1),
            s('Count', 1),
            s('Name', 1, 'name'),
          ],
        ],
        [
          '/api/v1/nodes',
          [
            nameCol,
            s('Status'),
            s('Roles'),
            s('Age'),
            s('Version'),
            s('Internal-IP', 1),
            s('External-IP', 1),
            s('OS-Image', 1),
            s('Kernel-Version', 1),
            s('Container-Runtime', 1),
          ],
        ],
        [
          '/apis/apps/v1/namespaces/{ns}/deployments',
          [nameCol, s('Ready'), s('Up-to-date'), s('Available'), s('Age'), s('Containers', 1), s('Images', 1), s('Selector', 1)],
        ],
        [
          '/apis/apps/v1/namespaces/{ns}/replicasets',
          [nameCol, i('Desired'), i('Current'), i('Ready'), s('Age'), s('Containers', 1), s('Images', 1), s('Selector', 1)],
        ],
        ['/apis/apps/v1/namespaces/{ns}/statefulsets', [nameCol, s('Ready'), s('Age'), s('Containers', 1), s('Images', 1)]],
        [
          '/apis/batch/v1/namespaces/{ns}/jobs',
          [nameCol, s('Status'), s('Completions'), s('Duration'), s('Age'), s('Containers', 1), s('Images', 1), s('Selector', 1)],
        ],
        [
          '/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings',
          [nameCol, s('Role'), s('Age'), s('Users', 1), s('Groups', 1), s('ServiceAccounts', 1)],
        ],
      ])('declares the printer columns of kube-apiserver for %s', async (path, columns) => {
        const table = expectCode(await t.request('GET', path.replace('{ns}', ns), { accept: tableAccept }), 200);
        expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
        expect((table.columnDefinitions as Json[]).map((c) => [c.name, c.type, c.format, c.priority])).toEqual(columns);
      });

      it('fills the wide columns of Deployments and RoleBindings', async () => {
        expectCode(await t.request('POST', deploys(), { body: deployment(ns, 'wide', 0) }), 201);
        const deploy = expectCode(await t.request('GET', `${deploys()}/wide`, { accept: tableAccept }), 200);
        expect(deploy.rows[0].cells.slice(5)).toEqual(['app,sidecar', 'registry.k8s.io/pause:3.9,registry.k8s.io/pause:3.9', 'app=wide']);
        const bindings = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`;
        expectCode(
          await t.request('POST', bindings, {
            body: {
              apiVersion: 'rbac.authorization.k8s.io/v1',
              kind: 'RoleBinding',
              metadata: { name: 'wide' },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
              subjects: [
                { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
                { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
                { kind: 'ServiceAccount', name: 'sa1', namespace: ns },
                { kind: 'ServiceAccount', name: 'sa2', namespace: 'other' },
              ],
            },
          }),
          201,
        );
        const binding = expectCode(await t.request('GET', `${bindings}/wide`, { accept: tableAccept }), 200);
        expect(binding.rows[0].cells[1]).toBe('ClusterRole/view');
        expect(binding.rows[0].cells.slice(3)).toEqual(['alice', 'devs', `${ns}/sa1, other/sa2`]);
      });
    });

    describe('through @kubernetes/client-node', () => {
      it('creates and reads a ConfigMap with CoreV1Api', async () => {
        const core = t.kc.makeApiClient(CoreV1Api);
        const created = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'typed' }, data: { k: 'v' } } });
        expect(created.metadata?.uid).toBeTruthy();
        const got = await core.readNamespacedConfigMap({ namespace: ns, name: 'typed' });
        expect(got.data).toEqual({ k: 'v' });
        expect(got.metadata?.creationTimestamp).toBeInstanceOf(Date);
        const list = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'none=none' });
        expect(list.items).toEqual([]);
      });

      it('surfaces a missing object as ApiException 404 with a NotFound Status body', async () => {
        const core = t.kc.makeApiClient(CoreV1Api);
        const err: unknown = await core.readNamespacedConfigMap({ namespace: ns, name: 'nope' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ApiException);
        const ex = err as ApiException<string>;
        expect(ex.code).toBe(404);
        const body = JSON.parse(ex.body);
        expect(body).toMatchObject({ kind: 'Status', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' } });
      });

      it('creates, replaces and reads a Deployment with CustomObjectsApi, keeping raw fields', async () => {
        const custom = t.kc.makeApiClient(CustomObjectsApi);
        const base = { group: 'apps', version: 'v1', namespace: ns, plural: 'deployments' };
        const created: Json = await custom.createNamespacedCustomObject({ ...base, body: deployment(ns, 'via-custom') });
        expect(created.metadata.generation).toBe(1);
        // The deployment controller writes status right after the create, so a replace based on
        // an older read is (rightly) a 409: read again until the replace meets the current version.
        const replaced: Json = await vi.waitFor(
          async () => {
            const current: Json = await custom.getNamespacedCustomObject({ ...base, name: 'via-custom' });
            current.spec.replicas = 2;
            return custom.replaceNamespacedCustomObject({ ...base, name: 'via-custom', body: current });
          },
          { timeout: 10_000, interval: 50 },
        );
        expect(replaced.metadata.generation).toBe(2);
        const got: Json = await custom.getNamespacedCustomObject({ ...base, name: 'via-custom' });
        expect(got.spec.replicas).toBe(2);
        expect(typeof got.metadata.creationTimestamp).toBe('string');
        const stale = await custom.replaceNamespacedCustomObject({ ...base, name: 'via-custom', body: created }).catch((e: unknown) => e);
        expect((stale as ApiException<string>).code).toBe(409);
        expect(JSON.parse((stale as ApiException<string>).body)).toMatchObject({ reason: 'Conflict' });
      });

      it('reads and lists objects with KubernetesObjectApi', async () => {
        const objects = t.kc.makeApiClient(KubernetesObjectApi);
        await objects.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'generic', namespace: ns },
          data: { x: 'y' },
        } as never);
        const got: Json = await objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: ns } });
        expect(got.data).toEqual({ x: 'y' });
        const list = await objects.list('v1', 'ConfigMap', ns);
        expect(list.items.map((i) => i.metadata?.name)).toContain('generic');
      });
    });
  });
}
