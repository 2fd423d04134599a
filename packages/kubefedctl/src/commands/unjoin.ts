import {
  CLUSTER_NAME_ANNOTATION,
  type DynamicClient,
  getOrUndefined,
  type GroupVersionResource,
  isNetworkError,
  isTimeout,
  isUnauthorized,
  type KubeObject,
  type ResourceClient,
} from '@kubefed/client';
import { causeMessage, type KubefedctlError, NotJoinedError, UnjoinError } from '../errors.js';
import { joinedClusterOf, joinNames, type JoinNames, NAMESPACE_CREATED_BY_JOIN_ANNOTATION } from '../join-objects.js';
import { hintFor, type Output } from '../output.js';
import { GVR, deleteIfExists, describeObject, gvrOfKind, kubectlRef } from '../resources.js';

/** Options of {@link unjoin} (the flags of `kubefedctl unjoin`). */
export interface UnjoinOptions {
  /** Name of the cluster to remove (the KubeFedCluster name). */
  cluster: string;
  /** Host cluster name used in the generated names (as for join). */
  hostClusterName: string;
  /** The kubefed namespace in host and member. */
  kubefedNamespace: string;
  /**
   * Carry on when the member is unreachable or a member delete fails, and report what stayed; for
   * a name without a KubeFedCluster, remove that join's leftover objects in the member instead of
   * refusing. Default false.
   */
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

/** An object in a cluster, named as kubectl names it ({@link kubectlRef}). */
interface ObjectInCluster {
  ref: string;
  cluster: string;
}

/** What {@link unjoin} did. Every entry names the object and the cluster. */
export interface UnjoinResult {
  names: JoinNames;
  /** Deleted (with `dryRun`: would be deleted). */
  removed: ObjectInCluster[];
  /** Not there in the first place (as messages name them, {@link describeObject}). */
  absent: string[];
  /** Left behind (only with `force`), with the reason. */
  notRemoved: { what: string; reason: string }[];
  /**
   * Kept on purpose, with the reason: an object named like this join's but created by another
   * join, and the member's kubefed namespace when it is the host's own, was not created by join,
   * or still holds other service accounts.
   */
  kept: (ObjectInCluster & { reason: string })[];
}

interface Target extends ObjectInCluster {
  /** As messages name it ({@link describeObject}). */
  what: string;
  gvr: GroupVersionResource;
  namespace?: string;
  name: string;
  side: 'host' | 'member';
  /** Delete only this incarnation (DELETE precondition). */
  uid?: string | undefined;
}

/** One unjoin in progress: its options, where it reports, and what it did so far. */
interface UnjoinRun {
  options: UnjoinOptions;
  out: Output;
  result: UnjoinResult;
}

/** The target `kind` `name` (in `namespace`, when given) in `cluster`. */
function target(kind: string, name: string, where: { cluster: string; side: Target['side']; namespace?: string }): Target {
  const obj: KubeObject = { kind, metadata: { name, ...(where.namespace === undefined ? {} : { namespace: where.namespace }) } };
  return {
    what: describeObject(obj, where.cluster),
    ref: kubectlRef(obj),
    cluster: where.cluster,
    gvr: gvrOfKind(kind),
    ...(where.namespace === undefined ? {} : { namespace: where.namespace }),
    name,
    side: where.side,
  };
}

function memberTargets(names: JoinNames): Target[] {
  const cluster = { cluster: names.cluster, side: 'member' } as const;
  const inNamespace = { ...cluster, namespace: names.namespace };
  return [
    target('ClusterRoleBinding', names.role, cluster),
    target('ClusterRole', names.role, cluster),
    target('ClusterRoleBinding', names.healthCheckRole, cluster),
    target('ClusterRole', names.healthCheckRole, cluster),
    target('RoleBinding', names.role, inNamespace),
    target('Role', names.role, inNamespace),
    target('RoleBinding', names.tokenRole, inNamespace),
    target('Role', names.tokenRole, inNamespace),
    target('Secret', names.serviceAccount, inNamespace),
    target('ServiceAccount', names.serviceAccount, inNamespace),
  ];
}

function isUnreachable(e: unknown): boolean {
  return isNetworkError(e) || isTimeout(e) || isUnauthorized(e);
}

function notJoined(options: UnjoinOptions, detail: string): NotJoinedError {
  const ns = options.kubefedNamespace;
  return new NotJoinedError(
    `unjoin ${options.cluster}: cluster ${options.cluster} is not joined: there is no KubeFedCluster ${ns}/${options.cluster} in ${options.hostClusterName}${detail}; nothing was removed`,
    {
      hint: options.force
        ? `list the joined clusters with: kubectl get kubefedclusters -n ${ns}`
        : `list the joined clusters with: kubectl get kubefedclusters -n ${ns}; to remove leftovers of a failed join of ${options.cluster} from the member, re-run with --force`,
    },
  );
}

/**
 * Removes a member like `kubefedctl unjoin` (KubeFed `pkg/kubefedctl/unjoin.go`), limited to what
 * the named join created. In the member: the (cluster) role bindings and roles (main and
 * health-check), the token Secret and the ServiceAccount `<cluster>-<host>` — which revokes the
 * token — each only when it carries no joined-cluster annotation naming another cluster; then the
 * kubefed namespace, only when join created it (annotation) and no service account but `default`
 * remains in it (another join, another federation) and it is not the host's own (same UID). In
 * the host: the Secret named by the KubeFedCluster when it belongs to this cluster (see
 * `removeHostSecret`), and the KubeFedCluster. Absent objects are fine.
 *
 * Failure: a name without a KubeFedCluster rejects with {@link NotJoinedError} before anything is
 * removed; with `force` it removes that join's own leftovers in the member and rejects only when
 * there were none. An unreachable host rejects before anything is removed; an unreachable member
 * (or a missing member context) rejects with {@link UnjoinError} before anything is removed unless
 * `force`, which skips the member and lists what stayed in `notRemoved`.
 */
export async function unjoin(options: UnjoinOptions, targets: UnjoinTargets, out: Output): Promise<UnjoinResult> {
  const ns = options.kubefedNamespace;
  const names = joinNames(options.cluster, options.hostClusterName, ns);
  const hostName = options.hostClusterName;
  const run: UnjoinRun = { options, out, result: { names, removed: [], absent: [], notRemoved: [], kept: [] } };
  const { result } = run;
  const kfcTarget = target('KubeFedCluster', options.cluster, { cluster: hostName, side: 'host', namespace: ns });
  const kfcWhat = kfcTarget.what;

  let kfc: KubeObject | undefined;
  try {
    kfc = await getOrUndefined(targets.host.resource(GVR.kubeFedClusters, ns), options.cluster);
  } catch (e) {
    throw new UnjoinError(`unjoin ${options.cluster}: cannot read ${kfcWhat}: ${causeMessage(e)}`, { cause: e, hint: hintFor(e) });
  }
  if (kfc === undefined && !options.force) throw notJoined(options, '');

  // Is the member reachable? Decide before removing anything.
  let memberDown: string | undefined;
  if (targets.member === undefined) {
    memberDown = targets.memberProblem?.message ?? 'no client for the member cluster';
  } else {
    try {
      await getOrUndefined(targets.member.resource(GVR.serviceAccounts, ns), names.serviceAccount);
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

  if (memberDown !== undefined) {
    for (const t of memberTargets(names)) result.notRemoved.push({ what: t.what, reason: memberDown });
  } else if (targets.member !== undefined) {
    for (const t of memberTargets(names)) await removeOwned(run, targets.member, t);
    // Without a KubeFedCluster the namespace is considered only when the join left something there.
    if (kfc !== undefined || result.removed.length > 0)
      await removeMemberNamespace(run, { member: targets.member, host: targets.host }, names);
  }

  if (kfc === undefined) {
    if (result.removed.length === 0) {
      const kept =
        result.kept.length === 0 ? '' : ` (kept: ${result.kept.map((k) => `${k.ref} in ${k.cluster} (${k.reason})`).join('; ')})`;
      throw notJoined(options, `, and no object of its join in ${options.cluster}${kept}`);
    }
    result.absent.push(kfcWhat);
    return result;
  }
  const secretName = secretRefName(kfc);
  if (secretName !== undefined) await removeHostSecret(run, targets.host, secretName);
  await removeTarget(run, targets.host, { ...kfcTarget, uid: kfc.metadata.uid });
  return result;
}

function secretRefName(kfc: KubeObject): string | undefined {
  const name = (kfc['spec'] as { secretRef?: { name?: unknown } } | undefined)?.secretRef?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * Deletes the host Secret named by the KubeFedCluster's `secretRef`, only when it belongs to
 * this cluster: bound to it ({@link CLUSTER_NAME_ANNOTATION}), or bound to none (a join by
 * KubeFed's kubefedctl writes no binding) and named by no other KubeFedCluster. A KubeFedCluster
 * writer can point `secretRef` at another member's token Secret; unjoining that name must not
 * take the other member's token away. The delete has the Secret's UID as its precondition.
 */
async function removeHostSecret(run: UnjoinRun, host: DynamicClient, secretName: string): Promise<void> {
  const ns = run.options.kubefedNamespace;
  const cluster = run.options.cluster;
  const t = target('Secret', secretName, { cluster: run.options.hostClusterName, side: 'host', namespace: ns });
  let secret: KubeObject | undefined;
  let others: string[];
  try {
    secret = await getOrUndefined(host.resource(GVR.secrets, ns), secretName);
    others = (await host.resource(GVR.kubeFedClusters, ns).list()).items
      .filter((k) => k.metadata.name !== cluster && secretRefName(k) === secretName)
      .map((k) => k.metadata.name ?? '')
      .sort();
  } catch (e) {
    failed(run, t, e);
    return;
  }
  if (secret === undefined) {
    run.result.absent.push(t.what);
    return;
  }
  const boundTo = secret.metadata.annotations?.[CLUSTER_NAME_ANNOTATION];
  if (boundTo !== undefined && boundTo !== '' && boundTo !== cluster) {
    keep(run, t, `bound to cluster ${boundTo} by its ${CLUSTER_NAME_ANNOTATION} annotation, not to ${cluster}`);
    return;
  }
  if ((boundTo === undefined || boundTo === '') && others.length > 0) {
    keep(
      run,
      t,
      `not bound to a cluster, and KubeFedCluster${others.length === 1 ? '' : 's'} ${others.join(', ')} name${others.length === 1 ? 's' : ''} it too`,
    );
    return;
  }
  await removeTarget(run, host, { ...t, uid: secret.metadata.uid });
}

/** Records that `t` stays, and why. */
function keep(run: UnjoinRun, t: Target, reason: string): void {
  run.result.kept.push({ ref: t.ref, cluster: t.cluster, reason });
}

/** A failed read or delete: fatal, except in the member with `force` (then reported in `notRemoved`). */
function failed(run: UnjoinRun, t: Target, e: unknown): void {
  if (!run.options.force || t.side !== 'member') {
    throw new UnjoinError(`unjoin ${run.options.cluster}: delete ${t.what} failed: ${causeMessage(e)}`, { cause: e, hint: hintFor(e) });
  }
  run.result.notRemoved.push({ what: t.what, reason: causeMessage(e) });
}

/** Deletes `t` (with `dryRun`: records that it would). */
async function removeTarget(run: UnjoinRun, cluster: DynamicClient, t: Target): Promise<void> {
  const client: ResourceClient = cluster.resource(t.gvr, t.namespace);
  try {
    if (run.options.dryRun) {
      if ((await getOrUndefined(client, t.name)) === undefined) run.result.absent.push(t.what);
      else run.result.removed.push({ ref: t.ref, cluster: t.cluster });
      return;
    }
    run.out.debug(`delete ${t.what}`);
    if (await deleteIfExists(client, t.name, t.uid)) run.result.removed.push({ ref: t.ref, cluster: t.cluster });
    else run.result.absent.push(t.what);
  } catch (e) {
    failed(run, t, e);
  }
}

/** Deletes the member object `t` unless its joined-cluster annotation names another cluster's join. */
async function removeOwned(run: UnjoinRun, member: DynamicClient, t: Target): Promise<void> {
  let existing: KubeObject | undefined;
  try {
    existing = await getOrUndefined(member.resource(t.gvr, t.namespace), t.name);
  } catch (e) {
    failed(run, t, e);
    return;
  }
  if (existing === undefined) {
    run.result.absent.push(t.what);
    return;
  }
  const owner = joinedClusterOf(existing);
  if (owner !== undefined && owner !== run.options.cluster) {
    keep(run, t, `created by the join of ${owner}`);
    return;
  }
  await removeTarget(run, member, { ...t, uid: existing.metadata.uid });
}

/**
 * Deletes the member's kubefed namespace when join created it and nothing else uses it: not the
 * host's own namespace (same UID), annotated as created by join, and no service account left in
 * it but `default` and this join's own (another join, or another federation's control plane).
 */
async function removeMemberNamespace(
  run: UnjoinRun,
  clusters: { member: DynamicClient; host: DynamicClient },
  names: JoinNames,
): Promise<void> {
  const t = target('Namespace', names.namespace, { cluster: names.cluster, side: 'member' });
  let memberNs: KubeObject | undefined;
  let hostNs: KubeObject | undefined;
  let serviceAccounts: KubeObject[] = [];
  try {
    memberNs = await getOrUndefined(clusters.member.resource(GVR.namespaces), names.namespace);
    hostNs = await getOrUndefined(clusters.host.resource(GVR.namespaces), names.namespace);
    if (memberNs !== undefined) serviceAccounts = (await clusters.member.resource(GVR.serviceAccounts, names.namespace).listAll()).items;
  } catch (e) {
    failed(run, t, e);
    return;
  }
  if (memberNs === undefined) {
    run.result.absent.push(t.what);
    return;
  }
  if (hostNs?.metadata.uid !== undefined && hostNs.metadata.uid === memberNs.metadata.uid) {
    keep(run, t, "it is the host's own control-plane namespace");
    return;
  }
  if (memberNs.metadata.annotations?.[NAMESPACE_CREATED_BY_JOIN_ANNOTATION] === undefined) {
    keep(run, t, `not created by join: no ${NAMESPACE_CREATED_BY_JOIN_ANNOTATION} annotation; delete it yourself if nothing uses it`);
    return;
  }
  const others = serviceAccounts.map((sa) => sa.metadata.name ?? '').filter((n) => n !== 'default' && n !== names.serviceAccount);
  if (others.length > 0) {
    keep(run, t, `still used by service account${others.length === 1 ? '' : 's'} ${others.sort().join(', ')}`);
    return;
  }
  await removeTarget(run, clusters.member, { ...t, uid: memberNs.metadata.uid });
}
