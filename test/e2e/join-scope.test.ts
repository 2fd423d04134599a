// A member joined for one control-plane scope under a control plane of the other, as an operator
// meets it after moving a Namespaced federation to Cluster scope: the kube-sim CLI (host +
// member1, member2), Redis, `kubefedctl join` and the kubefed-controller-manager process.
import { RESOURCES } from '@kubefed/api';
import { POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';
import { succeeded } from './support/e2e-federation.js';

const fed = useLocalFederation({ members: ['member1', 'member2'], controllerManager: false, join: false, types: [] });

/** Creates (after deleting any) the KubeFedConfig `kubefed` with `scope`. */
async function kubefedConfig(scope: 'Cluster' | 'Namespaced'): Promise<void> {
  const configs = fed.client('host').resource(RESOURCES.kubeFedConfigs, fed.namespace);
  await configs.delete('kubefed').catch(() => undefined);
  await expect.poll(async () => (await configs.list()).items.length, POLL).toBe(0);
  await configs.create({
    apiVersion: 'core.kubefed.io/v1beta1',
    kind: 'KubeFedConfig',
    metadata: { name: 'kubefed', namespace: fed.namespace },
    spec: { scope },
  });
}

async function join(member: string, ...flags: string[]): Promise<void> {
  succeeded(
    await fed.kubefedctl(['join', member, '--cluster-context', member, '--host-cluster-context', 'host', ...flags]),
    `kubefedctl join ${member}`,
  );
}

/** The Ready condition of a KubeFedCluster as `status reason`. */
async function ready(name: string): Promise<string | undefined> {
  const kfc = await fed.client('host').resource(RESOURCES.kubeFedClusters, fed.namespace).get(name);
  const c = (kfc.status as { conditions?: { type: string; status: string; reason?: string }[] } | undefined)?.conditions?.find(
    (x) => x.type === 'Ready',
  );
  return c === undefined ? undefined : `${c.status} ${c.reason ?? ''}`;
}

describe('join scope', () => {
  it('refuses a member joined with Namespaced-scope RBAC under a Cluster-scope control plane (Ready=False JoinScopeMismatch, logged), and takes it once re-joined', async () => {
    await kubefedConfig('Namespaced');
    await join('member1');
    // The operator moves the federation to Cluster scope; member2 is joined after the move.
    await kubefedConfig('Cluster');
    await join('member2');
    const cm = await fed.startControllerManager();

    await expect.poll(() => ready('member1'), POLL).toBe('False JoinScopeMismatch');
    await expect.poll(() => ready('member2'), POLL).toBe('True ClusterReady');
    const kfc = await fed.client('host').resource(RESOURCES.kubeFedClusters, fed.namespace).get('member1');
    const message = (kfc.status as { conditions: { message: string }[] }).conditions[0]?.message;
    expect(message).toContain(
      `cluster member1 was joined for scope Namespaced (annotation kubefed.io/join-scope of KubeFedCluster ${fed.namespace}/member1)`,
    );
    expect(message).toContain('unjoin it and join it again with this control plane');
    await cm.waitForLine(/"cluster":"member1".*"msg":"the cluster was joined for another control-plane scope; it is not used"/, {
      fromStart: true,
      timeoutMs: POLL.timeout,
    });

    await join('member1', '--error-on-existing=false');
    await expect.poll(() => ready('member1'), POLL).toBe('True ClusterReady');
  });
});
