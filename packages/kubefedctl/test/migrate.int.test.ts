// kubefedctl migrate against kube-sim: the refusal while KubeFed's leader holds its lock (nothing
// written, the dry run still listing the plan), the token Secret binding of a Secret named by one
// KubeFedCluster and the skip of a shared one, and a namespace without KubeFed. The whole takeover
// against real KubeFed is test/e2e/migrate.real.test.ts.
import { API_VERSIONS } from '@kubefed/api';
import { connectionDigest, type KubeObject } from '@kubefed/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const NS = 'kubefed-migrate';
const BINDING = 'kubefed.io/cluster-name';
const CONNECTION = 'kubefed.io/cluster-connection';
const LEADER = 'control-plane.alpha.kubernetes.io/leader';

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'member']);
  await fed.controlPlane('host', NS);
  const host = fed.client('host');
  for (const name of ['a-token', 'shared'])
    await host
      .resource(gvr.secrets, NS)
      .create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, data: { token: 'dA==' } });
  for (const [name, secret] of [
    ['a', 'a-token'],
    ['b', 'shared'],
    ['c', 'shared'],
  ] as const)
    await host.resource(gvr.kubeFedClusters, NS).create({
      apiVersion: API_VERSIONS.core,
      kind: 'KubeFedCluster',
      metadata: { name, namespace: NS },
      spec: { apiEndpoint: `https://${name}.example:6443`, secretRef: { name: secret } },
    });
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

const migrate = (...args: string[]) => fed.cli(['migrate', '--host-cluster-context', 'host', '--kubefed-namespace', NS, ...args]);

/** Writes KubeFed's lock ConfigMap, renewed `agoMs` ago with a lease of 15 s. */
async function lock(agoMs: number): Promise<void> {
  const configMaps = fed.client('host').resource(gvr.configMaps, NS);
  const record = JSON.stringify({
    holderIdentity: 'kubefed-controller-manager-5d9c_1f2e',
    leaseDurationSeconds: 15,
    acquireTime: new Date(Date.now() - 600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    renewTime: new Date(Date.now() - agoMs).toISOString().replace(/\.\d+Z$/, 'Z'),
    leaderTransitions: 0,
  });
  const obj: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kubefed-controller-manager', namespace: NS, annotations: { [LEADER]: record } },
  };
  const existing = await configMaps.get('kubefed-controller-manager').catch(() => undefined);
  if (existing === undefined) await configMaps.create(obj);
  else await configMaps.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: existing.metadata.resourceVersion ?? '' } });
}

const annotations = async (secret: string) => (await fed.client('host').resource(gvr.secrets, NS).get(secret)).metadata.annotations ?? {};

describe('kubefedctl migrate', () => {
  it("refuses while KubeFed's leader holds its lock, naming it, and writes nothing; the dry run lists the plan first", async () => {
    await lock(1_000);
    const refused = await migrate();
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.stderr).toContain(
      "KubeFed's leader kubefed-controller-manager-5d9c_1f2e still holds the lock configmap/kubefed-controller-manager in kubefed-migrate",
    );
    expect(refused.stderr).toContain('wait until its lease has expired');
    expect(refused.stdout).not.toMatch(/ (annotated|deleted|created|replaced)$/m);
    expect(await annotations('a-token')).toEqual({});

    const dryRun = await migrate('--dry-run');
    expect(dryRun.code).toBe(1);
    expect(dryRun.stdout).toContain('secret/a-token annotated (dry run) (bound to cluster a)');
    expect(dryRun.stdout).toContain('secret/shared skipped: named by 2 KubeFedClusters (b, c)');
    expect(dryRun.stderr).toContain('still holds the lock');
    expect(await annotations('a-token')).toEqual({});
  });

  it('binds the Secret named by one KubeFedCluster once the lease has expired, leaves a shared one, and changes nothing when run again', async () => {
    await lock(60_000);
    const run = await migrate();
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('secret/a-token annotated (bound to cluster a)\n');
    expect(await annotations('a-token')).toEqual({
      [BINDING]: 'a',
      [CONNECTION]: connectionDigest({ apiEndpoint: 'https://a.example:6443' }),
    });
    expect(await annotations('shared')).toEqual({});
    const again = await migrate();
    expect(again, again.stderr).toMatchObject({ code: 0 });
    expect(again.stdout).toContain('secret/a-token already bound to cluster a');
    expect(again.stdout).not.toMatch(/ (annotated|deleted|created|replaced)$/m);
  });

  it('exits 1 when the namespace holds no KubeFed installation', async () => {
    const r = await fed.cli(['migrate', '--host-cluster-context', 'host', '--kubefed-namespace', 'nothing-here']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no KubeFed installation in namespace nothing-here');
  });
});
