/**
 * Placement of a federated object (docs/kubefed-compatibility.md §4.4.3, §4.4.4): which registered member
 * clusters should hold a copy. Pure: clusters and the FederatedNamespace are passed in.
 */
import {
  type ApiResource,
  type KubeFedCluster,
  type LabelSelector,
  labelSelectorToSelector,
  matchesSelector,
  type Selector,
} from '@kubefed/api';
import { ComputePlacementError } from './errors.js';

/** The parts of a federated object that placement reads (a `FederatedObject` fits). */
export interface PlacementSource {
  readonly metadata?: { readonly name?: string | undefined; readonly namespace?: string | undefined } | undefined;
  readonly spec?:
    | {
        readonly placement?:
          | {
              readonly clusters?: readonly { readonly name: string }[] | null | undefined;
              readonly clusterSelector?: LabelSelector | null | undefined;
            }
          | null
          | undefined;
      }
    | null
    | undefined;
}

/** The parts of a KubeFedCluster that placement reads. */
export type PlacementCluster = Pick<KubeFedCluster, 'metadata'>;

/** `namespace/name`, or `name` without a namespace. */
export function qualifiedName(meta: { readonly name?: string | undefined; readonly namespace?: string | undefined } | undefined): string {
  const name = meta?.name ?? '';
  return meta?.namespace !== undefined && meta.namespace !== '' ? `${meta.namespace}/${name}` : name;
}

function selectorOf(obj: PlacementSource): Selector {
  try {
    return labelSelectorToSelector(obj.spec?.placement?.clusterSelector ?? undefined);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ComputePlacementError(
      `cannot compute the placement of "${qualifiedName(obj.metadata)}": spec.placement.clusterSelector: ${message}`,
      {
        cause: err,
      },
    );
  }
}

function place(obj: PlacementSource, clusters: readonly PlacementCluster[], selectorOnly: boolean): string[] {
  const registered = clusters.map((c) => c.metadata.name ?? '').filter((n) => n !== '');
  const names = obj.spec?.placement?.clusters;
  let selected: string[];
  if (!selectorOnly && names !== undefined && names !== null) {
    const wanted = new Set(names.map((c) => c.name));
    selected = registered.filter((n) => wanted.has(n));
  } else {
    const selector = selectorOf(obj);
    selected = clusters.filter((c) => matchesSelector(selector, c.metadata.labels)).map((c) => c.metadata.name ?? '');
    selected = selected.filter((n) => n !== '');
  }
  return [...new Set(selected)].sort();
}

/**
 * The clusters a federated object is placed in (§4.4.3), sorted by name:
 * 1. `spec.placement.clusters` present (even `[]`) → exactly those names; the selector is ignored.
 * 2. otherwise `spec.placement.clusterSelector` against each cluster's labels: absent → none,
 *    `{}` → all, else matchLabels AND matchExpressions.
 * 3. only registered clusters are kept (unknown names disappear silently).
 * A missing spec or placement selects nothing.
 *
 * @throws ComputePlacementError when the selector is invalid.
 */
export function computePlacement(fedObject: PlacementSource, clusters: readonly PlacementCluster[]): string[] {
  return place(fedObject, clusters, false);
}

/**
 * The "selector-only" placement used by the ReplicaSchedulingPreference intersection (§4.4.3):
 * the cluster selector is evaluated even when a `clusters` list exists.
 *
 * @throws ComputePlacementError when the selector is invalid.
 */
export function computeSelectorPlacement(fedObject: PlacementSource, clusters: readonly PlacementCluster[]): string[] {
  return place(fedObject, clusters, true);
}

/** True for the core `Namespace` type (the target of the `namespaces` FTC). */
export function isNamespaceType(type: Pick<ApiResource, 'kind' | 'group'>): boolean {
  return type.kind === 'Namespace' && (type.group === undefined || type.group === '');
}

/** Input of {@link effectivePlacement}. */
export interface EffectivePlacementInput {
  /** The federated object. */
  readonly fedObject: PlacementSource;
  /** Every registered KubeFedCluster, ready or not. */
  readonly clusters: readonly PlacementCluster[];
  /** The FTC's target type (`spec.targetType`): its scope and whether it is Namespace. */
  readonly targetType: Pick<ApiResource, 'kind' | 'group' | 'scope'>;
  /** The FederatedNamespace `N/N` of the object's namespace N; absent when there is none. */
  readonly federatedNamespace?: PlacementSource | undefined;
  /** Scope of the control plane (KubeFedConfig `spec.scope`). */
  readonly scope: 'Cluster' | 'Namespaced';
  /** Evaluate selectors even when a clusters list exists (RSP intersection). Default false. */
  readonly selectorOnly?: boolean | undefined;
}

/** Result of {@link effectivePlacement}. */
export interface EffectivePlacement {
  /** Selected cluster names, sorted. */
  readonly clusters: string[];
  /** `NamespaceNotFederated` when a namespaced target in a cluster-scoped plane has no FederatedNamespace. */
  readonly reason?: 'NamespaceNotFederated';
}

/**
 * The effective placement (§4.4.4). Namespace and cluster-scoped targets use the object's own
 * placement R. For namespaced targets: with a FederatedNamespace F, R ∩ placement(F); without
 * one, ∅ with reason `NamespaceNotFederated` in a cluster-scoped control plane (every member
 * copy gets removed), R in a namespace-scoped one (a FederatedNamespace can only restrict).
 *
 * @throws ComputePlacementError when either selector is invalid.
 */
export function effectivePlacement(input: EffectivePlacementInput): EffectivePlacement {
  const selectorOnly = input.selectorOnly ?? false;
  const own = place(input.fedObject, input.clusters, selectorOnly);
  if (isNamespaceType(input.targetType) || input.targetType.scope !== 'Namespaced') return { clusters: own };
  const ns = input.federatedNamespace;
  if (ns === undefined) {
    return input.scope === 'Namespaced' ? { clusters: own } : { clusters: [], reason: 'NamespaceNotFederated' };
  }
  const allowed = new Set(place(ns, input.clusters, selectorOnly));
  return { clusters: own.filter((c) => allowed.has(c)) };
}
