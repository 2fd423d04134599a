// Where federated objects land and what happens when they go, through the real processes: the
// kube-sim CLI (host + member1..member3), Redis, `kubefedctl join` / `enable --default-types`,
// the kubefed-controller-manager process, and the kubefedctl and kubectl CLIs. Placement by
// cluster list and by KubeFedCluster labels, per-cluster overrides (a broken one included),
// namespace placement, orphaning deletion and `kubefedctl federate` (of one object, and of a
// namespace with --contents). The tests run concurrently, each in a namespace of its own.
import { RESOURCES } from '@kubefed/api';
import { getOrUndefined, type KubeObject } from '@kubefed/client';
import { consistently, POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, it, vi } from 'vitest';
import {
  at,
  createFederatedNamespace,
  FEDERATED_CONFIG_MAPS,
  FEDERATED_DEPLOYMENTS,
  FEDERATED_NAMESPACES,
  kubectl,
  propagatedTo,
  propagationOf,
  succeeded,
} from './support/e2e-federation.js';

const MEMBERS = ['member1', 'member2', 'member3'] as const;

const fed = useLocalFederation({ members: MEMBERS });

const clusters = (...names: string[]) => ({ clusters: names.map((name) => ({ name })) });

function configMap(ns: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'types.kubefed.io/v1beta1', kind: 'FederatedConfigMap', metadata: { name, namespace: ns }, spec };
}

/** What each member holds of a ConfigMap: its data, or `absent`. */
function memberData(ns: string, name: string): Promise<Record<string, unknown>> {
  return Promise.all(
    MEMBERS.map(async (m) => {
      const obj = await getOrUndefined(fed.client(m).resource(RESOURCES.configMaps, ns), name);
      return [m, obj === undefined ? 'absent' : obj.data] as const;
    }),
  ).then(Object.fromEntries);
}

/** Runs kubefedctl against the host context; the command must succeed. */
async function kubefedctl(...args: string[]): Promise<string> {
  return succeeded(await fed.kubefedctl([...args, '--host-cluster-context', 'host']), `kubefedctl ${args.join(' ')}`);
}

describe.concurrent('placement, overrides and deletion', () => {
  it('moves the member copies when spec.placement.clusters changes', async ({ expect }) => {
    const ns = 'placement-list';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const cms = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
    await cms.create(configMap(ns, 'app', { template: { data: { a: '1' } }, placement: clusters('member1') }));
    await expect.poll(() => memberData(ns, 'app'), POLL).toEqual({ member1: { a: '1' }, member2: 'absent', member3: 'absent' });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(['member1']));

    await cms.patch('app', { spec: { placement: clusters('member2', 'member3') } }, 'merge');
    await expect.poll(() => memberData(ns, 'app'), POLL).toEqual({ member1: 'absent', member2: { a: '1' }, member3: { a: '1' } });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(['member2', 'member3']));

    await cms.patch('app', { spec: { placement: clusters() } }, 'merge');
    await expect.poll(() => memberData(ns, 'app'), POLL).toEqual({ member1: 'absent', member2: 'absent', member3: 'absent' });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo([]));
  });

  it('applies each cluster its own overrides and reports ApplyOverridesFailed only for the cluster whose override path does not apply', async ({
    expect,
  }) => {
    const ns = 'overrides';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const cms = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
    await cms.create(
      configMap(ns, 'app', {
        template: { data: { greeting: 'hello', level: 'info' } },
        placement: clusters(...MEMBERS),
        overrides: [
          { clusterName: 'member1', clusterOverrides: [{ path: '/data/greeting', value: 'hej' }] },
          // Valid as a JSON pointer, but there is no /data/missing to descend into.
          { clusterName: 'member2', clusterOverrides: [{ path: '/data/missing/key', value: 'x' }] },
          { clusterName: 'member3', clusterOverrides: [{ path: '/data/level', op: 'remove' }] },
        ],
      }),
    );
    await expect
      .poll(() => propagationOf(cms, 'app'), POLL)
      .toEqual({
        current: true,
        propagation: 'False',
        reason: 'CheckClusters',
        clusters: { member1: 'OK', member2: 'ApplyOverridesFailed', member3: 'OK' },
      });
    expect(await memberData(ns, 'app')).toEqual({
      member1: { greeting: 'hej', level: 'info' },
      member2: 'absent',
      member3: { greeting: 'hello' },
    });

    // Fixing the override lets member2 catch up.
    await cms.patch(
      'app',
      { spec: { overrides: [{ clusterName: 'member1', clusterOverrides: [{ path: '/data/greeting', value: 'hej' }] }] } },
      'merge',
    );
    await expect
      .poll(() => memberData(ns, 'app'), POLL)
      .toEqual({
        member1: { greeting: 'hej', level: 'info' },
        member2: { greeting: 'hello', level: 'info' },
        member3: { greeting: 'hello', level: 'info' },
      });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(MEMBERS));
  });

  it('places an object by a clusterSelector on KubeFedCluster labels and follows label changes made with kubectl label', async ({
    expect,
  }) => {
    const ns = 'selector';
    const host = fed.client('host');
    await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await host.resource(FEDERATED_NAMESPACES, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: ns, namespace: ns },
      spec: { placement: { clusterSelector: {} } },
    });
    const label = async (cluster: string, value: string) => {
      succeeded(
        await kubectl(fed, ['label', 'kubefedcluster', cluster, '-n', fed.namespace, '--overwrite', `e2e-selector=${value}`]),
        `kubectl label ${cluster}`,
      );
    };
    await label('member1', 'gold');
    await label('member2', 'silver');
    await label('member3', 'gold');
    const cms = host.resource(FEDERATED_CONFIG_MAPS, ns);
    await cms.create(
      configMap(ns, 'app', {
        template: { data: { tier: 'gold' } },
        placement: { clusterSelector: { matchLabels: { 'e2e-selector': 'gold' } } },
      }),
    );
    await expect
      .poll(() => memberData(ns, 'app'), POLL)
      .toEqual({ member1: { tier: 'gold' }, member2: 'absent', member3: { tier: 'gold' } });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(['member1', 'member3']));

    await label('member2', 'gold');
    await label('member3', 'bronze');
    await expect
      .poll(() => memberData(ns, 'app'), POLL)
      .toEqual({ member1: { tier: 'gold' }, member2: { tier: 'gold' }, member3: 'absent' });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(['member1', 'member2']));
  });

  it('reports NamespaceNotFederated for an object whose namespace has no FederatedNamespace, and propagates it once the namespace is federated', async ({
    expect,
  }) => {
    const ns = 'unfederated';
    const host = fed.client('host');
    await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const cms = host.resource(FEDERATED_CONFIG_MAPS, ns);
    await cms.create(configMap(ns, 'app', { template: { data: { a: '1' } }, placement: clusters(...MEMBERS) }));
    await expect
      .poll(() => propagationOf(cms, 'app'), POLL)
      .toEqual({ current: true, propagation: 'False', reason: 'NamespaceNotFederated', clusters: {} });
    expect(await memberData(ns, 'app')).toEqual({ member1: 'absent', member2: 'absent', member3: 'absent' });

    await host.resource(FEDERATED_NAMESPACES, ns).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: ns, namespace: ns },
      spec: { placement: clusters('member1', 'member2') },
    });
    // The object is placed in member3 too, but its namespace is not: only the namespace's clusters get it.
    await expect.poll(() => memberData(ns, 'app'), POLL).toEqual({ member1: { a: '1' }, member2: { a: '1' }, member3: 'absent' });
    await expect.poll(() => propagationOf(cms, 'app'), POLL).toEqual(propagatedTo(['member1', 'member2']));
  });

  it('leaves the member copies in place, without the managed label, when a federated object with orphaning enabled is deleted', async ({
    expect,
  }) => {
    const ns = 'orphaning';
    await createFederatedNamespace(fed, ns, MEMBERS);
    const cms = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
    await cms.create(configMap(ns, 'kept', { template: { data: { a: '1' } }, placement: clusters(...MEMBERS) }));
    await cms.create(configMap(ns, 'removed', { template: { data: { a: '1' } }, placement: clusters(...MEMBERS) }));
    await expect
      .poll(() => Promise.all([propagationOf(cms, 'kept'), propagationOf(cms, 'removed')]), POLL)
      .toEqual([propagatedTo(MEMBERS), propagatedTo(MEMBERS)]);

    await kubefedctl('orphaning-deletion', 'enable', 'federatedconfigmaps', 'kept', '-n', ns);
    const orphaning = await Promise.all(
      ['kept', 'removed'].map((name) => kubefedctl('orphaning-deletion', 'status', 'federatedconfigmaps', name, '-n', ns)),
    );
    expect(orphaning.map((o) => o.trim())).toEqual(['Enabled', 'Disabled']);
    succeeded(
      await kubectl(fed, ['delete', 'federatedconfigmaps', 'kept', 'removed', '-n', ns, '--wait=false']),
      'kubectl delete federatedconfigmaps',
    );

    await expect
      .poll(() => Promise.all([getOrUndefined(cms, 'kept'), getOrUndefined(cms, 'removed')]), POLL)
      .toEqual([undefined, undefined]);
    await expect.poll(() => memberData(ns, 'removed'), POLL).toEqual({ member1: 'absent', member2: 'absent', member3: 'absent' });
    const managedLabels = () =>
      Promise.all(
        MEMBERS.map(async (m) => {
          const obj = await getOrUndefined(fed.client(m).resource(RESOURCES.configMaps, ns), 'kept');
          return obj === undefined ? 'absent' : { data: obj.data, managed: obj.metadata.labels?.['kubefed.io/managed'] ?? 'unlabelled' };
        }),
      );
    const orphaned = MEMBERS.map(() => ({ data: { a: '1' }, managed: 'unlabelled' }));
    await expect.poll(managedLabels, POLL).toEqual(orphaned);
    await consistently(async () => expect(await managedLabels()).toEqual(orphaned), {
      durationMs: 2000,
      intervalMs: 200,
      message: 'orphaned member copies',
    });
  });

  it('passes the kubefed.io/deleteoption annotation to the member deletes: with Orphan the member ReplicaSets outlive their Deployments', async ({
    expect,
  }) => {
    const ns = 'deleteoption';
    const placed = ['member1', 'member2'];
    await createFederatedNamespace(fed, ns, placed);
    const deployments = fed.client('host').resource(FEDERATED_DEPLOYMENTS, ns);
    const labels = { app: 'kept-pods' };
    await deployments.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedDeployment',
      metadata: { name: 'web', namespace: ns, annotations: { 'kubefed.io/deleteoption': '{"propagationPolicy":"Orphan"}' } },
      spec: {
        template: {
          spec: {
            replicas: 1,
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
          },
        },
        placement: clusters(...placed),
      },
    });
    await expect.poll(() => propagationOf(deployments, 'web'), POLL).toEqual(propagatedTo(placed));
    const replicaSets = () =>
      Promise.all(
        placed.map(async (m) => {
          const items = (await fed.client(m).resource(RESOURCES.replicaSets, ns).list()).items;
          return items.map((rs) => ({ owners: ((rs.metadata['ownerReferences'] ?? []) as { kind: string }[]).map((o) => o.kind) }));
        }),
      );
    await expect.poll(replicaSets, POLL).toEqual([[{ owners: ['Deployment'] }], [{ owners: ['Deployment'] }]]);

    await deployments.delete('web');
    await expect.poll(() => getOrUndefined(deployments, 'web'), POLL).toBeUndefined();
    await expect
      .poll(() => Promise.all(placed.map((m) => getOrUndefined(fed.client(m).resource(RESOURCES.deployments, ns), 'web'))), POLL)
      .toEqual([undefined, undefined]);
    await expect.poll(replicaSets, POLL).toEqual([[{ owners: [] }], [{ owners: [] }]]);
  });

  it('federates an existing host ConfigMap with kubefedctl federate and propagates it to every member', async ({ expect }) => {
    const ns = 'federate';
    await createFederatedNamespace(fed, ns, MEMBERS);
    await fed
      .client('host')
      .resource(RESOURCES.configMaps, ns)
      .create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'web-config', namespace: ns, labels: { app: 'web' } },
        data: { greeting: 'hello', 'log-level': 'debug' },
      });

    const out = await kubefedctl('federate', 'configmaps', 'web-config', '-n', ns);
    expect(out).toContain('web-config');
    const cms = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
    const created = await cms.get('web-config');
    expect(at(created, '/spec/template')).toEqual({
      metadata: { labels: { app: 'web' } },
      data: { greeting: 'hello', 'log-level': 'debug' },
    });

    await expect.poll(() => propagationOf(cms, 'web-config'), POLL).toEqual(propagatedTo(MEMBERS));
    const copies = await Promise.all(MEMBERS.map((m) => fed.client(m).resource(RESOURCES.configMaps, ns).get('web-config')));
    for (const copy of copies) {
      expect(copy.data).toEqual({ greeting: 'hello', 'log-level': 'debug' });
      expect(copy.metadata.labels).toEqual({ app: 'web', 'kubefed.io/managed': 'true' });
    }
  });

  it('federates a namespace with federate --contents, leaving the members their own ReplicaSets, Pods, root CA and default ServiceAccount', async ({
    expect,
  }) => {
    const ns = 'federate-contents';
    const host = fed.client('host');
    await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const lastApplied = { 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"v1"}' };
    await host.resource(RESOURCES.deployments, ns).create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: ns, annotations: lastApplied },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      },
    });
    await host.resource(RESOURCES.configMaps, ns).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app-config', namespace: ns, annotations: lastApplied },
      data: { mode: 'fast' },
    });
    // The host's controllers: the Deployment's ReplicaSet and Pod, the root CA and the default ServiceAccount.
    const count = async (resource: typeof RESOURCES.pods) => (await host.resource(resource, ns).list()).items.length;
    await expect.poll(() => count(RESOURCES.pods), POLL).toBe(1);
    await expect.poll(() => count(RESOURCES.replicaSets), POLL).toBe(1);
    await expect.poll(() => getOrUndefined(host.resource(RESOURCES.configMaps, ns), 'kube-root-ca.crt'), POLL).toBeDefined();
    await expect.poll(() => getOrUndefined(host.resource(RESOURCES.serviceAccounts, ns), 'default'), POLL).toBeDefined();

    const r = await fed.kubefedctl(['federate', 'namespace', ns, '--contents', '--host-cluster-context', 'host']);
    succeeded(r, 'kubefedctl federate namespace --contents');
    expect([...r.stdout.matchAll(/^Successfully created (\S+ "[^"]+")/gm)].map((m) => m[1]).sort()).toEqual([
      `FederatedConfigMap "${ns}/app-config"`,
      `FederatedDeployment "${ns}/web"`,
      `FederatedNamespace "${ns}/${ns}"`,
    ]);
    expect(r.stderr).toContain('skipped configmap/kube-root-ca.crt: created by Kubernetes in every namespace');
    expect(r.stderr).toContain('skipped serviceaccount/default: created by Kubernetes in every namespace');
    expect(r.stderr).toMatch(/^skipped replicaset\.apps\/web-\S+: its controller Deployment web makes it in each cluster/m);
    expect(r.stderr).toMatch(/^skipped pod\/web-\S+: its controller ReplicaSet web-\S+ makes it in each cluster/m);
    expect(r.stderr).not.toContain('warning:');

    // federate places what it creates in every cluster: every joined one (the host too when it is a member).
    await expect.poll(() => propagationOf(host.resource(FEDERATED_CONFIG_MAPS, ns), 'app-config'), POLL).toEqual(propagatedTo(fed.joined));
    await expect.poll(() => propagationOf(host.resource(FEDERATED_DEPLOYMENTS, ns), 'web'), POLL).toEqual(propagatedTo(fed.joined));
    expect(await getOrUndefined(host.resource(FEDERATED_CONFIG_MAPS, ns), 'kube-root-ca.crt')).toBeUndefined();
    // Each member's root CA is its own (never labelled managed), and its pods are its ReplicaSet's.
    for (const m of fed.joined) {
      const member = fed.client(m);
      const rootCa = await vi.waitFor(() => member.resource(RESOURCES.configMaps, ns).get('kube-root-ca.crt'), POLL);
      expect(rootCa.metadata.labels?.['kubefed.io/managed']).toBeUndefined();
      await expect.poll(async () => (await member.resource(RESOURCES.pods, ns).list()).items.length, POLL).toBe(1);
      const [pod] = (await member.resource(RESOURCES.pods, ns).list()).items;
      expect(pod?.metadata.labels?.['kubefed.io/managed']).toBeUndefined();
      expect((pod?.metadata['ownerReferences'] as { kind: string }[] | undefined)?.map((o) => o.kind)).toEqual(['ReplicaSet']);
    }
  });
});
