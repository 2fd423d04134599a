/**
 * The `kubefed.io/deleteoption` annotation (docs/kubefed-compatibility.md §2, §4.4.11): JSON DeleteOptions
 * passed on every member delete while the federated object is being deleted.
 */
import { DELETE_OPTION_ANNOTATION } from '@kubefed/api';
import type { DeleteOptions } from '@kubefed/client';
import { z } from 'zod';
import { DeleteOptionsError } from './errors.js';

// Unknown fields are ignored (as Go's decoder does); null means absent.
const deleteOptionsSchema = z
  .object({
    gracePeriodSeconds: z.number().int().nullish(),
    propagationPolicy: z.enum(['Orphan', 'Background', 'Foreground']).nullish(),
    preconditions: z.object({ uid: z.string().nullish(), resourceVersion: z.string().nullish() }).nullish(),
  })
  .nullable();

/**
 * Parses the `kubefed.io/deleteoption` annotation of a federated object. Only
 * `gracePeriodSeconds`, `propagationPolicy` and `preconditions` are passed on; other fields are
 * ignored. Absent annotation or JSON `null` → `{}`.
 *
 * @throws DeleteOptionsError `could not deserialize delete options from annotation value '<v>': …`
 *   for invalid JSON, a non-object, or a field of the wrong type (naming the field).
 */
export function parseDeleteOptions(fedObject: {
  readonly metadata: { readonly annotations?: Readonly<Record<string, string>> | undefined };
}): DeleteOptions {
  const raw = fedObject.metadata.annotations?.[DELETE_OPTION_ANNOTATION];
  if (raw === undefined) return {};
  const fail = (detail: string, cause?: unknown): never => {
    throw new DeleteOptionsError(`could not deserialize delete options from annotation value '${raw}': ${detail}`, { cause });
  };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err), err);
  }
  const parsed = deleteOptionsSchema.safeParse(json);
  if (!parsed.success) {
    return fail(
      parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '),
      parsed.error,
    );
  }
  const out: DeleteOptions = {};
  const v = parsed.data;
  if (v === null) return out;
  if (v.gracePeriodSeconds !== undefined && v.gracePeriodSeconds !== null) out.gracePeriodSeconds = v.gracePeriodSeconds;
  if (v.propagationPolicy !== undefined && v.propagationPolicy !== null) out.propagationPolicy = v.propagationPolicy;
  if (v.preconditions !== undefined && v.preconditions !== null) {
    const pre: NonNullable<DeleteOptions['preconditions']> = {};
    if (typeof v.preconditions.uid === 'string') pre.uid = v.preconditions.uid;
    if (typeof v.preconditions.resourceVersion === 'string') pre.resourceVersion = v.preconditions.resourceVersion;
    out.preconditions = pre;
  }
  return out;
}
