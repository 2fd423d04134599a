import { type FederatedTypeConfig, federatedTypeConfigSchema } from '@kubefed/api';
import {
  type DynamicClient,
  getOrUndefined,
  jsonEqual,
  type KubeFedClusterInput,
  type KubeObject,
  memberClientFromSecret,
  SecretNotBoundError,
} from '@kubefed/client';
import { KubefedctlError, causeMessage } from './errors.js';
import { joinNames, joinServiceAccountOf, joinedClusterOf, memberRoleName } from './join-objects.js';
import {
  LEAST_PRIVILEGE_LABEL,
  LEAST_PRIVILEGE_LABEL_VALUE,
  leastPrivilegeNamespaceRules,
  leastPrivilegeRules,
  selfEscalationWarning,
} from './least-privilege.js';
import type { Output } from './output.js';
import { changeLine, GVR, kubectlRef } from './resources.js';

/** Inputs of {@link syncLeastPrivilegeRoles}. */
export interface SyncLeastPrivilegeOptions {
  kubefedNamespace: string;
  /**
   * Host name used in join's generated names (default at join: the host context name); used only
   * for joins whose host Secret does not name their service account (made before it did).
   */
  hostClusterName: string;
  /** Fallback client for a member when its own credentials may not change RBAC (a kubeconfig context of the same name). */
  adminClientFor?: ((cluster: string) => DynamicClient | undefined) | undefined;
  /** Timeout of each request in ms. */
  timeoutMs?: number | undefined;
  /**
   * FTCs about to be written (`enable`): they count as enabled, replacing FTCs of the same name,
   * so that members are granted a type before the controller manager sees its FTC and starts
   * watching it. Default none.
   */
  pendingFtcs?: readonly FederatedTypeConfig[] | undefined;
}

/** The member role of one join, and what identifies it as that join's. */
interface OwnJoin {
  cluster: string;
  namespace: string;
  /** The join's member ServiceAccount; its roles and bindings are `kubefed-controller-manager:<serviceAccount>`. */
  serviceAccount: string;
}

type RoleKind = 'ClusterRole' | 'Role';

function describeRole(kind: RoleKind, name: string, join: OwnJoin): string {
  return kind === 'ClusterRole' ? `cluster role ${name} in ${join.cluster}` : `role ${join.namespace}/${name} in ${join.cluster}`;
}

/**
 * The least-privilege roles of exactly this join, by name (`kubefed-controller-manager:<sa>`, a
 * ClusterRole and a Role in the kubefed namespace): never listed, so another federation's roles
 * in a shared member are never looked at. A role counts only when it carries
 * {@link LEAST_PRIVILEGE_LABEL}, its joined-cluster annotation is this cluster (or absent, on
 * joins made before it), and its binding of the same name grants exactly this join's service
 * account; a role of this name that grants another service account is an error (not touched).
 */
async function ownLeastPrivilegeRoles(member: DynamicClient, join: OwnJoin): Promise<{ kind: RoleKind; obj: KubeObject }[]> {
  const name = memberRoleName(join.serviceAccount);
  const subject = [{ kind: 'ServiceAccount', name: join.serviceAccount, namespace: join.namespace }];
  const found: { kind: RoleKind; obj: KubeObject }[] = [];
  for (const kind of ['ClusterRole', 'Role'] as const) {
    const namespace = kind === 'Role' ? join.namespace : undefined;
    const role = await getOrUndefined(member.resource(kind === 'Role' ? GVR.roles : GVR.clusterRoles, namespace), name);
    if (role?.metadata.labels?.[LEAST_PRIVILEGE_LABEL] !== LEAST_PRIVILEGE_LABEL_VALUE) continue;
    const owner = joinedClusterOf(role);
    if (owner !== undefined && owner !== join.cluster) continue;
    const binding = await getOrUndefined(member.resource(kind === 'Role' ? GVR.roleBindings : GVR.clusterRoleBindings, namespace), name);
    if (binding === undefined) continue;
    if (!jsonEqual(binding['subjects'] ?? [], subject)) {
      throw new KubefedctlError(
        `${describeRole(kind, name, join)} is bound to another service account than ${join.namespace}/${join.serviceAccount}; it was not changed`,
      );
    }
    found.push({ kind, obj: role });
  }
  return found;
}

async function syncMember(member: DynamicClient, join: OwnJoin, ftcs: FederatedTypeConfig[], out: Output): Promise<void> {
  let warned = false;
  for (const { kind, obj } of await ownLeastPrivilegeRoles(member, join)) {
    const rules = kind === 'ClusterRole' ? leastPrivilegeRules(ftcs) : leastPrivilegeNamespaceRules(ftcs);
    const warning = warned ? undefined : selfEscalationWarning(join.cluster, ftcs, rules);
    if (warning !== undefined) {
      out.warn(warning);
      warned = true;
    }
    const what = describeRole(kind, obj.metadata.name ?? '', join);
    if (jsonEqual(obj['rules'] ?? [], rules)) {
      out.debug(`least privilege: ${what} is up to date`);
      continue;
    }
    const client = kind === 'ClusterRole' ? member.resource(GVR.clusterRoles) : member.resource(GVR.roles, obj.metadata.namespace);
    await client.update({ ...obj, rules });
    // A listed object carries no kind: the one it was listed as.
    out.info(changeLine(kubectlRef({ ...obj, kind }), 'updated', join.cluster));
  }
}

/**
 * Keeps the member roles of least-privilege joins in step with the enabled FTCs: for every
 * KubeFedCluster, reads its token Secret (which must be bound to it), finds the roles of that
 * join only ({@link ownLeastPrivilegeRoles}: the names of the service account the Secret names,
 * else `<cluster>-<hostClusterName>`) through the member credentials, and sets their rules to
 * `leastPrivilegeRules` (Role: `leastPrivilegeNamespaceRules`). When the member credentials are
 * refused, the `adminClientFor` client is tried (never for a Secret not bound to the cluster).
 * Best effort: every cluster that could not be updated is a warning; never rejects for a member
 * problem.
 */
export async function syncLeastPrivilegeRoles(host: DynamicClient, options: SyncLeastPrivilegeOptions, out: Output): Promise<void> {
  const ns = options.kubefedNamespace;
  let clusters: KubeObject[];
  let ftcs: FederatedTypeConfig[];
  try {
    clusters = (await host.resource(GVR.kubeFedClusters, ns).listAll()).items;
    if (clusters.length === 0) return;
    const pending = options.pendingFtcs ?? [];
    const pendingNames = new Set(pending.map((f) => f.metadata.name));
    ftcs = (await host.resource(GVR.federatedTypeConfigs, ns).listAll()).items.flatMap((i) => {
      const p = federatedTypeConfigSchema.safeParse(i);
      return p.success && !pendingNames.has(p.data.metadata.name) ? [p.data] : [];
    });
    ftcs.push(...pending);
  } catch (e) {
    out.warn(`could not check least-privilege member roles: ${causeMessage(e)}`);
    return;
  }
  for (const kfc of clusters) {
    const cluster = kfc.metadata.name ?? '';
    const input = kfc as unknown as KubeFedClusterInput;
    let lastError: unknown;
    let join: OwnJoin | undefined;
    let member: DynamicClient | undefined;
    try {
      const secret = await host.resource(GVR.secrets, ns).get(input.spec.secretRef.name);
      member = memberClientFromSecret(input, secret, { timeoutMs: options.timeoutMs ?? 20_000 });
      join = {
        cluster,
        namespace: ns,
        serviceAccount: joinServiceAccountOf(secret) ?? joinNames(cluster, options.hostClusterName, ns).serviceAccount,
      };
      await syncMember(member, join, ftcs, out);
      continue;
    } catch (e) {
      lastError = e;
    } finally {
      member?.close();
    }
    // No join of this cluster is known when its Secret could not be read or is not bound to it.
    const admin = join === undefined || lastError instanceof KubefedctlError ? undefined : options.adminClientFor?.(cluster);
    if (admin !== undefined && join !== undefined) {
      try {
        out.debug(
          `least privilege: member credentials of ${cluster} failed (${causeMessage(lastError)}); using the kubeconfig context "${cluster}"`,
        );
        await syncMember(admin, join, ftcs, out);
        continue;
      } catch (e) {
        lastError = e;
      } finally {
        admin.close();
      }
    }
    // Re-running join would rebind a role that grants another service account: no hint then.
    const hint =
      lastError instanceof SecretNotBoundError || lastError instanceof KubefedctlError
        ? ''
        : ` (re-run "kubefedctl join ${cluster} --error-on-existing=false")`;
    out.warn(`could not update the least-privilege role of cluster "${cluster}": ${causeMessage(lastError)}${hint}`);
  }
}
