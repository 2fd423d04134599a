import type { CustomValidationOptions, Scope } from '../resources/rest-ops.js';
import { badRequest, invalid, type StatusCause } from '../util/status-error.js';
import { isObject, type JsonObject, type KObject } from '../util/json.js';
import { evaluateValidationRules } from './cel-rules.js';
import { validateAgainstSchema } from './structural-schema.js';

/** Structural errors after which kube-apiserver does not evaluate CEL rules. */
const BLOCKING_REASONS = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

const RULES_NOT_CHECKED: StatusCause = {
  reason: 'FieldValueInvalid',
  message:
    'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  field: '<nil>',
};

/**
 * Validates, prunes and defaults a custom resource against the openAPIV3Schema of the requested
 * version, then evaluates its CEL `x-kubernetes-validations` (with the stored object as
 * `oldSelf` on updates) unless a structural error blocks them, as kube-apiserver does.
 * Invalid → 422 with causes; unknown fields → dropped with a warning, or 400 under
 * fieldValidation=Strict. `apiVersion`, `kind` and `metadata` are never pruned.
 */
export function validateCustomResource(
  scope: Scope,
  obj: KObject,
  options: CustomValidationOptions,
): { object: KObject; warnings: string[] } {
  const schema = scope.version.schema;
  if (schema === undefined) return { object: obj, warnings: [] };
  const { metadata, ...rest } = obj;
  const rootSchema: JsonObject = { ...schema };
  const result = validateAgainstSchema(rootSchema, rest, '');
  const name = metadata.name ?? '';
  const value = isObject(result.value) ? result.value : {};
  const object: KObject = { ...value, metadata };
  const causes = [...result.causes];
  if (causes.some((c) => BLOCKING_REASONS.has(c.reason))) causes.push(RULES_NOT_CHECKED);
  else causes.push(...evaluateValidationRules(rootSchema, object, options.old));
  if (causes.length > 0) throw invalid(scope.def.kind, scope.def.group, name, causes);
  if (result.pruned.length > 0 && options.strict)
    throw badRequest(`strict decoding error: ${result.pruned.map((p) => `unknown field "${p}"`).join(', ')}`);
  return { object, warnings: result.pruned.map((p) => `unknown field "${p}"`) };
}
