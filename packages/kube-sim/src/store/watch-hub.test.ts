import { describe, expect, it } from 'vitest';
import { ObjectStore } from './object-store.js';

const cm = (
  name: string,
  labels: Record<string, string> = {},
): { metadata: { name: string; namespace: string; labels: Record<string, string> } } => ({
  metadata: { name, namespace: 'ns', labels },
});

describe('object store and watch history', () => {
  it('assigns increasing resourceVersions and replays events after a version', () => {
    const store = new ObjectStore(100, 1);
    store.put('/configmaps', cm('a'), 'ADDED');
    const after = store.currentRv;
    store.put('/configmaps', cm('b'), 'ADDED');
    store.remove('/configmaps', 'ns', 'a');
    const events = store.hub.since(after, '/configmaps')!;
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED b', 'DELETED a']);
    expect(Number(events[1]!.object.metadata.resourceVersion)).toBe(store.currentRv);
  });

  it('answers undefined (410 Gone) for versions older than the retained window', () => {
    const store = new ObjectStore(2, 1);
    const start = store.currentRv;
    for (const n of ['a', 'b', 'c']) store.put('/configmaps', cm(n), 'ADDED');
    expect(store.hub.since(start, '/configmaps')).toBeUndefined();
    expect(store.hub.since(start + 1, '/configmaps')!.map((e) => e.object.metadata.name)).toEqual(['b', 'c']);
    store.compactHistory();
    expect(store.hub.since(start + 2, '/configmaps')).toBeUndefined();
    expect(store.hub.since(store.currentRv, '/configmaps')).toEqual([]);
  });

  it('rolls a list back to an earlier resourceVersion for consistent pagination', () => {
    const store = new ObjectStore(100, 1);
    store.put('/configmaps', cm('a', { v: '1' }), 'ADDED');
    const snapshotRv = store.currentRv;
    store.put('/configmaps', cm('a', { v: '2' }), 'MODIFIED');
    store.put('/configmaps', cm('b'), 'ADDED');
    const snap = store.snapshot('/configmaps', snapshotRv, 'ns')!;
    expect(snap.map((o) => `${o.metadata.name}:${o.metadata.labels?.['v'] ?? ''}`)).toEqual(['a:1']);
  });

  it('indexes dependents by owner uid', () => {
    const store = new ObjectStore(10, 1);
    store.put(
      '/configmaps',
      {
        metadata: {
          name: 'dep',
          namespace: 'ns',
          uid: 'd',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'owner' }],
        },
      },
      'ADDED',
    );
    expect(store.dependentsOf('owner')).toEqual([{ grKey: '/configmaps', key: 'ns/dep' }]);
    store.remove('/configmaps', 'ns', 'dep');
    expect(store.dependentsOf('owner')).toEqual([]);
  });
});
