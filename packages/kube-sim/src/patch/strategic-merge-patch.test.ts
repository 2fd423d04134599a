import { describe, expect, it } from 'vitest';
import { applyMergePatch } from './merge-patch.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

interface Container {
  name: string;
  image?: string;
  env?: unknown[];
  ports?: unknown[];
}
interface Pod {
  metadata: { finalizers: string[]; labels: Record<string, string> };
  spec: Record<string, unknown> & { containers: Container[]; volumes: unknown[] };
}

const pod = {
  metadata: { name: 'p', finalizers: ['a'], labels: { x: '1' } },
  spec: {
    containers: [
      { name: 'app', image: 'nginx', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] },
      { name: 'side', image: 'busybox' },
    ],
    volumes: [{ name: 'v1', emptyDir: {} }],
  },
};

describe('strategic merge patch', () => {
  it.each([
    [
      'merges containers by name',
      { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } },
      (r: Pod) => expect(r.spec.containers.map((c: Container) => c.image)).toEqual(['nginx:2', 'busybox']),
    ],
    [
      'appends a container with a new name',
      { spec: { containers: [{ name: 'new', image: 'x' }] } },
      (r: Pod) => expect(r.spec.containers.map((c: Container) => c.name)).toEqual(['app', 'side', 'new']),
    ],
    [
      'deletes an item with $patch: delete',
      { spec: { containers: [{ name: 'side', $patch: 'delete' }] } },
      (r: Pod) => expect(r.spec.containers.map((c: Container) => c.name)).toEqual(['app']),
    ],
    [
      'merges env inside a merged container',
      { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '2' }] }] } },
      (r: Pod) =>
        expect(r.spec.containers[0]!.env).toEqual([
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ]),
    ],
    [
      'merges container ports on containerPort',
      { spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }] }] } },
      (r: Pod) => expect(r.spec.containers[0]!.ports).toEqual([{ containerPort: 80, name: 'http' }]),
    ],
    ['unions metadata.finalizers', { metadata: { finalizers: ['b', 'a'] } }, (r: Pod) => expect(r.metadata.finalizers).toEqual(['a', 'b'])],
    ['deletes a key with null', { metadata: { labels: { x: null } } }, (r: Pod) => expect(r.metadata.labels).toEqual({})],
    [
      'replaces a list with $patch: replace',
      { spec: { volumes: [{ $patch: 'replace' }, { name: 'v2' }] } },
      (r: Pod) => expect(r.spec.volumes).toEqual([{ name: 'v2' }]),
    ],
    [
      'drops $setElementOrder directives',
      { spec: { '$setElementOrder/containers': [{ name: 'app' }], containers: [{ name: 'app', image: 'i' }] } },
      (r: Pod) => expect(Object.keys(r.spec)).not.toContain('$setElementOrder/containers'),
    ],
  ])('%s', (_title, patch, check) => {
    const before = structuredClone(pod);
    check(applyStrategicMergePatch(pod, patch) as Pod);
    expect(pod).toEqual(before);
  });

  it('replaces lists and deletes null keys in a JSON merge patch', () => {
    expect(applyMergePatch({ a: [1, 2], b: { c: 1, d: 2 } }, { a: [3], b: { c: null } })).toEqual({ a: [3], b: { d: 2 } });
  });
});
