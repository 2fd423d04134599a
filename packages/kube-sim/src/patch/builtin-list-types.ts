import { isObject } from '../util/json.js';

/** How a list field merges: atomic (a leaf), a set of scalars, or a map keyed by some fields of its items. */
export type ListType = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: readonly string[] };

/**
 * Associative list fields of the built-in kinds and their keys (Kubernetes' `listMapKey` tags;
 * the first key is the strategic-merge-patch `patchMergeKey`). Ports depend on where they are.
 */
const keyedLists: Readonly<Record<string, readonly string[]>> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  volumes: ['name'],
  env: ['name'],
  imagePullSecrets: ['name'],
  secrets: ['name'],
  resourceClaims: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  hostAliases: ['ip'],
  conditions: ['type'],
  ownerReferences: ['uid'],
  topologySpreadConstraints: ['topologyKey', 'whenUnsatisfiable'],
};

/**
 * How the built-in list field at `fields` (field names from the root, list items skipped, the
 * list last) merges, for strategic merge patch and for server-side apply alike. Container
 * ports are keyed by containerPort and protocol, a Service's by port and protocol: `item` (one
 * item of the list) tells them apart when given, else the path does.
 */
export function builtinListType(fields: readonly string[], item?: unknown): ListType {
  const field = fields[fields.length - 1] ?? '';
  if (field === 'ports') {
    const container =
      item !== undefined ? isObject(item) && 'containerPort' in item : fields.includes('containers') || fields.includes('initContainers');
    return { type: 'map', keys: container ? ['containerPort', 'protocol'] : ['port', 'protocol'] };
  }
  if (field === 'finalizers') return fields.length === 2 && fields[0] === 'metadata' ? { type: 'set' } : { type: 'atomic' };
  const keys = keyedLists[field];
  return keys === undefined ? { type: 'atomic' } : { type: 'map', keys };
}
