import {
  buildFederatedTypeConfig,
  buildFederatedTypeCrd,
  type CustomResourceDefinition,
  type FederatedTypeConfig,
  groupQualifiedName,
  type JsonSchemaProps,
} from '@kubefed/api';

/** A target type as discovery describes it (a subset of the client's `ResourceMapping`). */
export interface EnableTarget {
  group: string;
  version: string;
  kind: string;
  /** Plural resource name. */
  resource: string;
  namespaced: boolean;
  shortNames: readonly string[];
}

/** Options of {@link enableObjects}. */
export interface EnableObjectsOptions {
  /** Namespace of the FTC. */
  kubefedNamespace: string;
  /** Default `types.kubefed.io`. */
  federatedGroup?: string | undefined;
  /** Default `v1beta1`. */
  federatedVersion?: string | undefined;
  /** Schema of `spec.template`; default an object preserving unknown fields. */
  templateSchema?: JsonSchemaProps | undefined;
  /** Adds `spec.retainReplicas` to the CRD. Default false. */
  hasReplicas?: boolean | undefined;
}

/**
 * FTC names whose FTC `enable` creates with `statusCollection: Enabled` (beyond KubeFed, which
 * never sets it): remote status is on by default for workloads.
 */
export const STATUS_COLLECTION_TYPES: ReadonlySet<string> = new Set(['deployments.apps', 'replicasets.apps', 'jobs.batch']);

/**
 * The FederatedTypeConfig and the `Federated<Kind>` CRD that `kubefedctl enable` writes for a
 * target type (docs/kubefed-compatibility.md §3.4.1–3.4.2), with KubeFed's names; workloads of
 * {@link STATUS_COLLECTION_TYPES} get `statusCollection: Enabled`. Pure.
 */
export function enableObjects(
  target: EnableTarget,
  options: EnableObjectsOptions,
): { ftc: FederatedTypeConfig; crd: CustomResourceDefinition } {
  const typeOptions = {
    group: target.group,
    version: target.version,
    kind: target.kind,
    pluralName: target.resource,
    scope: target.namespaced ? ('Namespaced' as const) : ('Cluster' as const),
    shortNames: target.shortNames,
    ...(options.templateSchema === undefined ? {} : { templateSchema: options.templateSchema }),
    ...(options.federatedGroup === undefined ? {} : { federatedGroup: options.federatedGroup }),
    ...(options.federatedVersion === undefined ? {} : { federatedVersion: options.federatedVersion }),
    hasReplicas: options.hasReplicas === true,
  };
  const ftc = buildFederatedTypeConfig(typeOptions, options.kubefedNamespace);
  if (STATUS_COLLECTION_TYPES.has(groupQualifiedName({ pluralName: target.resource, group: target.group }))) {
    ftc.spec = { ...ftc.spec, statusCollection: 'Enabled' };
  }
  return { ftc, crd: buildFederatedTypeCrd(typeOptions) };
}

/** `<plural>[.<group>]/<version>`: how KubeFed names a type in enable's messages. */
export function typeDisplayName(t: { pluralName: string; group?: string | undefined; version: string }): string {
  return `${groupQualifiedName(t)}/${t.version}`;
}

const EQUIVALENT_APIS: Readonly<Record<string, readonly string[]>> = {
  deployments: ['apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1'],
  daemonsets: ['apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1'],
  replicasets: ['apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1'],
  statefulsets: ['apps/v1', 'apps/v1beta1', 'apps/v1beta2'],
  networkpolicies: ['networking.k8s.io/v1', 'extensions/v1beta1'],
  podsecuritypolicies: ['policy/v1beta1', 'extensions/v1beta1'],
  ingresses: ['networking.k8s.io/v1beta1', 'extensions/v1beta1'],
};

/**
 * KubeFed's equivalent-API table (§3.4.4): the same plural in a different group/version that
 * serves the same objects (e.g. `deployments` in `extensions/v1beta1` and `apps/v1`).
 */
export function isEquivalentApi(
  a: { pluralName: string; group?: string | undefined; version: string },
  b: { pluralName: string; group?: string | undefined; version: string },
): boolean {
  if (a.pluralName !== b.pluralName) return false;
  const gvA = `${a.group ?? ''}/${a.version}`;
  const gvB = `${b.group ?? ''}/${b.version}`;
  if (gvA === gvB) return false;
  const list = EQUIVALENT_APIS[a.pluralName];
  return list !== undefined && list.includes(gvA) && list.includes(gvB);
}
