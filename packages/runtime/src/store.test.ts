import { describe, expect, it } from 'vitest';
import type { KubeObject } from './kube-types.js';
import { Store } from './store.js';

function obj(namespace: string | undefined, name: string, rv: string, labels: Record<string, string> = {}, spec: unknown = {}): KubeObject {
  const metadata: KubeObject['metadata'] = { name, resourceVersion: rv, labels };
  if (namespace !== undefined) metadata.namespace = namespace;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, spec };
}

describe('Store', () => {
  it('keys objects by namespace/name, or name when cluster-scoped', () => {
    const s = new Store();
    s.upsert(obj('ns', 'a', '1'));
    s.upsert(obj(undefined, 'node-1', '2'));
    expect(s.keys().sort()).toEqual(['node-1', 'ns/a']);
    expect(s.get('ns/a')?.metadata.name).toBe('a');
  });

  it('indexes by namespace and by label and keeps indexes current on update and delete', () => {
    const s = new Store();
    s.upsert(obj('ns1', 'a', '1', { app: 'web' }));
    s.upsert(obj('ns1', 'b', '1', { app: 'db' }));
    s.upsert(obj('ns2', 'c', '1', { app: 'web' }));
    expect(
      s
        .listByNamespace('ns1')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(
      s
        .listByLabel('app', 'web')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
    s.upsert(obj('ns1', 'a', '2', { app: 'db' }));
    expect(s.listByLabel('app', 'web').map((o) => o.metadata.name)).toEqual(['c']);
    s.delete('ns2/c');
    expect(s.listByLabel('app', 'web')).toEqual([]);
    expect(s.listByNamespace('ns2')).toEqual([]);
  });

  it('supports custom index functions', () => {
    const s = new Store({
      owner: (o) => (typeof o.spec === 'object' && o.spec !== null && 'owner' in o.spec ? [String(o.spec.owner)] : []),
    });
    s.upsert(obj('ns', 'a', '1', {}, { owner: 'x' }));
    s.upsert(obj('ns', 'b', '1', {}, {}));
    expect(s.byIndex('owner', 'x').map((o) => o.metadata.name)).toEqual(['a']);
    expect(() => s.byIndex('missing', 'x')).toThrow(/missing/);
  });

  it('hands out deep-frozen objects that callers cannot mutate', () => {
    const s = new Store();
    s.upsert(obj('ns', 'a', '1', { app: 'web' }, { nested: { replicas: 1 } }));
    const got = s.get('ns/a')!;
    expect(Object.isFrozen(got)).toBe(true);
    expect(() => {
      (got.metadata.labels as Record<string, string>).app = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (got.spec as { nested: { replicas: number } }).nested.replicas = 5;
    }).toThrow(TypeError);
    expect(s.get('ns/a')?.metadata.labels?.app).toBe('web');
  });

  it('reports adds, updates and deletes when the content is replaced by a relist', () => {
    const s = new Store();
    s.upsert(obj('ns', 'keep', '1'));
    s.upsert(obj('ns', 'change', '1'));
    s.upsert(obj('ns', 'gone', '1'));
    const r = s.replace([obj('ns', 'keep', '1'), obj('ns', 'change', '2'), obj('ns', 'new', '3')]);
    expect(r.added.map((o) => o.metadata.name)).toEqual(['new']);
    expect(r.updated.map((u) => [u.old.metadata.resourceVersion, u.new.metadata.resourceVersion])).toEqual([['1', '2']]);
    expect(r.deleted.map((o) => o.metadata.name)).toEqual(['gone']);
    expect(s.keys().sort()).toEqual(['ns/change', 'ns/keep', 'ns/new']);
  });
});
