/**
 * FederatedTypeConfig (core.kubefed.io/v1beta1): declares that a target type is federated
 * through a federated type (docs/kubefed-compatibility.md §1.3), with KubeFed's in-memory defaulting and
 * the validating webhook's rules (§6.2).
 */
import { z } from 'zod';
import { NAMESPACE_TYPE_NAME } from './constants.js';
import { conditionSchema, objectMetaSchema } from './meta.js';
import {
  asRecord,
  describeObject,
  field,
  isDns1035Label,
  isDns1123Subdomain,
  type IssueCollector,
  unwrap,
  validateWith,
  type ValidationResult,
} from './validation.js';

/** `Cluster` or `Namespaced`. */
export const resourceScopeSchema = z.enum(['Cluster', 'Namespaced']);
/** `Enabled` or `Disabled`. */
export const switchSchema = z.enum(['Enabled', 'Disabled']);
/** `Running` or `NotRunning`. */
export const controllerStatusSchema = z.enum(['Running', 'NotRunning']);

/** KubeFed's APIResource: one API type. `group` empty or absent = the core group. */
export const apiResourceSchema = z.object({
  group: z.string().optional(),
  version: z.string(),
  kind: z.string(),
  pluralName: z.string(),
  scope: resourceScopeSchema,
});
export type ApiResource = z.infer<typeof apiResourceSchema>;

/** FederatedTypeConfig `spec`. */
export const federatedTypeConfigSpecSchema = z.object({
  targetType: apiResourceSchema,
  propagation: switchSchema,
  federatedType: apiResourceSchema,
  statusType: apiResourceSchema.optional(),
  statusCollection: switchSchema.optional(),
});
export type FederatedTypeConfigSpec = z.infer<typeof federatedTypeConfigSpecSchema>;

/** FederatedTypeConfig `status`. */
export const federatedTypeConfigStatusSchema = z.object({
  observedGeneration: z.number().int(),
  propagationController: controllerStatusSchema,
  statusController: controllerStatusSchema.optional(),
  /**
   * Beyond KubeFed: `Ready` False with reason `TargetTypeNotFound` or `FederatedTypeNotFound`
   * while the host does not serve a type the FTC names (its sync controller is not started).
   */
  conditions: z.array(conditionSchema).optional(),
});
export type FederatedTypeConfigStatus = z.infer<typeof federatedTypeConfigStatusSchema>;

/** A FederatedTypeConfig object. */
export const federatedTypeConfigSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
  spec: federatedTypeConfigSpecSchema,
  status: federatedTypeConfigStatusSchema.optional(),
});
export type FederatedTypeConfig = z.infer<typeof federatedTypeConfigSchema>;

/**
 * KubeFed's PluralName(kind): lowercase; `es` after a trailing s, x, ch, sh, z or o; a trailing
 * `y` becomes `ies`; otherwise append `s`.
 */
export function pluralName(kind: string): string {
  const k = kind.toLowerCase();
  if (/(s|x|ch|sh|z|o)$/.test(k)) return `${k}es`;
  if (k.endsWith('y')) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

/** GroupQualifiedName: `<plural>` for the core group, else `<plural>.<group>`. */
export function groupQualifiedName(resource: { readonly pluralName: string; readonly group?: string | undefined }): string {
  return resource.group === undefined || resource.group === '' ? resource.pluralName : `${resource.pluralName}.${resource.group}`;
}

/**
 * Returns a copy of `ftc` with KubeFed's in-memory defaults (§1.3): target pluralName/group from
 * `metadata.name`, federated pluralName from its kind, statusType pluralName/group/version from
 * its kind and the federated type. Only empty fields are set.
 */
export function defaultFederatedTypeConfig(ftc: FederatedTypeConfig): FederatedTypeConfig {
  const name = ftc.metadata.name ?? '';
  const dot = name.indexOf('.');
  const target = { ...ftc.spec.targetType };
  if (target.pluralName === '') target.pluralName = dot === -1 ? name : name.slice(0, dot);
  if ((target.group === undefined || target.group === '') && dot !== -1) target.group = name.slice(dot + 1);
  const federated = { ...ftc.spec.federatedType };
  if (federated.pluralName === '') federated.pluralName = pluralName(federated.kind);
  const spec: FederatedTypeConfigSpec = { ...ftc.spec, targetType: target, federatedType: federated };
  if (ftc.spec.statusType !== undefined) {
    const st = { ...ftc.spec.statusType };
    if (st.pluralName === '') st.pluralName = pluralName(st.kind);
    if (st.group === undefined || st.group === '') {
      if (federated.group !== undefined) st.group = federated.group;
    }
    if (st.version === '') st.version = federated.version;
    spec.statusType = st;
  }
  return { ...ftc, spec };
}

/** The target type is namespaced. */
export function isTargetNamespaced(ftc: Pick<FederatedTypeConfig, 'spec'>): boolean {
  return ftc.spec.targetType.scope === 'Namespaced';
}

/** The federated type is namespaced: true for the `namespaces` FTC, else as the target. */
export function isFederatedNamespaced(ftc: FederatedTypeConfig): boolean {
  return ftc.metadata.name === NAMESPACE_TYPE_NAME || isTargetNamespaced(ftc);
}

/** Status collection is enabled (`statusCollection: Enabled`). */
export function isStatusCollectionEnabled(ftc: Pick<FederatedTypeConfig, 'spec'>): boolean {
  return ftc.spec.statusCollection === 'Enabled';
}

const DNS1035_DETAIL =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

function checkApiResource(out: IssueCollector, path: string, res: unknown, federated: boolean): void {
  if (asRecord(res) === undefined) return;
  const group = field(res, 'group');
  if (federated) {
    if (group === undefined || group === '') out.add(`${path}.group`, 'Required value');
    else if (typeof group === 'string' && !group.includes('.'))
      out.add(`${path}.group`, `Invalid value: ${JSON.stringify(group)}: should be a domain with at least one dot`);
  }
  if (typeof group === 'string' && group !== '' && !isDns1123Subdomain(group))
    out.add(
      `${path}.group`,
      `Invalid value: ${JSON.stringify(group)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    );
  const label = (key: string, value: unknown, check: string | undefined): void => {
    if (value === '') out.add(`${path}.${key}`, 'Required value');
    else if (typeof check === 'string' && !isDns1035Label(check))
      out.add(`${path}.${key}`, `Invalid value: ${JSON.stringify(value)}: ${DNS1035_DETAIL}`);
  };
  const version = field(res, 'version');
  label('version', version, typeof version === 'string' ? version : undefined);
  const kind = field(res, 'kind');
  label('kind', kind, typeof kind === 'string' ? kind.toLowerCase() : undefined);
  const plural = field(res, 'pluralName');
  label('pluralName', plural, typeof plural === 'string' ? plural : undefined);
}

/**
 * Validates a FederatedTypeConfig with the validating webhook's rules (§6.2): the name must be
 * GroupQualifiedName(targetType); group/version/kind/pluralName formats; the federated and status
 * types need a group with a dot; status fields. No defaulting happens first. Reports every problem.
 */
export function validateFederatedTypeConfig(obj: unknown): ValidationResult<FederatedTypeConfig> {
  return validateWith(federatedTypeConfigSchema, obj, (raw, out) => {
    const spec = field(raw, 'spec');
    const target = field(spec, 'targetType');
    const name = field(field(raw, 'metadata'), 'name');
    const plural = field(target, 'pluralName');
    const group = field(target, 'group');
    if (typeof name === 'string' && typeof plural === 'string' && (group === undefined || typeof group === 'string')) {
      if (name !== groupQualifiedName({ pluralName: plural, group }))
        out.add('metadata.name', `Invalid value: ${JSON.stringify(name)}: name must be 'TARGET_PLURAL_NAME(.TARGET_GROUP_NAME)'`);
    }
    checkApiResource(out, 'spec.targetType', target, false);
    checkApiResource(out, 'spec.federatedType', field(spec, 'federatedType'), true);
    checkApiResource(out, 'spec.statusType', field(spec, 'statusType'), true);
    const gen = field(field(raw, 'status'), 'observedGeneration');
    if (typeof gen === 'number' && gen < 0)
      out.add('status.observedGeneration', `Invalid value: ${gen}: must be greater than or equal to 0`);
  });
}

/** Parses and validates a FederatedTypeConfig; throws a `ValidationError` listing every problem. */
export function parseFederatedTypeConfig(obj: unknown): FederatedTypeConfig {
  return unwrap(validateFederatedTypeConfig(obj), describeObject('FederatedTypeConfig', obj));
}
