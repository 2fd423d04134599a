import {
  type ApiResource,
  defaultFederatedTypeConfig,
  type FederatedTypeConfig,
  isStatusCollectionEnabled,
  NAMESPACE_TYPE_NAME,
  RESOURCES,
  validateFederatedTypeConfig,
} from '@kubefed/api';
import { type DynamicClient, type GroupVersionResource, isNotFound, type KubeObject } from '@kubefed/client';
import {
  effectivePlacement,
  type EffectivePlacement,
  isNamespaceType,
  type PlacementCluster,
  type PlacementSource,
} from '../placement/index.js';
import type { SyncScope } from './shared/sync-settings.js';

/** One federated type as the sync controller and its workers use it (from an FTC). */
export interface SyncType {
  /** The FTC name, e.g. `configmaps` or `deployments.apps`; used as the job's `federatedType`. */
  readonly name: string;
  readonly federatedGvr: GroupVersionResource;
  readonly targetGvr: GroupVersionResource;
  readonly targetType: ApiResource;
  /** The federated kind, e.g. `FederatedDeployment` (names the sync controller in events). */
  readonly federatedKind: string;
  /** FTC `statusCollection: Enabled`: member objects' `.status` is reported as `remoteStatus`. */
  readonly statusCollection: boolean;
  /**
   * The FederatedNamespace resource (the federated type of the `namespaces` FTC) whose placement
   * limits a namespaced target's; absent for other targets. KubeFed's sync controller of a
   * namespaced type is given it by the FTC controller (`pkg/controller/federatedtypeconfig/controller.go`).
   */
  readonly federatedNamespaceGvr?: GroupVersionResource | undefined;
}

const gvrOf = (r: ApiResource): GroupVersionResource => ({ group: r.group ?? '', version: r.version, resource: r.pluralName });

/** The {@link SyncType} of an FTC; `namespacesFtc`, the FTC of `namespaces`, names the FederatedNamespace type of a namespaced target. */
export function syncTypeOf(ftc: FederatedTypeConfig, namespacesFtc?: FederatedTypeConfig): SyncType {
  const type: SyncType = {
    name: ftc.metadata.name ?? '',
    federatedGvr: gvrOf(ftc.spec.federatedType),
    targetGvr: gvrOf(ftc.spec.targetType),
    targetType: ftc.spec.targetType,
    federatedKind: ftc.spec.federatedType.kind,
    statusCollection: isStatusCollectionEnabled(ftc),
  };
  if (!needsFederatedNamespaces(ftc) || namespacesFtc === undefined) return type;
  return { ...type, federatedNamespaceGvr: gvrOf(namespacesFtc.spec.federatedType) };
}

/** The FTC's target is namespaced (not a Namespace): its sync controller needs the `namespaces` FTC, as KubeFed's does. */
export function needsFederatedNamespaces(ftc: FederatedTypeConfig): boolean {
  return ftc.spec.targetType.scope === 'Namespaced' && !isNamespaceType(ftc.spec.targetType);
}

/** The FTC of `namespaces` (`NAMESPACE_TYPE_NAME`) in the kubefed `namespace` of an FTC cache, when valid. */
export function namespacesFtcIn(ftcs: { get(key: string): KubeObject | undefined }, namespace: string): FederatedTypeConfig | undefined {
  const raw = ftcs.get(`${namespace}/${NAMESPACE_TYPE_NAME}`);
  if (raw === undefined) return undefined;
  const parsed = validateFederatedTypeConfig(raw);
  return parsed.ok ? defaultFederatedTypeConfig(parsed.value) : undefined;
}

/** What placement needs from the environment: the host, the KubeFedClusters and the control plane's {@link SyncScope}. */
export interface PlacementEnvironment extends SyncScope {
  /** Client of the host cluster. */
  readonly host: DynamicClient;
  /** Every registered KubeFedCluster (ready or not). */
  readonly clusters: () => readonly PlacementCluster[];
  /** The FederatedNamespace resource when the type names none (`SyncType.federatedNamespaceGvr`); default `types.kubefed.io/v1beta1` `federatednamespaces`. */
  readonly federatedNamespaceGvr?: GroupVersionResource | undefined;
  /** An informer cache of FederatedNamespaces, read instead of the host once synced; default none (a GET each time). */
  readonly federatedNamespaceCache?: SyncedCache | undefined;
}

/** An informer's cache and whether it has synced (an `Informer` fits). */
interface SyncedCache {
  readonly store: { get(key: string): KubeObject | undefined };
  hasSynced(): boolean;
}

/**
 * The informer caches of a running sync controller (`reconcile/sync-controller.ts`), read by the
 * workers of the same process instead of the API servers.
 */
export interface SyncCaches {
  /** The federated objects of the type. */
  readonly objects: SyncedCache;
  /** FederatedNamespaces, for namespaced targets. */
  readonly federatedNamespaces?: SyncedCache | undefined;
  /** The managed member copies by cluster and federated key: null when absent, undefined when not known (absent when member watches are off). */
  readonly memberCopies?: { managedCopy(cluster: string, key: string): KubeObject | null | undefined } | undefined;
}

/** The FederatedNamespace resource KubeFed generates for `namespaces`. */
export const FEDERATED_NAMESPACE_GVR: GroupVersionResource = RESOURCES.federatedNamespaces;

/** The FederatedNamespace resource for `type`: the type's, else the environment's, else KubeFed's default. */
export function federatedNamespaceGvrOf(env: Pick<PlacementEnvironment, 'federatedNamespaceGvr'>, type: SyncType): GroupVersionResource {
  return type.federatedNamespaceGvr ?? env.federatedNamespaceGvr ?? FEDERATED_NAMESPACE_GVR;
}

/** The placement of a federated object as the sync controller acts on it. */
export interface SyncPlacement {
  /** Selected cluster names, sorted. */
  readonly clusters: string[];
  /** Why nothing is selected: see {@link EffectivePlacement}, and {@link inKubeFedNamespace}. */
  readonly reason?: EffectivePlacement['reason'] | 'KubeFedNamespace';
}

/**
 * Whether an object in `namespace` is a namespaced object in the kubefed namespace of a Cluster-scoped
 * control plane. Such an object is never propagated: that namespace holds the control plane's
 * own objects in the host and the join ServiceAccount and its token in every member, so
 * whoever may write there must not reach the members through it. (A Namespaced plane
 * propagates from its own namespace by design.)
 */
export function inKubeFedNamespace(
  env: Pick<PlacementEnvironment, 'scope' | 'kubefedNamespace'>,
  type: SyncType,
  namespace: string | undefined,
): boolean {
  if ((env.scope ?? 'Cluster') !== 'Cluster' || type.targetType.scope !== 'Namespaced' || isNamespaceType(type.targetType)) return false;
  return namespace === env.kubefedNamespace;
}

/**
 * The effective placement of `fedObject` (docs/kubefed-compatibility.md §4.4.4), reading the FederatedNamespace `N/N` for
 * namespaced targets (from `federatedNamespaceCache` once synced, else from the host); nothing,
 * with reason `KubeFedNamespace`, for an object {@link inKubeFedNamespace}.
 *
 * @throws ComputePlacementError for an invalid selector; API errors other than NotFound as is.
 */
export async function placementOf(env: PlacementEnvironment, type: SyncType, fedObject: KubeObject): Promise<SyncPlacement> {
  if (inKubeFedNamespace(env, type, fedObject.metadata.namespace)) return { clusters: [], reason: 'KubeFedNamespace' };
  let federatedNamespace: PlacementSource | undefined;
  const ns = fedObject.metadata.namespace;
  if (type.targetType.scope === 'Namespaced' && !isNamespaceType(type.targetType) && ns !== undefined && ns !== '') {
    const cache = env.federatedNamespaceCache;
    if (cache?.hasSynced() === true) {
      federatedNamespace = cache.store.get(`${ns}/${ns}`);
    } else {
      try {
        federatedNamespace = await env.host.resource(federatedNamespaceGvrOf(env, type), ns).get(ns);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
  return effectivePlacement({
    fedObject: fedObject,
    clusters: env.clusters(),
    targetType: type.targetType,
    federatedNamespace,
    scope: env.scope ?? 'Cluster',
  });
}

/**
 * Sync types from an FTC cache in the kubefed `namespace` (e.g. an FTC informer's store), for
 * worker-only processes that run no FederatedTypeConfig controller: an FTC that is missing,
 * invalid or has propagation Disabled gives `undefined`, and so does a namespaced type while the
 * `namespaces` FTC is missing (no sync controller runs for it then).
 */
export function syncTypeLookup(
  ftcs: { get(key: string): KubeObject | undefined },
  namespace: string,
): (name: string) => SyncType | undefined {
  return (name) => {
    const raw = ftcs.get(`${namespace}/${name}`);
    if (raw === undefined) return undefined;
    const parsed = validateFederatedTypeConfig(raw);
    if (!parsed.ok) return undefined;
    const ftc = defaultFederatedTypeConfig(parsed.value);
    if (ftc.spec.propagation !== 'Enabled') return undefined;
    if (!needsFederatedNamespaces(ftc)) return syncTypeOf(ftc);
    const namespaces = namespacesFtcIn(ftcs, namespace);
    return namespaces === undefined ? undefined : syncTypeOf(ftc, namespaces);
  };
}
