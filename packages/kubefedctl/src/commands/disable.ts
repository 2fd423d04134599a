import { type DynamicClient, getOrUndefined } from '@kubefed/client';
import { DEFAULT_FEDERATED_GROUP, federatedTypeConfigSchema, federatedPlural, groupQualifiedName } from '@kubefed/api';
import { KubefedctlError } from '../errors.js';
import type { Output } from '../output.js';
import { GVR, deleteIfExists } from '../resources.js';
import { lookupType } from '../type-lookup.js';

/** Options of {@link disableType}. */
export interface DisableOptions {
  kubefedNamespace: string;
  /** Also delete the federated CRD (refused while objects of the federated type exist). */
  deleteCrd: boolean;
  /** Keep the FTC, with `propagation: Disabled`, instead of deleting it (KubeFed always deleted it); not with `deleteCrd`. */
  keepFtc?: boolean | undefined;
  /** Only read: print what would be done (each line ending in `(dry run)`), write nothing. */
  dryRun?: boolean | undefined;
  /** Federated group used to name the CRD when the FTC is missing; default `types.kubefed.io`. */
  federatedGroup?: string | undefined;
  /** Target version for the lookup when the FTC is missing. */
  targetVersion?: string | undefined;
  /** How long to wait for `status.propagationController: NotRunning`; default 10 000 ms. */
  stopTimeoutMs?: number | undefined;
}

/** How many instances {@link instancesOf} names at most. */
const NAMED_INSTANCES = 3;

/**
 * The first {@link NAMED_INSTANCES} objects of a federated type (`ns/name`) and how many there
 * are in all (undefined: more than named, count unknown); no objects when the type is not served.
 */
async function instancesOf(
  host: DynamicClient,
  gvr: { group: string; version: string; resource: string },
): Promise<{ names: string[]; total: number | undefined }> {
  try {
    const list = await host.resource(gvr).list({ limit: NAMED_INSTANCES });
    const names = list.items.map((o) => `${o.metadata.namespace === undefined ? '' : `${o.metadata.namespace}/`}${o.metadata.name ?? ''}`);
    if (list.metadata.continue === undefined || list.metadata.continue === '') return { names, total: names.length };
    const remaining = list.metadata.remainingItemCount;
    return { names, total: remaining === undefined ? undefined : names.length + remaining };
  } catch {
    return { names: [], total: 0 };
  }
}

/** Polls the FTC until a controller reports `propagationController: NotRunning`. */
async function verifyStopped(host: DynamicClient, ns: string, name: string, timeoutMs: number, out: Output): Promise<void> {
  const client = host.resource(GVR.federatedTypeConfigs, ns);
  const initial = await getOrUndefined(client, name);
  const status = (o: typeof initial): string | undefined =>
    (o?.['status'] as { propagationController?: string } | undefined)?.propagationController;
  if (status(initial) === undefined) {
    out.info(`No controller reports the status of FederatedTypeConfig "${ns}/${name}"; not waiting for the propagation controller to stop`);
    return;
  }
  out.info(`Verifying propagation controller is stopped for FederatedTypeConfig "${ns}/${name}"`);
  const deadline = Date.now() + timeoutMs;
  for (let obj = initial; ; obj = await getOrUndefined(client, name)) {
    if (obj === undefined || status(obj) === 'NotRunning') {
      out.info(`Propagation controller for FederatedTypeConfig "${ns}/${name}" is stopped`);
      return;
    }
    if (Date.now() >= deadline) {
      out.warn(
        `Unable to verify propagation controller for FederatedTypeConfig "${ns}/${name}" is stopped: still ${status(obj) ?? 'unknown'} after ${Math.round(timeoutMs / 1000)}s`,
      );
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `kubefedctl disable <type>` as KubeFed's pkg/kubefedctl/disable.go does it: the FTC name is
 * `key` when it contains a dot, else the type lookup's. Sets propagation Disabled, waits (up to
 * `stopTimeoutMs`) for a controller to report NotRunning (only if a controller reports status at
 * all), then deletes the FTC; the federated CRD and every federated and member object stay.
 * `deleteCrd`: refuses while federated objects exist, and also deletes the CRD. `keepFtc`: stops
 * after disabling propagation. `dryRun`: the same reads and refusals, no writes.
 */
export async function disableType(host: DynamicClient, key: string, options: DisableOptions, out: Output): Promise<void> {
  if (options.keepFtc === true && options.deleteCrd)
    throw new KubefedctlError('--keep-ftc cannot be used with --delete-crd: the CRD is only deleted together with its FederatedTypeConfig');
  const suffix = options.dryRun === true ? ' (dry run)' : '';
  const ns = options.kubefedNamespace;
  let name = key;
  if (!key.includes('.')) {
    const t = await lookupType(host.restMapper(), key, options.targetVersion);
    name = groupQualifiedName({ pluralName: t.resource, group: t.group });
  }
  const ftcClient = host.resource(GVR.federatedTypeConfigs, ns);
  const raw = await getOrUndefined(ftcClient, name);
  const ftc = raw === undefined ? undefined : federatedTypeConfigSchema.safeParse(raw).data;
  if (raw === undefined) out.info(`FederatedTypeConfig "${ns}/${name}" does not exist`);

  let crdGvr: { group: string; version: string; resource: string } | undefined;
  if (options.deleteCrd) {
    if (ftc !== undefined) {
      const f = ftc.spec.federatedType;
      crdGvr = { group: f.group ?? '', version: f.version, resource: f.pluralName };
    } else {
      const target = await lookupType(host.restMapper(), key, options.targetVersion);
      crdGvr = { group: options.federatedGroup ?? DEFAULT_FEDERATED_GROUP, version: 'v1beta1', resource: federatedPlural(target.resource) };
    }
  }
  const crdName = crdGvr === undefined ? '' : `${crdGvr.resource}.${crdGvr.group}`;
  const refuseInstances = async (): Promise<void> => {
    if (crdGvr === undefined) return;
    const { names, total } = await instancesOf(host, crdGvr);
    if (names.length === 0) return;
    const others = total === undefined ? ' and more' : total > names.length ? ` and ${total - names.length} more` : '';
    throw new KubefedctlError(
      // KubeFed's sentence as it was (scripts match it), then the instances.
      `Cannot delete CRD "${crdName}" while resource instances exist. Please try kubefedctl disable again after removing the resource instances or without the '--delete-crd' option (instances: ${names.join(', ')}${others})`,
      {
        hint: `delete them with "kubectl delete ${crdGvr.resource}.${crdGvr.group} --all --all-namespaces" (their member objects go too unless orphaning deletion is enabled), or disable without --delete-crd to keep them`,
      },
    );
  };

  if (ftc !== undefined) {
    await refuseInstances();
    if (ftc.spec.propagation === 'Enabled') {
      if (options.dryRun !== true) await ftcClient.patch(name, { spec: { propagation: 'Disabled' } }, 'merge');
      out.info(`Disabled propagation for FederatedTypeConfig "${ns}/${name}"${suffix}`);
    } else {
      out.info(`Propagation already disabled for FederatedTypeConfig "${ns}/${name}"`);
    }
    if (options.dryRun !== true) await verifyStopped(host, ns, name, options.stopTimeoutMs ?? 10_000, out);
  }

  if (options.deleteCrd) {
    await refuseInstances();
    const crds = host.resource(GVR.customResourceDefinitions);
    const exists = options.dryRun === true ? (await getOrUndefined(crds, crdName)) !== undefined : await deleteIfExists(crds, crdName);
    out.info(exists ? `customresourcedefinition "${crdName}" deleted${suffix}` : `customresourcedefinition "${crdName}" does not exist`);
  }
  if (raw !== undefined && options.keepFtc !== true) {
    if (options.dryRun !== true) await deleteIfExists(ftcClient, name);
    out.info(`federatedtypeconfig "${ns}/${name}" deleted${suffix}`);
  }
}
