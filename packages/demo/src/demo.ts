import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RESOURCES } from '@kubefed/api';
import { type DynamicClient, isAlreadyExists, type KubeObject } from '@kubefed/client';
import { parseAllDocuments } from 'yaml';

/** The namespace the samples live in. */
export const DEMO_NAMESPACE = 'demo';

const FEDERATED = (resource: string) => ({ group: 'types.kubefed.io', version: 'v1beta1', resource });
const RSPS = RESOURCES.replicaSchedulingPreferences;
const DEPLOYMENTS = RESOURCES.deployments;
const CONFIGMAPS = RESOURCES.configMaps;

/** The sample files (sorted by name) and the objects in each. */
export async function readSamples(dir: string): Promise<{ file: string; objects: KubeObject[] }[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  const out: { file: string; objects: KubeObject[] }[] = [];
  for (const file of files) {
    const docs = parseAllDocuments(await readFile(join(dir, file), 'utf8'));
    const objects = docs.map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
    out.push({ file, objects });
  }
  return out;
}

/** Creates `obj` in the cluster of `client` (resource found by discovery); an existing object gets the sample's spec. */
export async function applyObject(client: DynamicClient, obj: KubeObject): Promise<void> {
  const [group, version] = (obj.apiVersion ?? '').includes('/') ? (obj.apiVersion ?? '').split('/') : ['', obj.apiVersion ?? ''];
  const mapping = await client.restMapper().forKind({ group: group ?? '', version: version ?? '', kind: obj.kind ?? '' });
  const resource = client.resource(
    { group: mapping.group, version: mapping.version, resource: mapping.resource },
    mapping.namespaced ? obj.metadata.namespace : undefined,
  );
  try {
    await resource.create(obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    if (obj.spec !== undefined) await resource.patch(obj.metadata.name ?? '', { spec: obj.spec }, 'merge');
  }
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
}
interface FederatedStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  clusters?: { name: string; status?: string }[];
}

/** Where the demo stands: what is still not as it should be (empty = converged) and the replicas per member. */
export interface DemoState {
  /** One line per check that does not hold yet; never more than `total`. */
  readonly pending: string[];
  /** How many checks there are: one per federated type of the samples, the RSP, and two per member. */
  readonly total: number;
  /** Ready/desired replicas of `demo/web` per member (members without the Deployment are absent). */
  readonly replicas: ReadonlyMap<string, { desired: number; ready: number; image: string }>;
  /** The RSP's planned replicas per cluster. */
  readonly planned: Readonly<Record<string, number>>;
}

const FEDERATED_RESOURCES = ['federatednamespaces', 'federatedconfigmaps', 'federateddeployments'] as const;

/** What keeps the federated objects of one resource from being propagated, or undefined when they all are. */
async function federatedProblem(host: DynamicClient, resource: string): Promise<string | undefined> {
  const list = await host.resource(FEDERATED(resource), DEMO_NAMESPACE).list();
  if (list.items.length === 0) return `${resource}: none yet`;
  for (const obj of list.items) {
    const status = (obj.status ?? {}) as FederatedStatus;
    const propagation = status.conditions?.find((c) => c.type === 'Propagation');
    const name = `${obj.kind ?? resource} ${DEMO_NAMESPACE}/${obj.metadata.name ?? ''}`;
    if (status.observedGeneration !== obj.metadata.generation)
      return `${name}: generation ${obj.metadata.generation ?? 0} not yet propagated`;
    if (propagation?.status !== 'True') {
      const bad = (status.clusters ?? []).filter((c) => (c.status ?? '') !== '').map((c) => `${c.name}=${c.status ?? ''}`);
      return `${name}: Propagation ${propagation?.status ?? 'unknown'}${propagation?.reason === undefined ? '' : ` (${propagation.reason})`}${bad.length > 0 ? ` ${bad.join(', ')}` : ''}`;
    }
  }
  return undefined;
}

/** The RSP's plan, or what keeps it from being scheduled. */
async function rspPlan(host: DynamicClient): Promise<{ planned: Record<string, number>; problem: string | undefined }> {
  try {
    const rsp = await host.resource(RSPS, DEMO_NAMESPACE).get('web');
    const status = (rsp.status ?? {}) as {
      conditions?: Condition[];
      clusters?: Record<string, { replicas?: number }> | { name: string; replicas?: number }[];
    };
    const scheduled = status.conditions?.find((c) => c.type === 'Scheduled');
    const problem =
      scheduled?.status === 'True'
        ? undefined
        : `ReplicaSchedulingPreference ${DEMO_NAMESPACE}/web: not scheduled yet${scheduled?.reason === undefined ? '' : ` (${scheduled.reason})`}`;
    return { planned: plannedReplicas(status.clusters), problem };
  } catch {
    return { planned: {}, problem: `ReplicaSchedulingPreference ${DEMO_NAMESPACE}/web: not found` };
  }
}

/**
 * Reads the host and the members and says what has not converged yet, as a fixed list of checks:
 * the federated objects of each sample type propagated (`Propagation` True for their current
 * generation), the RSP scheduled, and each member running exactly the replicas the RSP planned
 * for it and holding the ConfigMap.
 */
export async function demoState(host: DynamicClient, members: ReadonlyMap<string, DynamicClient>): Promise<DemoState> {
  const pending: string[] = [];
  for (const resource of FEDERATED_RESOURCES) {
    const problem = await federatedProblem(host, resource);
    if (problem !== undefined) pending.push(problem);
  }
  const { planned, problem } = await rspPlan(host);
  if (problem !== undefined) pending.push(problem);
  const replicas = new Map<string, { desired: number; ready: number; image: string }>();
  for (const [name, client] of members) {
    const deployment = await client
      .resource(DEPLOYMENTS, DEMO_NAMESPACE)
      .get('web')
      .catch(() => undefined);
    if (deployment === undefined) continue;
    const spec = deployment.spec as { replicas?: number; template?: { spec?: { containers?: { image?: string }[] } } } | undefined;
    const status = deployment.status as { readyReplicas?: number } | undefined;
    replicas.set(name, {
      desired: spec?.replicas ?? 1,
      ready: status?.readyReplicas ?? 0,
      image: spec?.template?.spec?.containers?.[0]?.image ?? '',
    });
  }
  for (const [name, client] of members) {
    const want = planned[name] ?? 0;
    const have = replicas.get(name);
    if (want > 0 && (have === undefined || have.desired !== want || have.ready !== want))
      pending.push(`Deployment ${DEMO_NAMESPACE}/web in ${name}: ${have?.ready ?? 0}/${want} replicas ready`);
    else if (want === 0 && have !== undefined && have.desired > 0)
      pending.push(`Deployment ${DEMO_NAMESPACE}/web in ${name}: ${have.desired} replicas, none planned`);
    const configMap = await client
      .resource(CONFIGMAPS, DEMO_NAMESPACE)
      .get('web-config')
      .catch(() => undefined);
    if (configMap === undefined) pending.push(`ConfigMap ${DEMO_NAMESPACE}/web-config in ${name}: missing`);
  }
  return { pending, total: FEDERATED_RESOURCES.length + 1 + 2 * members.size, replicas, planned };
}

/** The RSP status's planned replicas, whichever of the two shapes it has (map by cluster or list). */
function plannedReplicas(
  clusters: Record<string, { replicas?: number }> | { name: string; replicas?: number }[] | undefined,
): Record<string, number> {
  if (clusters === undefined) return {};
  if (Array.isArray(clusters)) return Object.fromEntries(clusters.map((c) => [c.name, c.replicas ?? 0]));
  return Object.fromEntries(Object.entries(clusters).map(([name, c]) => [name, c.replicas ?? 0]));
}

/** Labels each member's KubeFedCluster with `region=<its region>` (what the sample's clusterSelector selects on). */
export async function labelRegions(host: DynamicClient, namespace: string, regions: Readonly<Record<string, string>>): Promise<void> {
  for (const [cluster, region] of Object.entries(regions)) {
    await host.resource(RESOURCES.kubeFedClusters, namespace).patch(cluster, { metadata: { labels: { region } } }, 'merge');
  }
}
