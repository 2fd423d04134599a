import { applyPatch as applyJsonPatch, type Operation } from 'rfc6902';
import { StatusError, badRequest } from '../util/status-error.js';
import { applyMergePatch } from './merge-patch.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

/**
 * Applies a PATCH body of the given media type to `current` (which the callee may mutate).
 * Server-side apply is simplified to a merge of the applied configuration (strategic for
 * built-in kinds, JSON merge for custom resources); fields dropped from the configuration are
 * not removed.
 */
export function applyPatch(contentType: string, current: unknown, patch: unknown, builtin: boolean): unknown {
  switch (contentType) {
    case 'application/merge-patch+json':
      if (patch === undefined) throw badRequest('empty patch');
      return applyMergePatch(current, patch);
    case 'application/strategic-merge-patch+json':
      if (patch === undefined) throw badRequest('empty patch');
      return applyStrategicMergePatch(current, patch);
    case 'application/apply-patch+yaml':
      if (patch === undefined) throw badRequest('empty apply configuration');
      return builtin ? applyStrategicMergePatch(current, patch) : applyMergePatch(current, patch);
    case 'application/json-patch+json': {
      if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
      const results = applyJsonPatch(current, patch as Operation[]);
      const failed = results.find((r) => r !== null);
      if (failed !== undefined && failed !== null)
        throw new StatusError(422, 'Invalid', `the server rejected our request due to an error in our request: ${failed.message}`, {});
      return current;
    }
    default:
      throw badRequest(`unsupported patch type ${contentType}`);
  }
}
