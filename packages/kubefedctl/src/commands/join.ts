import {
  type FederatedTypeConfig,
  federatedTypeConfigSchema,
  isDns1123Subdomain,
  KUBEFED_CONFIG_NAME,
  SECRET_CA_KEY,
  SECRET_TOKEN_KEY,
} from '@kubefed/api';
import {
  CLUSTER_NAME_ANNOTATION,
  type DynamicClient,
  getOrUndefined,
  isAlreadyExists,
  isNetworkError,
  isNotFound,
  issuedTokenPatch,
  isTimeout,
  jsonEqual,
  type KubeObject,
  requestMemberToken,
  type ResourceClient,
} from '@kubefed/client';
import { AlreadyJoinedError, DuplicateEndpointError, JoinStepError, KubefedctlError, UsageError, causeMessage } from '../errors.js';
import {
  bindToConnection,
  boundClusterOf,
  hostSecretObject,
  joinedClusterOf,
  joinNames,
  type JoinNames,
  kubeFedClusterObject,
  type KubeFedScope,
  memberRbacObjects,
  namespaceObject,
  otherJoinsOfMember,
  serviceAccountObject,
  type TokenData,
  tokenRenewalRbacObjects,
  tokenSecretObject,
} from '../join-objects.js';
import type { ContextDetails } from '../kubeconfig-contexts.js';
import { LEAST_PRIVILEGE_LABEL, leastPrivilegeNamespaceRules, leastPrivilegeRules, selfEscalationWarning } from '../least-privilege.js';
import { hintFor, type Output } from '../output.js';
import { GVR, describeObject, gvrOfKind, kubectlRef } from '../resources.js';

/** Options of {@link join} (the flags of `kubefedctl join`). */
export interface JoinOptions {
  /** Name of the joining cluster (the KubeFedCluster name). */
  cluster: string;
  /** Host cluster name used in generated names (`--host-cluster-name`, else the host context name). */
  hostClusterName: string;
  /** The kubefed namespace in host and member. */
  kubefedNamespace: string;
  /** Host secret name (`--secret-name`); default generated `<cluster>-xxxxx`. */
  secretName?: string | undefined;
  /** Fail when any join artefact exists (KubeFed's default true); false = update what differs, create what is missing. */
  errorOnExisting: boolean;
  /** Read only: plan the objects and return them, write nothing. */
  dryRun: boolean;
  /**
   * Member RBAC: `leastPrivilege` = the enabled FTCs' target types, the replica scheduler's reads
   * and the health check (see `leastPrivilegeRules`); `clusterAdmin` = KubeFed's full access
   * (every verb on every resource). Default (undefined): least privilege for a new join; a re-join
   * keeps the access of the existing join's role (full access when it has no least-privilege label).
   */
  access?: JoinAccess | undefined;
  /**
   * Join even though the member is already joined to this host under another KubeFedCluster name
   * (same API endpoint, or that name's service account is in the member); default false = refuse.
   */
  allowDuplicateEndpoint?: boolean | undefined;
  /**
   * `--token-lifetime`: the member token is a TokenRequest token of this many seconds (at least
   * 600), renewed by the control plane at half of it, instead of the never-expiring legacy token
   * Secret; the member ServiceAccount may then ask for tokens of itself only. Default undefined:
   * the legacy token Secret, as KubeFed's join.
   */
  tokenLifetimeSeconds?: number | undefined;
  /** How long to wait for the member's token controller to fill the token Secret; default 30 000 ms. */
  tokenTimeoutMs?: number | undefined;
  /** Poll interval while waiting for the token; default 500 ms. */
  pollIntervalMs?: number | undefined;
}

/** The member RBAC a join grants (see {@link JoinOptions.access}). */
type JoinAccess = 'leastPrivilege' | 'clusterAdmin';

/** The two clusters of a join. */
export interface JoinTargets {
  host: DynamicClient;
  /** Host context name (for messages and dry-run comments). */
  hostContext: string;
  member: DynamicClient;
  /** The member context's server, CA and TLS settings (become the KubeFedCluster spec). */
  memberContext: ContextDetails;
}

/** One object `join` writes (or would write), and where. */
export interface PlannedObject {
  /** `host` or `member`. */
  side: 'host' | 'member';
  /** The cluster's name (host cluster name or the joining cluster's name). */
  cluster: string;
  object: KubeObject;
  /** Whether it exists already (then join updates it when it differs). */
  exists: boolean;
}

/** What happened to one object. */
export interface JoinAction {
  verb: 'created' | 'updated' | 'unchanged' | 'recreated';
  /** kubectl's name of the object ({@link kubectlRef}), e.g. `serviceaccount/member1-host`. */
  object: string;
  /** The cluster it is in. */
  cluster: string;
}

/** Result of {@link join}: the actions taken, or with `dryRun` the planned objects. */
export interface JoinResult {
  names: JoinNames;
  scope: KubeFedScope;
  actions: JoinAction[];
  /** Every object join writes, host and member, in order (dry-run: the plan; tokens never included). */
  plan: PlannedObject[];
}

/**
 * Checks the names `join`/`unjoin` will use: the cluster name must be a DNS-1123 subdomain, the host
 * name must not contain `/` or `:` (KubeFed's rule) and `<cluster>-<host>` must be a valid
 * ServiceAccount name. Throws {@link UsageError}.
 */
export function validateJoinNames(cluster: string, hostName: string, hostNameFlagGiven: boolean): void {
  if (cluster === '') throw new UsageError('NAME is required', { hint: 'kubefedctl join <cluster-name> --cluster-context <context>' });
  if (!isDns1123Subdomain(cluster)) {
    throw new UsageError(`cluster name "${cluster}" is not a valid Kubernetes object name (lowercase letters, digits, "-" and ".")`, {
      hint: 'choose a name like "member1"',
    });
  }
  if (/[/:]/.test(hostName)) {
    throw new UsageError(
      hostNameFlagGiven
        ? 'host-cluster-name may not contain "/" or ":"'
        : 'host-cluster-name must be set if the name of the host cluster context contains one of ":" or "/"',
      { hint: 'pass --host-cluster-name <name>' },
    );
  }
  if (!isDns1123Subdomain(`${cluster}-${hostName}`)) {
    throw new UsageError(`service account name "${cluster}-${hostName}" is not a valid Kubernetes object name`, {
      hint: 'pass --host-cluster-name with a lowercase name like "host"',
    });
  }
}

/** A step failure inside a join (wrapped into JoinStepError after rollback). */
class StepFailure extends Error {
  constructor(
    readonly step: string,
    override readonly cause: unknown,
  ) {
    super(step);
  }
}

interface Undo {
  what: string;
  run: () => Promise<void>;
}

/** Runs named steps and remembers how to undo what was created. */
class StepRunner {
  readonly actions: JoinAction[] = [];
  private readonly undos: Undo[] = [];

  constructor(private readonly out: Output) {}

  async step<T>(step: string, fn: () => Promise<T>): Promise<T> {
    this.out.debug(`step: ${step}`);
    try {
      return await fn();
    } catch (e) {
      throw new StepFailure(step, e);
    }
  }

  created(obj: KubeObject, cluster: string, undo: () => Promise<void>): void {
    this.actions.push({ verb: 'created', object: kubectlRef(obj), cluster });
    this.undos.push({ what: describeObject(obj, cluster), run: undo });
  }

  /** Undoes what was created, newest first; returns what could not be undone. */
  async rollback(): Promise<string[]> {
    const failures: string[] = [];
    for (const u of this.undos.reverse()) {
      try {
        this.out.progress(`rolling back: removing ${u.what}`);
        await u.run();
      } catch (e) {
        if (!isNotFound(e)) failures.push(`${u.what}: ${causeMessage(e)}`);
      }
    }
    return failures;
  }
}

/** Reads the control-plane scope from the KubeFedConfig `kubefed`. */
async function readScope(host: DynamicClient, ns: string, hostName: string): Promise<KubeFedScope> {
  let config: KubeObject | undefined;
  try {
    config = await getOrUndefined(host.resource(GVR.kubeFedConfigs, ns), KUBEFED_CONFIG_NAME);
  } catch (e) {
    throw unreachable('host', hostName, host.server, e);
  }
  if (config === undefined) {
    throw new KubefedctlError(
      `A KubeFedConfig named "${KUBEFED_CONFIG_NAME}" was not found in namespace "${ns}". Is a KubeFed control plane running in this namespace?`,
      { hint: 'install the control plane in the host cluster, or pass --kubefed-namespace / --host-cluster-context' },
    );
  }
  const spec = config['spec'];
  const scope = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>)['scope'] : undefined;
  return scope === 'Namespaced' ? 'Namespaced' : 'Cluster';
}

function unreachable(side: 'host' | 'member', cluster: string, server: string, e: unknown): KubefedctlError {
  if (isNetworkError(e) || isTimeout(e)) {
    return new KubefedctlError(`cannot reach ${side} cluster ${cluster} at ${server}: ${causeMessage(e)}`, {
      cause: e,
      hint: `check that the ${side} API server is up and that its kubeconfig context points at it; nothing was changed`,
    });
  }
  return e instanceof KubefedctlError ? e : new KubefedctlError(causeMessage(e), { cause: e, hint: hintFor(e) });
}

/**
 * The access of a re-join without `--least-privilege` / `--cluster-admin`: full access when this
 * join's role exists without the least-privilege label (a join made with full access, the
 * default before least privilege was), else least privilege.
 */
async function accessOfExistingJoin(member: DynamicClient, names: JoinNames, scope: KubeFedScope, out: Output): Promise<JoinAccess> {
  let role: KubeObject | undefined;
  try {
    role = await getOrUndefined(
      member.resource(scope === 'Cluster' ? GVR.clusterRoles : GVR.roles, scope === 'Cluster' ? undefined : names.namespace),
      names.role,
    );
  } catch (e) {
    throw unreachable('member', names.cluster, member.server, e);
  }
  const owner = role === undefined ? undefined : joinedClusterOf(role);
  if (role === undefined || (owner !== undefined && owner !== names.cluster) || role.metadata.labels?.[LEAST_PRIVILEGE_LABEL] !== undefined)
    return 'leastPrivilege';
  out.progress(`note: ${names.cluster} keeps the full access (cluster-admin) of its existing join; pass --least-privilege to reduce it`);
  return 'clusterAdmin';
}

/** The enabled FTCs in the kubefed namespace of the host (invalid ones are skipped with a warning; none without the FTC CRD). */
async function readFederatedTypeConfigs(host: DynamicClient, ns: string, out: Output): Promise<FederatedTypeConfig[]> {
  const list = { items: await listOrEmpty(host.resource(GVR.federatedTypeConfigs, ns)) };
  const ftcs: FederatedTypeConfig[] = [];
  for (const item of list.items) {
    const parsed = federatedTypeConfigSchema.safeParse(item);
    if (parsed.success) ftcs.push(parsed.data);
    else out.warn(`ignoring malformed FederatedTypeConfig ${ns}/${item.metadata.name ?? '?'}`);
  }
  return ftcs;
}

/** Every object of a list; none when the resource is not served (e.g. the KubeFedCluster CRD is missing). */
async function listOrEmpty(client: ResourceClient): Promise<KubeObject[]> {
  try {
    return (await client.listAll()).items;
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
}

function labelsOf(o: KubeObject): Record<string, string> {
  return { ...(o.metadata.labels ?? {}) };
}

/** How an existing object is brought in line with the desired one: the object to PUT, `recreate`, or undefined (equal). */
type Reconcile = (existing: KubeObject, desired: KubeObject) => KubeObject | 'recreate' | undefined;

/** The existing annotations with the desired ones added (e.g. the joined-cluster annotation on objects of older joins). */
function annotationsOf(existing: KubeObject, desired: KubeObject): Record<string, string> {
  return { ...(existing.metadata.annotations ?? {}), ...(desired.metadata.annotations ?? {}) };
}

function annotationsChange(existing: KubeObject, annotations: Record<string, string>): boolean {
  return !jsonEqual(annotations, existing.metadata.annotations ?? {});
}

const reconcileServiceAccount: Reconcile = (existing, desired) => {
  const annotations = annotationsOf(existing, desired);
  if (!annotationsChange(existing, annotations) && existing['automountServiceAccountToken'] === false) return undefined;
  return { ...existing, metadata: { ...existing.metadata, annotations }, automountServiceAccountToken: false };
};

const reconcileTokenSecret: Reconcile = (existing, desired) => {
  if (existing['type'] !== desired['type']) return 'recreate';
  const annotations = annotationsOf(existing, desired);
  if (!annotationsChange(existing, annotations)) return undefined;
  return { ...existing, metadata: { ...existing.metadata, annotations } };
};

const reconcileRole: Reconcile = (existing, desired) => {
  const labels = labelsOf(existing);
  delete labels[LEAST_PRIVILEGE_LABEL];
  Object.assign(labels, desired.metadata.labels ?? {});
  const annotations = annotationsOf(existing, desired);
  if (
    jsonEqual(existing['rules'] ?? [], desired['rules']) &&
    jsonEqual(labels, existing.metadata.labels ?? {}) &&
    !annotationsChange(existing, annotations)
  ) {
    return undefined;
  }
  return { ...existing, metadata: { ...existing.metadata, labels, annotations }, rules: desired['rules'] };
};

const reconcileBinding: Reconcile = (existing, desired) => {
  if (!jsonEqual(existing['roleRef'], desired['roleRef'])) return 'recreate';
  const annotations = annotationsOf(existing, desired);
  if (jsonEqual(existing['subjects'] ?? [], desired['subjects']) && !annotationsChange(existing, annotations)) return undefined;
  return { ...existing, metadata: { ...existing.metadata, annotations }, subjects: desired['subjects'] };
};

/** New token data and the binding to the cluster (which a Secret of a join made before the binding lacks). */
const reconcileHostSecret: Reconcile = (existing, desired) => {
  const data = {
    ...((existing['data'] as Record<string, string> | undefined) ?? {}),
    ...((desired['data'] as Record<string, string> | undefined) ?? {}),
  };
  const annotations = annotationsOf(existing, desired);
  if (jsonEqual(data, existing['data'] ?? {}) && !annotationsChange(existing, annotations)) return undefined;
  return { ...existing, metadata: { ...existing.metadata, annotations }, data };
};

/** The spec, and the join scope annotation (a re-join after a change of scope refreshes it). */
const reconcileKubeFedCluster: Reconcile = (existing, desired) => {
  const annotations = annotationsOf(existing, desired);
  if (jsonEqual(existing['spec'], desired['spec']) && !annotationsChange(existing, annotations)) return undefined;
  return { ...existing, metadata: { ...existing.metadata, annotations }, spec: desired['spec'] };
};

function reconcilerFor(obj: KubeObject, side: 'host' | 'member'): Reconcile {
  switch (obj.kind) {
    case 'ServiceAccount':
      return reconcileServiceAccount;
    case 'Secret':
      return side === 'member' ? reconcileTokenSecret : reconcileHostSecret;
    case 'ClusterRole':
    case 'Role':
      return reconcileRole;
    case 'ClusterRoleBinding':
    case 'RoleBinding':
      return reconcileBinding;
    case 'KubeFedCluster':
      return reconcileKubeFedCluster;
    default:
      return () => undefined;
  }
}

interface EnsureContext {
  run: StepRunner;
  errorOnExisting: boolean;
  client: DynamicClient;
  side: 'host' | 'member';
  cluster: string;
}

function resourceFor(ctx: EnsureContext, obj: KubeObject): ResourceClient {
  return ctx.client.resource(gvrOfKind(obj.kind), obj.metadata.namespace);
}

/**
 * Creates `desired`, or (error-on-existing false) brings an existing object in line. Records
 * an undo for what it created. Returns the object as stored.
 */
async function ensure(ctx: EnsureContext, desired: KubeObject): Promise<KubeObject> {
  const what = describeObject(desired, ctx.cluster);
  const client = resourceFor(ctx, desired);
  const name = desired.metadata.name ?? '';
  const createIt = async (): Promise<KubeObject> => {
    const created = await ctx.run.step(`create ${what}`, () => client.create(desired));
    ctx.run.created(created, ctx.cluster, async () => {
      await client.delete(name, { propagationPolicy: 'Background' });
    });
    return created;
  };
  const existing = await ctx.run.step(`get ${what}`, () => getOrUndefined(client, name));
  if (existing === undefined) {
    try {
      return await createIt();
    } catch (e) {
      // Lost a race with someone else creating it: fall through to the existing-object path.
      if (!(e instanceof StepFailure && isAlreadyExists(e.cause)) || ctx.errorOnExisting) throw e;
    }
  }
  const current = existing ?? (await ctx.run.step(`get ${what}`, () => client.get(name)));
  if (ctx.errorOnExisting) {
    throw new StepFailure(`create ${what}`, new KubefedctlError(`${what} already exists`));
  }
  const next = reconcilerFor(desired, ctx.side)(current, desired);
  if (next === undefined) {
    ctx.run.actions.push({ verb: 'unchanged', object: kubectlRef(desired), cluster: ctx.cluster });
    return current;
  }
  if (next === 'recreate') {
    await ctx.run.step(`delete ${what} to re-create it`, () => client.delete(name));
    const created = await ctx.run.step(`re-create ${what}`, () => client.create(desired));
    ctx.run.actions.push({ verb: 'recreated', object: kubectlRef(desired), cluster: ctx.cluster });
    return created;
  }
  const updated = await ctx.run.step(`update ${what}`, () => client.update(next));
  ctx.run.actions.push({ verb: 'updated', object: kubectlRef(desired), cluster: ctx.cluster });
  return updated;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls the member token Secret until the token controller filled `data.token`. */
export async function waitForToken(
  client: ResourceClient,
  name: string,
  what: string,
  options: { timeoutMs: number; intervalMs: number; out: Output },
): Promise<TokenData> {
  const start = Date.now();
  let lastReport = start;
  let announced = false;
  for (;;) {
    const secret = await client.get(name);
    const data = (secret['data'] as Record<string, string> | undefined) ?? {};
    const token = data[SECRET_TOKEN_KEY];
    if (token !== undefined && token !== '') {
      if (announced) options.out.progress(`token of ${what} is ready`);
      return { token, caCrt: data[SECRET_CA_KEY] };
    }
    const elapsed = Date.now() - start;
    if (elapsed >= options.timeoutMs) {
      throw new KubefedctlError(`the token controller did not fill data.token of ${what} within ${Math.round(options.timeoutMs / 1000)}s`, {
        hint: "check that the member's token controller (kube-controller-manager) is running, or raise --timeout",
      });
    }
    if (!announced) {
      options.out.progress(`waiting up to ${Math.round(options.timeoutMs / 1000)}s for the token controller to fill ${what}`);
      announced = true;
    } else if (Date.now() - lastReport >= 5000) {
      options.out.progress(`still waiting for the token of ${what} (${Math.round(elapsed / 1000)}s)`);
      lastReport = Date.now();
    }
    await sleep(Math.min(options.intervalMs, Math.max(1, options.timeoutMs - elapsed)));
  }
}

/** The objects join writes into the member, in creation order. */
function memberObjects(
  names: JoinNames,
  access: { scope: KubeFedScope; ftcs: FederatedTypeConfig[] | undefined; shortLivedTokens: boolean },
): KubeObject[] {
  const { scope, ftcs } = access;
  const leastPrivilege =
    ftcs === undefined ? undefined : { clusterRules: leastPrivilegeRules(ftcs), namespaceRules: leastPrivilegeNamespaceRules(ftcs) };
  return [
    namespaceObject(names),
    serviceAccountObject(names),
    ...(access.shortLivedTokens ? tokenRenewalRbacObjects(names) : [tokenSecretObject(names)]),
    ...memberRbacObjects(names, { scope, leastPrivilege }),
  ];
}

function kfcInputs(ctx: ContextDetails, secretName: string, tokenCa: string | undefined): Parameters<typeof kubeFedClusterObject>[1] {
  return {
    apiEndpoint: ctx.server,
    caBundle: ctx.caData ?? tokenCa,
    secretName,
    insecureSkipTlsVerify: ctx.insecureSkipTlsVerify,
    proxyUrl: ctx.proxyUrl,
  };
}

/**
 * Registers a member cluster with the host like `kubefedctl join` (KubeFed `pkg/kubefedctl/join.go`).
 *
 * Reads the scope from the host's KubeFedConfig (missing → KubeFed's error), checks what exists
 * (with `errorOnExisting`, any existing artefact fails before anything is written, naming all of
 * them; an object annotated as created by another cluster's join always fails; a member this
 * host has already joined under another name fails with {@link DuplicateEndpointError} unless
 * `allowDuplicateEndpoint`), then creates in the member the kubefed namespace (annotated as created
 * by this join), ServiceAccount `<cluster>-<host>`, its token Secret, the RBAC objects (each
 * annotated with the joined cluster), waits for the token, and creates in the host a Secret
 * holding the token (and `ca.crt`) and the KubeFedCluster. With `errorOnExisting` false,
 * existing objects are updated where they differ and missing ones created (idempotent).
 *
 * Failure: rejects with {@link JoinStepError} naming the failed step after removing, newest
 * first, every object this run created (objects it only updated stay updated). An unreachable
 * host or member fails before any write. `dryRun` performs only the reads and returns the plan.
 */
export async function join(options: JoinOptions, targets: JoinTargets, out: Output): Promise<JoinResult> {
  const j: JoinRun = {
    options,
    targets,
    out,
    ns: options.kubefedNamespace,
    names: joinNames(options.cluster, options.hostClusterName, options.kubefedNamespace),
  };
  const pre = await preflight(j);
  const plan: PlannedObject[] = pre.member.map((object) => ({
    side: 'member' as const,
    cluster: options.cluster,
    object,
    exists: pre.memberExists.get(object) !== undefined,
  }));
  if (options.dryRun) return { names: j.names, scope: pre.scope, actions: [], plan: [...plan, ...plannedHostObjects(j, pre)] };
  return writeJoin(j, pre, plan);
}

/** One join: its options, clusters and output, and the names of what it writes. */
interface JoinRun {
  readonly options: JoinOptions;
  readonly targets: JoinTargets;
  readonly out: Output;
  /** The kubefed namespace. */
  readonly ns: string;
  readonly names: JoinNames;
}

/** What join found before writing anything. */
interface JoinPreflight {
  readonly scope: KubeFedScope;
  /** The member objects, in creation order. */
  readonly member: KubeObject[];
  /** The member's current copy of each of {@link member}, undefined where there is none. */
  readonly memberExists: Map<KubeObject, KubeObject | undefined>;
  readonly existingKfc: KubeObject | undefined;
  /** The host Secret `--secret-name` names, if it exists. */
  readonly existingHostSecret: KubeObject | undefined;
  /** The host Secret to write: --secret-name, else the one an existing KubeFedCluster points at; undefined: generated. */
  readonly hostSecretName: string | undefined;
}

/**
 * The reads before any write: scope, what exists already, and whether both clusters are
 * reachable; refuses objects of another join, a duplicate endpoint, a Secret bound to another
 * cluster and (with errorOnExisting) anything that exists.
 */
async function preflight(j: JoinRun): Promise<JoinPreflight> {
  const { options, targets, out } = j;
  const scope = await readScope(targets.host, j.ns, options.hostClusterName);
  out.debug(`control plane scope: ${scope}`);
  const member = memberObjects(j.names, {
    scope,
    ftcs: await leastPrivilegeTypes(j, scope),
    shortLivedTokens: j.options.tokenLifetimeSeconds !== undefined,
  });
  const memberExists = await readMemberCopies(j, member);
  const host = await readHostObjects(j);
  refuseObjectsOfOtherJoins(j, member, memberExists);
  if (options.allowDuplicateEndpoint !== true) await refuseDuplicateEndpoint(j, host.kubeFedClusters);
  refuseSecretOfOtherCluster(j, host.existingHostSecret);
  const found = { scope, member, memberExists, existingKfc: host.existingKfc, existingHostSecret: host.existingHostSecret };
  if (options.errorOnExisting) refuseExisting(j, found);
  return { ...found, hostSecretName: await hostSecretNameOf(j, host.existingKfc) };
}

/** The enabled FederatedTypeConfigs a least-privilege join grants access to; undefined for cluster-admin access. */
async function leastPrivilegeTypes(j: JoinRun, scope: KubeFedScope): Promise<FederatedTypeConfig[] | undefined> {
  const { options, targets, out } = j;
  const access = options.access ?? (await accessOfExistingJoin(targets.member, j.names, scope, out));
  if (access !== 'leastPrivilege') return undefined;
  let ftcs: FederatedTypeConfig[];
  try {
    ftcs = await readFederatedTypeConfigs(targets.host, j.ns, out);
  } catch (e) {
    throw unreachable('host', options.hostClusterName, targets.host.server, e);
  }
  out.debug(`least privilege: ${ftcs.filter((f) => f.spec.propagation === 'Enabled').length} enabled FederatedTypeConfigs`);
  const rules = scope === 'Cluster' ? leastPrivilegeRules(ftcs) : leastPrivilegeNamespaceRules(ftcs);
  const warning = selfEscalationWarning(options.cluster, ftcs, rules);
  if (warning !== undefined) out.warn(warning);
  return ftcs;
}

async function readMemberCopies(j: JoinRun, member: KubeObject[]): Promise<Map<KubeObject, KubeObject | undefined>> {
  const { targets } = j;
  const memberExists = new Map<KubeObject, KubeObject | undefined>();
  for (const obj of member) {
    try {
      const resource = targets.member.resource(gvrOfKind(obj.kind), obj.metadata.namespace);
      memberExists.set(obj, await getOrUndefined(resource, obj.metadata.name ?? ''));
    } catch (e) {
      throw unreachable('member', j.options.cluster, targets.member.server, e);
    }
  }
  return memberExists;
}

async function readHostObjects(
  j: JoinRun,
): Promise<{ existingKfc: KubeObject | undefined; existingHostSecret: KubeObject | undefined; kubeFedClusters: KubeObject[] }> {
  const { options, targets, ns } = j;
  try {
    const existingKfc = await getOrUndefined(targets.host.resource(GVR.kubeFedClusters, ns), options.cluster);
    const existingHostSecret =
      options.secretName === undefined ? undefined : await getOrUndefined(targets.host.resource(GVR.secrets, ns), options.secretName);
    const kubeFedClusters = await listOrEmpty(targets.host.resource(GVR.kubeFedClusters, ns));
    return { existingKfc, existingHostSecret, kubeFedClusters };
  } catch (e) {
    throw unreachable('host', options.hostClusterName, targets.host.server, e);
  }
}

/**
 * Objects named like this join's but created by another join (e.g. cluster "a" with host name
 * "b-host" owns "a-b-host", the service account of "a-b" with host "host") are never adopted.
 */
function refuseObjectsOfOtherJoins(j: JoinRun, member: KubeObject[], memberExists: Map<KubeObject, KubeObject | undefined>): void {
  const memberName = j.options.cluster;
  for (const obj of member) {
    const existing = memberExists.get(obj);
    const owner = existing === undefined ? undefined : joinedClusterOf(existing);
    if (obj.kind === 'Namespace' || owner === undefined || owner === memberName) continue;
    throw new KubefedctlError(
      `join ${memberName}: ${describeObject(obj, memberName)} was created by the join of ${owner}; nothing was written`,
      {
        hint: `its name collides with this join's names: choose another cluster name or --host-cluster-name`,
      },
    );
  }
}

async function refuseDuplicateEndpoint(j: JoinRun, kubeFedClusters: KubeObject[]): Promise<void> {
  const { targets, ns } = j;
  let memberServiceAccounts: KubeObject[];
  try {
    memberServiceAccounts = await listOrEmpty(targets.member.resource(GVR.serviceAccounts, ns));
  } catch (e) {
    throw unreachable('member', j.options.cluster, targets.member.server, e);
  }
  const others = otherJoinsOfMember({ names: j.names, endpoint: targets.memberContext.server, kubeFedClusters, memberServiceAccounts });
  if (others.length > 0) {
    const joinedAs = others.map((o) => `KubeFedCluster ${ns}/${o.cluster}${o.evidence === undefined ? '' : ` (${o.evidence})`}`);
    throw new DuplicateEndpointError(j.options.cluster, targets.memberContext.server, joinedAs);
  }
}

/** A host Secret bound to another cluster holds that cluster's token: never overwritten or rebound. */
function refuseSecretOfOtherCluster(j: JoinRun, existingHostSecret: KubeObject | undefined): void {
  const memberName = j.options.cluster;
  const secretOwner = existingHostSecret === undefined ? undefined : boundClusterOf(existingHostSecret);
  if (secretOwner === undefined || secretOwner === memberName) return;
  throw new KubefedctlError(
    `join ${memberName}: host cluster secret ${j.ns}/${j.options.secretName ?? ''} is bound to cluster ${secretOwner} (annotation ${CLUSTER_NAME_ANNOTATION}); nothing was written`,
    { hint: 'choose another --secret-name, or leave it out to get a generated name' },
  );
}

function refuseExisting(j: JoinRun, found: Omit<JoinPreflight, 'hostSecretName' | 'scope'>): void {
  const { cluster: memberName, hostClusterName: hostName } = j.options;
  const existing = found.member
    .filter((o) => o.kind !== 'Namespace' && found.memberExists.get(o) !== undefined)
    .map((o) => describeObject(o, memberName));
  if (found.existingKfc !== undefined) existing.push(`KubeFedCluster ${j.ns}/${memberName} in ${hostName}`);
  if (found.existingHostSecret !== undefined) existing.push(`host cluster secret ${j.ns}/${j.options.secretName ?? ''} in ${hostName}`);
  if (existing.length > 0) throw new AlreadyJoinedError(memberName, existing);
}

/** The host secret: --secret-name, else the one an existing KubeFedCluster already points at, else undefined (generated). */
async function hostSecretNameOf(j: JoinRun, existingKfc: KubeObject | undefined): Promise<string | undefined> {
  const { options, ns } = j;
  if (options.secretName !== undefined || existingKfc === undefined) return options.secretName;
  const ref = (existingKfc['spec'] as { secretRef?: { name?: unknown } } | undefined)?.secretRef?.name;
  if (typeof ref !== 'string' || ref === '') return undefined;
  const found = await getOrUndefined(j.targets.host.resource(GVR.secrets, ns), ref).catch(() => undefined);
  const owner = found === undefined ? undefined : boundClusterOf(found);
  // A KubeFedCluster pointing at another cluster's Secret gets a Secret of its own instead.
  if (found !== undefined && (owner === undefined || owner === options.cluster)) return ref;
  if (owner !== undefined)
    j.out.warn(
      `KubeFedCluster ${ns}/${options.cluster} names secret ${ns}/${ref}, which is bound to cluster ${owner}; creating a new secret for ${options.cluster}`,
    );
  return undefined;
}

/** The host objects a dry run would write: the Secret (without a token) and the KubeFedCluster. */
function plannedHostObjects(j: JoinRun, pre: JoinPreflight): PlannedObject[] {
  const { options, names } = j;
  const { hostSecretName } = pre;
  const inputs = kfcInputs(j.targets.memberContext, hostSecretName ?? `${options.cluster}-<generated>`, undefined);
  const plannedKfc = kubeFedClusterObject(names, inputs, pre.scope);
  const cluster = options.hostClusterName;
  return [
    {
      side: 'host',
      cluster,
      object: bindToConnection(hostSecretObject(names, undefined, hostSecretName), plannedKfc),
      exists: hostSecretName !== undefined && (pre.existingHostSecret !== undefined || hostSecretName !== options.secretName),
    },
    { side: 'host', cluster, object: plannedKfc, exists: pre.existingKfc !== undefined },
  ];
}

/** The writes, in order; a failed step rolls back, newest first, what this run created. */
async function writeJoin(j: JoinRun, pre: JoinPreflight, plan: PlannedObject[]): Promise<JoinResult> {
  const { options, targets, names } = j;
  const run = new StepRunner(j.out);
  const hostCtx: EnsureContext = {
    run,
    errorOnExisting: options.errorOnExisting,
    client: targets.host,
    side: 'host',
    cluster: options.hostClusterName,
  };
  try {
    await writeMemberObjects(j, pre, run);
    const { token, annotations } = await joinToken(j, run);
    // The token is bound to the connection settings the KubeFedCluster gets (its secretRef aside).
    const connection = kubeFedClusterObject(names, kfcInputs(targets.memberContext, '', token.caCrt));
    const secretDesired = bindToConnection(withAnnotations(hostSecretObject(names, token, pre.hostSecretName), annotations), connection);
    const secretName = await writeHostSecret(j, { hostCtx, hostSecretName: pre.hostSecretName, secretDesired });
    // The plan never carries the token.
    plan.push({
      side: 'host',
      cluster: options.hostClusterName,
      object: bindToConnection(hostSecretObject(names, undefined, secretName), connection),
      exists: pre.hostSecretName !== undefined,
    });
    const kfc = kubeFedClusterObject(names, kfcInputs(targets.memberContext, secretName, token.caCrt), pre.scope);
    await ensure(hostCtx, kfc);
    plan.push({ side: 'host', cluster: options.hostClusterName, object: kfc, exists: pre.existingKfc !== undefined });
    return { names, scope: pre.scope, actions: run.actions, plan };
  } catch (e) {
    if (!(e instanceof StepFailure)) throw e;
    const failures = await run.rollback();
    throw new JoinStepError(options.cluster, e.step, e.cause, { hint: hintFor(e.cause), rollbackFailures: failures });
  }
}

async function writeMemberObjects(j: JoinRun, pre: JoinPreflight, run: StepRunner): Promise<void> {
  const memberCtx: EnsureContext = {
    run,
    errorOnExisting: j.options.errorOnExisting,
    client: j.targets.member,
    side: 'member',
    cluster: j.options.cluster,
  };
  for (const obj of pre.member) {
    if (obj.kind === 'Namespace') {
      // An existing namespace is never an error (it may hold other things, or be the host's own).
      if (pre.memberExists.get(obj) === undefined) await ensure({ ...memberCtx, errorOnExisting: false }, obj);
      continue;
    }
    await ensure(memberCtx, obj);
  }
}

/** The member token: a short-lived one asked of the member (with its expiry annotations), or the legacy token Secret's. */
async function joinToken(j: JoinRun, run: StepRunner): Promise<{ token: TokenData; annotations: Record<string, string> }> {
  const lifetimeSeconds = j.options.tokenLifetimeSeconds;
  if (lifetimeSeconds === undefined) return { token: await waitForJoinToken(j, run), annotations: {} };
  const sa = { namespace: j.ns, serviceAccount: j.names.serviceAccount, lifetimeSeconds };
  const issued = await run.step(`request a token of service account ${j.ns}/${j.names.serviceAccount} in ${j.options.cluster}`, () =>
    requestMemberToken(j.targets.member, sa),
  );
  const { metadata, data } = issuedTokenPatch(issued, lifetimeSeconds);
  return { token: { token: data.token }, annotations: metadata.annotations };
}

function withAnnotations(obj: KubeObject, annotations: Record<string, string>): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, ...annotations } } };
}

function waitForJoinToken(j: JoinRun, run: StepRunner): Promise<TokenData> {
  const tokenWhat = describeObject(tokenSecretObject(j.names), j.options.cluster);
  return run.step(`wait for the token of ${tokenWhat}`, () =>
    waitForToken(j.targets.member.resource(GVR.secrets, j.ns), j.names.serviceAccount, tokenWhat, {
      timeoutMs: j.options.tokenTimeoutMs ?? 30_000,
      intervalMs: j.options.pollIntervalMs ?? 500,
      out: j.out,
    }),
  );
}

/** Writes the host Secret holding the token; returns its name (generated when none was chosen). */
async function writeHostSecret(
  j: JoinRun,
  write: { hostCtx: EnsureContext; hostSecretName: string | undefined; secretDesired: KubeObject },
): Promise<string> {
  const { hostCtx, hostSecretName, secretDesired } = write;
  if (hostSecretName !== undefined) {
    const errorOnExisting = j.options.errorOnExisting && hostSecretName === j.options.secretName;
    const secret = await ensure({ ...hostCtx, errorOnExisting }, secretDesired);
    return secret.metadata.name ?? hostSecretName;
  }
  const hostName = j.options.hostClusterName;
  const client = j.targets.host.resource(GVR.secrets, j.ns);
  const created = await hostCtx.run.step(`create ${describeObject(secretDesired, hostName)}`, () => client.create(secretDesired));
  const secretName = created.metadata.name ?? '';
  hostCtx.run.created(created, hostName, async () => {
    await client.delete(secretName);
  });
  return secretName;
}
