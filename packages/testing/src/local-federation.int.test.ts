import { RESOURCES } from '@kubefed/api';
import { Kubeconfig } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { type LocalFederation, POLL, startLocalFederation } from '@kubefed/testing';

/** Whether the KubeFedCluster `name` has condition Ready=True. */
async function ready(fed: LocalFederation, name: string): Promise<boolean> {
  const cluster = await fed.client('host').resource(RESOURCES.kubeFedClusters, fed.namespace).get(name);
  const conditions = (cluster.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The port of each context's server in the federation's kubeconfig. */
function ports(fed: LocalFederation): Map<string, string> {
  return new Map(
    Kubeconfig.fromFile(fed.kubeconfigPath)
      .contexts()
      .map((c) => [c.name, new URL(c.server ?? '').port]),
  );
}

describe('startLocalFederation with kube-sim processes apart', () => {
  it('runs the host in a kube-sim process of its own, joins the members through one kubeconfig and still faults a member', async () => {
    await using fed = await startLocalFederation({
      substrate: 'sim',
      simProcesses: 'host-apart',
      members: ['member1', 'member2'],
      fastHealthChecks: true,
      types: [],
    });
    expect(fed.kubeSims.map((p) => p.name)).toEqual(['kube-sim[host]', 'kube-sim[member1,member2]']);
    expect(fed.kubeSim).toBe(fed.kubeSims[0]);
    const [host, members] = fed.kubeSims.map((p) => p.child.pid);
    expect(host).toBeDefined();
    expect(host).not.toBe(members);
    const port = ports(fed);
    expect([...port.keys()]).toEqual(['host', 'member1', 'member2']);
    expect(new Set(port.values()).size).toBe(3);
    for (const [name, p] of port)
      expect(
        fed.kubeSims[name === 'host' ? 0 : 1]?.lines.some((l) => l.startsWith(`cluster ${name} ready at `) && l.endsWith(`:${p}`)),
      ).toBe(true);

    await fed.fault('member2', { unreachable: true });
    await expect(fed.client('member2').resource(RESOURCES.namespaces).list()).rejects.toThrow();
    await expect.poll(() => ready(fed, 'member2'), POLL).toBe(false);
    expect(await ready(fed, 'member1')).toBe(true);
    fed.restoreFaults();
    await expect.poll(() => ready(fed, 'member2'), POLL).toBe(true);
    expect((await fed.client('member2').resource(RESOURCES.namespaces).list()).items.length).toBeGreaterThan(0);

    await fed.stop();
    for (const p of fed.kubeSims) expect(p.running).toBe(false);
  });

  it('runs a kube-sim process per cluster when asked', async () => {
    await using fed = await startLocalFederation({
      substrate: 'sim',
      simProcesses: 'per-cluster',
      members: ['member1', 'member2'],
      controllerManager: false,
      join: false,
      types: [],
    });
    expect(fed.kubeSims.map((p) => p.name)).toEqual(['kube-sim[host]', 'kube-sim[member1]', 'kube-sim[member2]']);
    expect(new Set(fed.kubeSims.map((p) => p.child.pid)).size).toBe(3);
    for (const context of ['host', 'member1', 'member2'])
      expect((await fed.client(context).resource(RESOURCES.namespaces).list()).items.length).toBeGreaterThan(0);
    // restoreFaults signals every process: the one of member2 too.
    await fed.fault('member2', { unreachable: true });
    await expect(fed.client('member2').resource(RESOURCES.namespaces).list()).rejects.toThrow();
    expect((await fed.client('member1').resource(RESOURCES.namespaces).list()).items.length).toBeGreaterThan(0);
    fed.restoreFaults();
    await expect
      .poll(async () => (await fed.client('member2').resource(RESOURCES.namespaces).list()).items.length, POLL)
      .toBeGreaterThan(0);
    await fed.stop();
    for (const p of fed.kubeSims) expect(p.running).toBe(false);
  });
});
