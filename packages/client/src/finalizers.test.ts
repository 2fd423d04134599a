import { describe, expect, it } from 'vitest';
import { addFinalizer, isDeleting, removeFinalizer } from './finalizers.js';
import type { KubeObject, PatchType } from './types.js';

/** Records the patches it is sent and answers with the object they describe. */
class PatchRecorder {
  readonly patches: { name: string; patch: unknown; type: PatchType }[] = [];
  patch(name: string, patch: unknown, type: PatchType): Promise<KubeObject> {
    this.patches.push({ name, patch, type });
    const metadata = (patch as { metadata: KubeObject['metadata'] }).metadata;
    return Promise.resolve({ metadata: { name, ...metadata } });
  }
}

const obj = (finalizers?: string[], deletionTimestamp?: string): KubeObject => ({
  metadata: {
    name: 'web',
    resourceVersion: '7',
    ...(finalizers === undefined ? {} : { finalizers }),
    ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }),
  },
});

describe('finalizers', () => {
  it('adds a finalizer with a merge patch that carries the resourceVersion', async () => {
    const client = new PatchRecorder();
    const patched = await addFinalizer(client, obj(['other']), 'kubefed.io/x');
    expect(client.patches).toEqual([
      { name: 'web', patch: { metadata: { finalizers: ['other', 'kubefed.io/x'], resourceVersion: '7' } }, type: 'merge' },
    ]);
    expect(patched.metadata.finalizers).toEqual(['other', 'kubefed.io/x']);
  });

  it('writes nothing when the finalizer is there already, or absent for a removal', async () => {
    const client = new PatchRecorder();
    const has = obj(['kubefed.io/x']);
    expect(await addFinalizer(client, has, 'kubefed.io/x')).toBe(has);
    const lacks = obj();
    expect(await removeFinalizer(client, lacks, 'kubefed.io/x')).toBe(lacks);
    expect(client.patches).toEqual([]);
  });

  it('removes only the named finalizer', async () => {
    const client = new PatchRecorder();
    await removeFinalizer(client, obj(['a', 'kubefed.io/x', 'b']), 'kubefed.io/x');
    expect(client.patches[0]?.patch).toEqual({ metadata: { finalizers: ['a', 'b'], resourceVersion: '7' } });
  });

  it.each([
    ['no deletionTimestamp', obj(), false],
    ['a deletionTimestamp', obj(['a'], '2026-01-01T00:00:00Z'), true],
  ])('tells whether an object with %s is being deleted', (_, o, expected) => {
    expect(isDeleting(o)).toBe(expected);
  });
});
