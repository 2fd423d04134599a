import type { KObject } from '../util/json.js';
import { type ChangeType, type StoreEvent, WatchHub } from './watch-hub.js';

interface Bucket {
  objects: Map<string, KObject>;
  sortedKeys: string[] | undefined;
}

/** Where an object lives: its group/resource key and its namespace/name key. */
export interface ObjectLocation {
  grKey: string;
  key: string;
}

/** The storage key of an object within its group/resource (`ns/name` or `name`). */
export function objectKey(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

/**
 * The object store of one cluster: unstructured objects per group/resource, one monotonically
 * increasing resourceVersion counter, a uid index and an owner index (for the garbage collector),
 * and the watch hub. Stored objects are treated as immutable: every write stores a new object,
 * so readers may serialise them without copying.
 */
export class ObjectStore {
  private rv: number;
  private readonly buckets = new Map<string, Bucket>();
  private readonly byUid = new Map<string, ObjectLocation>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly listeners: ((event: StoreEvent) => void)[] = [];
  readonly hub: WatchHub;

  constructor(historySize: number, initialRv = 1) {
    this.rv = initialRv;
    this.hub = new WatchHub(historySize, initialRv);
  }

  /** The latest committed resourceVersion. */
  get currentRv(): number {
    return this.rv;
  }

  /** Calls `fn` after every committed change (controllers hook in here). */
  onChange(fn: (event: StoreEvent) => void): void {
    this.listeners.push(fn);
  }

  private bucket(grKey: string): Bucket {
    let b = this.buckets.get(grKey);
    if (b === undefined) {
      b = { objects: new Map(), sortedKeys: undefined };
      this.buckets.set(grKey, b);
    }
    return b;
  }

  /** One object, or undefined. */
  get(grKey: string, namespace: string, name: string): KObject | undefined {
    return this.buckets.get(grKey)?.objects.get(objectKey(namespace, name));
  }

  /** Location of an object by uid. */
  locate(uid: string): ObjectLocation | undefined {
    return this.byUid.get(uid);
  }

  /** Objects by location. */
  getAt(loc: ObjectLocation): KObject | undefined {
    return this.buckets.get(loc.grKey)?.objects.get(loc.key);
  }

  /** Locations of objects whose ownerReferences name this uid. */
  dependentsOf(uid: string): ObjectLocation[] {
    const set = this.dependents.get(uid);
    if (set === undefined) return [];
    return [...set].map((s) => {
      const i = s.indexOf('|');
      return { grKey: s.slice(0, i), key: s.slice(i + 1) };
    });
  }

  /** Objects of a group/resource in storage-key order, optionally one namespace only. */
  list(grKey: string, namespace?: string): KObject[] {
    const b = this.buckets.get(grKey);
    if (b === undefined) return [];
    if (b.sortedKeys === undefined) b.sortedKeys = [...b.objects.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    const out: KObject[] = [];
    const prefix = namespace === undefined || namespace === '' ? undefined : `${namespace}/`;
    for (const k of b.sortedKeys) {
      if (prefix !== undefined && !k.startsWith(prefix)) continue;
      const o = b.objects.get(k);
      if (o !== undefined) out.push(o);
    }
    return out;
  }

  /**
   * The objects of a group/resource as they were at resourceVersion `rv` (rolled back through the
   * retained watch history), in key order; undefined when `rv` is older than the history.
   */
  snapshot(grKey: string, rv: number, namespace?: string): KObject[] | undefined {
    const current = this.list(grKey, namespace);
    if (rv >= this.rv) return current;
    const events = this.hub.since(rv, grKey);
    if (events === undefined) return undefined;
    const map = new Map<string, KObject>();
    for (const o of current) map.set(objectKey(o.metadata.namespace ?? '', o.metadata.name ?? ''), o);
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      const key = objectKey(e.object.metadata.namespace ?? '', e.object.metadata.name ?? '');
      if (namespace !== undefined && namespace !== '' && e.object.metadata.namespace !== namespace) continue;
      if (e.type === 'ADDED') map.delete(key);
      else if (e.prev !== undefined) map.set(key, e.prev);
    }
    return [...map.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((x) => x[1]);
  }

  /** Number of objects in one namespace across all resources (namespace lifecycle). */
  countInNamespace(namespace: string): number {
    let n = 0;
    const prefix = `${namespace}/`;
    for (const b of this.buckets.values()) for (const k of b.objects.keys()) if (k.startsWith(prefix)) n++;
    return n;
  }

  /** Group/resource keys that hold any object. */
  grKeys(): string[] {
    return [...this.buckets.keys()];
  }

  /** Allocates the next resourceVersion (used for dry runs too, without committing). */
  peekNextRv(): string {
    return String(this.rv + 1);
  }

  /**
   * Commits a create or update: assigns a new resourceVersion (mutating `obj.metadata`, which the
   * caller owns), stores it, updates indexes and publishes the event.
   */
  put(grKey: string, obj: KObject, type: Extract<ChangeType, 'ADDED' | 'MODIFIED'>): KObject {
    const b = this.bucket(grKey);
    const key = objectKey(obj.metadata.namespace ?? '', obj.metadata.name ?? '');
    const prev = b.objects.get(key);
    this.rv++;
    obj.metadata.resourceVersion = String(this.rv);
    if (prev === undefined) b.sortedKeys = undefined;
    b.objects.set(key, obj);
    this.index(grKey, key, prev, obj);
    this.emit({ type, rv: this.rv, grKey, object: obj, prev });
    return obj;
  }

  /** Removes an object; the DELETED event carries its last state with a new resourceVersion. */
  remove(grKey: string, namespace: string, name: string, lastState?: KObject): KObject | undefined {
    const b = this.buckets.get(grKey);
    const key = objectKey(namespace, name);
    const prev = b?.objects.get(key);
    if (b === undefined || prev === undefined) return undefined;
    b.objects.delete(key);
    b.sortedKeys = undefined;
    this.index(grKey, key, prev, undefined);
    this.rv++;
    const base = lastState ?? prev;
    const last: KObject = { ...base, metadata: { ...base.metadata, resourceVersion: String(this.rv) } };
    this.emit({ type: 'DELETED', rv: this.rv, grKey, object: last, prev });
    return last;
  }

  private index(grKey: string, key: string, prev: KObject | undefined, next: KObject | undefined): void {
    const ref = `${grKey}|${key}`;
    if (prev?.metadata.uid !== undefined && prev.metadata.uid !== next?.metadata.uid) this.byUid.delete(prev.metadata.uid);
    if (next?.metadata.uid !== undefined) this.byUid.set(next.metadata.uid, { grKey, key });
    const prevOwners = prev?.metadata.ownerReferences;
    const nextOwners = next?.metadata.ownerReferences;
    if (prevOwners === nextOwners) return;
    if (Array.isArray(prevOwners))
      for (const o of prevOwners) {
        const set = this.dependents.get(o.uid);
        set?.delete(ref);
        if (set?.size === 0) this.dependents.delete(o.uid);
      }
    if (Array.isArray(nextOwners))
      for (const o of nextOwners) {
        if (typeof o.uid !== 'string') continue;
        let set = this.dependents.get(o.uid);
        if (set === undefined) {
          set = new Set();
          this.dependents.set(o.uid, set);
        }
        set.add(ref);
      }
  }

  private emit(event: StoreEvent): void {
    this.hub.publish(event);
    for (const l of this.listeners) l(event);
  }

  /** Drops retained watch history (see {@link WatchHub.compact}). */
  compactHistory(): void {
    this.hub.compact(this.rv);
  }
}
