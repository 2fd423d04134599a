import { CLUSTER_CONNECTION_ANNOTATION, CLUSTER_NAME_ANNOTATION, connectionDigest, type KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { createMemberFleet, type MemberConfig } from './member-fleet.js';

const spec = { apiEndpoint: 'https://127.0.0.1:6443', secretRef: { name: 'member1-secret' } };

function config(labels: Record<string, string>, secretVersion = '1', apiEndpoint = spec.apiEndpoint): MemberConfig {
  const clusterSpec = { ...spec, apiEndpoint };
  const secret: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'member1-secret',
      namespace: 'kube-federation-system',
      uid: 'secret-uid',
      resourceVersion: secretVersion,
      annotations: { [CLUSTER_NAME_ANNOTATION]: 'member1', [CLUSTER_CONNECTION_ANNOTATION]: connectionDigest(clusterSpec) },
    },
    data: { token: Buffer.from('t0ken').toString('base64') },
  };
  return { cluster: { metadata: { name: 'member1', namespace: 'kube-federation-system', labels }, spec: clusterSpec }, secret };
}

describe('createMemberFleet', () => {
  it('keeps a member client through label changes, and replaces it when the spec or the Secret changes', async () => {
    const fleet = createMemberFleet();
    try {
      const first = fleet.engage('member1', config({ region: 'eu', zone: 'a' }));
      expect(fleet.engage('member1', config({ zone: 'a', region: 'eu' }))).toBe(first);
      expect(fleet.engage('member1', config({ region: 'us' }))).toBe(first);

      const resecreted = fleet.engage('member1', config({ region: 'us' }, '2'));
      expect(resecreted).not.toBe(first);

      expect(fleet.engage('member1', config({ region: 'us' }, '2', 'https://127.0.0.2:6443'))).not.toBe(resecreted);
    } finally {
      await fleet.disengage('member1');
    }
  });
});
