import type { ResourceMapping, RestMapper } from '@kubefed/client';
import { KubefedctlError } from './errors.js';

/** The type name matched no resource served by the host (KubeFed: `Unable to find api resource named ...`). */
export class TypeNotFoundError extends KubefedctlError {}

const qualified = (m: Pick<ResourceMapping, 'resource' | 'group'>): string => (m.group === '' ? m.resource : `${m.resource}.${m.group}`);

/**
 * KubeFed's type lookup (docs/kubefed-compatibility.md §3.1) on the host's discovery: `key` may be a plural,
 * singular, kind, short name or `plural.group` (case-insensitive). Only each group's preferred
 * version is considered, or with `version` only groups serving that version. A core-group match
 * wins; several matches in other groups are an error asking for `plural.group`.
 *
 * @throws TypeNotFoundError when nothing matches; KubefedctlError when the key is ambiguous.
 */
export async function lookupType(mapper: RestMapper, key: string, version?: string): Promise<ResourceMapping> {
  const matches = await mapper.matches(key);
  const eligible = matches.filter((m) => (version === undefined ? m.preferred : m.version === version));
  const core = eligible.find((m) => m.group === '');
  if (core !== undefined) return core;
  const byName = new Map<string, ResourceMapping>();
  for (const m of eligible) if (!byName.has(qualified(m))) byName.set(qualified(m), m);
  const distinct = [...byName.values()];
  if (distinct.length > 1) {
    const names = distinct.map(qualified).sort();
    throw new KubefedctlError(
      `Multiple resources are matched by "${key}": ${names.join(', ')}. A group-qualified plural name must be provided.`,
      {
        hint: `use one of: ${names.join(', ')}`,
      },
    );
  }
  const found = distinct[0];
  if (found === undefined) {
    throw new TypeNotFoundError(`Unable to find api resource named "${key}".`, {
      hint: `the host serves no such type${version === undefined ? '' : ` in version ${version}`}: list the served types with "kubectl api-resources" (use a plural, plural.group, singular, short name or kind)`,
    });
  }
  return found;
}
