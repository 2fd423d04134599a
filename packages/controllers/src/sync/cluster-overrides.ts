/**
 * Per-cluster overrides of a federated object (docs/kubefed-compatibility.md §1.4, §4.4.7): read and
 * validated once per object, then applied to the desired object as one JSON Patch.
 */
import { type ClusterOverride, formatIssues, type GenericOverrideItem, validateOverrides } from '@kubefed/api';
import { ApplyOverridesError } from './errors.js';
import { applyJsonPatch, JsonPatchError, type JsonPatchOperation } from './json-patch.js';

/** The parts of a federated object that overrides read. */
export interface OverridesSource {
  readonly metadata?: { readonly name?: string | undefined; readonly namespace?: string | undefined } | undefined;
  readonly spec?: { readonly overrides?: readonly GenericOverrideItem[] | undefined } | null | undefined;
}

/**
 * The `clusterOverrides` of `cluster` (empty when it has none), after validating every
 * override of the object with KubeFed's rules (a cluster appears once, a path once per
 * cluster, no forbidden paths, paths are JSON pointers).
 *
 * @throws ApplyOverridesError `Error reading cluster overrides: …` when any override of the
 *   object is invalid, whichever cluster it is for (KubeFed reads them once per object).
 */
export function clusterOverridesFor(fedObject: OverridesSource, cluster: string): readonly ClusterOverride[] {
  const overrides = fedObject.spec?.overrides;
  const issues = validateOverrides(overrides);
  if (issues.length > 0) throw new ApplyOverridesError(cluster, `Error reading cluster overrides: ${formatIssues(issues)}`);
  return overrides?.find((o) => o.clusterName === cluster)?.clusterOverrides ?? [];
}

/**
 * Applies `overrides` (in list order, an empty or absent `op` meaning `replace`) to a copy of
 * `obj` with the JSON Patch semantics of {@link applyJsonPatch}. `obj` is not modified.
 *
 * @throws ApplyOverridesError naming the cluster, the override index, its op and path.
 */
export function applyClusterOverrides<T>(obj: T, overrides: readonly ClusterOverride[], cluster: string): T {
  const ops: JsonPatchOperation[] = overrides.map((o) => {
    const op = o.op === undefined || o.op === '' ? 'replace' : o.op;
    return o.value === undefined ? { op, path: o.path } : { op, path: o.path, value: o.value };
  });
  try {
    return applyJsonPatch(obj, ops);
  } catch (err) {
    if (!(err instanceof JsonPatchError)) throw err;
    throw new ApplyOverridesError(cluster, `cannot apply override[${err.index}] for cluster "${cluster}": ${err.message}`, { cause: err });
  }
}
