import { buildFederatedTypeCrd, type FederatedTypeOptions, kubeFedCrds, RESOURCES } from '@kubefed/api';
import { CLUSTER_CONNECTION_ANNOTATION, connectionDigest, DynamicClient, Kubeconfig, type KubeObject } from '@kubefed/client';
import type { SimCluster, StartClusterOptions } from '@kubefed/kube-sim';
import { eventually } from './eventually.js';
import { startSimClusters } from './start-sim-clusters.js';
import { TestingError } from './testing-error.js';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const rbac = (resource: string) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });

/** Options of {@link startInProcessFederation}. */
export interface InProcessFederationOptions {
  /** Member clusters by name, with kube-sim options of each (`podCapacity`, `region`, ...); default none. */
  readonly members?: Readonly<Record<string, Omit<StartClusterOptions, 'name'>>>;
  /** Name of the host cluster (also its kubeconfig context); default `host`. */
  readonly host?: string;
  /** CustomResourceDefinitions installed in the host; default every KubeFed CRD (`kubeFedCrds()`). */
  readonly crds?: readonly object[];
  /** Types whose federated type's CRD (`buildFederatedTypeCrd`) is installed in the host too; default none. */
  readonly federatedTypes?: readonly FederatedTypeOptions[];
}

/**
 * A host and member clusters simulated by kube-sim inside the test process (no child process),
 * with a kubeconfig file holding all of them: for tests that run controllers in-process or the
 * CLI against the clusters. {@link startLocalFederation} is the process-level counterpart.
 */
export interface InProcessFederation extends AsyncDisposable {
  readonly host: SimCluster;
  readonly members: readonly SimCluster[];
  /** Every cluster, the host first. */
  readonly clusters: readonly SimCluster[];
  /** An admin client of the host (same as `client(host.name)`). */
  readonly hostClient: DynamicClient;
  /** Path of the kubeconfig: one context per cluster, named after it; current-context the host. */
  readonly kubeconfigPath: string;
  /** The member called `name`. @throws TestingError for an unknown member. */
  member(name: string): SimCluster;
  /** An admin client of any cluster by name, owned by the federation. @throws TestingError for an unknown cluster. */
  client(name: string): DynamicClient;
  /** Stops every cluster and removes the kubeconfig. Idempotent. */
  stop(): Promise<void>;
}

/** An admin client of a simulated cluster; the caller closes it. */
export function clientFor(cluster: SimCluster): DynamicClient {
  return DynamicClient.fromKubeconfig(Kubeconfig.fromString(cluster.kubeconfigYaml()), { clusterName: cluster.name });
}

/** Starts the host (with the KubeFed CRDs, unless `options.crds` says otherwise, and those of `options.federatedTypes`) and the members, in this process. */
export async function startInProcessFederation(options: InProcessFederationOptions = {}): Promise<InProcessFederation> {
  const hostName = options.host ?? 'host';
  const memberNames = Object.keys(options.members ?? {});
  const sims = await startSimClusters([hostName, ...memberNames], { perCluster: options.members ?? {} });
  const clients = new Map<string, DynamicClient>();
  const client = (name: string): DynamicClient => {
    let c = clients.get(name);
    if (c === undefined) clients.set(name, (c = clientFor(sims.get(name))));
    return c;
  };
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      for (const c of clients.values()) c.close();
      await sims.stop();
    })());
  try {
    const crds = [...(options.crds ?? kubeFedCrds()), ...(options.federatedTypes ?? []).map((t) => buildFederatedTypeCrd(t))];
    for (const crd of crds)
      await client(hostName)
        .resource(CRDS)
        .create(crd as KubeObject);
  } catch (err) {
    await stop();
    throw err;
  }
  const members = sims.clusters.slice(1);
  return {
    host: sims.get(hostName),
    members,
    clusters: sims.clusters,
    hostClient: client(hostName),
    kubeconfigPath: sims.kubeconfigPath,
    member: (name) => {
      const m = members.find((c) => c.name === name);
      if (m === undefined) throw new TestingError(`no member cluster named "${name}" (have ${memberNames.join(', ')})`);
      return m;
    },
    client,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Creates `namespace` (fails when it exists). */
export async function createNamespace(client: DynamicClient, namespace: string): Promise<void> {
  await client.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
}

/** Options of {@link joinMember}. */
export interface JoinMemberOptions {
  /**
   * What the member's service account may do: `list-nodes` (get and list Nodes, what the health
   * checks read), `all` (every verb on every resource, as `kubefedctl join` grants), `none`.
   * Default `list-nodes`.
   */
  readonly access?: 'list-nodes' | 'all' | 'none';
}

/**
 * Registers `member` in the host's kubefed `namespace` the way `kubefedctl join` does, without
 * running it: in the member the namespace, the service account `<member>-host`, its token Secret
 * and the RBAC of `options.access`; in the host a Secret `<member>-secret` with the token, bound
 * to the cluster and its connection settings, and the KubeFedCluster `<member>`.
 */
export async function joinMember(
  fed: InProcessFederation,
  member: SimCluster,
  namespace: string,
  options: JoinMemberOptions = {},
): Promise<void> {
  using m = clientFor(member);
  await createNamespace(m, namespace);
  const sa = `${member.name}-host`;
  await m.resource(RESOURCES.serviceAccounts, namespace).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } });
  const secrets = m.resource(RESOURCES.secrets, namespace);
  await secrets.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${sa}-token`, annotations: { 'kubernetes.io/service-account.name': sa } },
    type: 'kubernetes.io/service-account-token',
  });
  const access = options.access ?? 'list-nodes';
  if (access !== 'none')
    await grant(m, { role: `kubefed-${namespace}-${sa}`, namespace, serviceAccount: sa, everything: access === 'all' });
  const token = await eventually(
    async () => {
      const t = ((await secrets.get(`${sa}-token`)).data as Record<string, string> | undefined)?.token;
      if (t === undefined || t === '') throw new TestingError('token not filled in yet');
      return t;
    },
    { timeoutMs: 5000, intervalMs: 50, message: `the token Secret of ${member.name}'s service account` },
  );
  const spec = {
    apiEndpoint: member.url,
    caBundle: Buffer.from(member.caPem ?? '').toString('base64'),
    secretRef: { name: `${member.name}-secret` },
  };
  await fed.hostClient.resource(RESOURCES.secrets, namespace).create({
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

/** A ClusterRole (Nodes get/list, or everything) bound to a service account. */
async function grant(
  member: DynamicClient,
  g: { role: string; namespace: string; serviceAccount: string; everything: boolean },
): Promise<void> {
  await member.resource(rbac('clusterroles')).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: g.role },
    rules: g.everything
      ? [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]
      : [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
  });
  await member.resource(rbac('clusterrolebindings')).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: g.role },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: g.role },
    subjects: [{ kind: 'ServiceAccount', name: g.serviceAccount, namespace: g.namespace }],
  });
}

/** Creates a KubeFedCluster in the host with the given spec. */
export async function registerCluster(
  fed: InProcessFederation,
  name: string,
  namespace: string,
  spec: Readonly<Record<string, unknown>>,
): Promise<void> {
  await fed.hostClient
    .resource(RESOURCES.kubeFedClusters, namespace)
    .create({ apiVersion: 'core.kubefed.io/v1beta1', kind: 'KubeFedCluster', metadata: { name }, spec });
}

/** The condition of `type` of the KubeFedCluster `namespace/name`, if any. */
export async function kubeFedClusterCondition(
  fed: InProcessFederation,
  namespace: string,
  name: string,
  type: string,
): Promise<Record<string, string> | undefined> {
  const obj = await fed.hostClient.resource(RESOURCES.kubeFedClusters, namespace).get(name);
  const conditions = (obj.status as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? [];
  return conditions.find((c) => c.type === type);
}
