/**
 * The measured takeover of issue #40 (vitest project `real`: needs `npm run kube:build` and
 * `npm run kubefed:build`). KubeFed v0.10.0 runs on a real host with three real members, joined
 * and with all ten default types enabled by KubeFed's own kubefedctl; 250 federated objects of
 * eight types (placements by cluster list and by label selector, overrides, a
 * ReplicaSchedulingPreference) converge under it. Then the federation goes to our controller
 * manager (`kubefedctl migrate`) and back to KubeFed. During each handover, watches on every member
 * count the writes to managed objects (0 expected) and watches on the host record every change of
 * a federated object's spec or status (none expected, `lastUpdateTime` aside); after each
 * handover a change reaches every member. The time from KubeFed stopped to ours idle is printed.
 * The quick variant with the refusal and the dry run is migrate.real.test.ts.
 */
import { performance } from 'node:perf_hooks';
import { MANAGED_LABEL, RESOURCES } from '@kubefed/api';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DynamicClient,
  getOrUndefined,
  isGone,
  isNetworkError,
  isServerError,
  isTimeout,
  isTooManyRequests,
  Kubeconfig,
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
  type KubeFed,
} from '@kubefed/testing';
import { describe, expect, it } from 'vitest';

const MEMBERS = ['member1', 'member2', 'member3'] as const;
/** Labels of the KubeFedClusters, for the placements by clusterSelector. */
const CLUSTER_LABELS: Record<(typeof MEMBERS)[number], Record<string, string>> = {
  member1: { region: 'east' },
  member2: { region: 'west' },
  member3: { region: 'west' },
};
/** The default types of KubeFed's kubefedctl (`kubefedctl enable` of each). */
const DEFAULT_TYPES = [
  'clusterroles.rbac.authorization.k8s.io',
  'configmaps',
  'deployments.apps',
  'ingresses.networking.k8s.io',
  'jobs.batch',
  'namespaces',
  'replicasets.apps',
  'secrets',
  'serviceaccounts',
  'services',
] as const;
const NS = 'store';
const CONFIG_MAPS = 180;
const SECRETS = 40;
const SERVICE_ACCOUNTS = 20;
const SERVICES = 5;
const KUBEFED_CONFIG = { clusterHealthCheck: { period: '1s' }, controllerDuration: { availableDelay: '1s' } } as const;
const POLL = { timeout: 180_000, interval: 500 } as const;
const API = 'types.kubefed.io/v1beta1';

interface Gvr {
  group: string;
  version: string;
  resource: string;
}
/** A federated type as its FederatedTypeConfig names it. */
interface FederatedType {
  name: string;
  federated: Gvr;
  target: Gvr;
  namespaced: boolean;
}

interface FtcSpec {
  targetType: { group?: string; version: string; pluralName: string; scope: string };
  federatedType: { group: string; version: string; pluralName: string };
}
async function federatedTypes(host: DynamicClient, namespace: string): Promise<FederatedType[]> {
  return (await host.resource(RESOURCES.federatedTypeConfigs, namespace).listAll()).items.map((ftc) => {
    const spec = ftc['spec'] as FtcSpec;
    return {
      name: ftc.metadata.name ?? '',
      federated: { group: spec.federatedType.group, version: spec.federatedType.version, resource: spec.federatedType.pluralName },
      target: { group: spec.targetType.group ?? '', version: spec.targetType.version, resource: spec.targetType.pluralName },
      namespaced: spec.targetType.scope === 'Namespaced',
    };
  });
}

interface Condition {
  type?: string;
  status?: string;
  [field: string]: unknown;
}
interface FederatedStatus {
  conditions?: Condition[];
  clusters?: { name: string; status?: string }[];
  [field: string]: unknown;
}
const propagationOf = (obj: KubeObject): string | undefined =>
  (obj['status'] as FederatedStatus | undefined)?.conditions?.find((c) => c.type === 'Propagation')?.status;

/** A federated object's status as compared across a handover: every field, clusters by name, each condition without `lastUpdateTime`/`lastProbeTime`. */
function comparableStatus(obj: KubeObject): string {
  const status = (obj['status'] as FederatedStatus | undefined) ?? {};
  const conditions = (status.conditions ?? [])
    .map(({ lastUpdateTime: _u, lastProbeTime: _p, ...rest }) => rest)
    .sort((a, b) => String(a.type).localeCompare(String(b.type)));
  const clusters = [...(status.clusters ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  return JSON.stringify({ ...status, conditions, clusters });
}

/** An object as written by a client: without status and what the API server maintains. */
function writtenContent(obj: KubeObject): string {
  const { status: _s, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj.metadata;
  return JSON.stringify({ ...rest, metadata });
}

const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

/** A 410 in a watch's ERROR event. */
class WatchGone extends Error {}

/** One resource a {@link ChangeLog} follows. */
interface Source {
  where: string;
  resource: ResourceClient;
  name: string;
  labelSelector?: string;
}

/** Watch failures that a relist (Gone) or a retry (the API server busy, e.g. a CRD's storage re-initialising after an update) gets past. */
const retriable = (err: unknown): boolean =>
  isGone(err) || isTooManyRequests(err) || isServerError(err) || isTimeout(err) || isNetworkError(err);

/**
 * Follows a list of resources from a snapshot on, as an informer does (a relist after Gone
 * compares every object with its last value): each object whose `value` differs from its last
 * one is recorded as `<where> <ADDED|MODIFIED|DELETED> <resource> <namespace/name>`.
 */
class ChangeLog implements AsyncDisposable {
  readonly changes: string[] = [];
  readonly errors: string[] = [];
  readonly #abort = new AbortController();
  readonly #running: Promise<void>[] = [];

  static async start(sources: readonly Source[], value: (obj: KubeObject) => string): Promise<ChangeLog> {
    const log = new ChangeLog();
    for (const s of sources) await log.#follow(s, value);
    return log;
  }

  /** Lists `source` and records what differs from `last` (nothing on the first list); returns the list's resourceVersion. */
  async #relist(
    source: Source,
    value: (obj: KubeObject) => string,
    last: Map<string, string>,
    record: boolean,
  ): Promise<string | undefined> {
    const list = await source.resource.listAll(source.labelSelector === undefined ? {} : { labelSelector: source.labelSelector });
    const seen = new Set<string>();
    for (const o of list.items) {
      const key = keyOf(o);
      seen.add(key);
      const now = value(o);
      const before = last.get(key);
      if (record && before !== now)
        this.changes.push(`${source.where} ${before === undefined ? 'ADDED' : 'MODIFIED'} ${source.name} ${key}`);
      last.set(key, now);
    }
    for (const key of [...last.keys()].filter((k) => !seen.has(k))) {
      if (record) this.changes.push(`${source.where} DELETED ${source.name} ${key}`);
      last.delete(key);
    }
    return list.metadata.resourceVersion;
  }

  async #follow(source: Source, value: (obj: KubeObject) => string): Promise<void> {
    const last = new Map<string, string>();
    let from = await this.#relist(source, value, last, false);
    const signal = this.#abort.signal;
    const selector = source.labelSelector === undefined ? {} : { labelSelector: source.labelSelector };
    this.#running.push(
      (async () => {
        let retries = 0;
        while (!signal.aborted) {
          try {
            for await (const event of source.resource.watch({ ...selector, resourceVersion: from, allowWatchBookmarks: true, signal })) {
              if (event.type === 'ERROR') {
                const status = event.object as unknown as { code?: number; message?: string };
                throw status.code === 410 ? new WatchGone(status.message ?? '') : new Error(JSON.stringify(status).slice(0, 300));
              }
              from = event.object.metadata.resourceVersion ?? from;
              if (event.type === 'BOOKMARK') continue;
              const key = keyOf(event.object);
              const now = event.type === 'DELETED' ? undefined : value(event.object);
              if (event.type === 'MODIFIED' && last.get(key) === now) continue;
              if (now === undefined) last.delete(key);
              else last.set(key, now);
              this.changes.push(`${source.where} ${event.type} ${source.name} ${key}`);
            }
          } catch (err) {
            if (signal.aborted) return;
            if (!(retriable(err) || err instanceof WatchGone) || ++retries > 200) {
              this.errors.push(`${source.where} ${source.name}: ${err instanceof Error ? err.message : String(err)}`);
              return;
            }
            await sleep(250);
            if (isGone(err) || err instanceof WatchGone) {
              try {
                from = await this.#relist(source, value, last, true);
              } catch (e) {
                if (!retriable(e)) throw e;
              }
            }
          }
        }
      })().catch((err: unknown) => {
        if (!signal.aborted) this.errors.push(`${source.where} ${source.name}: ${err instanceof Error ? err.message : String(err)}`);
      }),
    );
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#running);
  }
}

/** What a handover must not change: managed objects on the members, federated objects' spec and status on the host. */
class Handover implements AsyncDisposable {
  private constructor(
    readonly memberWrites: ChangeLog,
    readonly hostChanges: ChangeLog,
  ) {}

  static async start(host: DynamicClient, members: ReadonlyMap<string, DynamicClient>, types: readonly FederatedType[]): Promise<Handover> {
    const memberSources = [...members].flatMap(([cluster, client]) =>
      types.map((t) => ({
        where: cluster,
        resource: client.resource(t.target),
        name: t.target.resource,
        labelSelector: `${MANAGED_LABEL}=true`,
      })),
    );
    const hostSources = types.map((t) => ({ where: 'host', resource: host.resource(t.federated), name: t.federated.resource }));
    const memberWrites = await ChangeLog.start(memberSources, writtenContent);
    const hostChanges = await ChangeLog.start(hostSources, (o) => `${JSON.stringify(o['spec'])} ${comparableStatus(o)}`);
    return new Handover(memberWrites, hostChanges);
  }

  expectNothingChanged(): void {
    expect(this.memberWrites.changes, 'member writes').toEqual([]);
    expect(this.hostChanges.changes, 'federated objects changed (spec, or status apart from lastUpdateTime)').toEqual([]);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.memberWrites[Symbol.asyncDispose]();
    await this.hostChanges[Symbol.asyncDispose]();
    expect([...this.memberWrites.errors, ...this.hostChanges.errors]).toEqual([]);
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

/** The placements the objects take turns with: by cluster list, by label selector, everywhere. */
const PLACEMENTS = [
  { clusters: MEMBERS.map((name) => ({ name })) },
  { clusters: [{ name: 'member1' }, { name: 'member2' }] },
  { clusterSelector: { matchLabels: { region: 'west' } } },
  { clusterSelector: {} },
] as const;
const placementClusters = (i: number): string[] =>
  [[...MEMBERS], ['member1', 'member2'], ['member2', 'member3'], [...MEMBERS]][i % PLACEMENTS.length] ?? [];

const podTemplate = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
});

/** The federated objects: `[federated resource, object, clusters it lands in, how to check the member copy]`. */
function workload(): { resource: string; obj: KubeObject; clusters: string[] }[] {
  const out: { resource: string; obj: KubeObject; clusters: string[] }[] = [];
  const add = (resource: string, kind: string, name: string, i: number, spec: Record<string, unknown>, namespaced = true): void => {
    out.push({
      resource,
      obj: {
        apiVersion: API,
        kind,
        metadata: { name, ...(namespaced ? { namespace: NS } : {}) },
        spec: { placement: PLACEMENTS[i % PLACEMENTS.length], ...spec },
      },
      clusters: placementClusters(i),
    });
  };
  for (let i = 0; i < CONFIG_MAPS; i++) {
    const name = `cm-${String(i).padStart(3, '0')}`;
    add('federatedconfigmaps', 'FederatedConfigMap', name, i, {
      template: { metadata: { labels: { app: 'store' } }, data: { greeting: 'hello', name } },
      ...(i % 5 === 0
        ? {
            overrides: [
              { clusterName: 'member2', clusterOverrides: [{ path: '/data/greeting', value: 'hola' }] },
              { clusterName: 'member3', clusterOverrides: [{ path: '/metadata/labels/tier', op: 'add', value: 'edge' }] },
            ],
          }
        : {}),
    });
  }
  for (let i = 0; i < SECRETS; i++)
    add('federatedsecrets', 'FederatedSecret', `secret-${String(i).padStart(2, '0')}`, i, {
      template: { type: 'Opaque', data: { password: Buffer.from(`pw-${i}`).toString('base64') } },
    });
  for (let i = 0; i < SERVICE_ACCOUNTS; i++)
    add('federatedserviceaccounts', 'FederatedServiceAccount', `sa-${String(i).padStart(2, '0')}`, i, { template: {} });
  for (let i = 0; i < SERVICES; i++)
    add('federatedservices', 'FederatedService', `svc-${i}`, i, {
      template: { spec: { selector: { app: `svc-${i}` }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    });
  // "web" is scheduled by the RSP below: its placement and overrides are the RSP's to write.
  out.push({
    resource: 'federateddeployments',
    obj: {
      apiVersion: API,
      kind: 'FederatedDeployment',
      metadata: { name: 'web', namespace: NS },
      spec: {
        template: { spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: podTemplate('web') } },
        placement: { clusters: MEMBERS.map((name) => ({ name })) },
      },
    },
    clusters: [...MEMBERS],
  });
  add('federateddeployments', 'FederatedDeployment', 'api', 0, {
    template: { spec: { replicas: 1, selector: { matchLabels: { app: 'api' } }, template: podTemplate('api') } },
    overrides: [{ clusterName: 'member1', clusterOverrides: [{ path: '/spec/replicas', value: 2 }] }],
  });
  add('federatedreplicasets', 'FederatedReplicaSet', 'worker', 2, {
    template: { spec: { replicas: 1, selector: { matchLabels: { app: 'worker' } }, template: podTemplate('worker') } },
  });
  add('federatedjobs', 'FederatedJob', 'migrate-db', 1, {
    template: {
      spec: {
        backoffLimit: 1,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'job', image: 'registry.example/job:1' }] } },
      },
    },
  });
  add('federatedingresses', 'FederatedIngress', 'front', 0, {
    template: {
      spec: {
        rules: [
          {
            host: 'store.example',
            http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'svc-0', port: { number: 80 } } } }] },
          },
        ],
      },
    },
  });
  add(
    'federatedclusterroles',
    'FederatedClusterRole',
    'store-reader',
    3,
    {
      template: { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] },
    },
    false,
  );
  return out;
}

describe('kubefedctl migrate, measured', () => {
  it(
    'hands a KubeFed federation of 3 members and 250 objects to our controller manager and back: no member write, no status change, later changes propagate',
    { timeout: 480_000 },
    async () => {
      await using real = await startRealClusters({ names: ['host', ...MEMBERS], nodes: 1 });
      await using redis = await startRedis();
      const kubeconfig = Kubeconfig.fromFile(real.kubeconfigPath);
      using host = DynamicClient.fromKubeconfig(kubeconfig, { context: 'host', qps: 0 });
      const members = new Map<string, DynamicClient>(
        MEMBERS.map((m) => [m, DynamicClient.fromKubeconfig(kubeconfig, { context: m, qps: 0 })]),
      );
      using _closeMembers = { [Symbol.dispose]: () => members.forEach((c) => c.close()) };
      /** KubeFed as its chart installs it; on the way back with the CRDs migrate left (ours where it replaced them). */
      const startReference = (options: { keepInstalledCrds?: boolean } = {}): Promise<KubeFed> =>
        startKubeFed({
          kubeconfigPath: real.kubeconfigPath,
          context: 'host',
          federatedTypes: [],
          kubeFedConfig: KUBEFED_CONFIG,
          timeoutMs: 120_000,
          ...options,
        });
      let kubefed: KubeFed | undefined = await startReference();
      await using _stopKubeFed = { [Symbol.asyncDispose]: async () => kubefed?.stop() };
      const kubefedNamespace = kubefed.namespace;
      const ours = (args: readonly string[]): Promise<CommandResult> =>
        runSourceEntry(
          'packages/kubefedctl/src/main.ts',
          ['--kubeconfig', real.kubeconfigPath, '--host-cluster-context', 'host', ...args],
          {
            timeoutMs: 90_000,
          },
        );

      // KubeFed's way: its kubefedctl enables every default type and joins the members.
      for (const type of DEFAULT_TYPES) {
        const enable = await kubefed.kubefedctl(['enable', type, '--host-cluster-context=host', `--kubeconfig=${real.kubeconfigPath}`]);
        expect(enable, enable.stderr).toMatchObject({ code: 0 });
      }
      const types = await federatedTypes(host, kubefedNamespace);
      expect(types.map((t) => t.name).sort()).toEqual([...DEFAULT_TYPES].sort());
      const clusters = host.resource(RESOURCES.kubeFedClusters, kubefedNamespace);
      for (const m of MEMBERS) {
        await kubefed.join(m, { context: m });
        await clusters.patch(m, { metadata: { labels: CLUSTER_LABELS[m] } }, 'merge');
      }
      for (const m of MEMBERS)
        await expect
          .poll(
            async () =>
              ((await clusters.get(m))['status'] as FederatedStatus | undefined)?.conditions?.find((c) => c.type === 'Ready')?.status,
            POLL,
          )
          .toBe('True');

      await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      const objects = [
        {
          resource: 'federatednamespaces',
          obj: { apiVersion: API, kind: 'FederatedNamespace', metadata: { name: NS, namespace: NS }, spec: { placement: PLACEMENTS[0] } },
          clusters: [...MEMBERS],
        },
        ...workload(),
      ];
      const typeOf = (resource: string): FederatedType => {
        const t = types.find((x) => x.federated.resource === resource);
        if (t === undefined) throw new Error(`no FederatedTypeConfig for ${resource}`);
        return t;
      };
      const federatedClient = (resource: string): ResourceClient => {
        const t = typeOf(resource);
        return host.resource(t.federated, t.namespaced ? NS : undefined);
      };
      for (const { resource, obj } of objects) await federatedClient(resource).create(obj);
      await host.resource(RESOURCES.replicaSchedulingPreferences, NS).create({
        apiVersion: 'scheduling.kubefed.io/v1alpha1',
        kind: 'ReplicaSchedulingPreference',
        metadata: { name: 'web', namespace: NS },
        spec: {
          targetKind: 'FederatedDeployment',
          totalReplicas: 6,
          clusters: { member1: { weight: 2 }, member2: { weight: 1 }, member3: { weight: 1, maxReplicas: 1 } },
        },
      });
      process.stdout.write(
        `${objects.length} federated objects of ${new Set(objects.map((o) => o.resource)).size} types, 1 RSP, ${MEMBERS.length} members\n`,
      );

      /** Names of the objects not yet propagated as placed (Propagation True and a status entry per placed cluster). */
      const notConverged = async (): Promise<string[]> => {
        const pending: string[] = [];
        for (const resource of new Set(objects.map((o) => o.resource))) {
          const items = new Map((await federatedClient(resource).listAll()).items.map((o) => [o.metadata.name, o]));
          for (const o of objects.filter((x) => x.resource === resource)) {
            const live = items.get(o.obj.metadata.name);
            const placed = ((live?.['status'] as FederatedStatus | undefined)?.clusters ?? []).map((c) => c.name).sort();
            if (live === undefined || propagationOf(live) !== 'True' || JSON.stringify(placed) !== JSON.stringify(o.clusters))
              pending.push(`${resource}/${o.obj.metadata.name ?? ''}`);
          }
        }
        return pending;
      };
      /** Clusters whose copy of `name` (a ConfigMap of {@link NS}) has not `data` yet. */
      const configMapLagging = async (name: string, data: Record<string, string>, where: readonly string[]): Promise<string[]> => {
        const lagging: string[] = [];
        for (const m of where) {
          const copy = await getOrUndefined((members.get(m) as DynamicClient).resource(RESOURCES.configMaps, NS), name);
          if (JSON.stringify(copy?.['data']) !== JSON.stringify(data)) lagging.push(m);
        }
        return lagging;
      };
      /** Changes the template of `cm-<i>` (a FederatedConfigMap without overrides) and waits until every member it is placed in has it. */
      const changeConfigMap = async (i: number, greeting: string): Promise<void> => {
        const name = `cm-${String(i).padStart(3, '0')}`;
        const fcms = federatedClient('federatedconfigmaps');
        const current = await fcms.get(name);
        await fcms.update({ ...current, spec: { ...(current['spec'] as object), template: { data: { greeting, name } } } });
        await expect.poll(() => configMapLagging(name, { greeting, name }, placementClusters(i)), POLL).toEqual([]);
        await expect.poll(async () => propagationOf(await fcms.get(name)), POLL).toBe('True');
      };

      /** What the member watches record for an update of the ConfigMap `name` in `clusters`. */
      const writesOf = (name: string, where: readonly string[]): string[] =>
        where.map((m) => `${m} MODIFIED configmaps ${NS}/${name}`).sort();

      let started = performance.now();
      await expect.poll(notConverged, POLL).toEqual([]);
      // The RSP's plan (2:1:1 of 6, member3 at most 1) is in the members.
      const webReplicas = async (): Promise<(number | undefined)[]> =>
        Promise.all(
          MEMBERS.map(async (m) => {
            const d = await getOrUndefined((members.get(m) as DynamicClient).resource(RESOURCES.deployments, NS), 'web');
            return (d?.['spec'] as { replicas?: number } | undefined)?.replicas;
          }),
        );
      await expect.poll(webReplicas, POLL).toEqual([3, 2, 1]);
      expect(await configMapLagging('cm-000', { greeting: 'hola', name: 'cm-000' }, ['member2'])).toEqual([]);
      process.stdout.write(`converged under KubeFed ${kubefed.version} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

      // Handover 1: KubeFed stopped, migrate, our controller manager started.
      let idleMs: number;
      let cm: ManagedProcess | undefined;
      await using _stopCm = { [Symbol.asyncDispose]: async () => void (await cm?.stop()) };
      {
        await using handover = await Handover.start(host, members, types);
        await kubefed.stop();
        kubefed = undefined;
        const kubefedStopped = performance.now();
        // KubeFed sets no ReleaseOnCancel: migrate refuses until its lease has expired.
        let migrate: CommandResult;
        await expect
          .poll(async () => {
            migrate = await ours(['migrate', '--least-privilege']);
            if (migrate.code !== 0) expect(migrate.stderr).toContain("KubeFed's leader");
            return migrate.code;
          }, POLL)
          .toBe(0);
        const migrated = performance.now();
        // KubeFed's CRDs are replaced by ours where the objects KubeFed's users wrote are valid under ours and read the same.
        expect(migrate!.stdout).toContain(
          `customresourcedefinition/federatedconfigmaps.types.kubefed.io replaced (its schema differs; all ${CONFIG_MAPS} stored objects valid under ours and read the same)`,
        );
        process.stdout.write(`kubefedctl migrate --least-privilege:\n${migrate!.stdout}`);
        for (const m of MEMBERS)
          expect(migrate!.stdout).toMatch(
            new RegExp(`^clusterrole\\S+ in ${m} narrowed: loses \\* \\*\\.\\*; get \\*; gains nothing$`, 'm'),
          );
        cm = new ManagedProcess('kubefed-controller-manager', [
          ...sourceEntry('packages/controller-manager/src/main.ts'),
          ...['--kubeconfig', real.kubeconfigPath, '--context', 'host', '--redis-url', redis.url],
          ...['--queue-prefix', redis.prefix('migrate-measured'), '--metrics-addr', '127.0.0.1:0', '--health-addr', '127.0.0.1:0'],
        ]);
        const line = await cm.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true, timeoutMs: 90_000 });
        const metricsUrl = `${(JSON.parse(line) as { metrics: string }).metrics}/metrics`;
        await expect
          .poll(async () => {
            const text = await (await fetch(metricsUrl)).text();
            return (
              metric(text, 'kubefed_leader_election_is_leader') === 1 &&
              metric(text, 'kubefed_controller_reconcile_total') >= objects.length &&
              metric(text, 'kubefed_workqueue_depth') === 0 &&
              metric(text, 'kubefed_sync_queue_jobs', (l) => !l.includes('failed')) === 0
            );
          }, POLL)
          .toBe(true);
        idleMs = performance.now() - kubefedStopped;
        process.stdout.write(`migrate succeeded ${((migrated - kubefedStopped) / 1000).toFixed(1)} s after KubeFed stopped\n`);
        await consistently(() => handover.expectNothingChanged(), {
          durationMs: 15_000,
          intervalMs: 500,
          message: 'after the handover to ours',
        });
        expect(await notConverged()).toEqual([]);
        process.stdout.write(
          `handover to ours: KubeFed stopped to our controller manager idle in ${(idleMs / 1000).toFixed(1)} s (${objects.length} objects, ${MEMBERS.length} members, KubeFed's lease 15 s); member writes 0\n`,
        );
        // A change after the handover reaches every member: the one write the watches see.
        await changeConfigMap(4, 'changed under ours');
        await expect.poll(() => [...handover.memberWrites.changes].sort(), POLL).toEqual(writesOf('cm-004', placementClusters(4)));
      }

      // Handover 2, the way back: ours stopped, KubeFed started again on what ours left.
      {
        await using handover = await Handover.start(host, members, types);
        started = performance.now();
        await cm?.stop();
        // KubeFed takes the lock once ours has released it (or its lease has expired).
        kubefed = await startReference({ keepInstalledCrds: true });
        const back = kubefed;
        await expect
          .poll(
            async () =>
              metric(await (await fetch(back.metricsUrl)).text(), 'reconcile_federated_resources_duration_seconds_count') >= objects.length,
            POLL,
          )
          .toBe(true);
        process.stdout.write(
          `way back: our controller manager stopped to KubeFed's first pass done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
        );
        await consistently(() => handover.expectNothingChanged(), {
          durationMs: 15_000,
          intervalMs: 500,
          message: 'after the way back to KubeFed',
        });
        expect(await notConverged()).toEqual([]);
        await changeConfigMap(8, 'changed under KubeFed again');
        await expect.poll(() => [...handover.memberWrites.changes].sort(), POLL).toEqual(writesOf('cm-008', placementClusters(8)));
      }
    },
  );
});
