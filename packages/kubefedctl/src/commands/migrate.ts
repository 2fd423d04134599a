import { allCrds, federatedTypeConfigSchema, RESOURCES, type CustomResourceDefinition, type FederatedTypeConfig } from '@kubefed/api';
import {
  getOrUndefined as getIfExists,
  isForbidden,
  isNotFound,
  isUnauthorized,
  jsonEqual,
  memberClientFromSecret,
  type DynamicClient,
  type KubeFedClusterInput,
  type KubeObject,
} from '@kubefed/client';
import { causeMessage, KubefedctlError } from '../errors.js';
import { JOINED_CLUSTER_ANNOTATION, joinServiceAccountOf, memberRoleName } from '../join-objects.js';
import {
  LEAST_PRIVILEGE_LABEL,
  LEAST_PRIVILEGE_LABEL_VALUE,
  leastPrivilegeNamespaceRules,
  leastPrivilegeRules,
  type PolicyRule,
} from '../least-privilege.js';
import type { Output } from '../output.js';
import { kubectlRef } from '../resources.js';
import { storedObjectsProblem } from './migrate-crd-check.js';
import {
  compareCrd,
  holdExpiresAt,
  isKubeFedDeployment,
  KUBEFED_LOCK_NAME,
  leaderRecordOf,
  notKubeFedWebhookReason,
  replicasOf,
  ruleDelta,
  secretActions,
  tokenServiceAccount,
  type SecretAction,
  type ServiceAccountRef,
} from './migrate-plan.js';

/** What `migrate` works on. */
export interface MigrateOptions {
  /** The namespace of KubeFed's control plane (`--kubefed-namespace`). */
  readonly kubefedNamespace: string;
  /** List every change, write nothing. */
  readonly dryRun: boolean;
  /**
   * Replace the full-access (`*` on `*.*`) role of each member's service account by the
   * least-privilege role `kubefedctl join --least-privilege` writes, and say what it loses and
   * gains; default false (KubeFed's roles are kept).
   */
  readonly leastPrivilege?: boolean | undefined;
  /**
   * A client of the member `cluster` with rights to read and write its RBAC (a kubeconfig context
   * of the same name), tried when the member's own token may not read its role (a role narrowed
   * before, without read access to RBAC); default none.
   */
  readonly adminClientFor?: ((cluster: string) => DynamicClient | undefined) | undefined;
  /** Timeout of each request to a member in ms; default 20 000. */
  readonly timeoutMs?: number | undefined;
  /** The clock the lock's expiry is judged by; default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

const VALIDATING = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' } as const;
const MUTATING = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations' } as const;
/** The groups of KubeFed's own (not federated-type) CRDs: missing ones are created. */
const CORE_GROUPS = new Set(['core.kubefed.io', 'scheduling.kubefed.io']);

/** One write of the migration, with the kubectl-style line it prints. */
interface Change {
  readonly line: string;
  /** Makes the change; a returned line is printed instead of {@link line} (what was decided when it ran). */
  apply(): Promise<string | void>;
}

/** What the command found and decided, before any write. */
interface Plan {
  readonly found: string[];
  readonly kept: string[];
  readonly skipped: string[];
  readonly changes: Change[];
  /** Why the migration must not run now (KubeFed still running); a dry run lists the plan anyway. */
  blocker?: KubefedctlError;
  /** Member clients opened while planning, closed when the command ends. */
  readonly clients: DynamicClient[];
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

async function listOrEmpty(host: DynamicClient, gvr: Parameters<DynamicClient['resource']>[0], namespace?: string): Promise<KubeObject[]> {
  try {
    return (await host.resource(gvr, namespace).listAll()).items;
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

async function getOrUndefined(host: DynamicClient, gvr: Parameters<DynamicClient['resource']>[0], name: string, namespace?: string) {
  try {
    return await host.resource(gvr, namespace).get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The lock's description, and the error to refuse with while KubeFed's leader holds it. */
async function checkLock(host: DynamicClient, ns: string, now: number): Promise<{ described?: string; blocker?: KubefedctlError }> {
  const locks = [
    await getOrUndefined(host, RESOURCES.configMaps, KUBEFED_LOCK_NAME, ns),
    await getOrUndefined(host, RESOURCES.leases, KUBEFED_LOCK_NAME, ns),
  ].filter((l): l is KubeObject => l !== undefined);
  let described: string | undefined;
  for (const lock of locks) {
    const kind = lock.kind === 'Lease' ? 'lease' : 'configmap';
    const record = leaderRecordOf(lock);
    if (record === undefined) continue;
    const expires = holdExpiresAt(record);
    if (expires !== undefined && expires > now) {
      const blocker = new KubefedctlError(
        `KubeFed's leader ${record.holderIdentity} still holds the lock ${kind}/${KUBEFED_LOCK_NAME} in ${ns} (renewed ${Math.round((now - (record.renewTime ?? now)) / 1000)}s ago, lease ${record.leaseDurationSeconds}s): KubeFed is still running`,
        {
          hint: `stop KubeFed's controller manager (kubectl -n ${ns} scale deployment kubefed-controller-manager --replicas=0, or stop its process), wait until its lease has expired (${record.leaseDurationSeconds}s), then run migrate again`,
        },
      );
      return { described: `${kind}/${KUBEFED_LOCK_NAME} (leader lock, held by ${record.holderIdentity})`, blocker };
    }
    described = `${kind}/${KUBEFED_LOCK_NAME} (leader lock; last holder ${record.holderIdentity === '' ? 'none' : record.holderIdentity}, not held)`;
  }
  return described === undefined ? {} : { described };
}

async function planWebhooks(host: DynamicClient, ns: string, plan: Plan, dryRun: boolean): Promise<void> {
  for (const [gvr, kind] of [
    [VALIDATING, 'validatingwebhookconfiguration'],
    [MUTATING, 'mutatingwebhookconfiguration'],
  ] as const) {
    for (const config of await listOrEmpty(host, gvr)) {
      const name = config.metadata?.name ?? '';
      if (!name.includes('kubefed.io')) continue;
      const reason = notKubeFedWebhookReason(
        { ...config, kind: kind === 'validatingwebhookconfiguration' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration' },
        ns,
      );
      if (reason !== undefined) {
        plan.skipped.push(`${kind}/${name} skipped: not KubeFed's for namespace ${ns} (${reason})`);
        continue;
      }
      plan.found.push(`${kind}/${name}`);
      plan.changes.push({
        line: `${kind}/${name} deleted${dryRun ? ' (dry run)' : ''}`,
        apply: async () => {
          await host
            .resource(gvr)
            .delete(name, { preconditions: { uid: config.metadata?.uid ?? '', resourceVersion: config.metadata?.resourceVersion ?? '' } })
            .catch((err: unknown) => {
              if (!isNotFound(err)) throw err;
            });
        },
      });
    }
  }
}

function planSecrets(host: DynamicClient, ns: string, actions: readonly SecretAction[], plan: Plan, dryRun: boolean): void {
  for (const a of actions) {
    if (a.kind === 'skip') plan.skipped.push(`secret/${a.secret} skipped: ${a.reason}`);
    else if (a.kind === 'unchanged') plan.kept.push(`secret/${a.secret} already bound to cluster ${a.cluster}`);
    else
      plan.changes.push({
        line: `secret/${a.secret} annotated${dryRun ? ' (dry run)' : ''} (bound to cluster ${a.cluster})`,
        apply: async () => {
          await host.resource(RESOURCES.secrets, ns).patch(a.secret, { metadata: { annotations: a.annotations } }, 'merge');
        },
      });
  }
}

async function planCrds(host: DynamicClient, plan: Plan, dryRun: boolean): Promise<void> {
  const installed = new Map((await listOrEmpty(host, RESOURCES.customResourceDefinitions)).map((c) => [c.metadata?.name ?? '', c]));
  for (const ours of allCrds()) {
    const name = ours.metadata.name;
    const theirs = installed.get(name);
    if (theirs === undefined) {
      if (!CORE_GROUPS.has(ours.spec.group)) continue;
      plan.changes.push({
        line: `customresourcedefinition/${name} created${dryRun ? ' (dry run)' : ''}`,
        apply: async () => {
          await host.resource(RESOURCES.customResourceDefinitions).create(ours as unknown as KubeObject);
        },
      });
      continue;
    }
    const cmp = compareCrd(theirs, ours);
    if (cmp.kind === 'equal') plan.kept.push(`customresourcedefinition/${name} unchanged`);
    else if (cmp.kind === 'schema') await planSchemaReplacement(host, { theirs, ours, version: cmp.version, dryRun }, plan);
    else if (cmp.kind === 'unsafe') {
      const shown = cmp.paths.slice(0, 3).join(', ') + (cmp.paths.length > 3 ? `, and ${cmp.paths.length - 3} more` : '');
      plan.skipped.push(
        `customresourcedefinition/${name} kept: it differs from ours beyond the schema (${shown}); replace it only after checking every stored object`,
      );
    } else
      plan.changes.push({
        line: `customresourcedefinition/${name} replaced${dryRun ? ' (dry run)' : ''} (descriptions and columns only)`,
        apply: async () => {
          await host.resource(RESOURCES.customResourceDefinitions).update({
            ...(ours as unknown as KubeObject),
            metadata: { ...ours.metadata, resourceVersion: theirs.metadata?.resourceVersion ?? '' },
          });
        },
      });
  }
}

/**
 * A CRD whose schema differs from ours: replaced only when every stored object is valid under
 * ours and reads the same ({@link storedObjectsProblem}, checked when the change is made, never
 * in a dry run); else kept, naming the first object that is not.
 */
async function planSchemaReplacement(
  host: DynamicClient,
  input: { theirs: KubeObject; ours: CustomResourceDefinition; version: string; dryRun: boolean },
  plan: Plan,
): Promise<void> {
  const { theirs, ours, version, dryRun } = input;
  const name = ours.metadata.name;
  const gvr = { group: ours.spec.group, version, resource: ours.spec.names.plural };
  const count = (await listOrEmpty(host, gvr)).length;
  const objects = count === 1 ? 'its stored object is' : `its ${count} stored objects are`;
  plan.changes.push({
    line:
      dryRun && count > 0
        ? `customresourcedefinition/${name} replaced (dry run) if ${objects} valid under ours and read${count === 1 ? 's' : ''} the same (checked when migrate runs; else kept)`
        : `customresourcedefinition/${name} replaced${dryRun ? ' (dry run)' : ''} (its schema differs; no stored objects)`,
    apply: async () => {
      const stored = await listOrEmpty(host, gvr);
      const problem = stored.length === 0 ? undefined : await storedObjectsProblem(host, { ours, version, stored });
      if (problem !== undefined) return `customresourcedefinition/${name} kept: its schema differs from ours and ${problem}`;
      await host.resource(RESOURCES.customResourceDefinitions).update({
        ...(ours as unknown as KubeObject),
        metadata: { ...ours.metadata, resourceVersion: theirs.metadata?.resourceVersion ?? '' },
      });
      return stored.length === 0
        ? undefined
        : `customresourcedefinition/${name} replaced (its schema differs; all ${plural(stored.length, 'stored object')} valid under ours and read the same)`;
    },
  });
}

/** A member role `--least-privilege` narrows: KubeFed's join names it after the service account. */
interface RoleTarget {
  readonly kind: 'ClusterRole' | 'Role';
  readonly name: string;
  readonly namespace: string | undefined;
  readonly rules: readonly PolicyRule[];
}

function roleTargets(scope: 'Cluster' | 'Namespaced', sa: ServiceAccountRef, ftcs: readonly FederatedTypeConfig[]): RoleTarget[] {
  const name = memberRoleName(sa.name);
  // A Namespaced control plane's health-check ClusterRole grants only what the health check reads: kept.
  return scope === 'Cluster'
    ? [{ kind: 'ClusterRole', name, namespace: undefined, rules: leastPrivilegeRules(ftcs) }]
    : [{ kind: 'Role', name, namespace: sa.namespace, rules: leastPrivilegeNamespaceRules(ftcs) }];
}

/** The service account of a host token Secret: from its token's claims, else the annotation of our join. */
function serviceAccountOf(secret: KubeObject, ns: string): ServiceAccountRef | undefined {
  const encoded = (secret['data'] as { token?: string } | undefined)?.token;
  const fromToken = encoded === undefined ? undefined : tokenServiceAccount(Buffer.from(encoded, 'base64').toString('utf8'));
  if (fromToken !== undefined) return fromToken;
  const annotated = joinServiceAccountOf(secret);
  return annotated === undefined ? undefined : { namespace: ns, name: annotated };
}

/** Reads a member object; a refusal of the member's own token falls back to `admin` when there is one. */
async function readMember(
  clients: { own: DynamicClient; admin: (() => DynamicClient | undefined) | undefined },
  read: (c: DynamicClient) => Promise<KubeObject | undefined>,
): Promise<{ obj: KubeObject | undefined; client: DynamicClient }> {
  try {
    return { obj: await read(clients.own), client: clients.own };
  } catch (err) {
    const admin = isForbidden(err) || isUnauthorized(err) ? clients.admin?.() : undefined;
    if (admin === undefined) throw err;
    return { obj: await read(admin), client: admin };
  }
}

/**
 * `--least-privilege` for one KubeFedCluster: through its own token (bound as planned), each
 * role of {@link roleTargets} whose binding grants exactly the token's service account gets the
 * least-privilege rules of the enabled FederatedTypeConfigs, the label that keeps `enable` and
 * `disable` updating it, and the joined-cluster annotation. Listed with what it loses and gains.
 */
async function planMemberRoles(
  input: {
    cluster: KubeObject;
    secrets: readonly KubeObject[];
    actions: readonly SecretAction[];
    scope: 'Cluster' | 'Namespaced';
    ftcs: readonly FederatedTypeConfig[];
    options: MigrateOptions;
  },
  plan: Plan,
): Promise<void> {
  const { options, scope, ftcs } = input;
  const ns = options.kubefedNamespace;
  const cluster = input.cluster as unknown as KubeFedClusterInput;
  const name = cluster.metadata.name ?? '';
  const secretName = cluster.spec.secretRef.name;
  const action = input.actions.find((a) => a.secret === secretName);
  const secret = input.secrets.find((s) => s.metadata?.name === secretName);
  if (action === undefined || action.kind === 'skip' || secret === undefined) {
    plan.skipped.push(`cluster ${name}: member roles kept: its token Secret ${secretName} is not bound to it (see above)`);
    return;
  }
  const sa = serviceAccountOf(secret, ns);
  if (sa === undefined) {
    plan.skipped.push(`cluster ${name}: member roles kept: the token of secret/${secretName} names no service account`);
    return;
  }
  const bound =
    action.kind === 'annotate'
      ? { ...secret, metadata: { ...secret.metadata, annotations: { ...secret.metadata?.annotations, ...action.annotations } } }
      : secret;
  const own = memberClientFromSecret(cluster, bound, { timeoutMs: options.timeoutMs ?? 20_000 });
  plan.clients.push(own);
  let admin: DynamicClient | undefined;
  const clients = {
    own,
    admin: options.adminClientFor === undefined ? undefined : () => (admin ??= options.adminClientFor?.(name)),
  };
  const subjects = [{ kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace }];
  try {
    for (const target of roleTargets(scope, sa, ftcs)) {
      const rbac = target.kind === 'ClusterRole' ? RESOURCES.clusterRoles : RESOURCES.roles;
      const bindings = target.kind === 'ClusterRole' ? RESOURCES.clusterRoleBindings : RESOURCES.roleBindings;
      const what = `${kubectlRef({ kind: target.kind, metadata: { name: target.name } })} in ${name}`;
      const { obj: role, client } = await readMember(clients, (c) => getIfExists(c.resource(rbac, target.namespace), target.name));
      if (role === undefined) {
        plan.skipped.push(`${what} skipped: not found (the member was not joined by kubefedctl join, or with another service account)`);
        continue;
      }
      const binding = await getIfExists(client.resource(bindings, target.namespace), target.name);
      if (binding === undefined || !jsonEqual(binding['subjects'] ?? [], subjects)) {
        plan.skipped.push(`${what} skipped: its binding does not grant exactly ${sa.namespace}/${sa.name}`);
        continue;
      }
      const before = (role['rules'] as PolicyRule[] | undefined) ?? [];
      if (role.metadata?.labels?.[LEAST_PRIVILEGE_LABEL] === LEAST_PRIVILEGE_LABEL_VALUE && jsonEqual(before, target.rules)) {
        plan.kept.push(`${what} already least privilege`);
        continue;
      }
      const delta = ruleDelta(before, target.rules);
      const list = (xs: readonly string[]) => (xs.length === 0 ? 'nothing' : xs.join('; '));
      plan.changes.push({
        line: `${what} narrowed${options.dryRun ? ' (dry run)' : ''}: loses ${list(delta.loses)}; gains ${list(delta.gains)}`,
        apply: async () => {
          await client.resource(rbac, target.namespace).update({
            ...role,
            metadata: {
              ...role.metadata,
              labels: { ...role.metadata?.labels, [LEAST_PRIVILEGE_LABEL]: LEAST_PRIVILEGE_LABEL_VALUE },
              annotations: { ...role.metadata?.annotations, [JOINED_CLUSTER_ANNOTATION]: name },
            },
            rules: target.rules.map((r) => ({ ...r })),
          });
        },
      });
    }
  } catch (err) {
    plan.skipped.push(`cluster ${name}: member roles kept: reading them failed: ${causeMessage(err).slice(0, 300)}`);
  } finally {
    if (admin !== undefined) plan.clients.push(admin);
  }
}

/** Counts what stays as it is: FederatedTypeConfigs, their federated objects, RSPs, clusters, versions. */
async function countKept(
  host: DynamicClient,
  ftcs: readonly KubeObject[],
  clusters: number,
  plan: Plan,
  leastPrivilege: boolean,
): Promise<void> {
  let federated = 0;
  for (const ftc of ftcs) {
    const t = (ftc['spec'] as { federatedType?: { group?: string; version?: string; pluralName?: string } } | undefined)?.federatedType;
    if (t?.group === undefined || t.version === undefined || t.pluralName === undefined) continue;
    federated += (await listOrEmpty(host, { group: t.group, version: t.version, resource: t.pluralName })).length;
  }
  const rsps = (await listOrEmpty(host, RESOURCES.replicaSchedulingPreferences)).length;
  const versions =
    (await listOrEmpty(host, RESOURCES.propagatedVersions)).length + (await listOrEmpty(host, RESOURCES.clusterPropagatedVersions)).length;
  plan.kept.unshift(
    `kept as they are: ${plural(ftcs.length, 'FederatedTypeConfig')}, ${plural(federated, 'federated object')}, ${plural(rsps, 'ReplicaSchedulingPreference')}, ${plural(clusters, 'KubeFedCluster')}, ${plural(versions, 'PropagatedVersion')}, KubeFed's member service accounts${leastPrivilege ? '' : ' and roles'}`,
  );
}

async function gatherPlan(host: DynamicClient, options: MigrateOptions, now: number): Promise<Plan> {
  const { kubefedNamespace: ns, dryRun } = options;
  const plan: Plan = { found: [], kept: [], skipped: [], changes: [], clients: [] };
  const config = await getOrUndefined(host, RESOURCES.kubeFedConfigs, 'kubefed', ns);
  if (config !== undefined)
    plan.found.push(`kubefedconfig/kubefed (scope ${(config['spec'] as { scope?: string } | undefined)?.scope ?? 'Cluster'})`);
  const lock = await checkLock(host, ns, now);
  if (lock.described !== undefined) plan.found.push(lock.described);
  if (lock.blocker !== undefined) plan.blocker = lock.blocker;
  for (const d of (await listOrEmpty(host, RESOURCES.deployments, ns)).filter(isKubeFedDeployment)) {
    const name = d.metadata?.name ?? '';
    const replicas = replicasOf(d);
    if (replicas > 0 && name === KUBEFED_LOCK_NAME)
      plan.blocker ??= new KubefedctlError(
        `KubeFed's deployment/${name} in ${ns} still asks for ${plural(replicas, 'replica')}: it would take its lock back`,
        {
          hint: `kubectl -n ${ns} scale deployment ${name} --replicas=0, wait until its lease has expired, then run migrate again`,
        },
      );
    plan.found.push(`deployment/${name} (replicas ${replicas})`);
    plan.kept.push(`deployment/${name} kept (scaled to ${replicas}; scale it up again to roll back, delete it once satisfied)`);
  }
  await planWebhooks(host, ns, plan, dryRun);
  if (plan.found.length === 0)
    throw new KubefedctlError(
      `no KubeFed installation in namespace ${ns} of ${host.server} (no KubeFedConfig, leader lock, deployment or webhook configuration)`,
      {
        hint: "name KubeFed's namespace with --kubefed-namespace and its host with --host-cluster-context",
      },
    );
  const clusters = await listOrEmpty(host, RESOURCES.kubeFedClusters, ns);
  const secrets = await listOrEmpty(host, RESOURCES.secrets, ns);
  const actions = secretActions(clusters, secrets);
  planSecrets(host, ns, actions, plan, dryRun);
  await planCrds(host, plan, dryRun);
  const ftcs = await listOrEmpty(host, RESOURCES.federatedTypeConfigs, ns);
  const leastPrivilege = options.leastPrivilege === true;
  if (leastPrivilege) {
    const scope = (config?.['spec'] as { scope?: string } | undefined)?.scope === 'Namespaced' ? 'Namespaced' : 'Cluster';
    const parsed = ftcs.flatMap((f) => {
      const p = federatedTypeConfigSchema.safeParse(f);
      return p.success ? [p.data] : [];
    });
    for (const cluster of clusters) await planMemberRoles({ cluster, secrets, actions, scope, ftcs: parsed, options }, plan);
  }
  await countKept(host, ftcs, clusters.length, plan, leastPrivilege);
  return plan;
}

/**
 * Takes a federation over from a stopped KubeFed v0.10.0 (docs/migration.md): prints
 * what it found and each change as it makes it (with `dryRun`, every change and no write).
 *
 * @throws KubefedctlError while KubeFed's leader holds its lock, when the namespace holds no
 *   KubeFed, or naming the change that failed and how many were made.
 */
export async function migrate(host: DynamicClient, options: MigrateOptions, out: Output): Promise<void> {
  const now = options.now ?? Date.now;
  const plan = await gatherPlan(host, options, now());
  try {
    await run(plan, { host, options, now }, out);
  } finally {
    for (const c of plan.clients) c.close();
  }
}

async function run(plan: Plan, ctx: { host: DynamicClient; options: MigrateOptions; now: () => number }, out: Output): Promise<void> {
  const { host, options, now } = ctx;
  const { kubefedNamespace: ns, dryRun } = options;
  out.info(`Found KubeFed in namespace ${ns}: ${plan.found.join(', ')}`);
  for (const line of [...plan.kept, ...plan.skipped]) out.info(line);
  if (dryRun) {
    for (const c of plan.changes) out.info(c.line);
    out.info(plan.changes.length === 0 ? 'Nothing to change.' : `${plural(plan.changes.length, 'change')}; nothing was written (dry run).`);
    if (plan.blocker !== undefined) throw plan.blocker;
    return;
  }
  if (plan.blocker !== undefined) throw plan.blocker;
  // Checked again just before the first write: KubeFed may have been started meanwhile.
  const again = await checkLock(host, ns, now());
  if (again.blocker !== undefined) throw again.blocker;
  const done: string[] = [];
  for (const c of plan.changes) {
    let line: string;
    try {
      line = (await c.apply()) ?? c.line;
    } catch (err) {
      const rest = plan.changes.length - done.length;
      throw new KubefedctlError(`${c.line.split(' ')[0] ?? ''}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
        hint: `${plural(done.length, 'change')} made, ${plural(rest, 'change')} not; every step is safe to repeat: fix the cause and run migrate again`,
      });
    }
    done.push(line);
    out.info(line);
  }
  out.info(
    plan.changes.length === 0
      ? 'Nothing to change: the federation is ready for our controller manager.'
      : "Done: start our controller manager (it takes over the leader lock and KubeFed's records).",
  );
}
