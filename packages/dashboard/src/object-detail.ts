import { kubeFedClusterSchema, federatedObjectSchema } from '@kubefed/api';
import { memberClientFromHost, isNotFound, type DynamicClient, type GroupVersionResource, type KubeObject } from '@kubefed/client';

/** What the row detail of the matrix shows for one federated object and one member cluster. */
export interface ObjectDetail {
  readonly template: unknown;
  readonly placement: unknown;
  readonly overrides: unknown;
  readonly cluster: string;
  /** The object as it is in the member cluster (managedFields dropped), when it exists there. */
  readonly rendered?: KubeObject | undefined;
  /** Why `rendered` is absent: `not found in <cluster>` or the read error. */
  readonly renderedProblem?: string | undefined;
  /** The member's status as the control plane collected it (`status.clusters[].remoteStatus`). */
  readonly remoteStatus?: unknown;
  readonly clusterStatus?: string | undefined;
}

/** The member object's coordinates: same name and namespace, the target type of the FTC. */
export interface DetailRequest {
  readonly object: KubeObject;
  readonly target: GroupVersionResource;
  readonly cluster: string;
  readonly kubefedNamespace: string;
}

/**
 * Reads the member copy of a federated object through the member's own credentials (the
 * KubeFedCluster's Secret, as the sync workers do) and puts it beside the federated spec. A
 * member that cannot be read is reported in `renderedProblem`, never thrown.
 */
export async function objectDetail(host: DynamicClient, request: DetailRequest): Promise<ObjectDetail> {
  const { object, cluster } = request;
  const spec = federatedObjectSchema.shape.spec.safeParse(object.spec).data;
  const reported = federatedObjectSchema.shape.status.safeParse(object.status).data?.clusters?.find((c) => c.name === cluster);
  const base = {
    template: spec?.template ?? null,
    placement: spec?.placement ?? null,
    overrides: spec?.overrides ?? [],
    cluster,
    remoteStatus: reported?.remoteStatus,
    clusterStatus: reported === undefined ? undefined : (reported.status ?? '') === '' ? 'OK' : reported.status,
  };
  let member: DynamicClient | undefined;
  try {
    const kfc = kubeFedClusterSchema.parse(await host.resource({ group: 'core.kubefed.io', version: 'v1beta1', resource: 'kubefedclusters' }, request.kubefedNamespace).get(cluster));
    member = await memberClientFromHost(host, kfc, { timeoutMs: 5000 });
    const rendered = await member.resource(request.target, object.metadata.namespace).get(object.metadata.name ?? '');
    const { managedFields: _dropped, ...metadata } = rendered.metadata as KubeObject['metadata'] & { managedFields?: unknown };
    return { ...base, rendered: { ...rendered, metadata } };
  } catch (err) {
    const renderedProblem = isNotFound(err) ? `not found in ${cluster}` : err instanceof Error ? err.message : String(err);
    return { ...base, renderedProblem };
  } finally {
    member?.close();
  }
}
