// Issue #18 item 1: unjoin removes only what the named join created, and join refuses a second
// name for an endpoint that is already joined.
import { DynamicClient, getOrUndefined } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { type CliRun, gvr, SimFederation } from './sim-federation.js';

const common = ['--cluster-context', 'member', '--host-cluster-context', 'host'];

/** A client for the member with the credentials the host's KubeFedCluster holds (the join's token). */
async function memberViaKfc(fed: SimFederation, ns: string, cluster: string): Promise<DynamicClient> {
  const host = fed.client('host');
  const kfc = await host.resource(gvr.kubeFedClusters, ns).get(cluster);
  return DynamicClient.forKubeFedCluster(host, kfc as unknown as Parameters<typeof DynamicClient.forKubeFedCluster>[1]);
}

/** The member's kubefed namespace exists and is not being deleted (a deletion would take the join's service account with it). */
async function expectNamespaceKept(fed: SimFederation, ns: string): Promise<void> {
  const namespace = await getOrUndefined(fed.client('member').resource(gvr.namespaces), ns);
  expect(namespace).toBeDefined();
  expect(namespace?.metadata.deletionTimestamp).toBeUndefined();
}

/** Requests with the join's token keep succeeding for a fixed window (listing nodes: every join may, for the health check). */
async function expectTokenWorks(credentials: DynamicClient, windowMs = 1000): Promise<void> {
  const until = Date.now() + windowMs;
  do {
    await credentials.resource(gvr.nodes).list();
    await new Promise((r) => setTimeout(r, 100));
  } while (Date.now() < until);
}

/** Runs the CLI and expects success; a failure shows its stderr. */
async function cliOk(fed: SimFederation, args: string[]): Promise<CliRun> {
  const r = await fed.cli(args);
  expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0, stderr: expect.not.stringContaining('Error:') });
  return r;
}

function saNames(items: { metadata: { name?: string | undefined } }[]): string[] {
  return items.map((i) => i.metadata.name ?? '').sort();
}

describe('join identity: unjoin removes only what the named join created', () => {
  it('refuses to unjoin a name that is not joined and touches nothing: the joined member keeps its namespace, service account and working token', async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-notjoined';
    await fed.controlPlane('host', ns);
    await cliOk(fed, ['join', 'member2', ...common, '--kubefed-namespace', ns]);
    using credentials = await memberViaKfc(fed, ns, 'member2');
    await credentials.resource(gvr.nodes).list();

    const r = await fed.cli(['unjoin', 'notjoined', ...common, '--kubefed-namespace', ns]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('unjoined');
    expect(r.stderr).toMatch(
      /^Error: unjoin notjoined: cluster notjoined is not joined: there is no KubeFedCluster fed-notjoined\/notjoined in host; nothing was removed$/m,
    );
    expect(r.stderr).toContain('hint: ');

    await expectNamespaceKept(fed, ns);
    const member = fed.client('member');
    expect(await getOrUndefined(member.resource(gvr.serviceAccounts, ns), 'member2-host')).toBeDefined();
    expect(await getOrUndefined(member.resource(gvr.secrets, ns), 'member2-host')).toBeDefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member2-host')).toBeDefined();
    expect(await getOrUndefined(fed.client('host').resource(gvr.kubeFedClusters, ns), 'member2')).toBeDefined();
    await expectTokenWorks(credentials);
  });

  it('refuses to join an endpoint that is already joined under another name, and writes nothing', async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-dupendpoint';
    await fed.controlPlane('host', ns);
    await cliOk(fed, ['join', 'member2', ...common, '--kubefed-namespace', ns]);

    const r = await fed.cli(['join', 'member2b', ...common, '--kubefed-namespace', ns]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Error: join member2b: the API endpoint ${fed.sim('member').url} is already joined as KubeFedCluster fed-dupendpoint/member2; nothing was written`,
    );
    expect(r.stderr).toContain('--allow-duplicate-endpoint');

    const host = fed.client('host');
    expect(await getOrUndefined(host.resource(gvr.kubeFedClusters, ns), 'member2b')).toBeUndefined();
    expect((await host.resource(gvr.secrets, ns).list()).items.filter((s) => s.metadata.name?.startsWith('member2b-'))).toEqual([]);
    const member = fed.client('member');
    expect(await getOrUndefined(member.resource(gvr.serviceAccounts, ns), 'member2b-host')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member2b-host')).toBeUndefined();

    const help = await cliOk(fed, ['join', '--help']);
    expect(help.stdout).toContain('--allow-duplicate-endpoint');
  });

  it('joins a second name with --allow-duplicate-endpoint; unjoining it keeps the first join working, and the last unjoin removes the namespace', async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-twonames';
    await fed.controlPlane('host', ns);
    await cliOk(fed, ['join', 'member2', ...common, '--kubefed-namespace', ns]);
    await cliOk(fed, ['join', 'member2b', ...common, '--kubefed-namespace', ns, '--allow-duplicate-endpoint']);
    using credentials = await memberViaKfc(fed, ns, 'member2');

    const r = await cliOk(fed, ['unjoin', 'member2b', ...common, '--kubefed-namespace', ns]);
    expect(r.stdout).toContain('serviceaccount/member2b-host deleted in member2b');
    expect(r.stdout).toContain('namespace/fed-twonames kept in member2b (still used by service account member2-host)');
    expect(r.stdout).toContain('cluster "member2b" unjoined from host cluster "host"');

    const member = fed.client('member');
    await expectNamespaceKept(fed, ns);
    expect(await getOrUndefined(member.resource(gvr.serviceAccounts, ns), 'member2b-host')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member2b-host')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.serviceAccounts, ns), 'member2-host')).toBeDefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoleBindings), 'kubefed-controller-manager:member2-host')).toBeDefined();
    await expectTokenWorks(credentials);

    const last = await cliOk(fed, ['unjoin', 'member2', ...common, '--kubefed-namespace', ns]);
    expect(last.stdout).toContain('namespace/fed-twonames deleted in member2');
    await expect.poll(() => getOrUndefined(member.resource(gvr.namespaces), ns), { timeout: 10_000 }).toBeUndefined();
  });

  it("with --force on a name that is not joined removes only that name's leftovers in the member", async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-leftovers';
    await fed.controlPlane('host', ns);
    await cliOk(fed, ['join', 'member2', ...common, '--kubefed-namespace', ns]);
    // Leftovers of a join of "stale" whose host side is gone (KubeFedCluster and secret deleted by hand).
    await cliOk(fed, ['join', 'stale', ...common, '--kubefed-namespace', ns, '--allow-duplicate-endpoint']);
    const host = fed.client('host');
    const staleKfc = await host.resource(gvr.kubeFedClusters, ns).get('stale');
    await host.resource(gvr.secrets, ns).delete((staleKfc['spec'] as { secretRef: { name: string } }).secretRef.name);
    await host.resource(gvr.kubeFedClusters, ns).delete('stale');
    using credentials = await memberViaKfc(fed, ns, 'member2');
    const member = fed.client('member');

    const refused = await fed.cli(['unjoin', 'stale', ...common, '--kubefed-namespace', ns]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'Error: unjoin stale: cluster stale is not joined: there is no KubeFedCluster fed-leftovers/stale in host; nothing was removed',
    );
    expect(refused.stderr).toContain('--force');
    expect(await getOrUndefined(member.resource(gvr.serviceAccounts, ns), 'stale-host')).toBeDefined();

    const forced = await cliOk(fed, ['unjoin', 'stale', ...common, '--kubefed-namespace', ns, '--force']);
    expect(forced.stdout).toContain('serviceaccount/stale-host deleted in stale');
    expect(forced.stdout).toContain('clusterrole.rbac.authorization.k8s.io/kubefed-controller-manager:stale-host deleted in stale');
    expect(await getOrUndefined(member.resource(gvr.serviceAccounts, ns), 'stale-host')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:stale-host')).toBeUndefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoleBindings), 'kubefed-controller-manager:stale-host')).toBeUndefined();

    await expectNamespaceKept(fed, ns);
    expect(saNames((await member.resource(gvr.serviceAccounts, ns).list()).items)).toEqual(['default', 'member2-host']);
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:member2-host')).toBeDefined();
    expect(await getOrUndefined(host.resource(gvr.kubeFedClusters, ns), 'member2')).toBeDefined();
    await expectTokenWorks(credentials);
  });

  it('never removes or adopts objects of another join whose names collide with the unjoined name, even with --force', async () => {
    await using fed = await SimFederation.start(['host', 'member']);
    const ns = 'fed-collide';
    await fed.controlPlane('host', ns);
    // Cluster "a" joined with host name "b-host" owns service account "a-b-host", the name an
    // unjoin of "a-b" from host "host" derives.
    await cliOk(fed, ['join', 'a', ...common, '--kubefed-namespace', ns, '--host-cluster-name', 'b-host']);
    using credentials = await memberViaKfc(fed, ns, 'a');

    const r = await fed.cli(['unjoin', 'a-b', ...common, '--kubefed-namespace', ns, '--force']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: unjoin a-b: cluster a-b is not joined: there is no KubeFedCluster fed-collide/a-b in host');
    expect(r.stderr).toContain('serviceaccount/a-b-host in a-b (created by the join of a)');

    const member = fed.client('member');
    await expectNamespaceKept(fed, ns);
    expect(await getOrUndefined(member.resource(gvr.serviceAccounts, ns), 'a-b-host')).toBeDefined();
    expect(await getOrUndefined(member.resource(gvr.clusterRoles), 'kubefed-controller-manager:a-b-host')).toBeDefined();
    await expectTokenWorks(credentials);

    // Nor does a join of "a-b" adopt them, even when told to update what exists.
    const adopt = await fed.cli([
      'join',
      'a-b',
      ...common,
      '--kubefed-namespace',
      ns,
      '--error-on-existing=false',
      '--allow-duplicate-endpoint',
    ]);
    expect(adopt.code).toBe(1);
    expect(adopt.stderr).toContain(
      'Error: join a-b: service account fed-collide/a-b-host in a-b was created by the join of a; nothing was written',
    );
    expect(await getOrUndefined(fed.client('host').resource(gvr.kubeFedClusters, ns), 'a-b')).toBeUndefined();
    expect((await member.resource(gvr.serviceAccounts, ns).get('a-b-host')).metadata.annotations).toMatchObject({
      'kubefed.io/joined-cluster': 'a',
    });
    await expectTokenWorks(credentials);
  });
});
