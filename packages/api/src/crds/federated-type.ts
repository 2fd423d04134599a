/**
 * What `kubefedctl enable` generates for a target type (docs/kubefed-compatibility.md §3.4.1–3.4.2): the
 * FederatedTypeConfig and the CRD of `Federated<Kind>`.
 */
import {
  API_VERSIONS,
  DEFAULT_FEDERATED_GROUP,
  DEFAULT_FEDERATED_VERSION,
  KUBEFED_NAMESPACE_DEFAULT,
  NAMESPACE_TYPE_NAME,
  type ResourceScope,
} from '../constants.js';
import { MAX_CLUSTER_NAME_CHARS, MAX_OVERRIDE_PATH_CHARS } from '../federated-object.js';
import { groupQualifiedName, type FederatedTypeConfig } from '../federated-type-config.js';
import { AGE_COLUMN, buildCrd, type CustomResourceDefinition } from './crd.js';
import {
  anyValue,
  arr,
  bool,
  dateTime,
  int64,
  labelSelectorSchemaProps,
  obj,
  preservedObject,
  str,
  topLevel,
  type JsonSchemaProps,
} from './openapi.js';

/** Options of {@link buildFederatedTypeCrd} and {@link buildFederatedTypeConfig}: the target type and where to federate it. */
export interface FederatedTypeOptions {
  /** Target API group; `""` for the core group. */
  group: string;
  /** Target version. */
  version: string;
  /** Target kind, e.g. `Deployment`. */
  kind: string;
  /** Target plural, e.g. `deployments`. */
  pluralName: string;
  /** Target scope. */
  scope: ResourceScope;
  /** Target short names; the CRD gets `f` + each. Default: none. */
  shortNames?: readonly string[];
  /** Schema of `spec.template`. Default: an object preserving unknown fields. */
  templateSchema?: JsonSchemaProps;
  /** Group of the federated type. Default `types.kubefed.io`. */
  federatedGroup?: string;
  /** Version of the federated type. Default `v1beta1`. */
  federatedVersion?: string;
  /** The target has `spec.replicas` (int32): adds `spec.retainReplicas`. Default false. */
  hasReplicas?: boolean;
}

/** Federated kind for a target kind: `Federated<Kind>`. */
export const federatedKind = (kind: string): string => `Federated${kind}`;
/** Federated plural for a target plural: `federated<plural>`. */
export const federatedPlural = (plural: string): string => `federated${plural}`;

/** The federated type is namespaced when the target is, or when the target is namespaces. */
function federatedScope(o: FederatedTypeOptions): ResourceScope {
  const name = groupQualifiedName({ pluralName: o.pluralName, group: o.group });
  return o.scope === 'Namespaced' || name === NAMESPACE_TYPE_NAME ? 'Namespaced' : 'Cluster';
}

/** OpenAPI schema of a federated type (§1.4). */
export function federatedTypeSchema(templateSchema: JsonSchemaProps = preservedObject(), hasReplicas = false): JsonSchemaProps {
  const spec: Record<string, JsonSchemaProps> = {
    overrides: arr(
      obj({
        clusterName: str({ maxLength: MAX_CLUSTER_NAME_CHARS }),
        clusterOverrides: arr(
          obj({ op: str({ pattern: '^(add|remove|replace)?$' }), path: str({ maxLength: MAX_OVERRIDE_PATH_CHARS }), value: anyValue() }, [
            'path',
          ]),
        ),
      }),
    ),
    placement: obj({
      clusterSelector: labelSelectorSchemaProps(),
      clusters: arr(obj({ name: str({ maxLength: MAX_CLUSTER_NAME_CHARS }) }, ['name'])),
    }),
  };
  if (hasReplicas) spec.retainReplicas = bool();
  spec.template = templateSchema;
  return topLevel(
    {
      spec: obj(spec),
      status: obj({
        clusters: arr(obj({ name: str(), remoteStatus: preservedObject(), status: str() }, ['name'])),
        conditions: arr(
          obj({ lastTransitionTime: dateTime(), lastUpdateTime: dateTime(), message: str(), reason: str(), status: str(), type: str() }, [
            'status',
            'type',
          ]),
        ),
        observedGeneration: int64(),
      }),
    },
    ['spec'],
  );
}

/**
 * The CRD of `Federated<Kind>` (§3.4.2): name `federated<plural>.<federatedGroup>`, one served
 * storage version with a status subresource, short names `f` + the target's, category `kubefed`,
 * PROPAGATION and AGE printer columns.
 */
export function buildFederatedTypeCrd(o: FederatedTypeOptions): CustomResourceDefinition {
  return buildCrd({
    group: o.federatedGroup ?? DEFAULT_FEDERATED_GROUP,
    version: o.federatedVersion ?? DEFAULT_FEDERATED_VERSION,
    kind: federatedKind(o.kind),
    plural: federatedPlural(o.pluralName),
    scope: federatedScope(o),
    shortNames: (o.shortNames ?? []).map((s) => `f${s}`),
    status: true,
    printerColumns: [{ name: 'Propagation', type: 'string', jsonPath: ".status.conditions[?(@.type=='Propagation')].status" }, AGE_COLUMN],
    schema: federatedTypeSchema(o.templateSchema, o.hasReplicas === true),
  });
}

/**
 * The FederatedTypeConfig of a target type (§3.4.1): name GroupQualifiedName(target), propagation
 * Enabled, federated type `Federated<Kind>` / `federated<plural>` in the federated group; no
 * statusType/statusCollection. `namespace` defaults to `kube-federation-system`.
 */
export function buildFederatedTypeConfig(o: FederatedTypeOptions, namespace: string = KUBEFED_NAMESPACE_DEFAULT): FederatedTypeConfig {
  const targetType: FederatedTypeConfig['spec']['targetType'] =
    o.group === ''
      ? { version: o.version, kind: o.kind, pluralName: o.pluralName, scope: o.scope }
      : { group: o.group, version: o.version, kind: o.kind, pluralName: o.pluralName, scope: o.scope };
  return {
    apiVersion: API_VERSIONS.core,
    kind: 'FederatedTypeConfig',
    metadata: { name: groupQualifiedName({ pluralName: o.pluralName, group: o.group }), namespace },
    spec: {
      targetType,
      propagation: 'Enabled',
      federatedType: {
        group: o.federatedGroup ?? DEFAULT_FEDERATED_GROUP,
        version: o.federatedVersion ?? DEFAULT_FEDERATED_VERSION,
        kind: federatedKind(o.kind),
        pluralName: federatedPlural(o.pluralName),
        scope: federatedScope(o),
      },
    },
  };
}
