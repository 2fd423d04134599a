// Three federations share one member: A (host, namespace fed-a), B (host2, fed-b) and C (host, fed-c,
// joined with --host-cluster-name hq). Each joined the member as "member" with least privilege;
// enabling a type in one rewrites only the role of its own join. The real CLI against kube-sim.
import { federatedTypeConfigCrd, kubeFedClusterCrd, kubeFedConfigCrd } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'host2', 'member']);
  // SimFederation installs the KubeFed CRDs in its first cluster only.
  const crds = fed.client('host2').resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' });
  for (const crd of [kubeFedConfigCrd(), federatedTypeConfigCrd(), kubeFedClusterCrd()]) await crds.create(crd as unknown as KubeObject);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

const A = ['--host-cluster-context', 'host', '--kubefed-namespace', 'fed-a'];
const B = ['--host-cluster-context', 'host2', '--kubefed-namespace', 'fed-b'];
const C = ['--host-cluster-context', 'host', '--kubefed-namespace', 'fed-c'];
const ROLE = {
  a: 'kubefed-controller-manager:member-host',
  b: 'kubefed-controller-manager:member-host2',
  c: 'kubefed-controller-manager:member-hq',
};

async function rules(role: string): Promise<unknown> {
  return (await fed.client('member').resource(gvr.clusterRoles).get(role))['rules'];
}

function grants(rulesOf: unknown, resource: string): boolean {
  return (rulesOf as { resources?: string[] }[]).some((r) => r.resources?.includes(resource));
}

describe('least-privilege joins of several federations in one member', () => {
  it("enable and disable rewrite only the role of their own join, never another federation's", async () => {
    await fed.controlPlane('host', 'fed-a');
    await fed.controlPlane('host2', 'fed-b');
    await fed.controlPlane('host', 'fed-c');
    for (const [flags, extra] of [
      [A, []],
      [B, []],
      [C, ['--host-cluster-name', 'hq']],
    ] as const) {
      const joined = await fed.cli(['join', 'member', '--cluster-context', 'member', '--least-privilege', ...flags, ...extra]);
      expect(joined.stderr).not.toContain('Error:');
      expect(joined.code).toBe(0);
    }
    const before = { b: await rules(ROLE.b), c: await rules(ROLE.c) };

    const enabled = await fed.cli(['enable', 'configmaps', ...A]);
    expect(enabled.stderr).not.toContain('Error:');
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toContain(`clusterrole.rbac.authorization.k8s.io/${ROLE.a} updated in member`);
    expect(grants(await rules(ROLE.a), 'configmaps')).toBe(true);
    expect(await rules(ROLE.b)).toEqual(before.b);
    expect(await rules(ROLE.c)).toEqual(before.c);

    // C's join used --host-cluster-name hq: its role is found all the same, and only its role changes.
    const aRules = await rules(ROLE.a);
    const inC = await fed.cli(['enable', 'secrets', ...C]);
    expect(inC.code).toBe(0);
    expect(inC.stdout).toContain(`clusterrole.rbac.authorization.k8s.io/${ROLE.c} updated in member`);
    expect(grants(await rules(ROLE.c), 'secrets')).toBe(true);
    expect(grants(await rules(ROLE.c), 'configmaps')).toBe(false);
    expect(await rules(ROLE.a)).toEqual(aRules);
    expect(await rules(ROLE.b)).toEqual(before.b);

    const disabled = await fed.cli(['disable', 'configmaps', ...A]);
    expect(disabled.code).toBe(0);
    expect(grants(await rules(ROLE.a), 'configmaps')).toBe(false);
    expect(await rules(ROLE.b)).toEqual(before.b);
    expect(grants(await rules(ROLE.c), 'secrets')).toBe(true);
  }, 180_000);

  it("leaves a role alone whose binding grants another service account, even when it carries this join's name", async () => {
    await fed.controlPlane('host', 'fed-d');
    const D = ['--host-cluster-context', 'host', '--kubefed-namespace', 'fed-d'];
    expect(
      (await fed.cli(['join', 'member', '--cluster-context', 'member', '--least-privilege', '--host-cluster-name', 'hd', ...D])).code,
    ).toBe(0);
    const role = 'kubefed-controller-manager:member-hd';
    const bindings = fed.client('member').resource(gvr.clusterRoleBindings);
    const binding = await bindings.get(role);
    await bindings.update({ ...binding, subjects: [{ kind: 'ServiceAccount', name: 'member-hd', namespace: 'elsewhere' }] });
    const before = await rules(role);

    const enabled = await fed.cli(['enable', 'configmaps', ...D]);
    expect(enabled.code).toBe(0);
    expect(enabled.stderr).toContain(
      `warning: could not update the least-privilege role of cluster "member": cluster role ${role} in member is bound to another service account than fed-d/member-hd`,
    );
    expect(await rules(role)).toEqual(before);
  }, 120_000);
});
