import type { RestOps, Scope } from '../resources/rest-ops.js';
import type { StoreEvent } from '../store/watch-hub.js';
import type { ObjectLocation } from '../store/object-store.js';
import { StatusError } from '../util/status-error.js';
import type { KObject } from '../util/json.js';
import type { WorkScheduler } from './scheduler.js';

/**
 * The garbage collector: deletes dependents whose owners are all gone (Background), removes
 * owner references and the `orphan` finalizer (Orphan), and deletes dependents before removing
 * the `foregroundDeletion` finalizer (Foreground).
 */
export function registerGarbageCollector(ops: RestOps, work: WorkScheduler): void {
  const gc = new GarbageCollector(ops);
  ops.store.onChange((e: StoreEvent) => {
    const uid = e.object.metadata.uid;
    if (uid === undefined) return;
    if (e.type === 'DELETED') {
      if (ops.store.dependentsOf(uid).length > 0) work.enqueue(`gc/${uid}`, () => gc.processOwner(e.grKey, uid));
      // A dependent disappearing may unblock a foreground owner.
      for (const o of e.object.metadata.ownerReferences ?? [])
        work.enqueue(`gc/${o.uid}`, () => {
          const loc = ops.store.locate(o.uid);
          if (loc !== undefined) gc.processOwner(loc.grKey, o.uid);
        });
      return;
    }
    if (e.object.metadata.deletionTimestamp !== undefined) {
      const f = e.object.metadata.finalizers ?? [];
      if (f.includes('orphan') || f.includes('foregroundDeletion')) work.enqueue(`gc/${uid}`, () => gc.processOwner(e.grKey, uid));
    }
    if (e.type === 'ADDED' && e.object.metadata.ownerReferences !== undefined) {
      // A dependent created after its owner vanished is collected too.
      const loc = ops.store.locate(uid);
      if (loc !== undefined && e.object.metadata.ownerReferences.every((o) => !gc.ownerAlive(o.uid)))
        work.enqueue(`gc-dep/${uid}`, () => gc.collectDependent(loc));
    }
  });
}

/** The work of {@link registerGarbageCollector} on one owner or dependent. */
class GarbageCollector {
  constructor(private readonly ops: RestOps) {}

  ownerAlive(uid: string): boolean {
    return this.ops.store.locate(uid) !== undefined;
  }

  /** Deletes a dependent whose owners are all gone, or drops the references to the gone ones. */
  collectDependent(loc: ObjectLocation): void {
    const obj = this.ops.store.getAt(loc);
    if (obj === undefined || obj.metadata.deletionTimestamp !== undefined) return;
    const owners = obj.metadata.ownerReferences ?? [];
    const alive = owners.filter((o) => this.ownerAlive(o.uid));
    const scope = this.#scope(loc.grKey, obj.metadata.namespace ?? '');
    if (scope === undefined) return;
    if (alive.length === 0) {
      tolerate(() =>
        this.ops.delete(scope, obj.metadata.name ?? '', {
          propagationPolicy: 'Background',
          preconditions: { uid: obj.metadata.uid ?? '' },
        }),
      );
    } else if (alive.length !== owners.length) {
      this.ops.writeThrough(loc.grKey, { ...obj, metadata: { ...obj.metadata, ownerReferences: alive } });
    }
  }

  /** Collects the dependents of a vanished owner, or carries out the orphan / foreground deletion of a deleting one. */
  processOwner(grKey: string, uid: string): void {
    const store = this.ops.store;
    const loc = store.locate(uid);
    if (loc === undefined) {
      for (const dep of store.dependentsOf(uid)) this.collectDependent(dep);
      return;
    }
    const owner = store.getAt(loc);
    if (owner?.metadata.deletionTimestamp === undefined) return;
    const fins = owner.metadata.finalizers ?? [];
    if (fins.includes('orphan')) this.#orphanDependents(grKey, owner);
    else if (fins.includes('foregroundDeletion')) this.#deleteForeground(grKey, owner);
  }

  #orphanDependents(grKey: string, owner: KObject): void {
    const uid = owner.metadata.uid ?? '';
    for (const dep of this.ops.store.dependentsOf(uid)) {
      const o = this.ops.store.getAt(dep);
      if (o === undefined) continue;
      const refs = (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      const meta = { ...o.metadata };
      if (refs.length > 0) meta.ownerReferences = refs;
      else delete meta.ownerReferences;
      this.ops.writeThrough(dep.grKey, { ...o, metadata: meta });
    }
    this.#removeFinalizer(grKey, owner, 'orphan');
  }

  #deleteForeground(grKey: string, owner: KObject): void {
    const uid = owner.metadata.uid ?? '';
    const deps = this.ops.store.dependentsOf(uid);
    if (deps.length === 0) {
      this.#removeFinalizer(grKey, owner, 'foregroundDeletion');
      return;
    }
    for (const dep of deps) {
      const o = this.ops.store.getAt(dep);
      if (o === undefined || o.metadata.deletionTimestamp !== undefined) continue;
      const scope = this.#scope(dep.grKey, o.metadata.namespace ?? '');
      if (scope === undefined) continue;
      const others = (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid && this.ownerAlive(r.uid));
      tolerate(() => {
        if (others.length === 0) this.ops.delete(scope, o.metadata.name ?? '', { propagationPolicy: 'Foreground' });
        else this.ops.writeThrough(dep.grKey, { ...o, metadata: { ...o.metadata, ownerReferences: others } });
      });
    }
  }

  #scope(grKey: string, namespace: string): Scope | undefined {
    const i = grKey.indexOf('/');
    const def = this.ops.registry.byResource(grKey.slice(0, i), grKey.slice(i + 1));
    return def === undefined ? undefined : { def, version: def.versions[0]!, namespace };
  }

  #removeFinalizer(grKey: string, obj: KObject, finalizer: string): void {
    const fins = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    const meta = { ...obj.metadata };
    if (fins.length > 0) meta.finalizers = fins;
    else delete meta.finalizers;
    this.ops.writeThrough(grKey, { ...obj, metadata: meta });
  }
}

/** Runs `fn`; an API error (the dependent changed or vanished) is left for a later event. */
function tolerate(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
  }
}
