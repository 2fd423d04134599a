import type { KubeObject, LeaseResourceClient } from '../kube-types.js';
import { FakeApiError } from './in-memory-lister-watcher.js';

/**
 * An in-memory {@link LeaseResourceClient} with optimistic concurrency (409 on a stale
 * resourceVersion), for unit tests of leader election (an allowed double of our interface).
 */
export class InMemoryLeaseClient implements LeaseResourceClient {
  #objects = new Map<string, KubeObject>();
  #rv = 0;
  /** When true every call fails with 503 (an unreachable API server). */
  unavailable = false;

  get(name: string): Promise<KubeObject> {
    if (this.unavailable) return Promise.reject(new FakeApiError(503, 'unavailable'));
    const obj = this.#objects.get(name);
    return obj === undefined ? Promise.reject(new FakeApiError(404, `lease ${name} not found`)) : Promise.resolve(structuredClone(obj));
  }

  create(obj: KubeObject): Promise<KubeObject> {
    if (this.unavailable) return Promise.reject(new FakeApiError(503, 'unavailable'));
    const name = obj.metadata.name ?? '';
    if (this.#objects.has(name)) return Promise.reject(new FakeApiError(409, `lease ${name} already exists`));
    return Promise.resolve(this.#store(obj));
  }

  update(obj: KubeObject): Promise<KubeObject> {
    if (this.unavailable) return Promise.reject(new FakeApiError(503, 'unavailable'));
    const name = obj.metadata.name ?? '';
    const current = this.#objects.get(name);
    if (current === undefined) return Promise.reject(new FakeApiError(404, `lease ${name} not found`));
    if (current.metadata.resourceVersion !== obj.metadata.resourceVersion)
      return Promise.reject(new FakeApiError(409, `lease ${name} was modified`));
    return Promise.resolve(this.#store(obj));
  }

  /** The stored holder of lease `name` ('' when released, undefined when absent). */
  holder(name: string): string | undefined {
    const spec = this.#objects.get(name)?.spec as { holderIdentity?: string } | undefined;
    return spec === undefined ? undefined : (spec.holderIdentity ?? '');
  }

  #store(obj: KubeObject): KubeObject {
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.#rv);
    this.#objects.set(stored.metadata.name ?? '', stored);
    return structuredClone(stored);
  }
}
