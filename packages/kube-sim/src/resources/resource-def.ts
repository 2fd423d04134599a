import type { JsonObject } from '../util/json.js';

/** A printer column (CRD additionalPrinterColumns shape). */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** Where the scale subresource reads and writes replicas. */
export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** How one served version of a resource looks (a CRD may serve several). */
export interface VersionDef {
  name: string;
  /** openAPIV3Schema of this version, if any (CRDs). */
  schema?: JsonObject;
  printerColumns: PrinterColumn[];
  status: boolean;
  scale?: ScaleSpec;
}

/**
 * One resource type served by the simulator (built-in or from a CRD). Objects of one
 * group/resource share storage across versions (conversion strategy None: only apiVersion changes).
 */
export interface ResourceDef {
  group: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Served versions, preferred (storage) version first. */
  versions: VersionDef[];
  /** Built-in kinds accept strategic merge patch; custom resources do not. */
  builtin: boolean;
  /** metadata.generation is maintained (workloads, custom resources ...). */
  generation: boolean;
  /** Extra subresources with their own handler (e.g. serviceaccounts/token, namespaces/finalize). */
  extraSubresources: string[];
  /** Field labels accepted in field selectors besides metadata.name / metadata.namespace. */
  fieldLabels: string[];
  /** Default propagation policy of DELETE (Orphan for batch/v1 jobs, as the real server). */
  defaultPropagation: 'Background' | 'Orphan';
  /** Verbs not served (e.g. events have no status; TokenRequest is create-only). */
  verbs: string[];
  /** Built-in kinds: the top-level fields besides apiVersion/kind/metadata (others are unknown fields). */
  topLevelFields?: string[];
  /** Not stored: only `create` is served, by a dedicated handler (access reviews). */
  virtual?: boolean;
  /** For CRD-defined resources: the CRD name. */
  crdName?: string;
  /** For CRDs: x-kubernetes-preserve-unknown-fields at the root (legacy) */
  preserveUnknownFields?: boolean;
}

/** The storage key of a group/resource (`apps/deployments`, `/configmaps`). */
export function groupResourceKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}

/** `apps/v1` or `v1`. */
export function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** All verbs of a standard resource. */
export const standardVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
