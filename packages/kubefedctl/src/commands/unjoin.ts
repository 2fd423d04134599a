import { isNetworkError, isNotFound, isTimeout, isUnauthorized } from '@kubefed/client';
import type { DynamicClient, GroupVersionResource, KubeObject } from '@kubefed/client';
import { UnjoinError, causeMessage } from '../errors.js';
import type { KubefedctlError } from '../errors.js';
import { joinNames } from '../join-objects.js';
import type { JoinNames } from '../join-objects.js';
import type { Output } from '../output.js';
import { hintFor } from '../output.js';
import { GVR, deleteIfExists, tryGet } from '../resources.js';

/** Options of {@link unjoin} (the flags of `kubefedctl unjoin`). */
export interface UnjoinOptions {
  /** Name of the cluster to remove (the KubeFedCluster name). */
  cluster: string;
  /** Host cluster name used in the generated names (as for join). */
  hostClusterName: string;
  /** The kubefed namespace in host and member. */
  kubefedNamespace: string;
  /** Carry on when the member is unreachable or a member delete fails; report what stayed. */
  force: boolean;
  /** Report what would be removed; delete nothing. */
  dryRun: boolean;
}

/** The clusters of an unjoin. */
export interface UnjoinTargets {
  host: DynamicClient;
  /** Undefined when no client could be built for the member context (see `memberProblem`). */
  member: DynamicClient | undefined;
  /** Why there is no member client (e.g. the context is missing from the kubeconfig). */
  memberProblem?: KubefedctlError | undefined;
}

/** What {@link unjoin} did. Every entry names the object and the cluster. */
export interface UnjoinResult {
  names: JoinNames;
  /** Deleted (with `dryRun`: would be deleted). */
  removed: string[];
  /** Not there in the first place. */
  absent: string[];
  /** Left behind (only with `force`), with the reason. */
  notRemoved: { what: string; reason: string }[];
  /** Kept on purpose (the member's kubefed namespace when the member is the host itself). */
  kept: string[];
}

interface Target {
  what: string;
  gvr: GroupVersionResource;
  namespace?: string;
  name: string;
}

function memberTargets(names: JoinNames): Target[] {
  const ns = names.namespace;
  const c = names.cluster;
  return [
    { what: `cluster role binding ${names.role} in ${c}`, gvr: GVR.clusterRoleBindings, name: names.role },
    { what: `cluster role ${names.role} in ${c}`, gvr: GVR.clusterRoles, name: names.role },
    { what: `cluster role binding ${names.healthCheckRole} in ${c}`, gvr: GVR.clusterRoleBindings, name: names.healthCheckRole },
    { what: `cluster role ${names.healthCheckRole} in ${c}`, gvr: GVR.clusterRoles, name: names.healthCheckRole },
    { what: `role binding ${ns}/${names.role} in ${c}`, gvr: GVR.roleBindings, namespace: ns, name: names.role },
    { what: `role ${ns}/${names.role} in ${c}`, gvr: GVR.roles, namespace: ns, name: names.role },
    { what: `secret ${ns}/${names.serviceAccount} in ${c}`, gvr: GVR.secrets, namespace: ns, name: names.serviceAccount },
    { what: `service account ${ns}/${names.serviceAccount} in ${c}`, gvr: GVR.serviceAccounts, namespace: ns, name: names.serviceAccount },
  ];
}

function isUnreachable(e: unknown): boolean {
  return isNetworkError(e) || isTimeout(e) || isUnauthorized(e);
}

/**
 * Removes a member like `kubefedctl unjoin` (KUBEFED-REFERENCE §3.3): in the member the
 * (cluster) role bindings and roles (main and health-check), the token Secret and the
 * ServiceAccount `<cluster>-<host>` — which revokes the token — then the kubefed namespace unless
 * it is the host's own (same UID); in the host the Secret named by the KubeFedCluster and the
 * KubeFedCluster. Absent objects are fine.
 *
 * Failure: an unreachable host rejects before anything is removed; an unreachable member (or a
 * missing member context) rejects with {@link UnjoinError} before anything is removed unless
 * `force`, which skips the member and lists what stayed in `notRemoved`. Nothing found at all →
 * {@link UnjoinError} ("not joined").
 */
export async function unjoin(options: UnjoinOptions, targets: UnjoinTargets, out: Output): Promise<UnjoinResult> {
  const ns = options.kubefedNamespace;
  const names = joinNames(options.cluster, options.hostClusterName, ns);
  const hostName = options.hostClusterName;
  const result: UnjoinResult = { names, removed: [], absent: [], notRemoved: [], kept: [] };
  const kfcClient = targets.host.resource(GVR.kubeFedClusters, ns);
  const kfcWhat = `KubeFedCluster ${ns}/${options.cluster} in ${hostName}`;

  let kfc: KubeObject | undefined;
  try {
    kfc = await tryGet(kfcClient, options.cluster);
  } catch (e) {
    throw new UnjoinError(`unjoin ${options.cluster}: cannot read ${kfcWhat}: ${causeMessage(e)}`, { cause: e, hint: hintFor(e) });
  }

  // Is the member reachable? Decide before removing anything.
  const targetsInMember = memberTargets(names);
  let memberDown: string | undefined;
  if (targets.member === undefined) {
    memberDown = targets.memberProblem?.message ?? 'no client for the member cluster';
  } else {
    try {
      await tryGet(targets.member.resource(GVR.serviceAccounts, ns), names.serviceAccount);
    } catch (e) {
      if (!isUnreachable(e)) throw new UnjoinError(`unjoin ${options.cluster}: ${causeMessage(e)}`, { cause: e, hint: hintFor(e) });
      memberDown = `cannot reach member cluster ${options.cluster} at ${targets.member.server}: ${causeMessage(e)}`;
    }
  }
  if (memberDown !== undefined && !options.force) {
    throw new UnjoinError(`unjoin ${options.cluster}: ${memberDown}; nothing was removed`, {
      cause: targets.memberProblem,
      hint: `fix access to the member (--cluster-context), or use --force to remove the host side anyway (the member's service account, roles and token secret then stay behind)`,
    });
  }

  const remove = async (cluster: DynamicClient, t: Target, inMember: boolean): Promise<void> => {
    const client = cluster.resource(t.gvr, t.namespace);
    try {
      if (options.dryRun) {
        if ((await tryGet(client, t.name)) === undefined) result.absent.push(t.what);
        else result.removed.push(t.what);
        return;
      }
      out.debug(`delete ${t.what}`);
      if (await deleteIfExists(client, t.name)) result.removed.push(t.what);
      else result.absent.push(t.what);
    } catch (e) {
      if (!options.force || !inMember) {
        throw new UnjoinError(`unjoin ${options.cluster}: delete ${t.what} failed: ${causeMessage(e)}`, { cause: e, hint: hintFor(e) });
      }
      result.notRemoved.push({ what: t.what, reason: causeMessage(e) });
    }
  };

  if (memberDown !== undefined) {
    for (const t of targetsInMember) result.notRemoved.push({ what: t.what, reason: memberDown });
  } else if (targets.member !== undefined) {
    for (const t of targetsInMember) await remove(targets.member, t, true);
    await removeMemberNamespace(targets.member, targets.host, names, options, result, remove);
  }

  if (kfc !== undefined) {
    const secretName = (kfc['spec'] as { secretRef?: { name?: unknown } } | undefined)?.secretRef?.name;
    if (typeof secretName === 'string' && secretName !== '') {
      await remove(targets.host, { what: `secret ${ns}/${secretName} in ${hostName}`, gvr: GVR.secrets, namespace: ns, name: secretName }, false);
    }
    await remove(targets.host, { what: kfcWhat, gvr: GVR.kubeFedClusters, namespace: ns, name: options.cluster }, false);
  } else {
    result.absent.push(kfcWhat);
  }

  if (kfc === undefined && result.removed.length === 0) {
    throw new UnjoinError(`unjoin ${options.cluster}: cluster ${options.cluster} is not joined: there is no ${kfcWhat} and no join artefact in ${options.cluster}`, {
      hint: `list the joined clusters with: kubectl get kubefedclusters -n ${ns}`,
    });
  }
  return result;
}

/** Deletes the member's kubefed namespace unless it is the host's own namespace (same UID). */
async function removeMemberNamespace(
  member: DynamicClient,
  host: DynamicClient,
  names: JoinNames,
  options: UnjoinOptions,
  result: UnjoinResult,
  remove: (cluster: DynamicClient, t: Target, inMember: boolean) => Promise<void>,
): Promise<void> {
  const what = `namespace ${names.namespace} in ${names.cluster}`;
  let memberNs: KubeObject | undefined;
  let hostNs: KubeObject | undefined;
  try {
    memberNs = await tryGet(member.resource(GVR.namespaces), names.namespace);
    hostNs = await tryGet(host.resource(GVR.namespaces), names.namespace);
  } catch (e) {
    if (isNotFound(e)) return;
    if (!options.force) throw new UnjoinError(`unjoin ${names.cluster}: cannot read ${what}: ${causeMessage(e)}`, { cause: e, hint: hintFor(e) });
    result.notRemoved.push({ what, reason: causeMessage(e) });
    return;
  }
  if (memberNs === undefined) {
    result.absent.push(what);
    return;
  }
  if (hostNs?.metadata.uid !== undefined && hostNs.metadata.uid === memberNs.metadata.uid) {
    result.kept.push(`${what} (it is the host's own control-plane namespace)`);
    return;
  }
  await remove(member, { what, gvr: GVR.namespaces, name: names.namespace }, true);
}
