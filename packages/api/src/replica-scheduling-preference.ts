/**
 * ReplicaSchedulingPreference (scheduling.kubefed.io/v1alpha1): divides a total replica count
 * across clusters for the FederatedDeployment/FederatedReplicaSet of the same namespace/name
 * (docs/kubefed-compatibility.md §1.5).
 */
import { z } from 'zod';
import { RSP_TARGET_KINDS } from './constants.js';
import { conditionSchema, objectMetaSchema } from './meta.js';
import { describeObject, field, unwrap, validateWith, type ValidationResult } from './validation.js';

/** A replica count or weight: a whole number, never negative (KubeFed accepted negatives and acted on them). */
const count = z.number().int().min(0).max(2147483647);

/** Per-cluster preferences; every field optional (min 0, max unbounded, weight 0). */
export const clusterPreferencesSchema = z.object({
  minReplicas: count.optional(),
  maxReplicas: count.optional(),
  weight: count.optional(),
});
export type ClusterPreferences = z.infer<typeof clusterPreferencesSchema>;

/** RSP `spec`. `clusters` keys are cluster names or `*` (clusters without an explicit entry). */
export const replicaSchedulingPreferenceSpecSchema = z.object({
  targetKind: z.string(),
  totalReplicas: count,
  rebalance: z.boolean().optional(),
  intersectWithClusterSelector: z.boolean().optional(),
  clusters: z.record(z.string(), clusterPreferencesSchema).optional(),
});
export type ReplicaSchedulingPreferenceSpec = z.infer<typeof replicaSchedulingPreferenceSpecSchema>;

/**
 * RSP `status`, written by the scheduling controller (beyond KubeFed, which never wrote it): the
 * generation planned, the replicas planned per cluster and a `Scheduled` condition.
 */
export const replicaSchedulingPreferenceStatusSchema = z.object({
  observedGeneration: z.number().int().optional(),
  clusters: z.record(z.string(), z.object({ replicas: z.number().int() })).optional(),
  conditions: z.array(conditionSchema).optional(),
});
export type ReplicaSchedulingPreferenceStatus = z.infer<typeof replicaSchedulingPreferenceStatusSchema>;

/** A ReplicaSchedulingPreference object. */
export const replicaSchedulingPreferenceSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
  spec: replicaSchedulingPreferenceSpecSchema,
  status: replicaSchedulingPreferenceStatusSchema.optional(),
});
export type ReplicaSchedulingPreference = z.infer<typeof replicaSchedulingPreferenceSchema>;

/** The `clusters` used when an RSP lists none: every cluster with weight 1. */
export const DEFAULT_RSP_CLUSTERS: Readonly<Record<string, ClusterPreferences>> = Object.freeze({ '*': Object.freeze({ weight: 1 }) });

/**
 * Returns a copy of `spec` with KubeFed's in-memory default: empty or absent `clusters` become
 * `{"*": {weight: 1}}`. Nothing else is defaulted.
 */
export function defaultReplicaSchedulingPreferenceSpec(spec: ReplicaSchedulingPreferenceSpec): ReplicaSchedulingPreferenceSpec {
  if (spec.clusters !== undefined && Object.keys(spec.clusters).length > 0) return { ...spec };
  return { ...spec, clusters: { '*': { weight: 1 } } };
}

/** Returns a copy of `rsp` with {@link defaultReplicaSchedulingPreferenceSpec} applied. */
export function defaultReplicaSchedulingPreference(rsp: ReplicaSchedulingPreference): ReplicaSchedulingPreference {
  return { ...rsp, spec: defaultReplicaSchedulingPreferenceSpec(rsp.spec) };
}

/**
 * Validates an RSP: its shape and `targetKind` ∈ {FederatedDeployment, FederatedReplicaSet}
 * (KubeFed only logs other kinds; we reject them early). Negative or fractional replica counts
 * and weights are rejected (KubeFed accepted and acted on them). Reports every problem.
 */
export function validateReplicaSchedulingPreference(obj: unknown): ValidationResult<ReplicaSchedulingPreference> {
  return validateWith(replicaSchedulingPreferenceSchema, obj, (raw, out) => {
    const kind = field(field(raw, 'spec'), 'targetKind');
    if (typeof kind === 'string' && !(RSP_TARGET_KINDS as readonly string[]).includes(kind))
      out.add('spec.targetKind', `must be one of ${RSP_TARGET_KINDS.join(', ')}`);
  });
}

/** Parses and validates an RSP; throws a `ValidationError` listing every problem. */
export function parseReplicaSchedulingPreference(obj: unknown): ReplicaSchedulingPreference {
  return unwrap(validateReplicaSchedulingPreference(obj), describeObject('ReplicaSchedulingPreference', obj));
}
