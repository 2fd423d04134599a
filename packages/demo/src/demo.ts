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
  readonly pending: string[];
  /** Ready/desired replicas of `demo/web` per member (members without the Deployment are absent). */
  readonly replicas: ReadonlyMap<string, { desired: number; ready: number; image: string }>;
  /** The RSP's planned replicas per cluster. */
  readonly planned: Readonly<Record<string, number>>;
}

/**
 * Reads the host and the members and says what has not converged yet: every federated object
 * of the demo propagated (`Propagation` True for its current generation), the RSP scheduled,
 * and each member running exactly the replicas the RSP planned for it.
 */
export async function demoState(host: DynamicClient, members: ReadonlyMap<string, DynamicClient>): Promise<DemoState> {
  const pending: string[] = [];
  for (const resource of ['federatednamespaces', 'federatedconfigmaps', 'federateddeployments']) {
    const list = await host.resource(FEDERATED(resource), DEMO_NAMESPACE).list();
    if (list.items.length === 0) pending.push(`${resource}: none yet`);
    for (const obj of list.items) {
      const status = (obj.status ?? {}) as FederatedStatus;
      const propagation = status.conditions?.find((c) => c.type === 'Propagation');
      const name = `${obj.kind ?? resource} ${DEMO_NAMESPACE}/${obj.metadata.name ?? ''}`;
      if (status.observedGeneration !== obj.metadata.generation)
        pending.push(`${name}: generation ${obj.metadata.generation ?? 0} not yet propagated`);
      else if (propagation?.status !== 'True') {
        const bad = (status.clusters ?? []).filter((c) => (c.status ?? '') !== '').map((c) => `${c.name}=${c.status ?? ''}`);
        pending.push(
          `${name}: Propagation ${propagation?.status ?? 'unknown'}${propagation?.reason === undefined ? '' : ` (${propagation.reason})`}${bad.length > 0 ? ` ${bad.join(', ')}` : ''}`,
        );
      }
    }
  }
  let planned: Record<string, number> = {};
  try {
    const rsp = await host.resource(RSPS, DEMO_NAMESPACE).get('web');
    const status = (rsp.status ?? {}) as {
      conditions?: Condition[];
      clusters?: Record<string, { replicas?: number }> | { name: string; replicas?: number }[];
    };
    const scheduled = status.conditions?.find((c) => c.type === 'Scheduled');
    if (scheduled?.status !== 'True')
      pending.push(
        `ReplicaSchedulingPreference ${DEMO_NAMESPACE}/web: not scheduled yet${scheduled?.reason === undefined ? '' : ` (${scheduled.reason})`}`,
      );
    planned = plannedReplicas(status.clusters);
  } catch {
    pending.push(`ReplicaSchedulingPreference ${DEMO_NAMESPACE}/web: not found`);
  }
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
    if (want === 0 && have !== undefined && have.desired > 0)
      pending.push(`Deployment ${DEMO_NAMESPACE}/web in ${name}: ${have.desired} replicas, none planned`);
    const configMap = await client
      .resource(CONFIGMAPS, DEMO_NAMESPACE)
      .get('web-config')
      .catch(() => undefined);
    if (configMap === undefined) pending.push(`ConfigMap ${DEMO_NAMESPACE}/web-config in ${name}: missing`);
  }
  return { pending, replicas, planned };
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
