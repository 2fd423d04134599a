import type { RestOps, Scope } from '../../resources/rest-ops.js';
import { StatusError } from '../../util/status-error.js';
import { isObject, type JsonObject, type KObject, type OwnerReference } from '../../util/json.js';
import { sameStatus } from './workload-plan.js';

export const deploymentsKey = 'apps/deployments';
export const replicaSetsKey = 'apps/replicasets';
export const podsKey = '/pods';
export const nodesKey = '/nodes';

/** The owner reference of `obj` marked `controller: true`, if any. */
export function controllerRef(obj: KObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((o) => o.controller === true);
}

/** `obj.spec`, or an empty object when it has none. */
export function specOf(obj: KObject): JsonObject {
  return isObject(obj['spec']) ? obj['spec'] : {};
}

/** A controller owner reference (`controller` and `blockOwnerDeletion` set) to an apps/v1 object. */
export function appsOwnerRef(kind: string, owner: KObject): OwnerReference {
  return {
    apiVersion: 'apps/v1',
    kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The store access the simulated workload controllers share. */
export class WorkloadOps {
  constructor(readonly ops: RestOps) {}

  /** The scope of `group/resource` in `namespace`, at the resource's first version. */
  scope(group: string, resource: string, namespace: string): Scope {
    const def = this.ops.registry.byResource(group, resource)!;
    return { def, version: def.versions[0]!, namespace };
  }

  /** The objects of `grKey` whose controller is `owner`. */
  owned(owner: KObject, grKey: string): KObject[] {
    const uid = owner.metadata.uid ?? '';
    const store = this.ops.store;
    return store
      .dependentsOf(uid)
      .filter((loc) => loc.grKey === grKey)
      .map((loc) => store.getAt(loc))
      .filter((o): o is KObject => o !== undefined && controllerRef(o)?.uid === uid);
  }

  /** Runs `fn`; an API error (a conflict, a vanished object) gives undefined, other errors propagate. */
  tolerate<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      // Conflicts, vanished objects and terminating namespaces settle on a later event.
      if (!(e instanceof StatusError)) throw e;
      return undefined;
    }
  }

  /** Writes `status` of the apps/v1 `obj` through /status unless it is already the status. */
  writeStatus(resource: string, obj: KObject, status: JsonObject): void {
    if (sameStatus(obj['status'], status)) return;
    const scope = this.scope('apps', resource, obj.metadata.namespace ?? '');
    this.ops.updateFrom(scope, obj, { ...obj, metadata: { ...obj.metadata }, status }, {}, 'status');
  }
}
