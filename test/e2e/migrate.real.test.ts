/**
 * The takeover of a running KubeFed v0.10.0 federation (vitest project `real`: needs
 * `npm run kube:build` and `npm run kubefed:build`): KubeFed with its webhook on a real host,
 * two members joined and ConfigMaps enabled with its kubefedctl, 20 FederatedConfigMaps (one
 * with an override) and a FederatedNamespace converged under it. Then `kubefedctl migrate`
 * refuses while KubeFed's leader holds its lock, lists every change with `--dry-run` once KubeFed
 * is stopped and its lease expired, makes them, and our controller manager takes over without
 * writing to a member; a change made afterwards reaches both members.
 */
import { performance } from 'node:perf_hooks';
import { RESOURCES } from '@kubefed/api';
import {
  CLUSTER_CONNECTION_ANNOTATION,
  CLUSTER_NAME_ANNOTATION,
  connectionDigest,
  DynamicClient,
  getOrUndefined,
  Kubeconfig,
  type KubeFedClusterInput,
  type KubeObject,
  type ResourceClient,
} from '@kubefed/client';
import {
  consistently,
  ManagedProcess,
  runSourceEntry,
  sourceEntry,
  startKubeFed,
  startRealClusters,
  startRedis,
  type CommandResult,
} from '@kubefed/testing';
import { describe, expect, it } from 'vitest';

const FEDERATED_CONFIG_MAPS = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' } as const;
const VALIDATING = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' } as const;
const MUTATING = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations' } as const;
const POLL = { timeout: 90_000, interval: 250 } as const;
const MEMBERS = ['member1', 'member2'] as const;
const NS = 'shop';
const COUNT = 20;
const names = Array.from({ length: COUNT }, (_, i) => `web-${String(i).padStart(2, '0')}`);

interface Condition {
  type?: string;
  status?: string;
}
const conditionOf = (obj: KubeObject | undefined, type: string): string | undefined =>
  (obj?.['status'] as { conditions?: Condition[] } | undefined)?.conditions?.find((c) => c.type === type)?.status;

/** Every event of the watched ConfigMaps (namespace {@link NS}, kube-root-ca.crt aside) and Namespace {@link NS} of the members, from the moment it starts. */
class MemberWrites implements AsyncDisposable {
  readonly events: string[] = [];
  readonly errors: string[] = [];
  readonly #abort = new AbortController();
  readonly #running: Promise<void>[] = [];

  static async start(members: ReadonlyMap<string, DynamicClient>): Promise<MemberWrites> {
    const w = new MemberWrites();
    for (const [cluster, client] of members) {
      await w.#follow(
        cluster,
        client.resource(RESOURCES.configMaps),
        (o) => o.metadata.namespace === NS && o.metadata.name !== 'kube-root-ca.crt',
      );
      await w.#follow(cluster, client.resource(RESOURCES.namespaces), (o) => o.metadata.name === NS);
    }
    return w;
  }

  async #follow(cluster: string, resource: ResourceClient, watched: (o: KubeObject) => boolean): Promise<void> {
    let from = (await resource.list({ limit: 1 })).metadata.resourceVersion;
    const signal = this.#abort.signal;
    this.#running.push(
      (async () => {
        try {
          while (!signal.aborted) {
            for await (const event of resource.watch({ resourceVersion: from, signal })) {
              if (event.type === 'ERROR') throw new Error(JSON.stringify(event.object));
              from = event.object.metadata.resourceVersion ?? from;
              if (event.type !== 'BOOKMARK' && watched(event.object))
                this.events.push(`${cluster} ${event.type} ${event.object.kind ?? ''} ${event.object.metadata.name ?? ''}`);
            }
          }
        } catch (err) {
          if (!signal.aborted) this.errors.push(`${cluster}: ${err instanceof Error ? err.message : String(err)}`);
        }
      })(),
    );
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#running);
  }
}

/** One value (summed over its series) of a Prometheus text. */
function metric(text: string, name: string, keep: (labels: string) => boolean = () => true): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (m !== null && keep(m[1] ?? '')) sum += Number(m[2]);
  }
  return sum;
}

describe('kubefedctl migrate', () => {
  it(
    "takes a converged KubeFed federation over: refuses while KubeFed's leader holds its lock, lists then makes its changes, and our controller manager writes nothing to the members",
    { timeout: 300_000 },
    async () => {
      await using real = await startRealClusters({ names: ['host', ...MEMBERS], nodes: 1 });
      await using redis = await startRedis();
      await using kubefed = await startKubeFed({
        kubeconfigPath: real.kubeconfigPath,
        context: 'host',
        federatedTypes: ['namespaces'],
        webhook: true,
        kubeFedConfig: { clusterHealthCheck: { period: '1s' }, controllerDuration: { availableDelay: '1s' } },
      });
      const kubeconfig = Kubeconfig.fromFile(real.kubeconfigPath);
      using host = DynamicClient.fromKubeconfig(kubeconfig, { context: 'host', qps: 0 });
      const members = new Map(MEMBERS.map((m) => [m, DynamicClient.fromKubeconfig(kubeconfig, { context: m, qps: 0 })]));
      using _closeMembers = { [Symbol.dispose]: () => members.forEach((c) => c.close()) };
      const ours = (args: readonly string[]): Promise<CommandResult> =>
        runSourceEntry(
          'packages/kubefedctl/src/main.ts',
          ['--kubeconfig', real.kubeconfigPath, '--host-cluster-context', 'host', ...args],
          {
            timeoutMs: 90_000,
          },
        );

      // KubeFed's way: kubefedctl enable and join.
      const enable = await kubefed.kubefedctl([
        'enable',
        'configmaps',
        '--host-cluster-context=host',
        `--kubeconfig=${real.kubeconfigPath}`,
      ]);
      expect(enable, enable.stderr).toMatchObject({ code: 0 });
      for (const m of MEMBERS) await kubefed.join(m, { context: m });
      const clusters = host.resource(RESOURCES.kubeFedClusters, kubefed.namespace);
      for (const m of MEMBERS) await expect.poll(async () => conditionOf(await clusters.get(m), 'Ready'), POLL).toBe('True');

      const placement = { clusters: MEMBERS.map((name) => ({ name })) };
      await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      await host.resource(RESOURCES.federatedNamespaces, NS).create({
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedNamespace',
        metadata: { name: NS, namespace: NS },
        spec: { placement },
      });
      const fcms = host.resource(FEDERATED_CONFIG_MAPS, NS);
      for (const name of names)
        await fcms.create({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedConfigMap',
          metadata: { name, namespace: NS },
          spec: {
            template: { data: { greeting: 'hello', name } },
            placement,
            ...(name === 'web-00'
              ? { overrides: [{ clusterName: 'member2', clusterOverrides: [{ path: '/data/greeting', value: 'hola' }] }] }
              : {}),
          },
        });
      const expectedData = (cluster: string, name: string): Record<string, string> => ({
        greeting: name === 'web-00' && cluster === 'member2' ? 'hola' : 'hello',
        name,
      });
      const membersConverged = async (): Promise<boolean> => {
        for (const [cluster, client] of members) {
          const items = (await client.resource(RESOURCES.configMaps, NS).list()).items;
          for (const name of names)
            if (JSON.stringify(items.find((i) => i.metadata.name === name)?.['data']) !== JSON.stringify(expectedData(cluster, name)))
              return false;
        }
        return true;
      };
      const allPropagated = async (): Promise<string[]> => {
        const notTrue = (await fcms.list()).items.filter((o) => conditionOf(o, 'Propagation') !== 'True').map((o) => o.metadata.name ?? '');
        const fns = await getOrUndefined(host.resource(RESOURCES.federatedNamespaces, NS), NS);
        return conditionOf(fns, 'Propagation') === 'True' ? notTrue : [...notTrue, `namespace/${NS}`];
      };
      await expect.poll(membersConverged, POLL).toBe(true);
      await expect.poll(allPropagated, POLL).toEqual([]);
      await expect.poll(async () => (await host.resource(RESOURCES.propagatedVersions, NS).list()).items.length >= COUNT, POLL).toBe(true);
      const secretNames = new Map<string, string>();
      for (const m of MEMBERS) secretNames.set(m, ((await clusters.get(m))['spec'] as { secretRef: { name: string } }).secretRef.name);

      // KubeFed's leader holds its lock: migrate refuses and names it; the dry run lists the plan anyway.
      const refused = await ours(['migrate']);
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.stderr).toMatch(/KubeFed's leader \S+ still holds the lock configmap\/kubefed-controller-manager/);
      expect(refused.stderr).toContain('wait until its lease has expired');
      expect(await getOrUndefined(host.resource(VALIDATING), 'validations.core.kubefed.io')).toBeDefined();

      // The handover starts: every member write from here on is recorded.
      await using writes = await MemberWrites.start(members);
      process.kill(kubefed.pid ?? 0, 'SIGTERM');
      await expect
        .poll(() => {
          try {
            process.kill(kubefed.pid ?? 0, 0);
            return 'running';
          } catch {
            return 'stopped';
          }
        }, POLL)
        .toBe('stopped');
      const kubefedStopped = performance.now();
      // Not released on exit (KubeFed sets no ReleaseOnCancel): wait until its lease has expired.
      const lockRecord = async (): Promise<{ renewTime: string; leaseDurationSeconds: number }> =>
        JSON.parse(
          (await host.resource(RESOURCES.configMaps, kubefed.namespace).get('kubefed-controller-manager')).metadata.annotations?.[
            'control-plane.alpha.kubernetes.io/leader'
          ] ?? '{}',
        ) as { renewTime: string; leaseDurationSeconds: number };
      await expect
        .poll(async () => {
          const r = await lockRecord();
          return Date.now() > Date.parse(r.renewTime) + r.leaseDurationSeconds * 1000 + 500;
        }, POLL)
        .toBe(true);

      const dryRun = await ours(['migrate', '--dry-run']);
      expect(dryRun, dryRun.stderr).toMatchObject({ code: 0 });
      process.stdout.write(`kubefedctl migrate --dry-run:\n${dryRun.stdout}`);
      expect(dryRun.stdout).toContain('validatingwebhookconfiguration/validations.core.kubefed.io deleted (dry run)');
      expect(dryRun.stdout).toContain('mutatingwebhookconfiguration/mutation.core.kubefed.io deleted (dry run)');
      for (const [m, secret] of secretNames)
        expect(dryRun.stdout).toContain(`secret/${secret} annotated (dry run) (bound to cluster ${m})`);
      expect(dryRun.stdout).toContain(`${COUNT + 1} federated objects`);
      expect(await getOrUndefined(host.resource(VALIDATING), 'validations.core.kubefed.io')).toBeDefined();
      expect(await getOrUndefined(host.resource(MUTATING), 'mutation.core.kubefed.io')).toBeDefined();
      for (const secret of secretNames.values())
        expect(
          (await host.resource(RESOURCES.secrets, kubefed.namespace).get(secret)).metadata.annotations?.[CLUSTER_NAME_ANNOTATION],
        ).toBeUndefined();

      const migrate = await ours(['migrate']);
      expect(migrate, migrate.stderr).toMatchObject({ code: 0 });
      process.stdout.write(`kubefedctl migrate:\n${migrate.stdout}`);
      expect(migrate.stdout).toContain('validatingwebhookconfiguration/validations.core.kubefed.io deleted\n');
      expect(migrate.stdout).toContain('mutatingwebhookconfiguration/mutation.core.kubefed.io deleted\n');
      expect(await getOrUndefined(host.resource(VALIDATING), 'validations.core.kubefed.io')).toBeUndefined();
      expect(await getOrUndefined(host.resource(MUTATING), 'mutation.core.kubefed.io')).toBeUndefined();
      for (const [m, secret] of secretNames) {
        const spec = ((await clusters.get(m)) as unknown as KubeFedClusterInput).spec;
        expect((await host.resource(RESOURCES.secrets, kubefed.namespace).get(secret)).metadata.annotations).toMatchObject({
          [CLUSTER_NAME_ANNOTATION]: m,
          [CLUSTER_CONNECTION_ANNOTATION]: connectionDigest(spec),
        });
      }
      // Run again, nothing is left to do.
      const again = await ours(['migrate']);
      expect(again, again.stderr).toMatchObject({ code: 0 });
      expect(again.stdout).not.toMatch(/ (deleted|annotated|created|replaced)$/m);

      const oursStarted = performance.now();
      const cm = new ManagedProcess('kubefed-controller-manager', [
        ...sourceEntry('packages/controller-manager/src/main.ts'),
        '--kubeconfig',
        real.kubeconfigPath,
        '--context',
        'host',
        '--redis-url',
        redis.url,
        '--queue-prefix',
        redis.prefix('migrate'),
        '--metrics-addr',
        '127.0.0.1:0',
        '--health-addr',
        '127.0.0.1:0',
      ]);
      await using _stopCm = { [Symbol.asyncDispose]: async () => void (await cm.stop()) };
      const line = await cm.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true, timeoutMs: 60_000 });
      const metricsUrl = `${(JSON.parse(line) as { metrics: string }).metrics}/metrics`;
      const idle = async (): Promise<boolean> => {
        const text = await (await fetch(metricsUrl)).text();
        return (
          metric(text, 'kubefed_leader_election_is_leader') === 1 &&
          metric(text, 'kubefed_controller_reconcile_total') >= COUNT + 1 &&
          metric(text, 'kubefed_workqueue_depth') === 0 &&
          metric(text, 'kubefed_sync_queue_jobs', (l) => !l.includes('failed')) === 0
        );
      };
      await expect.poll(idle, POLL).toBe(true);
      const handoverMs = performance.now() - kubefedStopped;
      const startToIdleMs = performance.now() - oursStarted;
      // Our controller manager has reconciled everything: the objects stay propagated, the members untouched.
      await consistently(
        async () => {
          expect(await allPropagated()).toEqual([]);
          expect(writes.events).toEqual([]);
        },
        { durationMs: 10_000, intervalMs: 500, message: 'after the handover' },
      );
      expect(writes.errors).toEqual([]);
      process.stdout.write(
        `handover: KubeFed stopped to our controller manager idle in ${(handoverMs / 1000).toFixed(1)} s (${COUNT} FederatedConfigMaps, 1 FederatedNamespace, 2 members; KubeFed's lease 15 s; our controller manager's start to idle ${(startToIdleMs / 1000).toFixed(1)} s); member writes: ${writes.events.length}\n`,
      );

      // A change after the handover reaches every member.
      const web05 = await fcms.get('web-05');
      await fcms.update({ ...web05, spec: { ...(web05['spec'] as object), template: { data: { greeting: 'changed', name: 'web-05' } } } });
      for (const client of members.values())
        await expect
          .poll(async () => (await getOrUndefined(client.resource(RESOURCES.configMaps, NS), 'web-05'))?.['data'], POLL)
          .toEqual({ greeting: 'changed', name: 'web-05' });
      await expect.poll(async () => conditionOf(await fcms.get('web-05'), 'Propagation'), POLL).toBe('True');

      // The way back: ours stopped, KubeFed started again on what ours left; it writes nothing to the members either.
      await expect.poll(() => writes.events.filter((e) => e.includes(' MODIFIED ConfigMap web-05')).length, POLL).toBe(MEMBERS.length);
      const before = writes.events.length;
      await cm.stop();
      await expect
        .poll(async () => {
          const r = await lockRecord();
          return (
            Date.now() > Date.parse(r.renewTime) + r.leaseDurationSeconds * 1000 + 500 ||
            (r as { holderIdentity?: string }).holderIdentity === ''
          );
        }, POLL)
        .toBe(true);
      await using kubefedAgain = await startKubeFed({
        kubeconfigPath: real.kubeconfigPath,
        context: 'host',
        federatedTypes: ['namespaces'],
        kubeFedConfig: { clusterHealthCheck: { period: '1s' }, controllerDuration: { availableDelay: '1s' } },
      });
      expect(kubefedAgain.version).toBe('v0.10.0');
      await consistently(
        async () => {
          expect(await allPropagated()).toEqual([]);
          expect(writes.events.slice(before)).toEqual([]);
        },
        { durationMs: 15_000, intervalMs: 500, message: 'after the way back' },
      );
      expect(writes.errors).toEqual([]);
    },
  );
});
