/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
/**
 * Admission of KubeFed's own kinds through the generated CRDs alone (no webhook server): the
 * table of `kubefed-admission-cases.ts` is accepted and rejected alike by the API server and by
 * the zod validators of `@kubefed/api`; KubeFed's e2e validation test (create, update and patch of
 * an invalid object) and defaulting test (the stored KubeFedConfig is the defaulted one); the
 * immutable scope; kube-apiserver's wording of CEL errors; the KubeFedCluster printer columns.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  defaultKubeFedConfigSpec,
  kubeFedClusterCrd,
  kubeFedConfigCrd,
  federatedTypeConfigCrd,
  resolveFeatureGates,
  type KubeFedConfigSpec,
} from '@kubefed/api';
import type { ConformanceTarget, Json, RawResponse, Substrate } from '../support/conformance-target.js';
import { expectCode, expectFailure } from '../support/fixtures.js';
import {
  ADMISSION_CASES,
  PLURALS,
  validCluster,
  validConfig,
  validTypeConfig,
  zodAccepts,
  type AdmissionKind,
  type Obj,
} from '../support/kubefed-admission-cases.js';

const poll = { timeout: 30_000, interval: 200 };
const CRDS = [kubeFedClusterCrd(), kubeFedConfigCrd(), federatedTypeConfigCrd()];
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** The field paths of the causes of a 422. */
function causeFields(res: RawResponse): string[] {
  return ((res.json?.details?.causes ?? []) as Json[]).map((c) => c.field);
}

/** KubeFed's e2e validation test: the invalid edit of each kind (test/e2e/validation.go). */
const INVALID_EDITS: readonly { kind: AdmissionKind; valid: () => Obj; invalidate: (o: Obj) => void; field: string }[] = [
  {
    kind: 'FederatedTypeConfig',
    valid: validTypeConfig,
    invalidate: (o) => ((o.spec['federatedType'] as Json).group = ''),
    field: 'spec.federatedType.group',
  },
  { kind: 'KubeFedCluster', valid: validCluster, invalidate: (o) => (o.spec['apiEndpoint'] = ''), field: 'spec.apiEndpoint' },
  {
    kind: 'KubeFedConfig',
    valid: () => ({ ...validConfig('kubefed-e2e'), spec: defaultKubeFedConfigSpec({ scope: 'Cluster' }) }),
    invalidate: (o) => ((o.spec['syncController'] as Json).adoptResources = 'Unknown'),
    field: 'spec.syncController.adoptResources',
  },
];

/**
 * KubeFed v0.10.0's mutating webhook on CREATE (pkg/apis/core/v1beta1/defaults/defaults.go),
 * written out: what a KubeFedConfig created with `given` must be stored as. Durations as Go's
 * time.Duration.String() prints them. One deliberate difference: RawResourceStatusCollection is
 * Enabled by default here (KubeFed: Disabled), see docs/kubefed-compatibility.md.
 */
const KUBEFED_DEFAULTED_SPEC = {
  scope: 'Cluster',
  controllerDuration: { availableDelay: '20s', unavailableDelay: '1m0s', cacheSyncTimeout: '5m0s' },
  leaderElect: { leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '5s', resourceLock: 'configmaps' },
  featureGates: [
    { name: 'PushReconciler', configuration: 'Enabled' },
    { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
    { name: 'SchedulerPreferences', configuration: 'Enabled' },
  ],
  clusterHealthCheck: { period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s' },
  syncController: { maxConcurrentReconciles: 1, adoptResources: 'Enabled' },
  statusController: { maxConcurrentReconciles: 1 },
};

/** [title, spec created, spec stored] (the gate list a user gives is completed by the controller manager, not at admission). */
const DEFAULTING_CASES: readonly [string, Json, Json][] = [
  ['only the scope', { scope: 'Cluster' }, KUBEFED_DEFAULTED_SPEC],
  ['a Namespaced scope', { scope: 'Namespaced' }, { ...KUBEFED_DEFAULTED_SPEC, scope: 'Namespaced' }],
  [
    'empty blocks',
    { scope: 'Cluster', controllerDuration: {}, leaderElect: {}, clusterHealthCheck: {}, syncController: {}, statusController: {} },
    KUBEFED_DEFAULTED_SPEC,
  ],
  [
    'a leaderElect with only the endpoints lock',
    { scope: 'Cluster', leaderElect: { resourceLock: 'endpoints' } },
    { ...KUBEFED_DEFAULTED_SPEC, leaderElect: { ...KUBEFED_DEFAULTED_SPEC.leaderElect, resourceLock: 'endpoints' } },
  ],
  [
    "KubeFed's test timings without a lock",
    { scope: 'Cluster', leaderElect: { leaseDuration: '1500ms', renewDeadline: '1000ms', retryPeriod: '500ms' } },
    {
      ...KUBEFED_DEFAULTED_SPEC,
      leaderElect: { leaseDuration: '1500ms', renewDeadline: '1000ms', retryPeriod: '500ms', resourceLock: 'configmaps' },
    },
  ],
  [
    'user values in every block',
    {
      scope: 'Cluster',
      controllerDuration: { availableDelay: '31s' },
      clusterHealthCheck: { failureThreshold: 5 },
      syncController: { adoptResources: 'Disabled' },
      statusController: { maxConcurrentReconciles: 3 },
    },
    {
      ...KUBEFED_DEFAULTED_SPEC,
      controllerDuration: { ...KUBEFED_DEFAULTED_SPEC.controllerDuration, availableDelay: '31s' },
      clusterHealthCheck: { ...KUBEFED_DEFAULTED_SPEC.clusterHealthCheck, failureThreshold: 5 },
      syncController: { maxConcurrentReconciles: 1, adoptResources: 'Disabled' },
      statusController: { maxConcurrentReconciles: 3 },
    },
  ],
];

/** Admission rules of the KubeFed CRDs, the same on kube-sim and kube-apiserver. */
export function kubefedAdmissionConformance(substrate: Substrate): void {
  describe('admission of KubeFed objects through the CRD rules', () => {
    let t: ConformanceTarget;
    let ns: string;
    const path = (kind: AdmissionKind, name?: string): string =>
      `/apis/core.kubefed.io/v1beta1/namespaces/${ns}/${PLURALS[kind]}${name === undefined ? '' : `/${name}`}`;
    const create = (kind: AdmissionKind, object: Obj): Promise<RawResponse> => t.request('POST', path(kind), { body: object });

    beforeAll(async () => {
      t = await substrate.open('admission');
      ns = t.namespace;
      for (const crd of CRDS) {
        const res = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
        if (res.status !== 409) expectCode(res, 201);
      }
      await vi.waitFor(async () => {
        for (const kind of Object.keys(PLURALS) as AdmissionKind[]) expectCode(await t.request('GET', path(kind)), 200);
      }, poll);
    });
    afterAll(async () => {
      if (t?.real)
        for (const crd of CRDS) await t.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
      await t?.close();
    });

    it.each(ADMISSION_CASES.map((c) => [c.kind, c.title, c] as const))(
      '%s: %s is accepted or rejected alike by the API server and zod',
      async (kind, _title, c) => {
        const res = await create(kind, c.object);
        if (c.rejectedAt === null) {
          expectCode(res, 201);
          expect(zodAccepts(kind, c.object), 'zod rejects what the API server accepts').toBe(true);
          expectCode(await t.request('DELETE', path(kind, String(c.object.metadata['name']))), 200);
        } else {
          expectFailure(res, 422, 'Invalid');
          expect(causeFields(res)).toContain(c.rejectedAt);
          expect(zodAccepts(kind, c.object), 'zod accepts what the API server rejects').toBe(false);
        }
      },
    );

    it.each(INVALID_EDITS.map((e) => [e.kind, e] as const))(
      '%s: rejects an invalid create, update and merge patch (KubeFed e2e validation)',
      async (kind, e) => {
        const invalid = e.valid();
        e.invalidate(invalid);
        expect(causeFields(expectFailureRes(await create(kind, invalid)))).toContain(e.field);
        const stored = expectCode(await create(kind, e.valid()), 201);
        const name = String(stored.metadata.name);
        const updated = structuredClone(stored);
        e.invalidate(updated);
        expect(causeFields(expectFailureRes(await t.request('PUT', path(kind, name), { body: updated })))).toContain(e.field);
        const patch = { spec: structuredClone(updated.spec) };
        const patched = await t.request('PATCH', path(kind, name), { body: patch, contentType: 'application/merge-patch+json' });
        expect(causeFields(expectFailureRes(patched))).toContain(e.field);
        expect(zodAccepts(kind, updated, stored)).toBe(false);
        expectCode(await t.request('DELETE', path(kind, name)), 200);
      },
    );

    it("stores a KubeFedConfig defaulted as KubeFed's mutating webhook did, keeping the values set (KubeFed e2e defaulting)", async () => {
      const spec: KubeFedConfigSpec = {
        scope: 'Cluster',
        controllerDuration: { availableDelay: '31s' },
        featureGates: [
          { name: 'PushReconciler', configuration: 'Disabled' },
          { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
        ],
        clusterHealthCheck: { period: '21s' },
      };
      const stored = expectCode(await create('KubeFedConfig', { ...validConfig('kubefed-defaulting'), spec }), 201);
      const expected = defaultKubeFedConfigSpec(spec);
      // A schema default cannot add items to a list the user gave: the gates not listed keep their
      // defaults when the controller manager reads them (resolveFeatureGates), as the webhook's appended ones did.
      expect(stored.spec).toEqual({ ...expected, featureGates: spec.featureGates });
      expect(resolveFeatureGates(stored.spec)).toEqual(resolveFeatureGates(expected));
      const minimal = expectCode(await create('KubeFedConfig', { ...validConfig('kubefed-minimal'), spec: { scope: 'Namespaced' } }), 201);
      expect(minimal.spec).toEqual(defaultKubeFedConfigSpec({ scope: 'Namespaced' }));
    });

    it.each(DEFAULTING_CASES)("stores a KubeFedConfig created with %s as KubeFed's webhook defaulted it", async (title, spec, expected) => {
      const name = `kubefed-defaults-${DEFAULTING_CASES.findIndex((c) => c[0] === title)}`;
      const stored = expectCode(await create('KubeFedConfig', { ...validConfig(name), spec }), 201);
      expect(stored.spec).toEqual(expected);
      expect(expectCode(await t.request('GET', path('KubeFedConfig', name)), 200).spec).toEqual(expected);
      expectCode(await t.request('DELETE', path('KubeFedConfig', name)), 200);
    });

    it('refuses to change the scope of a KubeFedConfig and accepts other changes, as kube-apiserver words it', async () => {
      const stored = expectCode(await create('KubeFedConfig', validConfig('kubefed-scope')), 201);
      const changed = { ...stored, spec: { ...stored.spec, scope: 'Namespaced' } };
      const res = expectFailureRes(await t.request('PUT', path('KubeFedConfig', 'kubefed-scope'), { body: changed }));
      expect(res.json.message).toBe(
        'KubeFedConfig.core.kubefed.io "kubefed-scope" is invalid: spec.scope: Invalid value: "string": scope is immutable',
      );
      expect(zodAccepts('KubeFedConfig', changed, stored)).toBe(false);
      const other = { ...stored, spec: { ...stored.spec, syncController: { adoptResources: 'Disabled', maxConcurrentReconciles: 4 } } };
      expect(
        expectCode(await t.request('PUT', path('KubeFedConfig', 'kubefed-scope'), { body: other }), 200).spec.syncController
          .maxConcurrentReconciles,
      ).toBe(4);
    });

    it('reports a rule across fields at the field it names and skips the rules after a blocking error', async () => {
      const lease = expectFailureRes(
        await create('KubeFedConfig', {
          ...validConfig('kubefed-lease'),
          spec: { scope: 'Cluster', leaderElect: { leaseDuration: '5s' } },
        }),
      );
      expect(lease.json.details.causes).toEqual([
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "object": leaseDuration must be greater than renewDeadline',
          field: 'spec.leaderElect.leaseDuration',
        },
      ]);
      const blocked = expectFailureRes(
        await create('KubeFedConfig', {
          ...validConfig('kubefed-blocked'),
          spec: { scope: 'Cluster', syncController: { adoptResources: 'Unknown' }, leaderElect: { leaseDuration: '5s' } },
        }),
      );
      expect(blocked.json.details.causes).toEqual([
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "Unknown": supported values: "Enabled", "Disabled"',
          field: 'spec.syncController.adoptResources',
        },
        RULES_NOT_CHECKED,
      ]);
      const required = expectFailureRes(
        await create('KubeFedCluster', { ...validCluster('empty-endpoint'), spec: { apiEndpoint: '', secretRef: { name: 's' } } }),
      );
      expect(required.json.details.causes).toEqual([
        { reason: 'FieldValueRequired', message: 'Required value: apiEndpoint is required', field: 'spec.apiEndpoint' },
      ]);
      const bytes = expectFailureRes(
        await create('KubeFedCluster', { ...validCluster('bad-ca'), spec: { ...validCluster().spec, caBundle: 'not base64!' } }),
      );
      expect(bytes.json.details.causes).toEqual([
        {
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "not base64!": spec.caBundle in body must be of type byte: "not base64!"',
          field: 'spec.caBundle',
        },
        RULES_NOT_CHECKED,
      ]);
    });

    it("lists KubeFedClusters with KubeFed's AGE, READY and KUBERNETES-VERSION columns, then API-ENDPOINT for -o wide", async () => {
      expectCode(await create('KubeFedCluster', validCluster('columns')), 201);
      const table = expectCode(await t.request('GET', path('KubeFedCluster'), { accept: tableAccept }), 200);
      expect((table.columnDefinitions as Json[]).map((c) => [c.name, c.priority])).toEqual([
        ['Name', 0],
        ['Age', 0],
        ['Ready', 0],
        ['Kubernetes-Version', 0],
        ['API-Endpoint', 1],
      ]);
    });
  });
}

/** The cause kube-apiserver adds when a blocking schema error kept it from evaluating the CEL rules. */
const RULES_NOT_CHECKED = {
  reason: 'FieldValueInvalid',
  message:
    'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  field: '<nil>',
};

/** A 422 Invalid response. */
function expectFailureRes(res: RawResponse): RawResponse {
  expectFailure(res, 422, 'Invalid');
  return res;
}
