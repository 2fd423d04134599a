/**
 * FederatedServiceStatus (core.kubefed.io/v1alpha1): the legacy per-service status aggregate
 * written by the status controller when raw status collection is off (docs/kubefed-compatibility.md §1.7).
 */
import { z } from 'zod';
import { objectMetaSchema, unstructuredSchema } from './meta.js';
import { describeObject, unwrap, validateWith, type ValidationResult } from './validation.js';

/** One member's Service status (a core/v1 ServiceStatus, kept exactly). */
export const federatedServiceClusterStatusSchema = z.object({
  clusterName: z.string(),
  status: unstructuredSchema,
});
export type FederatedServiceClusterStatus = z.infer<typeof federatedServiceClusterStatusSchema>;

/** A FederatedServiceStatus object (no spec/status split). */
export const federatedServiceStatusSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
  clusterStatus: z.array(federatedServiceClusterStatusSchema).optional(),
});
export type FederatedServiceStatus = z.infer<typeof federatedServiceStatusSchema>;

/** Validates a FederatedServiceStatus (shape only; KubeFed has no further rules). */
export function validateFederatedServiceStatus(obj: unknown): ValidationResult<FederatedServiceStatus> {
  return validateWith(federatedServiceStatusSchema, obj);
}

/** Parses and validates a FederatedServiceStatus; throws a `ValidationError` listing every problem. */
export function parseFederatedServiceStatus(obj: unknown): FederatedServiceStatus {
  return unwrap(validateFederatedServiceStatus(obj), describeObject('FederatedServiceStatus', obj));
}
