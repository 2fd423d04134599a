/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
/**
 * The bounds of a generated Federated<Kind> CRD on the free strings that the controllers echo
 * into errors, statuses and logs (override paths, cluster names): the API server refuses a longer
 * one at the field's path, and the zod validators of `@kubefed/api` refuse the same objects. A
 * tenant's 100 KB override path once stalled the controller manager's event loop through the log
 * line that quoted it (docs/operations.md, "Who can write what").
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildFederatedTypeCrd, MAX_CLUSTER_NAME_CHARS, MAX_OVERRIDE_PATH_CHARS, validateFederatedObject } from '@kubefed/api';
import type { ConformanceTarget, Json, Substrate } from '../support/conformance-target.js';
import { expectCode } from '../support/fixtures.js';

const poll = { timeout: 30_000, interval: 200 };

/** Admission of federated objects whose override paths and cluster names are over and at their bounds. */
export function federatedObjectBoundsConformance(substrate: Substrate): void {
  describe('bounds on the free strings of a federated object', () => {
    let t: ConformanceTarget;
    let group: string;
    beforeAll(async () => {
      t = await substrate.open('fedbounds');
      group = `types-${t.suffix}.kubefed.io`;
      const crd = buildFederatedTypeCrd({
        group: '',
        version: 'v1',
        kind: 'ConfigMap',
        pluralName: 'configmaps',
        scope: 'Namespaced',
        federatedGroup: group,
      });
      expectCode(await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }), 201);
      await vi.waitFor(
        async () => expectCode(await t.request('GET', `/apis/${group}/v1beta1/namespaces/${t.namespace}/federatedconfigmaps`), 200),
        poll,
      );
    });
    afterAll(async () => {
      if (t?.real) await t.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/federatedconfigmaps.${group}`);
      await t?.close();
    });

    const federated = (name: string, spec: Json): Json => ({
      apiVersion: `${group}/v1beta1`,
      kind: 'FederatedConfigMap',
      metadata: { name, namespace: t.namespace },
      spec: { template: { data: { a: 'b' } }, ...spec },
    });
    const create = (obj: Json) => t.request('POST', `/apis/${group}/v1beta1/namespaces/${t.namespace}/federatedconfigmaps`, { body: obj });
    const pathOf = (length: number): string => `/data/${'a.'.repeat(length)}`.slice(0, length);
    const longName = 'm'.repeat(MAX_CLUSTER_NAME_CHARS + 1);

    it.each([
      [
        'an override path of 100,000 characters',
        { overrides: [{ clusterName: 'member1', clusterOverrides: [{ path: pathOf(100_000), value: 'x' }] }] },
        'spec.overrides[0].clusterOverrides[0].path',
      ],
      [
        'an override for a cluster name over 253 characters',
        { overrides: [{ clusterName: longName, clusterOverrides: [{ path: '/data/a', value: 'x' }] }] },
        'spec.overrides[0].clusterName',
      ],
      [
        'a placement cluster name over 253 characters',
        { placement: { clusters: [{ name: longName }] } },
        'spec.placement.clusters[0].name',
      ],
    ])('refuses %s at that field, as the validators do', async (_title, spec, field) => {
      const obj = federated(`over-${field.length}-${Object.keys(spec)[0]}`, spec);
      const res = await create(obj);
      expect(res.status).toBe(422);
      expect((res.json?.details?.causes ?? []).map((c: Json) => c.field)).toContain(field);
      // The API server's answer does not quote the whole path back.
      expect(res.text.length).toBeLessThan(20_000);
      const validated = validateFederatedObject(obj);
      expect(validated.ok).toBe(false);
      if (!validated.ok) expect(validated.issues.map((i) => i.path)).toContain(field);
    });

    it('accepts an override path of exactly the bound', async () => {
      const obj = federated('at-bound', {
        overrides: [{ clusterName: 'member1', clusterOverrides: [{ path: pathOf(MAX_OVERRIDE_PATH_CHARS), value: 'x' }] }],
      });
      expectCode(await create(obj), 201);
      expect(validateFederatedObject(obj).ok).toBe(true);
    });
  });
}
