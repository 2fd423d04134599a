import { deepFreeze } from './deep-freeze.js';
import { RuntimeError } from './errors.js';
import { objectKey, type KubeObject } from './kube-types.js';

/** Computes the index values of an object (e.g. its namespace); an empty array = not indexed. */
export type IndexFunc = (obj: KubeObject) => readonly string[];

/** Built-in index: objects by `metadata.namespace` (cluster-scoped objects under `''`). */
export const NAMESPACE_INDEX = 'namespace';
/** Built-in index: objects by each label as `key=value`. */
export const LABEL_INDEX = 'label';

const builtInIndexers: Record<string, IndexFunc> = {
  [NAMESPACE_INDEX]: (obj) => [obj.metadata.namespace ?? ''],
  [LABEL_INDEX]: (obj) => Object.entries(obj.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`),
};

/** A read-only view of an informer's cache. Objects handed out are deep-frozen: clone before changing. */
export interface Reader<T extends KubeObject = KubeObject> {
  /** The object stored under `namespace/name` (or `name` when cluster-scoped). */
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  /** Objects whose index `indexName` has `value`. Throws a `RuntimeError` for an unknown index. */
  byIndex(indexName: string, value: string): T[];
  /** Objects in `namespace` (`''` for cluster-scoped). */
  listByNamespace(namespace: string): T[];
  /** Objects carrying label `key=value`. */
  listByLabel(key: string, value: string): T[];
  readonly size: number;
}

/** What {@link Store.replace} changed. */
export interface ReplaceResult {
  added: KubeObject[];
  updated: { old: KubeObject; new: KubeObject }[];
  deleted: KubeObject[];
}

/**
 * An indexed in-memory store of objects keyed by `namespace/name`. Every stored object is
 * deep-frozen, so callers reading the cache cannot mutate it. Indexes: `namespace`, `label`
 * (`key=value`) and any custom {@link IndexFunc}.
 */
export class Store<T extends KubeObject = KubeObject> implements Reader<T> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc>();
  readonly #indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Record<string, IndexFunc> = {}) {
    for (const [name, fn] of Object.entries({ ...builtInIndexers, ...indexers })) {
      this.#indexers.set(name, fn);
      this.#indices.set(name, new Map());
    }
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  byIndex(indexName: string, value: string): T[] {
    const index = this.#indices.get(indexName);
    if (index === undefined) throw new RuntimeError(`store has no index "${indexName}"`);
    const keys = index.get(value);
    if (keys === undefined) return [];
    const out: T[] = [];
    for (const k of keys) {
      const obj = this.#items.get(k);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  listByNamespace(namespace: string): T[] {
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  listByLabel(key: string, value: string): T[] {
    return this.byIndex(LABEL_INDEX, `${key}=${value}`);
  }

  /** Stores (and freezes) `obj`; returns the previous object under its key. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    deepFreeze(obj);
    const old = this.#items.get(key);
    if (old !== undefined) this.#unindex(key, old);
    this.#items.set(key, obj);
    this.#index(key, obj);
    return old;
  }

  /** Removes the object under `key`; returns it. */
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  /**
   * Replaces the whole content with `objs` (a relist). Objects whose resourceVersion is
   * unchanged count as neither added nor updated.
   */
  replace(objs: readonly T[]): ReplaceResult {
    const result: ReplaceResult = { added: [], updated: [], deleted: [] };
    const seen = new Set<string>();
    for (const obj of objs) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.#items.get(key);
      if (old !== undefined && old.metadata.resourceVersion === obj.metadata.resourceVersion && old.metadata.resourceVersion !== undefined)
        continue;
      this.upsert(obj);
      if (old === undefined) result.added.push(obj);
      else result.updated.push({ old, new: obj });
    }
    for (const key of [...this.#items.keys()]) {
      if (seen.has(key)) continue;
      const old = this.delete(key);
      if (old !== undefined) result.deleted.push(old);
    }
    return result;
  }

  #index(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name) as Map<string, Set<string>>;
      for (const value of fn(obj)) {
        let set = index.get(value);
        if (set === undefined) index.set(value, (set = new Set()));
        set.add(key);
      }
    }
  }

  #unindex(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name) as Map<string, Set<string>>;
      for (const value of fn(obj)) {
        const set = index.get(value);
        if (set === undefined) continue;
        set.delete(key);
        if (set.size === 0) index.delete(value);
      }
    }
  }
}
