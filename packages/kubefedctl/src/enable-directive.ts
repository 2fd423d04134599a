import { DEFAULT_FEDERATED_GROUP, DEFAULT_FEDERATED_VERSION } from '@kubefed/api';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { UsageError } from './errors.js';

const optionalName = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/**
 * KubeFed's EnableTypeDirective (pkg/kubefedctl/enable/directive.go): the input of
 * `kubefedctl enable -f`. `metadata.name` is the type to enable, looked up like the `<type>`
 * argument; `spec` carries what the flags would. Unknown `spec` fields are refused (KubeFed
 * ignored them), so a misspelt field is not silently lost.
 */
const enableTypeDirectiveSchema = z.object({
  apiVersion: z.literal('core.kubefed.io/v1beta1'),
  kind: z.literal('EnableTypeDirective'),
  metadata: z.looseObject({ name: z.string().min(1, 'the type to enable is required') }),
  spec: z
    .strictObject({
      /** Version of the target type; default the group's preferred version. */
      targetVersion: optionalName,
      /** Default `types.kubefed.io`. */
      federatedGroup: optionalName,
      /** Default `v1beta1`. */
      federatedVersion: optionalName,
    })
    .optional(),
});

/** What `enable` needs from a directive, with KubeFed's defaults applied. */
export interface EnableRequest {
  /** The type key (the directive's `metadata.name`). */
  type: string;
  targetVersion: string | undefined;
  federatedGroup: string;
  federatedVersion: string;
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '<document>' : path.map(String).join('.');
}

/**
 * Reads the EnableTypeDirectives of a YAML text (one or more documents; empty documents are
 * skipped). Throws {@link UsageError} naming `source`, the document number and the field path
 * for anything that is not a valid directive.
 */
export function parseEnableTypeDirectives(text: string, source: string): EnableRequest[] {
  const docs = parseAllDocuments(text);
  const requests: EnableRequest[] = [];
  let index = 0;
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    index++;
    const where = `${source}: document ${index}`;
    if (doc.errors.length > 0) throw new UsageError(`${where} is not valid YAML: ${doc.errors[0]?.message ?? ''}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const parsed = enableTypeDirectiveSchema.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${fieldPath(i.path)}: ${i.message}`).join('; ');
      throw new UsageError(`${where} is not a valid EnableTypeDirective: ${issues}`, {
        hint: 'expected apiVersion: core.kubefed.io/v1beta1, kind: EnableTypeDirective, metadata.name: <type> and optionally spec.targetVersion, spec.federatedGroup, spec.federatedVersion',
      });
    }
    const spec = parsed.data.spec;
    requests.push({
      type: parsed.data.metadata.name,
      targetVersion: spec?.targetVersion,
      federatedGroup: spec?.federatedGroup ?? DEFAULT_FEDERATED_GROUP,
      federatedVersion: spec?.federatedVersion ?? DEFAULT_FEDERATED_VERSION,
    });
  }
  if (requests.length === 0) throw new UsageError(`${source}: no EnableTypeDirective found`);
  return requests;
}
