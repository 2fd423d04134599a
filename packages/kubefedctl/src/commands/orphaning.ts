import { DEFAULT_FEDERATED_GROUP, ORPHAN_ANNOTATION, ORPHAN_ANNOTATION_TRUE } from '@kubefed/api';
import { type DynamicClient, isNotFound, type KubeObject } from '@kubefed/client';
import { KubefedctlError } from '../errors.js';
import type { Output } from '../output.js';
import { lookupType } from '../type-lookup.js';

/** What `orphaning-deletion` does. */
export type OrphaningAction = 'enable' | 'disable' | 'status';

/**
 * `kubefedctl orphaning-deletion enable|disable|status <type> <name>` (docs/kubefed-compatibility.md §3.7):
 * sets, removes or reads the `kubefed.io/orphan: "true"` annotation of a federated object.
 * A type that is not `Federated*` in `types.kubefed.io` is only warned about. `status` prints
 * `Enabled` or `Disabled`; enable/disable print a progress line to stderr (KubeFed printed
 * nothing). With `dryRun`, enable/disable read the object, print their line ending in
 * `(dry run)` and write nothing. Resolves to the state after the command (that a dry run would
 * reach). A missing object rejects with a KubefedctlError naming it (with a hint); other failures with ApiError.
 */
export async function orphaningDeletion(
  host: DynamicClient,
  args: { action: OrphaningAction; type: string; name: string; namespace: string; dryRun?: boolean },
  out: Output,
): Promise<boolean> {
  const t = await lookupType(host.restMapper(), args.type);
  if (!t.kind.startsWith('Federated') || t.group !== DEFAULT_FEDERATED_GROUP) {
    out.warn(`${t.group === '' ? t.resource : `${t.resource}.${t.group}`}/${t.version} might not be a federated resource`);
  }
  const client = host.resource({ group: t.group, version: t.version, resource: t.resource }, t.namespaced ? args.namespace : undefined);
  const what = `${t.kind} "${t.namespaced ? `${args.namespace}/` : ''}${args.name}"`;
  let obj: KubeObject;
  try {
    obj = await client.get(args.name);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    const list = `kubectl get ${t.group === '' ? t.resource : `${t.resource}.${t.group}`}${t.namespaced ? ` -n ${args.namespace}` : ''}`;
    throw new KubefedctlError(`${what} not found in the host cluster`, {
      cause: e,
      hint: `check the name${t.namespaced ? ' and the namespace (-n)' : ''}: "${list}" lists them`,
    });
  }
  const enabled = obj.metadata.annotations?.[ORPHAN_ANNOTATION] === ORPHAN_ANNOTATION_TRUE;
  const suffix = args.dryRun === true ? ' (dry run)' : '';
  switch (args.action) {
    case 'status':
      out.info(enabled ? 'Enabled' : 'Disabled');
      return enabled;
    case 'enable': {
      if (enabled) {
        out.progress(`orphaning deletion is already enabled for ${what}`);
        return true;
      }
      if (args.dryRun !== true) {
        await client.update({
          ...obj,
          metadata: { ...obj.metadata, annotations: { ...(obj.metadata.annotations ?? {}), [ORPHAN_ANNOTATION]: ORPHAN_ANNOTATION_TRUE } },
        });
      }
      out.progress(`orphaning deletion enabled for ${what}: its member objects stay when it is deleted${suffix}`);
      return true;
    }
    case 'disable': {
      if (!enabled) {
        out.progress(`orphaning deletion is not enabled for ${what}`);
        return false;
      }
      const annotations = { ...(obj.metadata.annotations ?? {}) };
      delete annotations[ORPHAN_ANNOTATION];
      if (args.dryRun !== true) await client.update({ ...obj, metadata: { ...obj.metadata, annotations } });
      out.progress(`orphaning deletion disabled for ${what}${suffix}`);
      return false;
    }
  }
}
