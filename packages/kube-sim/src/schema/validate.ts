import type { Scope } from '../resources/rest-ops.js';
import { badRequest, invalid } from '../server/status-error.js';
import { isObject } from '../util/json.js';
import type { JsonObject, KObject } from '../util/json.js';
import { validateAgainstSchema } from './structural-schema.js';

/**
 * Validates, prunes and defaults a custom resource against the openAPIV3Schema of the requested
 * version. Invalid → 422 with causes; unknown fields → dropped with a warning, or 400 under
 * fieldValidation=Strict. `apiVersion`, `kind` and `metadata` are never pruned.
 */
export function validateCustomResource(scope: Scope, obj: KObject, strict: boolean): { object: KObject; warnings: string[] } {
  const schema = scope.version.schema;
  if (schema === undefined) return { object: obj, warnings: [] };
  const { metadata, ...rest } = obj;
  const rootSchema: JsonObject = { ...schema };
  const result = validateAgainstSchema(rootSchema, rest, '');
  const name = metadata.name ?? '';
  if (result.causes.length > 0) throw invalid(scope.def.kind, scope.def.group, name, result.causes);
  if (result.pruned.length > 0 && strict)
    throw badRequest(`strict decoding error: ${result.pruned.map((p) => `unknown field "${p}"`).join(', ')}`);
  const value = isObject(result.value) ? result.value : {};
  return { object: { ...value, metadata }, warnings: result.pruned.map((p) => `unknown field "${p}"`) };
}
