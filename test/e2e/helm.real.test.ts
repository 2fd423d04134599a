/**
 * The Helm chart deploy/helm/kubefed installed with `helm install` on real Kubernetes components
 * (vitest project `real` only): kube-apiserver accepts the CRDs, the KubeFedConfig and the
 * FederatedTypeConfigs (with their schema and CEL rules), the real kube-controller-manager gives
 * the controller-manager Deployment its ReplicaSet, kube-scheduler places the pods on kwok's
 * Nodes and kwok reports them Running (no container runs: kwok fakes the kubelet). A Cluster-scoped
 * and a Namespaced release share the host without conflicting objects; `helm upgrade` keeps the
 * bundled Redis's password.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_FEDERATED_TYPES } from '@kubefed/api';
import { type RealClusters, startRealClusters } from '@kubefed/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART, helmBinary, helmBuilt, KUBECTL, type Parsed, runCommand, runOk, setArgs } from './support/helm.js';

const NS = 'kube-federation-system';
const TENANT = 'tenant-federation';
const POLL = { timeout: 120_000, interval: 1_000 } as const;

let real: RealClusters;
let helmHome: string;

beforeAll(async () => {
  if (!helmBuilt()) throw new Error(`${helmBinary()} is missing: run bash tools/helm/build.sh`);
  real = await startRealClusters({ names: ['host'], nodes: 2 });
  helmHome = mkdtempSync(join(tmpdir(), 'kubefed-helm-home-'));
}, 240_000);

afterAll(async () => {
  await real?.stop();
  if (helmHome !== undefined) rmSync(helmHome, { recursive: true, force: true });
});

/** helm against the real host, with its own cache, config and data directories. */
function helm(args: readonly string[]): Promise<string> {
  const env = {
    PATH: process.env.PATH ?? '',
    HELM_CACHE_HOME: join(helmHome, 'cache'),
    HELM_CONFIG_HOME: join(helmHome, 'config'),
    HELM_DATA_HOME: join(helmHome, 'data'),
  };
  return runOk(helmBinary(), [`--kubeconfig=${real.kubeconfigPath}`, ...args], { env });
}

async function kubectlJson(args: readonly string[]): Promise<Parsed> {
  return JSON.parse(await runOk(KUBECTL, [`--kubeconfig=${real.kubeconfigPath}`, ...args, '-o', 'json']));
}

/** Per Deployment of the namespace: its ReplicaSets' replicas and its pods by phase and node. */
async function rollout(namespace: string): Promise<Record<string, { replicaSetReplicas: number; running: number; scheduled: number }>> {
  const [deployments, replicaSets, pods] = await Promise.all([
    kubectlJson(['-n', namespace, 'get', 'deployments']),
    kubectlJson(['-n', namespace, 'get', 'replicasets']),
    kubectlJson(['-n', namespace, 'get', 'pods']),
  ]);
  const result: Record<string, { replicaSetReplicas: number; running: number; scheduled: number }> = {};
  for (const d of deployments.items as Parsed[]) {
    const owned = (o: Parsed) => (o.metadata.ownerReferences as Parsed[] | undefined)?.some((r) => r.uid === d.metadata.uid) === true;
    const sets = (replicaSets.items as Parsed[]).filter(owned);
    const setUids = new Set(sets.map((s) => s.metadata.uid as string));
    const podsOf = (pods.items as Parsed[]).filter(
      (p) => (p.metadata.ownerReferences as Parsed[] | undefined)?.some((r) => setUids.has(r.uid)) === true,
    );
    result[d.metadata.name] = {
      replicaSetReplicas: sets.reduce((n, s) => n + (s.status?.replicas ?? 0), 0),
      scheduled: podsOf.filter((p) => typeof p.spec.nodeName === 'string' && p.spec.nodeName !== '').length,
      running: podsOf.filter((p) => p.status?.phase === 'Running').length,
    };
  }
  return result;
}

describe('helm install of deploy/helm/kubefed on real Kubernetes components', () => {
  it('installs a Cluster-scoped control plane: every object accepted, the controller manager rolled out onto kwok Nodes', async () => {
    await helm(['install', 'kubefed', CHART, '-n', NS, '--create-namespace']);
    const crds = (await kubectlJson(['get', 'customresourcedefinitions'])).items as Parsed[];
    const established = crds.filter((c) =>
      (c.status?.conditions as Parsed[] | undefined)?.some((x) => x.type === 'Established' && x.status === 'True'),
    );
    expect(established.map((c) => c.metadata.name)).toEqual(
      expect.arrayContaining([
        'kubefedclusters.core.kubefed.io',
        'federatedtypeconfigs.core.kubefed.io',
        'federateddeployments.types.kubefed.io',
      ]),
    );
    const ftcs = (await kubectlJson(['-n', NS, 'get', 'federatedtypeconfigs'])).items as Parsed[];
    expect(ftcs).toHaveLength(DEFAULT_FEDERATED_TYPES.length);
    expect((await kubectlJson(['-n', NS, 'get', 'kubefedconfig', 'kubefed'])).spec.scope).toBe('Cluster');

    await expect
      .poll(() => rollout(NS), POLL)
      .toEqual({
        'kubefed-controller-manager': { replicaSetReplicas: 2, scheduled: 2, running: 2 },
        'kubefed-sync-worker': { replicaSetReplicas: 2, scheduled: 2, running: 2 },
        'kubefed-redis': { replicaSetReplicas: 1, scheduled: 1, running: 1 },
      });
    const status = (await kubectlJson(['-n', NS, 'get', 'deployment', 'kubefed-controller-manager'])).status;
    expect(status.replicas).toBe(2);
  });

  it('helm upgrade with new values keeps the bundled Redis password and rolls the controller manager to 3 replicas', async () => {
    const password = async () => (await kubectlJson(['-n', NS, 'get', 'secret', 'kubefed-redis-password'])).data.password as string;
    const before = await password();
    await helm([
      'upgrade',
      'kubefed',
      CHART,
      '-n',
      NS,
      ...setArgs({ 'controllermanager.controller.replicaCount': '3', 'controllermanager.clusterHealthCheckPeriod': '20s' }),
    ]);
    expect(await password()).toBe(before);
    expect((await kubectlJson(['-n', NS, 'get', 'kubefedconfig', 'kubefed'])).spec.clusterHealthCheck.period).toBe('20s');
    await expect
      .poll(async () => (await rollout(NS))['kubefed-controller-manager'], POLL)
      .toEqual({ replicaSetReplicas: 3, scheduled: 3, running: 3 });
  });

  it('installs a Namespaced control plane beside it, whose controller manager may touch federated objects of its namespace only', async () => {
    await helm(['install', 'kubefed-tenant', CHART, '-n', TENANT, '--create-namespace', ...setArgs({ 'global.scope': 'Namespaced' })]);
    expect((await kubectlJson(['-n', TENANT, 'get', 'kubefedconfig', 'kubefed'])).spec.scope).toBe('Namespaced');
    const canI = async (what: string, namespace: string) =>
      (
        await runCommand(KUBECTL, [
          `--kubeconfig=${real.kubeconfigPath}`,
          'auth',
          'can-i',
          ...what.split(' '),
          '-n',
          namespace,
          `--as=system:serviceaccount:${TENANT}:kubefed-controller`,
        ])
      ).stdout.trim();
    expect(await canI('patch federateddeployments.types.kubefed.io', TENANT)).toBe('yes');
    expect(await canI('patch federateddeployments.types.kubefed.io', 'default')).toBe('no');
    expect(await canI('get namespaces/kube-system', TENANT)).toBe('yes');
    await expect
      .poll(async () => (await rollout(TENANT))['kubefed-controller-manager'], POLL)
      .toEqual({ replicaSetReplicas: 2, scheduled: 2, running: 2 });
  });
});
