/**
 * The generic Federated<Kind> object of types.kubefed.io/v1beta1 (docs/kubefed-compatibility.md §1.4):
 * template, placement, overrides, retainReplicas and the status the sync controller writes.
 */
import { z } from 'zod';
import { boundText } from './bounded-text.js';
import type { ValidationIssue } from './errors.js';
import { validateLabelSelector } from './label-selector.js';
import { labelSelectorSchema, objectMetaSchema, unstructuredSchema } from './meta.js';
import { asArray, asRecord, childPath, describeObject, field, unwrap, validateWith, type ValidationResult } from './validation.js';

/** Override operations; empty or absent means `replace`. */
export const OVERRIDE_OPS = ['add', 'remove', 'replace'] as const;
export type OverrideOp = (typeof OVERRIDE_OPS)[number];

/** Override paths that are never allowed (§1.4). `/apiVersion` may be overridden. */
export const FORBIDDEN_OVERRIDE_PATHS: ReadonlySet<string> = new Set([
  '/metadata/namespace',
  '/metadata/name',
  '/metadata/generateName',
  '/kind',
]);

/**
 * Override paths into `metadata.ownerReferences`, never allowed (beyond KubeFed): an owner in a
 * member is an object the host knows nothing of, and one that is missing there makes the
 * member's garbage collector delete the copy right after each create.
 */
export const OWNER_REFERENCES_PATH = '/metadata/ownerReferences';

/** True for {@link OWNER_REFERENCES_PATH} and every path below it. */
export function isOwnerReferencesPath(path: string): boolean {
  return path === OWNER_REFERENCES_PATH || path.startsWith(`${OWNER_REFERENCES_PATH}/`);
}

/**
 * True when an override at `path` could change a forbidden field: the field itself, or an
 * ancestor that holds it (`/metadata` would replace the name and namespace with it, `/` the whole
 * object).
 */
export function isForbiddenOverridePath(path: string): boolean {
  if (path === '' || path === '/') return true;
  if (isOwnerReferencesPath(path)) return true;
  for (const forbidden of FORBIDDEN_OVERRIDE_PATHS) if (forbidden === path || forbidden.startsWith(`${path}/`)) return true;
  return false;
}

/**
 * The longest override path accepted, here and by the generated CRD (`maxLength`). A pointer into
 * any Kubernetes object fits in far less; the bound keeps a tenant from making every message
 * that quotes a path megabytes long.
 */
export const MAX_OVERRIDE_PATH_CHARS = 1024;

/** The longest cluster name in placement and overrides: a KubeFedCluster's name is an object name. */
export const MAX_CLUSTER_NAME_CHARS = 253;

const TOO_LONG_CLUSTER_NAME = `Too long: may not be more than ${MAX_CLUSTER_NAME_CHARS} characters`;

/** One JSON-Patch-like override: `op` (default replace), `path` (JSON pointer), `value` (any JSON, kept exactly). */
export const clusterOverrideSchema = z.object({
  op: z.enum(['', ...OVERRIDE_OPS], { error: `must be one of ${OVERRIDE_OPS.join(', ')}` }).optional(),
  path: z.string(),
  value: z.unknown().optional(),
});
export type ClusterOverride = z.infer<typeof clusterOverrideSchema>;

/** The overrides of one cluster. */
export const genericOverrideItemSchema = z.object({
  clusterName: z.string().max(MAX_CLUSTER_NAME_CHARS, { error: TOO_LONG_CLUSTER_NAME }),
  clusterOverrides: z.array(clusterOverrideSchema).optional(),
});
export type GenericOverrideItem = z.infer<typeof genericOverrideItemSchema>;

/** `spec.placement`: an explicit cluster list (wins when present, even empty) or a cluster selector. */
export const placementSchema = z.object({
  clusters: z.array(z.object({ name: z.string().max(MAX_CLUSTER_NAME_CHARS, { error: TOO_LONG_CLUSTER_NAME }) })).optional(),
  clusterSelector: labelSelectorSchema.optional(),
});
export type Placement = z.infer<typeof placementSchema>;

/** The spec of every federated type. `template` is kept exactly as given (unknown fields preserved). */
export const federatedSpecSchema = z.object({
  template: unstructuredSchema.optional(),
  placement: placementSchema.optional(),
  overrides: z.array(genericOverrideItemSchema).optional(),
  retainReplicas: z.boolean().optional(),
});
export type FederatedSpec = z.infer<typeof federatedSpecSchema>;

/**
 * A condition on a federated object (only `Propagation` is maintained). KubeFed wrote no
 * `message`; here it explains a reason that a user must act on (`ComputePlacementFailed`).
 */
export const federatedConditionSchema = z.object({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastUpdateTime: z.string().optional(),
  lastTransitionTime: z.string().optional(),
});
export type FederatedCondition = z.infer<typeof federatedConditionSchema>;

/** Per-cluster status entry: `status` is a PropagationStatus (absent = OK); `remoteStatus` a member's `.status`, kept exactly. */
export const federatedClusterStatusSchema = z.object({
  name: z.string(),
  status: z.string().optional(),
  remoteStatus: unstructuredSchema.optional(),
});
export type FederatedClusterStatus = z.infer<typeof federatedClusterStatusSchema>;

/** The status of every federated type. */
export const federatedStatusSchema = z.object({
  observedGeneration: z.number().int().optional(),
  conditions: z.array(federatedConditionSchema).optional(),
  clusters: z.array(federatedClusterStatusSchema).optional(),
});
export type FederatedStatus = z.infer<typeof federatedStatusSchema>;

/** Any Federated<Kind> object (FederatedDeployment, FederatedNamespace, ...). */
export const federatedObjectSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
  spec: federatedSpecSchema,
  status: federatedStatusSchema.optional(),
});
export type FederatedObject = z.infer<typeof federatedObjectSchema>;

/**
 * Checks KubeFed's override rules (§1.4) on a raw `overrides` list: a cluster appears once, a path
 * appears once per cluster, paths are JSON pointers and not one of {@link FORBIDDEN_OVERRIDE_PATHS}.
 * Tolerates wrongly typed entries (the shape check reports them). Returns every issue found.
 */
export function validateOverrides(overrides: unknown, basePath = 'spec.overrides'): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const clusters = new Set<string>();
  asArray(overrides).forEach((item, i) => {
    const itemPath = childPath(basePath, i);
    const cluster = field(item, 'clusterName');
    if (typeof cluster === 'string') {
      if (cluster === '') issues.push({ path: `${itemPath}.clusterName`, message: 'Required value' });
      else if (clusters.has(cluster))
        issues.push({ path: `${itemPath}.clusterName`, message: `cluster ${JSON.stringify(boundText(cluster))} appears more than once` });
      clusters.add(cluster);
    }
    const paths = new Set<string>();
    asArray(field(item, 'clusterOverrides')).forEach((ov, j) => {
      const path = field(ov, 'path');
      if (typeof path !== 'string') return;
      const at = `${itemPath}.clusterOverrides[${j}].path`;
      const c = boundText(typeof cluster === 'string' ? cluster : '');
      if (path.length > MAX_OVERRIDE_PATH_CHARS) {
        issues.push({ path: at, message: `Too long: may not be more than ${MAX_OVERRIDE_PATH_CHARS} characters (it has ${path.length})` });
        return;
      }
      if (isForbiddenOverridePath(path))
        issues.push({ path: at, message: `override[${j}] for cluster ${JSON.stringify(c)} has an invalid path: ${path}` });
      else if (!path.startsWith('/')) issues.push({ path: at, message: `must be a JSON pointer starting with "/"` });
      if (paths.has(path))
        issues.push({ path: at, message: `path ${JSON.stringify(path)} appears more than once for cluster ${JSON.stringify(c)}` });
      paths.add(path);
    });
  });
  return issues;
}

/**
 * Validates a federated object: its shape (the generated CRD's rules), the override rules of
 * §1.4, non-empty placement cluster names and a valid cluster selector. Reports every problem.
 */
export function validateFederatedObject(obj: unknown): ValidationResult<FederatedObject> {
  return validateWith(federatedObjectSchema, obj, (raw, out) => {
    const spec = field(raw, 'spec');
    for (const issue of validateOverrides(field(spec, 'overrides'))) out.add(issue.path, issue.message);
    const placement = field(spec, 'placement');
    asArray(field(placement, 'clusters')).forEach((c, i) => {
      if (field(c, 'name') === '') out.add(`spec.placement.clusters[${i}].name`, 'Required value');
    });
    const selector = field(placement, 'clusterSelector');
    if (asRecord(selector) !== undefined)
      for (const issue of validateLabelSelector(selector, 'spec.placement.clusterSelector')) out.add(issue.path, issue.message);
  });
}

/** Parses and validates a federated object; throws a `ValidationError` listing every problem. */
export function parseFederatedObject(obj: unknown): FederatedObject {
  const kind = field(obj, 'kind');
  return unwrap(validateFederatedObject(obj), describeObject(typeof kind === 'string' ? kind : 'federated object', obj));
}
