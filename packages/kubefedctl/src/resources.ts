import { RESOURCES } from '@kubefed/api';
import { type GroupVersionResource, isNotFound, type KubeObject, type ResourceClient } from '@kubefed/client';

/** The resources kubefedctl reads and writes. */
export const GVR = RESOURCES;

const KIND_GVR: Record<string, GroupVersionResource> = {
  Namespace: GVR.namespaces,
  ServiceAccount: GVR.serviceAccounts,
  Secret: GVR.secrets,
  ClusterRole: GVR.clusterRoles,
  ClusterRoleBinding: GVR.clusterRoleBindings,
  Role: GVR.roles,
  RoleBinding: GVR.roleBindings,
  KubeFedCluster: GVR.kubeFedClusters,
};

/** The resource of one of the kinds join creates. Throws for any other kind (a programming error). */
export function gvrOfKind(kind: string | undefined): GroupVersionResource {
  const gvr = kind === undefined ? undefined : KIND_GVR[kind];
  if (gvr === undefined) throw new Error(`kubefedctl: no resource known for kind ${String(kind)}`);
  return gvr;
}

const KIND_WORDS: Record<string, string> = {
  Namespace: 'namespace',
  ServiceAccount: 'service account',
  Secret: 'secret',
  ClusterRole: 'cluster role',
  ClusterRoleBinding: 'cluster role binding',
  Role: 'role',
  RoleBinding: 'role binding',
  KubeFedCluster: 'KubeFedCluster',
};

/** `service account kube-federation-system/member1-host in member1`: how messages name an object. */
export function describeObject(obj: KubeObject, cluster: string): string {
  const kind = obj.kind === undefined ? 'object' : (KIND_WORDS[obj.kind] ?? obj.kind);
  const ns = obj.metadata.namespace;
  return `${kind} ${ns === undefined || ns === '' ? '' : `${ns}/`}${nameOf(obj)} in ${cluster}`;
}

/** The object's name; `<prefix><generated>` for a generated name not yet assigned. */
function nameOf(obj: KubeObject): string {
  const generateName = obj.metadata['generateName'];
  return obj.metadata.name ?? `${typeof generateName === 'string' ? generateName : ''}<generated>`;
}

/**
 * How kubectl names an object in the lines that say what changed: `<resource>.<group>/<name>`,
 * the resource in the singular (`serviceaccount/member1-host`,
 * `clusterrole.rbac.authorization.k8s.io/kubefed-controller-manager:member1-host`,
 * `kubefedcluster.core.kubefed.io/member1`). A generated name not yet assigned reads `<prefix><generated>`.
 */
export function kubectlRef(obj: KubeObject): string {
  const gvr = obj.kind === undefined ? undefined : KIND_GVR[obj.kind];
  const resource = obj.kind === undefined ? 'object' : obj.kind.toLowerCase();
  const group = gvr === undefined || gvr.group === '' ? '' : `.${gvr.group}`;
  return `${resource}${group}/${nameOf(obj)}`;
}

/**
 * A line that says what changed, in kubectl's form followed by the cluster (docs/user-guide.md,
 * "Output"): `serviceaccount/member1-host created in member1`, `... (dry run)` with `dryRun`.
 */
export function changeLine(ref: string, verb: string, cluster: string, dryRun = false): string {
  return `${ref} ${verb} in ${cluster}${dryRun ? ' (dry run)' : ''}`;
}

/**
 * DELETE that resolves `false` for NotFound (already gone), `true` when deleted. With `uid`, only
 * that incarnation of the object is deleted (a replaced object rejects with Conflict).
 */
export async function deleteIfExists(client: ResourceClient, name: string, uid?: string): Promise<boolean> {
  try {
    await client.delete(name, { propagationPolicy: 'Background', ...(uid === undefined ? {} : { preconditions: { uid } }) });
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
