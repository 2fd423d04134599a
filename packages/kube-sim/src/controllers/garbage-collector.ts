import type { RestOps } from '../resources/rest-ops.js';
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
  const defOf = (grKey: string): { scope: (ns: string) => Parameters<RestOps['delete']>[0] } | undefined => {
    const i = grKey.indexOf('/');
    const def = ops.registry.byResource(grKey.slice(0, i), grKey.slice(i + 1));
    if (def === undefined) return undefined;
    return { scope: (ns: string) => ({ def, version: def.versions[0]!, namespace: ns }) };
  };

  const ownerAlive = (uid: string): boolean => ops.store.locate(uid) !== undefined;

  const collectDependent = (loc: ObjectLocation): void => {
    const obj = ops.store.getAt(loc);
    if (obj === undefined || obj.metadata.deletionTimestamp !== undefined) return;
    const owners = obj.metadata.ownerReferences ?? [];
    const alive = owners.filter((o) => ownerAlive(o.uid));
    const d = defOf(loc.grKey);
    if (d === undefined) return;
    const ns = obj.metadata.namespace ?? '';
    if (alive.length === 0) {
      try {
        ops.delete(d.scope(ns), obj.metadata.name ?? '', {
          propagationPolicy: 'Background',
          preconditions: { uid: obj.metadata.uid ?? '' },
        });
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
      }
    } else if (alive.length !== owners.length) {
      ops.writeThrough(loc.grKey, { ...obj, metadata: { ...obj.metadata, ownerReferences: alive } });
    }
  };

  const processOwner = (grKey: string, uid: string): void => {
    const loc = ops.store.locate(uid);
    if (loc === undefined) {
      for (const dep of ops.store.dependentsOf(uid)) collectDependent(dep);
      return;
    }
    const owner = ops.store.getAt(loc);
    if (owner?.metadata.deletionTimestamp === undefined) return;
    const fins = owner.metadata.finalizers ?? [];
    const deps = ops.store.dependentsOf(uid);
    if (fins.includes('orphan')) {
      for (const dep of deps) {
        const o = ops.store.getAt(dep);
        if (o === undefined) continue;
        const refs = (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        const meta = { ...o.metadata };
        if (refs.length > 0) meta.ownerReferences = refs;
        else delete meta.ownerReferences;
        ops.writeThrough(dep.grKey, { ...o, metadata: meta });
      }
      removeFinalizer(ops, grKey, owner, 'orphan');
      return;
    }
    if (fins.includes('foregroundDeletion')) {
      if (deps.length === 0) {
        removeFinalizer(ops, grKey, owner, 'foregroundDeletion');
        return;
      }
      for (const dep of deps) {
        const o = ops.store.getAt(dep);
        if (o === undefined || o.metadata.deletionTimestamp !== undefined) continue;
        const d = defOf(dep.grKey);
        if (d === undefined) continue;
        const others = (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid && ownerAlive(r.uid));
        try {
          if (others.length === 0)
            ops.delete(d.scope(o.metadata.namespace ?? ''), o.metadata.name ?? '', { propagationPolicy: 'Foreground' });
          else ops.writeThrough(dep.grKey, { ...o, metadata: { ...o.metadata, ownerReferences: others } });
        } catch (e) {
          if (!(e instanceof StatusError)) throw e;
        }
      }
    }
  };

  ops.store.onChange((e: StoreEvent) => {
    const uid = e.object.metadata.uid;
    if (uid === undefined) return;
    if (e.type === 'DELETED') {
      if (ops.store.dependentsOf(uid).length > 0) work.enqueue(`gc/${uid}`, () => processOwner(e.grKey, uid));
      // A dependent disappearing may unblock a foreground owner.
      for (const o of e.object.metadata.ownerReferences ?? [])
        work.enqueue(`gc/${o.uid}`, () => {
          const loc = ops.store.locate(o.uid);
          if (loc !== undefined) processOwner(loc.grKey, o.uid);
        });
      return;
    }
    if (e.object.metadata.deletionTimestamp !== undefined) {
      const f = e.object.metadata.finalizers ?? [];
      if (f.includes('orphan') || f.includes('foregroundDeletion')) work.enqueue(`gc/${uid}`, () => processOwner(e.grKey, uid));
    }
    if (e.type === 'ADDED' && e.object.metadata.ownerReferences !== undefined) {
      // A dependent created after its owner vanished is collected too.
      const loc = ops.store.locate(uid);
      if (loc !== undefined && e.object.metadata.ownerReferences.every((o) => !ownerAlive(o.uid)))
        work.enqueue(`gc-dep/${uid}`, () => collectDependent(loc));
    }
  });
}

function removeFinalizer(ops: RestOps, grKey: string, obj: KObject, finalizer: string): void {
  const fins = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  const meta = { ...obj.metadata };
  if (fins.length > 0) meta.finalizers = fins;
  else delete meta.finalizers;
  ops.writeThrough(grKey, { ...obj, metadata: meta });
}
