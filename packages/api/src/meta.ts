/**
 * The Kubernetes metadata shapes KubeFed reads: ObjectMeta, OwnerReference, Condition and
 * LabelSelector. Metadata is a loose object: fields we do not model are kept as they are.
 */
import { z } from 'zod';

/** metav1.OwnerReference. */
export const ownerReferenceSchema = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof ownerReferenceSchema>;

/**
 * metav1.ObjectMeta. Loose: unknown fields (e.g. `managedFields` entries, future fields) are kept.
 * `creationTimestamp` may be `null` as Go clients serialise it.
 */
export const objectMetaSchema = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().int().optional(),
  creationTimestamp: z.string().nullable().optional(),
  deletionTimestamp: z.string().optional(),
  deletionGracePeriodSeconds: z.number().int().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  ownerReferences: z.array(ownerReferenceSchema).optional(),
  finalizers: z.array(z.string()).optional(),
  managedFields: z.array(z.unknown()).optional(),
});
export type ObjectMeta = z.infer<typeof objectMetaSchema>;

/** metav1.Condition (the standard condition shape; KubeFed kinds use their own variants). */
export const conditionSchema = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  observedGeneration: z.number().int().optional(),
  lastTransitionTime: z.string(),
  reason: z.string(),
  message: z.string(),
});
export type Condition = z.infer<typeof conditionSchema>;

/** Operators of a LabelSelector `matchExpressions` item. */
export const labelSelectorOperatorSchema = z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']);
export type LabelSelectorOperator = z.infer<typeof labelSelectorOperatorSchema>;

/**
 * metav1.LabelSelectorRequirement. `operator` is any string in the shape (as in the CRDs);
 * `validateLabelSelector` / `labelSelectorToSelector` reject unknown operators.
 */
export const labelSelectorRequirementSchema = z.object({
  key: z.string(),
  operator: z.string(),
  values: z.array(z.string()).optional(),
});
export type LabelSelectorRequirement = z.infer<typeof labelSelectorRequirementSchema>;

/** metav1.LabelSelector: matchLabels AND matchExpressions; `{}` matches everything. */
export const labelSelectorSchema = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(labelSelectorRequirementSchema).optional(),
});
export type LabelSelector = z.infer<typeof labelSelectorSchema>;

/** Any JSON object, kept exactly (used for templates, remote status and similar opaque bodies). */
export const unstructuredSchema = z.record(z.string(), z.unknown());
export type Unstructured = z.infer<typeof unstructuredSchema>;
