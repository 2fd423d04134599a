import { describe, expect, it } from 'vitest';
import { isValidFederatedNamespace, type ObjectKey, type ResolvedKey, resolveSyncKey } from './resolve-key.js';

const k = (namespace: string, name: string): ObjectKey => ({ namespace, name });
const opts = { kubefedNamespace: 'kube-federation-system' };

describe('resolveSyncKey (§4.4.2)', () => {
  it.each<[string, ObjectKey, boolean, ResolvedKey]>([
    ['maps a namespaced key to itself', k('ns', 'web'), false, { ignore: false, federated: k('ns', 'web'), target: k('ns', 'web') }],
    ['maps a cluster-scoped key to itself', k('', 'admin'), false, { ignore: false, federated: k('', 'admin'), target: k('', 'admin') }],
    ['maps a Namespace event N to the FederatedNamespace N/N', k('', 'team-a'), true, { ignore: false, federated: k('team-a', 'team-a'), target: k('', 'team-a') }],
    ['maps a FederatedNamespace event N/N to the Namespace N', k('team-a', 'team-a'), true, { ignore: false, federated: k('team-a', 'team-a'), target: k('', 'team-a') }],
    ['ignores kube-system', k('', 'kube-system'), true, { ignore: true }],
    ['ignores kube-public', k('kube-public', 'kube-public'), true, { ignore: true }],
    ['ignores default', k('', 'default'), true, { ignore: true }],
    ['ignores the kubefed namespace', k('', 'kube-federation-system'), true, { ignore: true }],
    ['does not ignore kube-system for other targets', k('kube-system', 'cm'), false, { ignore: false, federated: k('kube-system', 'cm'), target: k('kube-system', 'cm') }],
  ])('%s', (_title, key, targetIsNamespace, expected) => {
    expect(resolveSyncKey(key, { ...opts, targetIsNamespace })).toEqual(expected);
  });
});

describe('isValidFederatedNamespace (§4.4.2)', () => {
  it.each<[string | undefined, string | undefined, boolean]>([
    ['team-a', 'team-a', true],
    ['other', 'team-a', false],
    [undefined, 'team-a', false],
    ['', '', false],
  ])('name %j in namespace %j → %s', (name, namespace, expected) => {
    expect(isValidFederatedNamespace({ name, namespace })).toBe(expected);
  });
});
