/**
 * Fields kept from the existing member object when it is updated (docs/kubefed-compatibility.md §4.4.6):
 * values that member-cluster controllers own (resourceVersion, finalizers, annotations, a
 * Service's allocated IPs and node ports, a ServiceAccount's token secrets, HPA-managed replicas).
 */
import type { KubeObject } from '@kubefed/client';
import { FieldRetentionError } from './errors.js';

/** Options of {@link retainClusterFields}. */
export interface RetainOptions {
  /** Kind of the target type (`Service` and `ServiceAccount` have their own rules). */
  readonly targetKind: string;
  /** The federated object's `spec.retainReplicas` (ignored for Service and ServiceAccount). Default false. */
  readonly retainReplicas?: boolean | undefined;
  /** The member cluster, for error messages. */
  readonly cluster: string;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Accessor {
  constructor(
    private readonly cluster: string,
    private readonly which: string,
  ) {}

  fail(path: readonly string[], problem: string): never {
    throw new FieldRetentionError(
      this.cluster,
      `cannot retain fields of the member object in cluster "${this.cluster}": ${this.which} .${path.join('.')} ${problem}`,
    );
  }

  /** The value at `path` (null counts as absent); throws when an intermediate value is not an object. */
  get(obj: Obj, path: readonly string[]): unknown {
    let cur: unknown = obj;
    for (const [i, seg] of path.entries()) {
      if (cur === undefined || cur === null) return undefined;
      if (!isObject(cur)) this.fail(path.slice(0, i), 'is not an object');
      cur = cur[seg];
    }
    return cur ?? undefined;
  }

  int(obj: Obj, path: readonly string[]): number | undefined {
    const v = this.get(obj, path);
    if (v !== undefined && !Number.isInteger(v)) this.fail(path, `is ${JSON.stringify(v)}, expected an integer`);
    return v as number | undefined;
  }

  string(obj: Obj, path: readonly string[]): string | undefined {
    const v = this.get(obj, path);
    if (v !== undefined && typeof v !== 'string') this.fail(path, `is ${JSON.stringify(v)}, expected a string`);
    return v;
  }

  list(obj: Obj, path: readonly string[]): unknown[] | undefined {
    const v = this.get(obj, path);
    if (v !== undefined && !Array.isArray(v)) this.fail(path, `is ${JSON.stringify(v)}, expected a list`);
    return v as unknown[] | undefined;
  }

  set(obj: Obj, path: readonly string[], value: unknown): void {
    let cur = obj;
    for (const [i, seg] of path.slice(0, -1).entries()) {
      const next = cur[seg];
      if (next === undefined || next === null) cur[seg] = {};
      else if (!isObject(next)) this.fail(path.slice(0, i + 1), 'is not an object');
      cur = cur[seg] as Obj;
    }
    cur[path[path.length - 1] ?? ''] = structuredClone(value);
  }
}

function retainService(desired: Obj, member: Obj, cluster: string): void {
  const d = new Accessor(cluster, 'desired');
  const m = new Accessor(cluster, 'member');
  const healthCheckNodePort = m.int(member, ['spec', 'healthCheckNodePort']);
  if (healthCheckNodePort !== undefined && healthCheckNodePort > 0) d.set(desired, ['spec', 'healthCheckNodePort'], healthCheckNodePort);
  const clusterIP = m.string(member, ['spec', 'clusterIP']);
  if (clusterIP !== undefined && clusterIP !== '') d.set(desired, ['spec', 'clusterIP'], clusterIP);
  const clusterIPs = m.list(member, ['spec', 'clusterIPs']);
  if (clusterIPs !== undefined) {
    if (clusterIPs.some((ip) => typeof ip !== 'string')) m.fail(['spec', 'clusterIPs'], 'is not a list of strings');
    if (clusterIPs.length > 0) d.set(desired, ['spec', 'clusterIPs'], clusterIPs);
  }
  const memberPorts = m.list(member, ['spec', 'ports']);
  const desiredPorts = d.list(desired, ['spec', 'ports']);
  if (memberPorts === undefined || desiredPorts === undefined) return;
  desiredPorts.forEach((dp, i) => {
    if (!isObject(dp)) return d.fail(['spec', 'ports', String(i)], 'is not an object');
    memberPorts.forEach((mp, j) => {
      if (!isObject(mp)) return m.fail(['spec', 'ports', String(j)], 'is not an object');
      // A desired port without protocol does not match a member port defaulted to TCP (§4.4.6).
      const same = dp.name === mp.name && dp.protocol === mp.protocol && dp.port === mp.port;
      if (same && mp.nodePort !== undefined) dp.nodePort = mp.nodePort;
    });
  });
}

function retainServiceAccount(desired: Obj, member: Obj, cluster: string): void {
  const desiredSecrets = new Accessor(cluster, 'desired').list(desired, ['secrets']);
  if (desiredSecrets !== undefined && desiredSecrets.length > 0) return;
  const secrets = new Accessor(cluster, 'member').list(member, ['secrets']);
  if (secrets !== undefined && secrets.length > 0) desired.secrets = structuredClone(secrets);
}

function retainReplicas(desired: Obj, member: Obj, cluster: string): void {
  const replicas = new Accessor(cluster, 'member').int(member, ['spec', 'replicas']);
  if (replicas !== undefined) new Accessor(cluster, 'desired').set(desired, ['spec', 'replicas'], replicas);
}

/**
 * Copies the fields the member cluster owns from `member` into a copy of `desired` (§4.4.6):
 * - always: `metadata.resourceVersion`, `metadata.finalizers` and `metadata.annotations`
 *   (the member's values replace the desired ones wholesale, absent ones are removed);
 * - Service: `spec.healthCheckNodePort` if > 0, `spec.clusterIP` if non-empty, `spec.clusterIPs`
 *   if non-empty, and each member port's `nodePort` into the desired port with the same
 *   `name`, `protocol` and `port` (absent equals only absent);
 * - ServiceAccount: the member's non-empty `secrets` when the desired object has none;
 * - every other kind, when `retainReplicas`: the member's `spec.replicas` if present.
 * Neither argument is modified. `null` values count as absent.
 *
 * @throws FieldRetentionError when a field has an unexpected type (e.g. a non-integer
 *   `spec.replicas`, a non-list `spec.ports`).
 */
export function retainClusterFields(desired: KubeObject, member: KubeObject, options: RetainOptions): KubeObject {
  const out = structuredClone(desired);
  const metadata: Obj = isObject(out.metadata) ? out.metadata : {};
  out.metadata = metadata;
  const memberMeta: Obj = isObject(member.metadata) ? member.metadata : {};
  const keep = (key: 'resourceVersion' | 'finalizers' | 'annotations'): void => {
    const value = memberMeta[key];
    if (value === undefined || value === null || value === '') delete metadata[key];
    else metadata[key] = structuredClone(value);
  };
  keep('resourceVersion');
  keep('finalizers');
  keep('annotations');
  switch (options.targetKind) {
    case 'Service':
      retainService(out, member, options.cluster);
      break;
    case 'ServiceAccount':
      retainServiceAccount(out, member, options.cluster);
      break;
    default:
      if (options.retainReplicas === true) retainReplicas(out, member, options.cluster);
  }
  return out;
}
