import { federatedTypeConfigSchema } from '@kubefed/api';
import type { FederatedTypeConfig } from '@kubefed/api';
import { SecretNotBoundError, isForbidden, memberClientFromHost } from '@kubefed/client';
import type { DynamicClient } from '@kubefed/client';
import type { KubeFedClusterInput, KubeObject } from '@kubefed/client';
import { causeMessage } from './errors.js';
import { LEAST_PRIVILEGE_LABEL, LEAST_PRIVILEGE_LABEL_VALUE, leastPrivilegeNamespaceRules, leastPrivilegeRules } from './least-privilege.js';
import type { Output } from './output.js';
import { GVR, sameJson, tryGet } from './resources.js';

/** Inputs of {@link syncLeastPrivilegeRoles}. */
export interface SyncLeastPrivilegeOptions {
  kubefedNamespace: string;
  /** Host name used in join's generated names (default at join: the host context name). */
  hostClusterName: string;
  /** Fallback client for a member when its own credentials may not change RBAC (a kubeconfig context of the same name). */
  adminClientFor?: ((cluster: string) => DynamicClient | undefined) | undefined;
  /** Timeout of each request in ms. */
  timeoutMs?: number | undefined;
}

const SELECTOR = `${LEAST_PRIVILEGE_LABEL}=${LEAST_PRIVILEGE_LABEL_VALUE}`;
const ROLE_PREFIX = 'kubefed-controller-manager:';

async function leastPrivilegeRoles(member: DynamicClient, cluster: string, options: SyncLeastPrivilegeOptions): Promise<{ kind: 'ClusterRole' | 'Role'; obj: KubeObject }[]> {
  const ns = options.kubefedNamespace;
  const found: { kind: 'ClusterRole' | 'Role'; obj: KubeObject }[] = [];
  try {
    const crs = await member.resource(GVR.clusterRoles).list({ labelSelector: SELECTOR });
    for (const o of crs.items) if (o.metadata.name?.startsWith(ROLE_PREFIX) === true && !o.metadata.name.includes(':healthcheck-')) found.push({ kind: 'ClusterRole', obj: o });
    const roles = await member.resource(GVR.roles, ns).list({ labelSelector: SELECTOR });
    for (const o of roles.items) if (o.metadata.name?.startsWith(ROLE_PREFIX) === true) found.push({ kind: 'Role', obj: o });
    return found;
  } catch (e) {
    if (!isForbidden(e)) throw e;
  }
  // Listing RBAC is not allowed: try the names join generates.
  const name = `${ROLE_PREFIX}${cluster}-${options.hostClusterName}`;
  const cr = await tryGet(member.resource(GVR.clusterRoles), name);
  if (cr?.metadata.labels?.[LEAST_PRIVILEGE_LABEL] === LEAST_PRIVILEGE_LABEL_VALUE) found.push({ kind: 'ClusterRole', obj: cr });
  const role = await tryGet(member.resource(GVR.roles, ns), name);
  if (role?.metadata.labels?.[LEAST_PRIVILEGE_LABEL] === LEAST_PRIVILEGE_LABEL_VALUE) found.push({ kind: 'Role', obj: role });
  return found;
}

async function syncMember(member: DynamicClient, cluster: string, ftcs: FederatedTypeConfig[], options: SyncLeastPrivilegeOptions, out: Output): Promise<void> {
  for (const { kind, obj } of await leastPrivilegeRoles(member, cluster, options)) {
    const rules = kind === 'ClusterRole' ? leastPrivilegeRules(ftcs) : leastPrivilegeNamespaceRules(ftcs);
    const what = `${kind === 'ClusterRole' ? 'cluster role' : 'role'} ${obj.metadata.namespace === undefined ? '' : `${obj.metadata.namespace}/`}${obj.metadata.name ?? ''} in ${cluster}`;
    if (sameJson(obj['rules'] ?? [], rules)) {
      out.debug(`least privilege: ${what} is up to date`);
      continue;
    }
    const client = kind === 'ClusterRole' ? member.resource(GVR.clusterRoles) : member.resource(GVR.roles, obj.metadata.namespace);
    await client.update({ ...obj, rules });
    out.info(`updated least-privilege ${what}`);
  }
}

/**
 * Keeps the member roles of `join --least-privilege` in step with the enabled FTCs: for every
 * KubeFedCluster, finds its (Cluster)Role carrying {@link LEAST_PRIVILEGE_LABEL} (listing by
 * label, else join's generated name) through the member credentials of the KubeFedCluster's
 * Secret and sets its rules to `leastPrivilegeRules` (Role: the namespaced target types). When
 * the member credentials are refused, the `adminClientFor` client is tried. Best effort: every
 * cluster that could not be updated is a warning; never rejects for a member problem.
 */
export async function syncLeastPrivilegeRoles(host: DynamicClient, options: SyncLeastPrivilegeOptions, out: Output): Promise<void> {
  const ns = options.kubefedNamespace;
  let clusters: KubeObject[];
  let ftcs: FederatedTypeConfig[];
  try {
    clusters = (await host.resource(GVR.kubeFedClusters, ns).listAll()).items;
    if (clusters.length === 0) return;
    ftcs = (await host.resource(GVR.federatedTypeConfigs, ns).listAll()).items.flatMap((i) => {
      const p = federatedTypeConfigSchema.safeParse(i);
      return p.success ? [p.data] : [];
    });
  } catch (e) {
    out.warn(`could not check least-privilege member roles: ${causeMessage(e)}`);
    return;
  }
  for (const kfc of clusters) {
    const cluster = kfc.metadata.name ?? '';
    let lastError: unknown;
    let member: DynamicClient | undefined;
    try {
      member = await memberClientFromHost(host, kfc as unknown as KubeFedClusterInput, { timeoutMs: options.timeoutMs ?? 20_000 });
      await syncMember(member, cluster, ftcs, options, out);
      continue;
    } catch (e) {
      lastError = e;
    } finally {
      member?.close();
    }
    // A KubeFedCluster whose Secret is not bound to it is not a member of this join's: nothing to update.
    const admin = lastError instanceof SecretNotBoundError ? undefined : options.adminClientFor?.(cluster);
    if (admin !== undefined) {
      try {
        out.debug(`least privilege: member credentials of ${cluster} failed (${causeMessage(lastError)}); using the kubeconfig context "${cluster}"`);
        await syncMember(admin, cluster, ftcs, options, out);
        continue;
      } catch (e) {
        lastError = e;
      } finally {
        admin.close();
      }
    }
    out.warn(`could not update the least-privilege role of cluster "${cluster}": ${causeMessage(lastError)} (re-run "kubefedctl join ${cluster} --least-privilege --error-on-existing=false")`);
  }
}
