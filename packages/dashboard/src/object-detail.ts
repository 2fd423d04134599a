import { kubeFedClusterSchema, federatedObjectSchema, RESOURCES } from '@kubefed/api';
import { memberClientFromHost, isNotFound, type DynamicClient, type KubeObject } from '@kubefed/client';
import { ClusterSyncError, renderDesiredObject, type RenderWarning } from '@kubefed/controllers';
import type { WatchedType } from './fleet-watch.js';
import { renderedDifferences, type RenderedDifference } from './rendered-differences.js';

/** What the row detail of the matrix shows for one federated object and one member cluster. */
export interface ObjectDetail {
  readonly template: unknown;
  readonly placement: unknown;
  readonly overrides: unknown;
  readonly cluster: string;
  /**
   * The object the control plane renders for `cluster` (the sync workers' `renderDesiredObject`:
   * template, retained member fields when a copy exists, the cluster's overrides, managed label).
   */
  readonly rendered?: KubeObject | undefined;
  /** Why `rendered` is absent: the sync status and message of the failed rendering. */
  readonly renderProblem?: string | undefined;
  /** Template problems the rendering reports (dropped annotations or finalizers). */
  readonly renderWarnings?: readonly RenderWarning[] | undefined;
  /** The object as it is in the member cluster (managedFields dropped), when it exists there. */
  readonly live?: KubeObject | undefined;
  /** Why `live` is absent: `not found in <cluster>` or the read error. */
  readonly liveProblem?: string | undefined;
  /** Fields of `rendered` that `live` lacks or holds otherwise; present when both exist. */
  readonly differences?: readonly RenderedDifference[] | undefined;
  /** The member's status as the control plane collected it (`status.clusters[].remoteStatus`). */
  readonly remoteStatus?: unknown;
  readonly clusterStatus?: string | undefined;
}

/** The federated object, its type and the member cluster to show. */
export interface DetailRequest {
  readonly object: KubeObject;
  readonly type: Pick<WatchedType, 'target' | 'targetType'>;
  readonly cluster: string;
  readonly kubefedNamespace: string;
}

type Live = { live: KubeObject } | { liveProblem: string };

/** The member copy, read through the member's own credentials (the KubeFedCluster's Secret, as the sync workers do). */
async function readLive(host: DynamicClient, request: DetailRequest): Promise<Live> {
  const { object, cluster, type } = request;
  let member: DynamicClient | undefined;
  try {
    const kfc = kubeFedClusterSchema.parse(await host.resource(RESOURCES.kubeFedClusters, request.kubefedNamespace).get(cluster));
    member = await memberClientFromHost(host, kfc, { timeoutMs: 5000 });
    // A Namespace (FederatedNamespace) and cluster-scoped targets are read without a namespace.
    const namespace = type.targetType.namespaced ? object.metadata.namespace : undefined;
    const live = await member.resource(type.target, namespace).get(object.metadata.name ?? '');
    const { managedFields: _dropped, ...metadata } = live.metadata as KubeObject['metadata'] & { managedFields?: unknown };
    return { live: { ...live, metadata } };
  } catch (err) {
    return { liveProblem: isNotFound(err) ? `not found in ${cluster}` : err instanceof Error ? err.message : String(err) };
  } finally {
    member?.close();
  }
}

/** The sync workers' rendering for `cluster`, on the member copy when there is one (as an update would). */
function render(request: DetailRequest, live: KubeObject | undefined): Pick<ObjectDetail, 'rendered' | 'renderProblem' | 'renderWarnings'> {
  try {
    const { object, warnings } = renderDesiredObject({
      fedObject: request.object,
      targetType: request.type.targetType,
      cluster: request.cluster,
      existing: live,
    });
    return { rendered: object, renderWarnings: warnings };
  } catch (err) {
    if (err instanceof ClusterSyncError) return { renderProblem: `${err.status}: ${err.message}` };
    return { renderProblem: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The detail of one federated object for one member cluster: its spec, the object the control
 * plane renders for the cluster, the member's copy, the fields where they differ, and the
 * reported status. A member that cannot be read or a rendering that fails is reported in
 * `liveProblem` / `renderProblem`, never thrown.
 */
export async function objectDetail(host: DynamicClient, request: DetailRequest): Promise<ObjectDetail> {
  const { object, cluster } = request;
  const spec = federatedObjectSchema.shape.spec.safeParse(object.spec).data;
  const reported = federatedObjectSchema.shape.status.safeParse(object.status).data?.clusters?.find((c) => c.name === cluster);
  const live = await readLive(host, request);
  const liveObject = 'live' in live ? live.live : undefined;
  const rendered = render(request, liveObject);
  return {
    template: spec?.template ?? null,
    placement: spec?.placement ?? null,
    overrides: spec?.overrides ?? [],
    cluster,
    ...rendered,
    ...live,
    differences:
      rendered.rendered === undefined || liveObject === undefined ? undefined : renderedDifferences(rendered.rendered, liveObject),
    remoteStatus: reported?.remoteStatus,
    clusterStatus: reported === undefined ? undefined : (reported.status ?? '') === '' ? 'OK' : reported.status,
  };
}
