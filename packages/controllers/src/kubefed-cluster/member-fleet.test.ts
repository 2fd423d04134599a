import { CLUSTER_CONNECTION_ANNOTATION, CLUSTER_NAME_ANNOTATION, connectionDigest, type KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { createMemberFleet, type MemberConfig } from './member-fleet.js';

const spec = { apiEndpoint: 'https://127.0.0.1:6443', secretRef: { name: 'member1-secret' } };

function config(labels: Record<string, string>, secretVersion = '1'): MemberConfig {
  const secret: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'member1-secret',
      namespace: 'kube-federation-system',
      uid: 'secret-uid',
      resourceVersion: secretVersion,
      annotations: { [CLUSTER_NAME_ANNOTATION]: 'member1', [CLUSTER_CONNECTION_ANNOTATION]: connectionDigest(spec) },
    },
    data: { token: Buffer.from('t0ken').toString('base64') },
  };
  return { cluster: { metadata: { name: 'member1', namespace: 'kube-federation-system', labels }, spec }, secret };
}

describe('createMemberFleet', () => {
  it('keeps a member client while the cluster and Secret are the same (in any key order), and replaces it when either changes', async () => {
    const fleet = createMemberFleet();
    try {
      const first = fleet.engage('member1', config({ region: 'eu', zone: 'a' }));
      expect(fleet.engage('member1', config({ zone: 'a', region: 'eu' }))).toBe(first);

      const relabelled = fleet.engage('member1', config({ region: 'us', zone: 'a' }));
      expect(relabelled).not.toBe(first);

      expect(fleet.engage('member1', config({ region: 'us', zone: 'a' }, '2'))).not.toBe(relabelled);
    } finally {
      await fleet.disengage('member1');
    }
  });
});
