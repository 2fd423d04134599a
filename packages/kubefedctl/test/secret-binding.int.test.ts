// The host token Secret of a join is bound to its KubeFedCluster (annotation kubefed.io/cluster-name),
// and kubefedctl sends a member token to no other KubeFedCluster: the real CLI against kube-sim, with
// a plain HTTP server posing as the API server of a KubeFedCluster "evil" that names another member's Secret.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { replicaSchedulingPreferenceCrd } from '@kubefed/api';
import { connectionDigest, getOrUndefined, type KubeObject } from '@kubefed/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const crdGvr = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const rspGvr = { group: 'scheduling.kubefed.io', version: 'v1alpha1', resource: 'replicaschedulingpreferences' };
const BINDING = 'kubefed.io/cluster-name';
const CONNECTION = 'kubefed.io/cluster-connection';

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'member']);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

interface RecordingServer extends AsyncDisposable {
  readonly url: string;
  /** `<method> <path> <authorization header>` of every request received. */
  readonly requests: string[];
}

/** A plain HTTP server that answers everything with 200 `{}` and records every request. */
async function recordingServer(): Promise<RecordingServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.authorization ?? '-'}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function joinArgs(cluster: string, ns: string, ...extra: string[]): string[] {
  return ['join', cluster, '--cluster-context', 'member', '--host-cluster-context', 'host', '--kubefed-namespace', ns, ...extra];
}

async function hostSecretOf(ns: string, cluster: string): Promise<KubeObject> {
  const kfc = await fed.client('host').resource(gvr.kubeFedClusters, ns).get(cluster);
  return fed
    .client('host')
    .resource(gvr.secrets, ns)
    .get((kfc['spec'] as { secretRef: { name: string } }).secretRef.name);
}

const ready = {
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'ClusterReady',
      lastProbeTime: '2026-11-21T10:00:00Z',
      lastTransitionTime: '2026-11-21T10:00:00Z',
    },
  ],
};

describe('token Secrets bound to their KubeFedCluster', () => {
  it('join binds the host Secret to the cluster, and a re-run with --error-on-existing=false binds the Secret of an older join', async () => {
    const ns = 'bind-join';
    await fed.controlPlane('host', ns);
    const r = await fed.cli(joinArgs('member1', ns));
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    const secret = await hostSecretOf(ns, 'member1');
    const kfc = await fed.client('host').resource(gvr.kubeFedClusters, ns).get('member1');
    const bound = {
      [BINDING]: 'member1',
      [CONNECTION]: connectionDigest(kfc['spec'] as Parameters<typeof connectionDigest>[0]),
      'kubefed.io/join-service-account': 'member1-host',
    };
    expect(secret.metadata.annotations).toEqual(bound);

    // A join made before the binding existed: the annotation is missing.
    const secrets = fed.client('host').resource(gvr.secrets, ns);
    await secrets.update({ ...secret, metadata: { ...secret.metadata, annotations: {} } });
    const again = await fed.cli(joinArgs('member1', ns, '--error-on-existing=false'));
    expect(again.stderr).not.toContain('Error:');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`secret/${secret.metadata.name ?? ''} updated in host`);
    const rebound = await hostSecretOf(ns, 'member1');
    expect(rebound.metadata.name).toBe(secret.metadata.name);
    expect(rebound.metadata.annotations).toEqual(bound);

    // Someone moved the KubeFedCluster to another server: a re-run puts the joined member back, still bound to it.
    await fed
      .client('host')
      .resource(gvr.kubeFedClusters, ns)
      .patch('member1', { spec: { apiEndpoint: 'https://127.0.0.1:1' } }, 'merge');
    expect((await fed.cli(joinArgs('member1', ns, '--error-on-existing=false'))).code).toBe(0);
    expect((await fed.client('host').resource(gvr.kubeFedClusters, ns).get('member1'))['spec']).toEqual(kfc['spec']);
    expect((await hostSecretOf(ns, 'member1')).metadata.annotations).toEqual(bound);
  }, 120_000);

  it('join refuses a --secret-name Secret bound to another cluster and writes nothing', async () => {
    const ns = 'bind-refuse';
    await fed.controlPlane('host', ns);
    expect((await fed.cli(joinArgs('member2', ns, '--secret-name', 'member2-token'))).code).toBe(0);
    const r = await fed.cli(joinArgs('thief', ns, '--secret-name', 'member2-token', '--allow-duplicate-endpoint'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Error: join thief: host cluster secret ${ns}/member2-token is bound to cluster member2 (annotation ${BINDING}); nothing was written`,
    );
    expect(await getOrUndefined(fed.client('host').resource(gvr.kubeFedClusters, ns), 'thief')).toBeUndefined();
    expect(await getOrUndefined(fed.client('member').resource(gvr.serviceAccounts, ns), 'thief-host')).toBeUndefined();
    expect((await fed.client('host').resource(gvr.secrets, ns).get('member2-token')).metadata.annotations).toMatchObject({
      [BINDING]: 'member2',
    });
  }, 120_000);

  it("enable and plan never send member3's token to a KubeFedCluster that names member3's Secret and another server", async () => {
    const ns = 'bind-evil';
    const host = fed.client('host');
    await fed.controlPlane('host', ns);
    expect((await fed.cli(joinArgs('member3', ns))).code).toBe(0);
    const member3Secret = await hostSecretOf(ns, 'member3');
    const token = Buffer.from((member3Secret['data'] as Record<string, string>)['token'] ?? '', 'base64').toString();
    await using server = await recordingServer();
    const kfcs = host.resource(gvr.kubeFedClusters, ns);
    await kfcs.create({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'KubeFedCluster',
      metadata: { name: 'evil', namespace: ns },
      spec: { apiEndpoint: server.url, secretRef: { name: member3Secret.metadata.name } },
    });

    // enable keeps least-privilege roles in step through the member credentials of every KubeFedCluster.
    const enabled = await fed.cli(['enable', 'configmaps', '--host-cluster-context', 'host', '--kubefed-namespace', ns]);
    expect(enabled.code).toBe(0);
    expect(enabled.stderr).toContain(
      `warning: could not update the least-privilege role of cluster "evil": secret ${ns}/${member3Secret.metadata.name ?? ''} is bound to cluster member3, not to evil`,
    );

    // plan reads the workloads of the Ready clusters through their member credentials.
    await kfcs.updateStatus({ ...(await kfcs.get('evil')), status: ready });
    await host.resource(crdGvr).create(replicaSchedulingPreferenceCrd() as unknown as KubeObject);
    await host.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    await expect
      .poll(
        () =>
          host
            .resource(rspGvr, 'shop')
            .create({
              apiVersion: 'scheduling.kubefed.io/v1alpha1',
              kind: 'ReplicaSchedulingPreference',
              metadata: { name: 'web', namespace: 'shop' },
              spec: { targetKind: 'FederatedDeployment', totalReplicas: 2, clusters: { evil: { weight: 1 } } },
            })
            .then(
              () => true,
              () => false,
            ),
        { timeout: 10_000, interval: 100 },
      )
      .toBe(true);
    const planned = await fed.cli(['plan', 'web', '-n', 'shop', '--host-cluster-context', 'host', '--kubefed-namespace', ns, '-o', 'json']);
    expect(planned.code).toBe(0);
    expect(planned.stderr).toContain(
      `warning: could not read the workload in cluster "evil": secret ${ns}/${member3Secret.metadata.name ?? ''} is bound to cluster member3, not to evil`,
    );

    expect(server.requests).toEqual([]);
    expect(`${server.requests.join('\n')}${enabled.stdout}${enabled.stderr}${planned.stdout}${planned.stderr}`).not.toContain(token);

    // Joining "evil" for real gives it a Secret of its own; member3's stays as it was.
    const joined = await fed.cli(joinArgs('evil', ns, '--error-on-existing=false', '--allow-duplicate-endpoint'));
    expect(joined.stderr).toContain(
      `warning: KubeFedCluster ${ns}/evil names secret ${ns}/${member3Secret.metadata.name ?? ''}, which is bound to cluster member3; creating a new secret for evil`,
    );
    expect(joined.code).toBe(0);
    const evilSecret = await hostSecretOf(ns, 'evil');
    expect(evilSecret.metadata.name).not.toBe(member3Secret.metadata.name);
    expect(evilSecret.metadata.annotations).toMatchObject({ [BINDING]: 'evil' });
    const after = await hostSecretOf(ns, 'member3');
    expect(after.metadata.annotations).toMatchObject({ [BINDING]: 'member3' });
    expect(after['data']).toEqual(member3Secret['data']);
  }, 120_000);
});
