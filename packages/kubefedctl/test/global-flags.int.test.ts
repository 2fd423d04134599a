// kubefedctl's KubeFed-compatible global flags run as a process against kube-sim: --dry-run on
// every mutating command, klog verbosity, enable -f with an EnableTypeDirective, and disable
// deleting the FederatedTypeConfig as KubeFed does (or keeping it with --keep-ftc).
import { getOrUndefined } from '@kubefed/client';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const crdGvr = gvr.customResourceDefinitions;
const fcmGvr = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' };

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'member']);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

function ctl(ns: string) {
  return (...args: string[]) => fed.cli(['--host-cluster-context', 'host', '--kubefed-namespace', ns, ...args]);
}

async function ok(run: Promise<{ code: number; stdout: string; stderr: string }>): Promise<string> {
  const r = await run;
  expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0, stderr: expect.not.stringContaining('Error:') });
  return r.stdout;
}

describe('kubefedctl --dry-run', () => {
  it('writes nothing for join, unjoin, enable, disable, federate and orphaning-deletion, and prints what each would do', async () => {
    const ns = 'fed-dry';
    const kubefedctl = ctl(ns);
    const host = fed.client('host');
    await fed.controlPlane('host', ns);

    const join = await ok(kubefedctl('join', 'member1', '--cluster-context', 'member', '--dry-run'));
    expect(join).toContain(`kubefedcluster.core.kubefed.io/member1 created in host (dry run)`);
    expect(join).toContain('dry run: nothing was written');
    expect(await getOrUndefined(host.resource(gvr.kubeFedClusters, ns), 'member1')).toBeUndefined();

    // The global flag goes before the command too, as a global option.
    const enable = await ok(kubefedctl('--dry-run', 'enable', 'configmaps'));
    expect(enable).toBe(
      'customresourcedefinition.apiextensions.k8s.io/federatedconfigmaps.types.kubefed.io created (dry run)\n' +
        `federatedtypeconfig.core.kubefed.io/configmaps created in namespace ${ns} (dry run)\n` +
        'dry run: nothing was written\n',
    );
    expect(await getOrUndefined(host.resource(crdGvr), 'federatedconfigmaps.types.kubefed.io')).toBeUndefined();
    expect(await getOrUndefined(host.resource(gvr.federatedTypeConfigs, ns), 'configmaps')).toBeUndefined();

    await host.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dry-app' } });
    await host
      .resource(gvr.configMaps, 'dry-app')
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'dry-app' }, data: { a: '1' } });
    const federate = await ok(kubefedctl('federate', 'configmaps', 'web', '-n', 'dry-app', '--enable-type', '--dry-run'));
    expect(federate).toContain('federatedtypeconfig.core.kubefed.io/configmaps created in namespace fed-dry (dry run)');
    expect(federate).toContain('FederatedConfigMap "dry-app/web" from ConfigMap created (dry run)\ndry run: nothing was written\n');
    expect(await getOrUndefined(host.resource(gvr.federatedTypeConfigs, ns), 'configmaps')).toBeUndefined();

    // Now for real, so that disable, orphaning-deletion and unjoin have something to act on.
    await ok(kubefedctl('join', 'member1', '--cluster-context', 'member'));
    await ok(kubefedctl('federate', 'configmaps', 'web', '-n', 'dry-app', '--enable-type'));
    const yaml = await ok(kubefedctl('federate', 'configmaps', 'web', '-n', 'dry-app', '--dry-run', '-o', 'yaml'));
    expect(parseAllDocuments(yaml).map((d) => (d.toJS() as { kind: string }).kind)).toEqual(['FederatedConfigMap']);

    const orphan = await kubefedctl('orphaning-deletion', 'enable', 'federatedconfigmaps', 'web', '-n', 'dry-app', '--dry-run');
    expect(orphan.code).toBe(0);
    expect(orphan.stderr).toContain(
      'orphaning deletion enabled for FederatedConfigMap "dry-app/web": its member objects stay when it is deleted (dry run)',
    );
    expect((await host.resource(fcmGvr, 'dry-app').get('web')).metadata.annotations?.['kubefed.io/orphan']).toBeUndefined();

    const disable = await ok(kubefedctl('disable', 'configmaps', '--dry-run'));
    expect(disable).toBe(
      `Disabled propagation for FederatedTypeConfig "${ns}/configmaps" (dry run)\nfederatedtypeconfig "${ns}/configmaps" deleted (dry run)\ndry run: nothing was written\n`,
    );
    const ftc = await host.resource(gvr.federatedTypeConfigs, ns).get('configmaps');
    expect((ftc['spec'] as { propagation: string }).propagation).toBe('Enabled');

    const unjoin = await ok(kubefedctl('unjoin', 'member1', '--cluster-context', 'member', '--dry-run'));
    expect(unjoin).toContain(`kubefedcluster.core.kubefed.io/member1 deleted in host (dry run)`);
    expect(unjoin).toContain('dry run: nothing was removed');
    expect(await getOrUndefined(host.resource(gvr.kubeFedClusters, ns), 'member1')).toBeDefined();
  }, 240_000);
});

describe('kubefedctl disable', () => {
  it('deletes the FederatedTypeConfig and keeps the CRD, as KubeFed does; --keep-ftc keeps it with propagation Disabled', async () => {
    const ns = 'fed-disable';
    const kubefedctl = ctl(ns);
    const host = fed.client('host');
    await fed.controlPlane('host', ns);
    await ok(kubefedctl('enable', 'secrets'));
    await ok(kubefedctl('enable', 'serviceaccounts'));

    const keep = await ok(kubefedctl('disable', 'serviceaccounts', '--keep-ftc'));
    expect(keep).toContain(`Disabled propagation for FederatedTypeConfig "${ns}/serviceaccounts"`);
    expect(keep).not.toContain('deleted');
    const kept = await host.resource(gvr.federatedTypeConfigs, ns).get('serviceaccounts');
    expect((kept['spec'] as { propagation: string }).propagation).toBe('Disabled');

    const removed = await ok(kubefedctl('disable', 'secrets'));
    expect(removed).toContain(`Disabled propagation for FederatedTypeConfig "${ns}/secrets"`);
    expect(removed).toContain(`federatedtypeconfig "${ns}/secrets" deleted`);
    expect(await getOrUndefined(host.resource(gvr.federatedTypeConfigs, ns), 'secrets')).toBeUndefined();
    expect(await getOrUndefined(host.resource(crdGvr), 'federatedsecrets.types.kubefed.io')).toBeDefined();

    // A second disable finds no FTC and says so, as KubeFed does.
    expect(await ok(kubefedctl('disable', 'secrets'))).toBe(`FederatedTypeConfig "${ns}/secrets" does not exist\n`);
  }, 180_000);
});

describe('kubefedctl enable -f', () => {
  it('enables the type named by an EnableTypeDirective with its spec, and refuses an invalid file naming the field', async () => {
    const ns = 'fed-directive';
    const kubefedctl = ctl(ns);
    const host = fed.client('host');
    await fed.controlPlane('host', ns);
    const file = path.join(fed.dir, 'deployments.apps.yaml');
    fs.writeFileSync(
      file,
      'apiVersion: core.kubefed.io/v1beta1\nkind: EnableTypeDirective\nmetadata:\n  name: deployments.apps\nspec:\n  federatedGroup: directive.example.com\n',
    );
    const r = await ok(kubefedctl('enable', '-f', file));
    expect(r).toContain('customresourcedefinition.apiextensions.k8s.io/federateddeployments.directive.example.com created');
    const ftc = await host.resource(gvr.federatedTypeConfigs, ns).get('deployments.apps');
    expect(ftc['spec']).toMatchObject({
      targetType: { group: 'apps', version: 'v1', kind: 'Deployment' },
      federatedType: {
        group: 'directive.example.com',
        version: 'v1beta1',
        kind: 'FederatedDeployment',
        pluralName: 'federateddeployments',
      },
    });

    const bad = path.join(fed.dir, 'bad.yaml');
    fs.writeFileSync(
      bad,
      'apiVersion: core.kubefed.io/v1beta1\nkind: EnableTypeDirective\nmetadata:\n  name: deployments.apps\nspec:\n  federatedVersion: 1\n',
    );
    const refused = await kubefedctl('enable', '-f', bad);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^Error: .*bad\.yaml: document 1 is not a valid EnableTypeDirective: spec\.federatedVersion: Invalid input: expected string, received number\nhint: expected apiVersion: core\.kubefed\.io\/v1beta1/,
    );
  }, 120_000);
});

describe('kubefedctl klog verbosity', () => {
  it.each([
    [['--v=2'], true],
    [['-v', '2'], true],
    [['--v=1'], false],
    [[], false],
  ])(
    'prints debug lines with %j: %s',
    async (flags, debug) => {
      const r = await fed.cli(['--host-cluster-context', 'host', 'enable', 'configmaps', '-o', 'yaml', ...flags]);
      expect(r.code).toBe(0);
      expect(r.stderr.includes('debug: host context "host"')).toBe(debug);
    },
    60_000,
  );
});
