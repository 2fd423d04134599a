import fs from 'node:fs';
import path from 'node:path';
import { getOrUndefined, type KubeObject } from '@kubefed/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const crdGvr = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const fdGvr = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federateddeployments' };

let fed: SimFederation;
let fedDefaults: SimFederation;

beforeAll(async () => {
  [fed, fedDefaults] = await Promise.all([SimFederation.start(['host']), SimFederation.start(['host'])]);
  await fed.controlPlane('host', 'kube-federation-system');
  await fedDefaults.controlPlane('host', 'kube-federation-system');
});

afterAll(async () => {
  await Promise.all([fed[Symbol.asyncDispose](), fedDefaults[Symbol.asyncDispose]()]);
});

function established(crd: KubeObject | undefined): boolean {
  const conditions = (crd?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

describe('kubefedctl enable, orphaning-deletion and disable against kube-sim', () => {
  it('enables deployments.apps, round-trips orphaning deletion, refuses unknown types and -o yaml writes nothing, and disable --delete-crd removes both', async () => {
    const host = fed.client('host');
    const r = await fed.cli(['enable', 'deployments.apps']);
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/federateddeployments.types.kubefed.io created');
    expect(r.stdout).toContain('federatedtypeconfig.core.kubefed.io/deployments.apps created in namespace kube-federation-system');
    const crd = await host.resource(crdGvr).get('federateddeployments.types.kubefed.io');
    expect(established(crd)).toBe(true);
    const versions = (
      crd['spec'] as { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[] }
    ).versions;
    expect(Object.keys(versions[0]!.schema.openAPIV3Schema.properties.spec.properties)).toContain('retainReplicas');
    const ftc = await host.resource(gvr.federatedTypeConfigs, 'kube-federation-system').get('deployments.apps');
    expect(ftc['spec']).toMatchObject({
      targetType: { group: 'apps', version: 'v1', kind: 'Deployment', pluralName: 'deployments', scope: 'Namespaced' },
      federatedType: {
        group: 'types.kubefed.io',
        version: 'v1beta1',
        kind: 'FederatedDeployment',
        pluralName: 'federateddeployments',
        scope: 'Namespaced',
      },
      propagation: 'Enabled',
      statusCollection: 'Enabled',
    });

    // A re-run updates both and keeps a statusCollection the user changed.
    await host
      .resource(gvr.federatedTypeConfigs, 'kube-federation-system')
      .patch('deployments.apps', { spec: { statusCollection: 'Disabled' } }, 'merge');
    const again = await fed.cli(['enable', 'deployments', '-v']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/federateddeployments.types.kubefed.io updated');
    expect(again.stdout).toContain('federatedtypeconfig.core.kubefed.io/deployments.apps updated in namespace kube-federation-system');
    expect(again.stderr).toContain("debug: deployments.apps: spec.template has the target's schema; spec.retainReplicas added");
    const rerun = await host.resource(gvr.federatedTypeConfigs, 'kube-federation-system').get('deployments.apps');
    expect((rerun['spec'] as { statusCollection: string }).statusCollection).toBe('Disabled');

    // The new type is served: create and read a FederatedDeployment through the API.
    await host.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } });
    await host.resource(fdGvr, 'demo').create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedDeployment',
      metadata: { name: 'web', namespace: 'demo' },
      spec: { template: { spec: { replicas: 2 } }, placement: { clusters: [{ name: 'member1' }] } },
    });
    const got = await host.resource(fdGvr, 'demo').get('web');
    expect(got['spec']).toMatchObject({ template: { spec: { replicas: 2 } } });

    const orphan = (action: string) => fed.cli(['orphaning-deletion', action, 'federateddeployments', 'web', '-n', 'demo']);
    expect((await orphan('enable')).code).toBe(0);
    expect((await host.resource(fdGvr, 'demo').get('web')).metadata.annotations).toMatchObject({ 'kubefed.io/orphan': 'true' });
    const status = await orphan('status');
    expect(status.stdout).toBe('Enabled\n');
    expect((await orphan('disable')).code).toBe(0);
    expect((await host.resource(fdGvr, 'demo').get('web')).metadata.annotations?.['kubefed.io/orphan']).toBeUndefined();

    const unknown = await fed.cli(['enable', 'widgets.example.com']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Error: Unable to find api resource named "widgets.example.com".');
    expect(unknown.stderr).toContain('hint:');

    const yaml = await fed.cli(['enable', 'configmaps', '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toMatch(
      /^---\napiVersion: core.kubefed.io\/v1beta1\nkind: FederatedTypeConfig\n[\s\S]*---\napiVersion: apiextensions.k8s.io\/v1\nkind: CustomResourceDefinition\n/,
    );
    expect(await getOrUndefined(host.resource(crdGvr), 'federatedconfigmaps.types.kubefed.io')).toBeUndefined();
    expect(await getOrUndefined(host.resource(gvr.federatedTypeConfigs, 'kube-federation-system'), 'configmaps')).toBeUndefined();

    const refused = await fed.cli(['disable', 'deployments.apps', '--delete-crd']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Cannot delete CRD "federateddeployments.types.kubefed.io" while resource instances exist.');
    await host.resource(fdGvr, 'demo').delete('web');
    await expect.poll(() => getOrUndefined(host.resource(fdGvr, 'demo'), 'web'), { timeout: 10_000 }).toBeUndefined();
    const disabled = await fed.cli(['disable', 'deployments.apps', '--delete-crd']);
    expect(disabled.stderr).not.toContain('Error:');
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain('Disabled propagation for FederatedTypeConfig "kube-federation-system/deployments.apps"');
    expect(disabled.stdout).toContain('customresourcedefinition "federateddeployments.types.kubefed.io" deleted');
    expect(disabled.stdout).toContain('federatedtypeconfig "kube-federation-system/deployments.apps" deleted');
    await expect
      .poll(() => getOrUndefined(host.resource(crdGvr), 'federateddeployments.types.kubefed.io'), { timeout: 10_000 })
      .toBeUndefined();
    await expect
      .poll(() => getOrUndefined(host.resource(gvr.federatedTypeConfigs, 'kube-federation-system'), 'deployments.apps'), {
        timeout: 10_000,
      })
      .toBeUndefined();
  }, 180_000);

  it('enables the 11 default types with --default-types, status collection on for workloads', async () => {
    const r = await fedDefaults.cli(['enable', '--default-types'], 120_000);
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    const host = fedDefaults.client('host');
    const ftcs = (await host.resource(gvr.federatedTypeConfigs, 'kube-federation-system').list()).items;
    expect(ftcs.map((f) => f.metadata.name).sort()).toEqual([
      'clusterrolebindings.rbac.authorization.k8s.io',
      'clusterroles.rbac.authorization.k8s.io',
      'configmaps',
      'deployments.apps',
      'ingresses.networking.k8s.io',
      'jobs.batch',
      'namespaces',
      'replicasets.apps',
      'secrets',
      'serviceaccounts',
      'services',
    ]);
    const collecting = ftcs
      .filter((f) => (f['spec'] as { statusCollection?: string }).statusCollection === 'Enabled')
      .map((f) => f.metadata.name);
    expect(collecting.sort()).toEqual(['deployments.apps', 'jobs.batch', 'replicasets.apps']);
    const ns = await host.resource(crdGvr).get('federatednamespaces.types.kubefed.io');
    expect((ns['spec'] as { scope: string }).scope).toBe('Namespaced');
  }, 180_000);
});

describe('kubefedctl plan offline', () => {
  it('prints the plan as a table and as JSON for the user guide example', async () => {
    const file = path.join(fed.dir, 'rsp.yaml');
    fs.writeFileSync(
      file,
      [
        'apiVersion: scheduling.kubefed.io/v1alpha1',
        'kind: ReplicaSchedulingPreference',
        'metadata: { name: web, namespace: demo }',
        'spec:',
        '  targetKind: FederatedDeployment',
        '  totalReplicas: 9',
        '  clusters:',
        '    A: { weight: 1 }',
        '    B: { weight: 2 }',
        '',
      ].join('\n'),
    );
    const [table, json] = await Promise.all([
      fed.cli(['plan', '-f', file, '--clusters', 'A,B,C']),
      fed.cli(['plan', '-f', file, '--clusters', 'A,B,C', '-o', 'json']),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/CLUSTER.*MIN.*MAX.*WEIGHT.*CURRENT.*CAPACITY.*PLANNED.*WHY/);
    expect(table.stdout).toContain('total 9: placed 9, unplaced 0');
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as { plan: Record<string, number>; clusters: { name: string; why: string }[] };
    expect(parsed.plan).toEqual({ A: 3, B: 6, C: 0 });
    expect(parsed.clusters.map((c) => c.name)).toEqual(['B', 'A', 'C']);
  }, 60_000);
});
