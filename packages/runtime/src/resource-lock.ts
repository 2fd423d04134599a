/**
 * The objects a leader record lives in, as client-go's `tools/leaderelection/resourcelock`
 * (v0.22, the client-go of KubeFed v0.10.0) stores it, so that our controller manager and
 * KubeFed's contend for one lock: a `coordination.k8s.io/v1` Lease (`leases`), the JSON record in
 * the `control-plane.alpha.kubernetes.io/leader` annotation of a ConfigMap (`configmaps`) or an
 * Endpoints (`endpoints`), or an old kind and the Lease together (`configmapsleases`,
 * `endpointsleases`: client-go's MultiLock, for migrating from one to the other).
 */
import { statusCodeOf, type KubeObject, type LeaseResourceClient } from './kube-types.js';

/** The annotation of a ConfigMap or Endpoints lock (client-go `LeaderElectionRecordAnnotationKey`). */
export const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

/** The holder a MultiLock reports while its two objects name different holders (client-go `UnknownLeader`). */
export const UNKNOWN_LEADER = 'leaderelection.k8s.io/unknown';

/** client-go's `LeaderElectionRecord`, with its times as epoch milliseconds (undefined: none). */
export interface LeaderElectionRecord {
  /** '' when nobody holds the lock (released). */
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: number | undefined;
  readonly renewTime: number | undefined;
  readonly leaderTransitions: number;
}

/** A record read from a lock. */
export interface ObservedRecord {
  readonly record: LeaderElectionRecord;
  /** Changes whenever the stored record changes (client-go compares the raw record). */
  readonly version: string;
}

/** The get/create/update of one object kind in the lock's namespace (a `ResourceClient`). */
export type LockObjectClient = LeaseResourceClient;

/**
 * One leader-election lock (client-go's `resourcelock.Interface`). `update` writes over the
 * object of the last `get` (optimistic concurrency: 409 when someone wrote in between).
 */
export interface ResourceLock {
  /** The kind of object(s) holding the record: `Lease`, `ConfigMap`, `Endpoints`, `ConfigMap+Lease`, `Endpoints+Lease`. */
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The stored record; undefined when the lock object does not exist. Rejects on any other failure. */
  get(): Promise<ObservedRecord | undefined>;
  /** Creates the lock object(s) holding `record`; rejects with 409 when it exists. */
  create(record: LeaderElectionRecord): Promise<ObservedRecord>;
  /** Writes `record` over the object(s) of the last `get`; rejects with 409 on a concurrent write. */
  update(record: LeaderElectionRecord): Promise<ObservedRecord>;
}

/** `kind namespace/name` of a lock, for logs and events. */
export function describeLock(lock: ResourceLock): string {
  return `${lock.kind} ${lock.namespace}/${lock.name}`;
}

/** Formats epoch ms as a Kubernetes MicroTime (`2026-11-21T10:00:00.000000Z`). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Formats epoch ms as a metav1.Time in JSON (RFC 3339, whole seconds, UTC). */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function parseTime(s: unknown): number | undefined {
  if (typeof s !== 'string' || s === '') return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : ms;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Where a lock lives. */
export interface LockLocation {
  readonly namespace: string;
  readonly name: string;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  [field: string]: unknown;
}

/** client-go's `LeaseLock`: the record is the spec of a `coordination.k8s.io/v1` Lease. */
export class LeaseLock implements ResourceLock {
  readonly kind = 'Lease';
  readonly namespace: string;
  readonly name: string;
  #lease: KubeObject | undefined;

  constructor(
    private readonly leases: LockObjectClient,
    at: LockLocation,
  ) {
    this.namespace = at.namespace;
    this.name = at.name;
  }

  async get(): Promise<ObservedRecord | undefined> {
    try {
      this.#lease = await this.leases.get(this.name);
    } catch (err) {
      if (statusCodeOf(err) === 404) return undefined;
      throw err;
    }
    return this.#observed(this.#lease);
  }

  async create(record: LeaderElectionRecord): Promise<ObservedRecord> {
    this.#lease = await this.leases.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: this.#spec({}, record),
    });
    return this.#observed(this.#lease);
  }

  async update(record: LeaderElectionRecord): Promise<ObservedRecord> {
    const lease = this.#lease;
    if (lease === undefined) throw new Error(`Lease ${this.namespace}/${this.name} not read yet`);
    this.#lease = await this.leases.update({ ...lease, spec: this.#spec((lease.spec ?? {}) as LeaseSpec, record) });
    return this.#observed(this.#lease);
  }

  /** The Lease spec of `record`, keeping the other fields of `spec` (e.g. a preferred holder). */
  #spec(spec: LeaseSpec, record: LeaderElectionRecord): LeaseSpec {
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: record.holderIdentity,
      leaseDurationSeconds: record.leaseDurationSeconds,
      leaseTransitions: record.leaderTransitions,
    };
    if (record.acquireTime !== undefined) next.acquireTime = microTime(record.acquireTime);
    if (record.renewTime !== undefined) next.renewTime = microTime(record.renewTime);
    return next;
  }

  #observed(lease: KubeObject): ObservedRecord {
    const spec = (lease.spec ?? {}) as LeaseSpec;
    return {
      record: {
        holderIdentity: spec.holderIdentity ?? '',
        leaseDurationSeconds: num(spec.leaseDurationSeconds),
        acquireTime: parseTime(spec.acquireTime),
        renewTime: parseTime(spec.renewTime),
        leaderTransitions: num(spec.leaseTransitions),
      },
      version: `${spec.holderIdentity ?? ''}|${spec.renewTime ?? ''}|${lease.metadata.resourceVersion ?? ''}`,
    };
  }
}

/** The annotation value client-go writes: `json.Marshal(LeaderElectionRecord)`, fields in its order. */
export function leaderRecordJson(record: LeaderElectionRecord): string {
  return JSON.stringify({
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: record.acquireTime === undefined ? null : rfc3339(record.acquireTime),
    renewTime: record.renewTime === undefined ? null : rfc3339(record.renewTime),
    leaderTransitions: record.leaderTransitions,
  });
}

/** Reads the annotation's record; an absent annotation is an empty record (nobody holds it). */
function parseLeaderRecord(raw: string | undefined, where: string): LeaderElectionRecord {
  if (raw === undefined)
    return { holderIdentity: '', leaseDurationSeconds: 0, acquireTime: undefined, renewTime: undefined, leaderTransitions: 0 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new Error(`the ${LEADER_ANNOTATION} annotation of ${where} is not JSON`, { cause: err });
  }
  const r = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  return {
    holderIdentity: typeof r['holderIdentity'] === 'string' ? r['holderIdentity'] : '',
    leaseDurationSeconds: num(r['leaseDurationSeconds']),
    acquireTime: parseTime(r['acquireTime']),
    renewTime: parseTime(r['renewTime']),
    leaderTransitions: num(r['leaderTransitions']),
  };
}

/**
 * client-go's `ConfigMapLock` and `EndpointsLock`: the record is JSON in the
 * `control-plane.alpha.kubernetes.io/leader` annotation of a core/v1 ConfigMap or Endpoints; the
 * rest of the object is left as it is.
 */
export class AnnotationLock implements ResourceLock {
  readonly namespace: string;
  readonly name: string;
  #object: KubeObject | undefined;

  constructor(
    readonly kind: 'ConfigMap' | 'Endpoints',
    private readonly objects: LockObjectClient,
    at: LockLocation,
  ) {
    this.namespace = at.namespace;
    this.name = at.name;
  }

  async get(): Promise<ObservedRecord | undefined> {
    try {
      this.#object = await this.objects.get(this.name);
    } catch (err) {
      if (statusCodeOf(err) === 404) return undefined;
      throw err;
    }
    return this.#observed(this.#object);
  }

  async create(record: LeaderElectionRecord): Promise<ObservedRecord> {
    this.#object = await this.objects.create({
      apiVersion: 'v1',
      kind: this.kind,
      metadata: { name: this.name, namespace: this.namespace, annotations: { [LEADER_ANNOTATION]: leaderRecordJson(record) } },
    });
    return this.#observed(this.#object);
  }

  async update(record: LeaderElectionRecord): Promise<ObservedRecord> {
    const obj = this.#object;
    if (obj === undefined) throw new Error(`${this.kind} ${this.namespace}/${this.name} not read yet`);
    const annotations = { ...obj.metadata.annotations, [LEADER_ANNOTATION]: leaderRecordJson(record) };
    this.#object = await this.objects.update({ ...obj, metadata: { ...obj.metadata, annotations } });
    return this.#observed(this.#object);
  }

  #observed(obj: KubeObject): ObservedRecord {
    const raw = obj.metadata.annotations?.[LEADER_ANNOTATION];
    return {
      record: parseLeaderRecord(raw, `${this.kind} ${this.namespace}/${this.name}`),
      version: `${raw ?? ''}|${obj.metadata.resourceVersion ?? ''}`,
    };
  }
}

/**
 * client-go's `MultiLock`: the record is kept in an old kind (primary: ConfigMap or Endpoints)
 * and in the Lease (secondary), so that candidates on the old lock, on the Lease and on both all
 * exclude each other during a migration. A holder of either counts: when the two objects name
 * different holders the record reads as held by {@link UNKNOWN_LEADER}, which nobody takes before
 * it stops changing for a lease duration; when only one object exists and someone else holds it,
 * its record is the lock's. Acquiring and renewing write both (creating whichever is missing).
 *
 * One departure from client-go: it reads the Lease only when the primary exists, so a candidate
 * finding no ConfigMap (or Endpoints) writes one naming itself, then fails on a Lease another
 * candidate holds; here a Lease held by another candidate counts as held before anything is written.
 */
export class MultiLock implements ResourceLock {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  #primaryExists = false;
  #secondaryExists = false;

  constructor(
    private readonly primary: ResourceLock,
    private readonly secondary: ResourceLock,
    private readonly identity: string,
  ) {
    this.kind = `${primary.kind}+${secondary.kind}`;
    this.namespace = primary.namespace;
    this.name = primary.name;
  }

  async get(): Promise<ObservedRecord | undefined> {
    const p = await this.primary.get();
    const s = await this.secondary.get();
    this.#primaryExists = p !== undefined;
    this.#secondaryExists = s !== undefined;
    const heldByOther = (o: ObservedRecord): boolean => o.record.holderIdentity !== '' && o.record.holderIdentity !== this.identity;
    if (p === undefined) return s !== undefined && heldByOther(s) ? { record: s.record, version: `,${s.version}` } : undefined;
    // Only the old kind exists: its record is the lock's, but our own means the Lease is to be created (client-go's NotFound).
    if (s === undefined) return p.record.holderIdentity === this.identity ? undefined : p;
    const version = `${p.version},${s.version}`;
    if (p.record.holderIdentity !== s.record.holderIdentity) return { record: { ...p.record, holderIdentity: UNKNOWN_LEADER }, version };
    return { record: p.record, version };
  }

  create(record: LeaderElectionRecord): Promise<ObservedRecord> {
    return this.#write(record);
  }

  update(record: LeaderElectionRecord): Promise<ObservedRecord> {
    return this.#write(record);
  }

  /** Primary first, as client-go: a candidate that only knows the old kind sees the new holder first. */
  async #write(record: LeaderElectionRecord): Promise<ObservedRecord> {
    const p = this.#primaryExists ? await this.primary.update(record) : await this.primary.create(record);
    this.#primaryExists = true;
    const s = this.#secondaryExists ? await this.secondary.update(record) : await this.secondary.create(record);
    this.#secondaryExists = true;
    return { record, version: `${p.version},${s.version}` };
  }
}

/** client-go's lock types (`resourcelock.New`); the values KubeFedConfig `spec.leaderElect.resourceLock` admits. */
export type ResourceLockType = 'configmaps' | 'endpoints' | 'leases' | 'configmapsleases' | 'endpointsleases';

/** The clients of the lock kinds in the lock's namespace. */
export interface ResourceLockClients {
  readonly leases: LockObjectClient;
  readonly configMaps: LockObjectClient;
  readonly endpoints: LockObjectClient;
}

/** Options of {@link newResourceLock}. */
export interface NewResourceLockOptions extends LockLocation {
  /** The candidate's identity (a MultiLock needs it to read its own half-written record). */
  readonly identity: string;
  readonly clients: ResourceLockClients;
}

/** The lock of `type` (client-go `resourcelock.New`): the same name and namespace for every kind it uses. */
export function newResourceLock(type: ResourceLockType, o: NewResourceLockOptions): ResourceLock {
  const at = { namespace: o.namespace, name: o.name };
  switch (type) {
    case 'leases':
      return new LeaseLock(o.clients.leases, at);
    case 'configmaps':
      return new AnnotationLock('ConfigMap', o.clients.configMaps, at);
    case 'endpoints':
      return new AnnotationLock('Endpoints', o.clients.endpoints, at);
    case 'configmapsleases':
      return new MultiLock(new AnnotationLock('ConfigMap', o.clients.configMaps, at), new LeaseLock(o.clients.leases, at), o.identity);
    case 'endpointsleases':
      return new MultiLock(new AnnotationLock('Endpoints', o.clients.endpoints, at), new LeaseLock(o.clients.leases, at), o.identity);
  }
}
