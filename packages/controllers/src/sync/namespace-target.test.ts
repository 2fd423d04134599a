import { describe, expect, it } from 'vitest';
import { type NamespaceTarget, namespaceTargetOf } from './namespace-target.js';

describe('namespaceTargetOf', () => {
  it.each<[string, { name?: string; namespace?: string }, NamespaceTarget]>([
    ['propagates N/N as the member Namespace N', { name: 'team-a', namespace: 'team-a' }, { propagate: true, name: 'team-a' }],
    [
      'refuses a name that differs from its namespace (a tenant naming another namespace)',
      { name: 'victim', namespace: 'tenant-a' },
      { propagate: false, reason: 'InvalidName' },
    ],
    ['refuses an object without a namespace', { name: 'team-a' }, { propagate: false, reason: 'InvalidName' }],
    ['refuses an empty name', { name: '', namespace: '' }, { propagate: false, reason: 'InvalidName' }],
    ['never propagates kube-system', { name: 'kube-system', namespace: 'kube-system' }, { propagate: false, reason: 'Unpropagated' }],
    ['never propagates kube-public', { name: 'kube-public', namespace: 'kube-public' }, { propagate: false, reason: 'Unpropagated' }],
    ['never propagates default', { name: 'default', namespace: 'default' }, { propagate: false, reason: 'Unpropagated' }],
    [
      'never propagates the kubefed namespace',
      { name: 'kube-federation-system', namespace: 'kube-federation-system' },
      { propagate: false, reason: 'Unpropagated' },
    ],
  ])('%s', (_title, meta, expected) => {
    expect(namespaceTargetOf(meta, 'kube-federation-system')).toEqual(expected);
  });
});
