/**
 * Test fixture: a kube-sim host with the KubeFed CRDs and member clusters, and per-test kubefed
 * namespaces with members registered the way `kubefedctl join` does (a service account and its
 * token secret in the member, a token Secret and a KubeFedCluster in the host).
 */
import { kubeFedCrds, RESOURCES } from '@kubefed/api';
import { CLUSTER_CONNECTION_ANNOTATION, connectionDigest, DynamicClient, Kubeconfig, type KubeObject } from '@kubefed/client';
import { startCluster, type SimCluster, type StartClusterOptions } from '@kubefed/kube-sim';
import { vi } from 'vitest';

const core = (resource: string) => ({ group: '', version: 'v1', resource });
const rbac = (resource: string) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });
export const KFC = RESOURCES.kubeFedClusters;
export const KFCONFIG = { group: 'core.kubefed.io', version: 'v1beta1', resource: 'kubefedconfigs' };

export interface Federation extends AsyncDisposable {
  readonly host: SimCluster;
  readonly members: readonly SimCluster[];
  readonly hostClient: DynamicClient;
  member(name: string): SimCluster;
}

export interface JoinOptions {
  /** Grant `list nodes` to the member's service account; default true. */
  listNodes?: boolean;
}

/** Starts a host (with the KubeFed CRDs) and the given members. */
export async function startFederation(members: Readonly<Record<string, Omit<StartClusterOptions, 'name'>>>): Promise<Federation> {
  const started: SimCluster[] = [];
  try {
    const host = await startCluster({ name: 'host' });
    started.push(host);
    for (const [name, opts] of Object.entries(members)) started.push(await startCluster({ ...opts, name }));
    const hostClient = clientFor(host);
    const crds = hostClient.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' });
    for (const crd of kubeFedCrds()) await crds.create(crd as unknown as KubeObject);
    const memberClusters = started.slice(1);
    return {
      host,
      members: memberClusters,
      hostClient,
      member: (name) => {
        const m = memberClusters.find((c) => c.name === name);
        if (m === undefined) throw new Error(`no member ${name}`);
        return m;
      },
      async [Symbol.asyncDispose]() {
        hostClient.close();
        await Promise.allSettled(started.map((c) => c.stop()));
      },
    };
  } catch (err) {
    await Promise.allSettled(started.map((c) => c.stop()));
    throw err;
  }
}

/** An admin client for a sim cluster. */
export function clientFor(cluster: SimCluster): DynamicClient {
  return DynamicClient.fromKubeconfig(Kubeconfig.fromString(cluster.kubeconfigYaml()));
}

/** Creates `namespace` in the host (idempotent enough for tests: fails when it exists). */
export async function createNamespace(client: DynamicClient, namespace: string): Promise<void> {
  await client.resource(core('namespaces')).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
}

/**
 * Registers `member` in the host's kubefed `namespace` like `kubefedctl join`: in the member a
 * namespace, service account `<member>-host` and its token secret (plus a ClusterRole to list
 * nodes unless disabled); in the host a Secret `<member>-secret` with the token, bound to the
 * cluster (annotation `kubefed.io/cluster-name`), and the KubeFedCluster `<member>`.
 */
export async function joinMember(fed: Federation, member: SimCluster, namespace: string, options: JoinOptions = {}): Promise<void> {
  using m = clientFor(member);
  await m.resource(core('namespaces')).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const sa = `${member.name}-host`;
  await m.resource(core('serviceaccounts'), namespace).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } });
  const secrets = m.resource(core('secrets'), namespace);
  await secrets.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${sa}-token`, annotations: { 'kubernetes.io/service-account.name': sa } },
    type: 'kubernetes.io/service-account-token',
  });
  if (options.listNodes ?? true) {
    const role = `kubefed-${namespace}-${sa}`;
    await m.resource(rbac('clusterroles')).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
    });
    await m.resource(rbac('clusterrolebindings')).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
    });
  }
  const token = await vi.waitFor(
    async () => {
      const s = await secrets.get(`${sa}-token`);
      const t = (s.data as Record<string, string> | undefined)?.token;
      if (t === undefined || t === '') throw new Error('token not filled in yet');
      return t;
    },
    { timeout: 5000, interval: 50 },
  );
  const spec = {
    apiEndpoint: member.url,
    caBundle: Buffer.from(member.caPem ?? '').toString('base64'),
    secretRef: { name: `${member.name}-secret` },
  };
  await fed.hostClient.resource(core('secrets'), namespace).create({
    apiVersion: 'v1',
    kind: 'Secret',
    // Bound to the cluster and its connection settings, as join binds it: the control plane sends
    // the token to no other KubeFedCluster, and to no other server.
    metadata: {
      name: `${member.name}-secret`,
      annotations: { 'kubefed.io/cluster-name': member.name, [CLUSTER_CONNECTION_ANNOTATION]: connectionDigest(spec) },
    },
    data: { token },
  });
  await registerCluster(fed, member.name, namespace, spec);
}

/** Creates a KubeFedCluster in the host with the given spec. */
export async function registerCluster(fed: Federation, name: string, namespace: string, spec: Record<string, unknown>): Promise<void> {
  await fed.hostClient
    .resource(KFC, namespace)
    .create({ apiVersion: 'core.kubefed.io/v1beta1', kind: 'KubeFedCluster', metadata: { name }, spec });
}

/** The KubeFedCluster's condition of `type`, if any. */
export async function condition(
  fed: Federation,
  namespace: string,
  name: string,
  type: string,
): Promise<Record<string, string> | undefined> {
  const obj = await fed.hostClient.resource(KFC, namespace).get(name);
  const conditions = (obj.status as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? [];
  return conditions.find((c) => c.type === type);
}
