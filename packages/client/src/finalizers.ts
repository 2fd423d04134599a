import type { KubeObject, ResourceClient } from './types.js';

/** Whether `obj` is being deleted: it has a deletionTimestamp and waits for its finalizers. */
export function isDeleting(obj: KubeObject): boolean {
  return obj.metadata.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
}

/**
 * Adds `finalizer` to `obj` with a merge patch that carries the resourceVersion it was read at
 * (409 Conflict when the object changed since). Returns the patched object, or `obj` itself when
 * it has the finalizer already.
 */
export async function addFinalizer<T extends KubeObject>(
  resource: Pick<ResourceClient<T>, 'patch'>,
  obj: T,
  finalizer: string,
): Promise<T> {
  const finalizers = obj.metadata.finalizers ?? [];
  if (finalizers.includes(finalizer)) return obj;
  return patchFinalizers(resource, obj, [...finalizers, finalizer]);
}

/**
 * Removes `finalizer` from `obj` like {@link addFinalizer} adds one. Returns the patched object
 * (gone from the server once its last finalizer went), or `obj` itself when it lacks the finalizer.
 */
export async function removeFinalizer<T extends KubeObject>(
  resource: Pick<ResourceClient<T>, 'patch'>,
  obj: T,
  finalizer: string,
): Promise<T> {
  const finalizers = obj.metadata.finalizers ?? [];
  if (!finalizers.includes(finalizer)) return obj;
  return patchFinalizers(
    resource,
    obj,
    finalizers.filter((f) => f !== finalizer),
  );
}

function patchFinalizers<T extends KubeObject>(resource: Pick<ResourceClient<T>, 'patch'>, obj: T, finalizers: string[]): Promise<T> {
  return resource.patch(obj.metadata.name ?? '', { metadata: { finalizers, resourceVersion: obj.metadata.resourceVersion } }, 'merge');
}
