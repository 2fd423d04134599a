/**
 * The object the sync controller wants in one member cluster (docs/kubefed-compatibility.md §4.4.5–4.4.7):
 * template → name/namespace/kind/apiVersion → retained member fields (update only) → the
 * cluster's overrides → managed label.
 */
import {
  ALLOW_POD_SECURITY_LABELS_ANNOTATION,
  type ApiResource,
  type GenericOverrideItem,
  MANAGED_LABEL,
  MANAGED_LABEL_TRUE,
} from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { applyClusterOverrides, clusterOverridesFor } from './cluster-overrides.js';
import { ComputeResourceError } from './errors.js';
import { isNamespaceType, qualifiedName } from '../placement/index.js';
import { namespaceLabels } from './namespace-labels.js';
import { retainClusterFields } from './retain-fields.js';

/** The parts of a federated object the renderer reads (a `FederatedObject` fits). */
export interface RenderSource {
  readonly metadata: { readonly name?: string | undefined; readonly namespace?: string | undefined };
  readonly spec?:
    | {
        readonly template?: Readonly<Record<string, unknown>> | undefined;
        readonly overrides?: readonly GenericOverrideItem[] | undefined;
        readonly retainReplicas?: boolean | undefined;
      }
    | null
    | undefined;
}

/** Input of {@link renderDesiredObject}. */
export interface RenderInput {
  /** The federated object. */
  readonly fedObject: RenderSource;
  /** The FTC's target type (`spec.targetType`). */
  readonly targetType: Pick<ApiResource, 'group' | 'version' | 'kind'>;
  /** The member cluster to render for (selects the overrides). */
  readonly cluster: string;
  /** The member object to update; absent on create (no fields are retained). */
  readonly existing?: KubeObject | undefined;
  /** A Namespace copy may get `pod-security.kubernetes.io/*` labels (the KubeFedConfig allows it); default false. */
  readonly allowPodSecurityLabels?: boolean | undefined;
}

/** A problem with the template that does not stop propagation (emitted as a Warning event). */
export interface RenderWarning {
  readonly reason: 'AnnotationsNotSupported' | 'FinalizersNotSupported' | 'OwnerReferencesNotSupported' | 'PodSecurityLabelsNotAllowed';
  readonly message: string;
}

/** Result of {@link renderDesiredObject}. */
export interface RenderedObject {
  /** The desired member object, ready to create or PUT. */
  readonly object: KubeObject;
  /** Template problems to report as Warning events. */
  readonly warnings: readonly RenderWarning[];
}

const notSupported = (field: 'annotations' | 'finalizers'): string =>
  `metadata.${field} cannot be set via template to avoid conflicting with controllers in member clusters. ` +
  'Consider using an override to add or remove elements from this collection.';

const OWNER_REFERENCES_NOT_SUPPORTED =
  'metadata.ownerReferences cannot be set via template: an owner named there is not an object of the member cluster, ' +
  "and the member's garbage collector deletes a copy whose owner is missing.";

const podSecurityRefusal = (keys: readonly string[]): string =>
  `labels ${keys.join(', ')} were not set: the KubeFedConfig does not allow FederatedNamespaces to set Pod Security labels ` +
  `on member Namespaces (annotation ${ALLOW_POD_SECURITY_LABELS_ANNOTATION}: "true"); they stay as the member has them`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function nonEmpty(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  return isObject(v) && Object.keys(v).length > 0;
}

/**
 * Renders the desired object for one member cluster (§4.4.5):
 * 1. a deep copy of `spec.template` (absent → `{}`);
 * 2. non-empty template annotations/finalizers are dropped, each with a warning
 *    (`AnnotationsNotSupported` / `FinalizersNotSupported`, KubeFed's message), and so are
 *    ownerReferences (`OwnerReferencesNotSupported`, beyond KubeFed: an owner missing in the
 *    member makes its garbage collector delete every copy right after its creation);
 * 3. `metadata.name` ← the federated name; `metadata.namespace` ← the federated namespace
 *    (removed for cluster-scoped targets, untouched for Namespace); `kind` ← the target kind;
 *    `apiVersion` kept from the template, else `<group>/<version>` (`v1` for the core group);
 * 4. with `existing`: retained member fields (§4.4.6);
 * 5. the cluster's overrides (§4.4.7);
 * 6. for a Namespace, the member's labels kept under the desired ones and its Pod Security labels
 *    kept unless `allowPodSecurityLabels` (`PodSecurityLabelsNotAllowed` warning; see `namespaceLabels`);
 * 7. label `kubefed.io/managed: "true"`, last, so overrides cannot remove it.
 * Inputs are not modified.
 *
 * @throws ComputeResourceError (status `ComputeResourceFailed`) when the template or its
 *   metadata is not an object; FieldRetentionError (`FieldRetentionFailed`);
 *   ApplyOverridesError (`ApplyOverridesFailed`).
 */
export function renderDesiredObject(input: RenderInput): RenderedObject {
  const { fedObject, targetType, cluster } = input;
  const name = qualifiedName(fedObject.metadata);
  const template: unknown = fedObject.spec?.template ?? {};
  if (!isObject(template)) throw new ComputeResourceError(cluster, `spec.template of "${name}" is not an object`);
  const obj = structuredClone(template) as KubeObject;
  const metaValue: unknown = obj.metadata ?? {};
  if (!isObject(metaValue)) throw new ComputeResourceError(cluster, `spec.template.metadata of "${name}" is not an object`);
  const metadata = metaValue as KubeObject['metadata'];
  obj.metadata = metadata;

  const warnings: RenderWarning[] = [];
  if (nonEmpty(metadata.annotations)) {
    warnings.push({ reason: 'AnnotationsNotSupported', message: notSupported('annotations') });
    delete metadata.annotations;
  }
  if (nonEmpty(metadata.finalizers)) {
    warnings.push({ reason: 'FinalizersNotSupported', message: notSupported('finalizers') });
    delete metadata.finalizers;
  }
  if (nonEmpty(metadata.ownerReferences)) {
    warnings.push({ reason: 'OwnerReferencesNotSupported', message: OWNER_REFERENCES_NOT_SUPPORTED });
  }
  delete metadata.ownerReferences;

  metadata.name = fedObject.metadata.name ?? '';
  if (!isNamespaceType(targetType)) {
    const ns = fedObject.metadata.namespace;
    if (ns !== undefined && ns !== '') metadata.namespace = ns;
    else delete metadata.namespace;
  }
  obj.kind = targetType.kind;
  if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') {
    obj.apiVersion =
      targetType.group === undefined || targetType.group === '' ? targetType.version : `${targetType.group}/${targetType.version}`;
  }

  let out = obj;
  if (input.existing !== undefined) {
    out = retainClusterFields(out, input.existing, {
      targetKind: targetType.kind,
      retainReplicas: fedObject.spec?.retainReplicas === true,
      cluster,
    });
  }
  out = applyClusterOverrides(out, clusterOverridesFor(fedObject, cluster), cluster);

  const meta: unknown = out.metadata;
  const finalMeta = (isObject(meta) ? meta : {}) as KubeObject['metadata'];
  const labels: unknown = finalMeta.labels;
  let kept = isObject(labels) ? (labels as Record<string, string>) : {};
  if (isNamespaceType(targetType)) {
    const merged = namespaceLabels({ ...out, metadata: finalMeta }, input.existing, input.allowPodSecurityLabels === true);
    kept = merged.labels;
    if (merged.refused.length > 0) warnings.push({ reason: 'PodSecurityLabelsNotAllowed', message: podSecurityRefusal(merged.refused) });
  }
  finalMeta.labels = { ...kept, [MANAGED_LABEL]: MANAGED_LABEL_TRUE };
  out.metadata = finalMeta;
  return { object: out, warnings };
}
