/**
 * PropagatedVersion and ClusterPropagatedVersion (core.kubefed.io/v1alpha1): the sync
 * controller's record of what it last wrote to each member (docs/kubefed-compatibility.md §1.6, §4.4.8).
 */
import { z } from 'zod';
import { objectMetaSchema } from './meta.js';
import { describeObject, field, unwrap, validateWith, type ValidationResult } from './validation.js';

/**
 * One member's version: `gen:<generation>` or `rv:<resourceVersion>`, as KubeFed writes it (our sync
 * workers wrote `gen:<generation>/<uid>` before; such records are still read, see `MEMBER_UIDS_ANNOTATION`).
 */
export const clusterObjectVersionSchema = z.object({ clusterName: z.string(), version: z.string() });
export type ClusterObjectVersion = z.infer<typeof clusterObjectVersionSchema>;

/** Status of both kinds: template/overrides hashes and per-cluster versions (sorted by clusterName). */
export const propagatedVersionStatusSchema = z.object({
  templateVersion: z.string(),
  overridesVersion: z.string(),
  clusterVersions: z.array(clusterObjectVersionSchema).optional(),
});
export type PropagatedVersionStatus = z.infer<typeof propagatedVersionStatusSchema>;

/** A PropagatedVersion (namespaced) or ClusterPropagatedVersion (cluster-scoped); no spec. */
export const propagatedVersionSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
  status: propagatedVersionStatusSchema.optional(),
});
export type PropagatedVersion = z.infer<typeof propagatedVersionSchema>;

/** ClusterPropagatedVersion has the same shape as PropagatedVersion (parse it with propagatedVersionSchema). */
export type ClusterPropagatedVersion = PropagatedVersion;

/** Name of the version record of a federated object: `<lowercase target kind>-<federated name>`. */
export function propagatedVersionName(targetKind: string, federatedName: string): string {
  return `${targetKind.toLowerCase()}-${federatedName}`;
}

/** The version string recorded for a member object: `gen:<n>` when generation is non-zero, else `rv:<resourceVersion>`. */
export function memberObjectVersion(meta: {
  readonly generation?: number | undefined;
  readonly resourceVersion?: string | undefined;
}): string {
  return meta.generation !== undefined && meta.generation !== 0 ? `gen:${meta.generation}` : `rv:${meta.resourceVersion ?? ''}`;
}

function checkClusterVersions(raw: unknown, add: (path: string, message: string) => void): void {
  const versions = field(field(raw, 'status'), 'clusterVersions');
  if (!Array.isArray(versions)) return;
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    const name = field(v, 'clusterName');
    if (typeof name !== 'string') return;
    if (seen.has(name)) add(`status.clusterVersions[${i}].clusterName`, `Duplicate value: ${JSON.stringify(name)}`);
    seen.add(name);
  });
}

/** Validates a PropagatedVersion: its shape and no duplicate cluster in `clusterVersions`. */
export function validatePropagatedVersion(obj: unknown): ValidationResult<PropagatedVersion> {
  return validateWith(propagatedVersionSchema, obj, (raw, out) => checkClusterVersions(raw, (p, m) => out.add(p, m)));
}

/** Validates a ClusterPropagatedVersion (same rules as {@link validatePropagatedVersion}). */
export function validateClusterPropagatedVersion(obj: unknown): ValidationResult<ClusterPropagatedVersion> {
  return validatePropagatedVersion(obj);
}

/** Parses and validates a PropagatedVersion; throws a `ValidationError` listing every problem. */
export function parsePropagatedVersion(obj: unknown): PropagatedVersion {
  return unwrap(validatePropagatedVersion(obj), describeObject('PropagatedVersion', obj));
}

/** Parses and validates a ClusterPropagatedVersion; throws a `ValidationError` listing every problem. */
export function parseClusterPropagatedVersion(obj: unknown): ClusterPropagatedVersion {
  return unwrap(validateClusterPropagatedVersion(obj), describeObject('ClusterPropagatedVersion', obj));
}
