import type { RestOps } from '../resources/rest-ops.js';
import type { StoreEvent } from '../store/watch-hub.js';
import { StatusError } from '../util/status-error.js';
import { isObject, type KObject } from '../util/json.js';
import type { WorkScheduler } from './scheduler.js';

/**
 * Namespace lifecycle: a new namespace gets a `default` ServiceAccount; a terminating namespace
 * has its content deleted, then its `kubernetes` finalizer removed, then it disappears.
 */
export function registerNamespaceController(ops: RestOps, work: WorkScheduler): void {
  const reconcile = (name: string): void => {
    const ns = ops.store.get('/namespaces', '', name);
    if (ns === undefined) return;
    if (ns.metadata.deletionTimestamp === undefined) {
      ensureDefaultServiceAccount(ops, name);
      return;
    }
    let remaining = 0;
    for (const def of ops.registry.all()) {
      if (!def.namespaced) continue;
      const scope = { def, version: def.versions[0]!, namespace: name };
      for (const o of ops.store.list(ops.grKey(def), name)) {
        remaining++;
        if (o.metadata.deletionTimestamp !== undefined) continue;
        try {
          ops.delete(scope, o.metadata.name ?? '', { propagationPolicy: 'Background' });
        } catch (e) {
          if (!(e instanceof StatusError)) throw e;
        }
      }
    }
    if (remaining > 0 && ops.store.countInNamespace(name) > 0) return;
    const spec = isObject(ns['spec']) ? ns['spec'] : {};
    const fins = Array.isArray(spec['finalizers']) ? spec['finalizers'].filter((f) => f !== 'kubernetes') : [];
    ops.finalizeNamespace(name, fins as string[]);
  };

  ops.store.onChange((e: StoreEvent) => {
    if (e.grKey === '/namespaces') {
      if (e.type === 'DELETED') return;
      const name = e.object.metadata.name ?? '';
      if (e.type === 'ADDED' || e.object.metadata.deletionTimestamp !== undefined) work.enqueue(`ns/${name}`, () => reconcile(name));
      return;
    }
    const ns = e.object.metadata.namespace;
    if (ns === undefined || ns === '') return;
    if (e.type === 'DELETED') {
      const nsObj = ops.store.get('/namespaces', '', ns);
      if (nsObj?.metadata.deletionTimestamp !== undefined) work.enqueue(`ns/${ns}`, () => reconcile(ns));
      else if (e.grKey === '/serviceaccounts' && e.object.metadata.name === 'default' && nsObj !== undefined)
        work.enqueue(`ns/${ns}`, () => reconcile(ns));
    }
  });
}

/** Creates the `default` ServiceAccount of a namespace when missing. */
export function ensureDefaultServiceAccount(ops: RestOps, namespace: string): KObject | undefined {
  if (ops.store.get('/serviceaccounts', namespace, 'default') !== undefined) return undefined;
  const def = ops.registry.byResource('', 'serviceaccounts');
  if (def === undefined) return undefined;
  return ops.create(
    { def, version: def.versions[0]!, namespace },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } },
  ).object;
}
