// Test helpers for the process-level propagation tests: a local federation of real processes
// (the kube-sim CLI, Redis, `kubefedctl join`/`enable`, controller-manager processes), federated
// ConfigMaps to propagate, and a recorder of every write a member cluster saw.
import { readFile } from 'node:fs/promises';
import { RESOURCES } from '@kubefed/api';
import type { DynamicClient, ResourceClient, WatchEvent, WatchEventType } from '@kubefed/client';
import {
  type LocalFederation,
  type ManagedProcess,
  type RedisHandle,
  type SimProcesses,
  startLocalFederation,
  startRedis,
  type Substrate,
} from '@kubefed/testing';
import { afterAll, afterEach, beforeAll } from 'vitest';

export const FEDERATED_CONFIG_MAPS = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' } as const;
export const FEDERATED_NAMESPACES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' } as const;

/** Options of {@link startProcessFederation}. */
export interface ProcessFederationOptions {
  /** Member cluster names; default member1, member2. */
  readonly members?: readonly string[];
  /** Redis to use (e.g. a private restartable one); default REDIS_URL or a private server. */
  readonly redisUrl?: string | undefined;
  /** Controller managers take a dead leader's Lease within seconds; default false. */
  readonly fastLeaderElection?: boolean;
  /** How the clusters are spread over kube-sim processes (`LocalFederationOptions.simProcesses`); default `one`. */
  readonly simProcesses?: SimProcesses;
  /** The members joined at the start (`LocalFederationOptions.join`); default every one. */
  readonly join?: readonly string[];
  /** kube-sim or real control planes (`LocalFederationOptions.substrate`); default `KUBEFED_TEST_SUBSTRATE`, else `sim`. */
  readonly substrate?: Substrate | undefined;
}

/**
 * The local federation of the process-level propagation tests, with no controller manager yet:
 * the KubeFedConfig `kubefed` (scope Cluster), every member joined and namespaces and configmaps
 * enabled. Start controller managers with `fed.startControllerManager`.
 */
export function startProcessFederation(options: ProcessFederationOptions = {}): Promise<LocalFederation> {
  return startLocalFederation({
    members: options.members ?? ['member1', 'member2'],
    redisUrl: options.redisUrl,
    scope: 'Cluster',
    controllerManager: false,
    fastLeaderElection: options.fastLeaderElection ?? false,
    simProcesses: options.simProcesses ?? 'one',
    join: options.join ?? true,
    types: ['namespaces', 'configmaps'],
    ...(options.substrate === undefined ? {} : { substrate: options.substrate }),
  });
}

/** What {@link processFederationFixtures} gives a test file. */
export interface ProcessFederationFixtures {
  /** The file's private redis-server (restartable). */
  readonly redis: () => RedisHandle;
  /** A federation on that Redis (options over the file's defaults), stopped after the test. */
  readonly federation: (options?: Omit<ProcessFederationOptions, 'redisUrl'>) => Promise<LocalFederation>;
  /** Runs `stop` after the current test; the last registered runs first. */
  readonly afterTest: (stop: () => Promise<unknown>) => void;
}

/**
 * The fixtures of a test file of process federations: a private redis-server started before
 * its first test and stopped after its last, and federations (and whatever `afterTest` is given)
 * stopped after each test, the last started first. Registers the vitest hooks; call it once at
 * the top level of the file.
 */
export function processFederationFixtures(defaults: Omit<ProcessFederationOptions, 'redisUrl'> = {}): ProcessFederationFixtures {
  let redis: RedisHandle | undefined;
  const stops: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    redis = await startRedis({ forcePrivate: true });
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  const started = (): RedisHandle => {
    if (redis === undefined) throw new Error('processFederationFixtures: redis is used before beforeAll ran');
    return redis;
  };
  return {
    redis: started,
    federation: async (options = {}) => {
      const fed = await startProcessFederation({ ...defaults, ...options, redisUrl: started().url });
      stops.push(() => fed.stop());
      return fed;
    },
    afterTest: (stop) => stops.push(stop),
  };
}

/** Resolves once every member's KubeFedCluster is Ready; {@link LocalFederation.waitForReady} for the benchmarks. */
export function waitForReadyClusters(fed: LocalFederation, timeoutMs = 30_000): Promise<void> {
  return fed.waitForReady(timeoutMs);
}

/** The name of the i-th federated ConfigMap of a test. */
export const configMapName = (i: number): string => `cm-${String(i).padStart(4, '0')}`;

/**
 * Creates the namespace `ns` in the host, its FederatedNamespace (placed in every member) and
 * `count` FederatedConfigMaps `cm-0000`.. placed in every member, `concurrency` creates at a time.
 */
export async function createFederatedConfigMaps(fed: LocalFederation, ns: string, count: number, concurrency = 16): Promise<void> {
  const host = fed.client('host');
  const placement = { clusters: fed.members.map((name) => ({ name })) };
  await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await host.resource(FEDERATED_NAMESPACES, ns).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedNamespace',
    metadata: { name: ns, namespace: ns },
    spec: { placement },
  });
  const fedCms = host.resource(FEDERATED_CONFIG_MAPS, ns);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        await fedCms.create({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedConfigMap',
          metadata: { name: configMapName(i), namespace: ns },
          spec: { template: { data: { index: String(i), payload: 'x'.repeat(100) } }, placement },
        });
      }
    }),
  );
}

/** How many managed copies of ConfigMaps each member holds in `ns`. */
export async function managedCopies(fed: LocalFederation, ns: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const m of fed.members) {
    const list = await fed.client(m).resource(RESOURCES.configMaps, ns).list({ labelSelector: 'kubefed.io/managed=true' });
    counts[m] = list.items.length;
  }
  return counts;
}

/** Sum of {@link managedCopies}. */
export async function totalManagedCopies(fed: LocalFederation, ns: string): Promise<number> {
  return Object.values(await managedCopies(fed, ns)).reduce((a, b) => a + b, 0);
}

/** One write a member cluster reported on its watch. */
export interface MemberWrite {
  readonly cluster: string;
  readonly type: WatchEventType;
  readonly name: string;
  readonly resourceVersion: string;
  /** `performance.now()` when the watch delivered it. */
  readonly at: number;
}

/**
 * Every ADDED / MODIFIED / DELETED of ConfigMaps in one namespace of the members, seen by a
 * watch per member started from the current resourceVersion (so only writes after `start`).
 * Excludes `kube-root-ca.crt`, which kube-sim writes itself. A watch that ends or fails is
 * recorded in `errors` (a test must check it: events may have been missed).
 */
export class MemberWriteRecorder {
  readonly writes: MemberWrite[] = [];
  readonly errors: string[] = [];
  /** Writes by event type, kept as they come: a benchmark polls {@link count} with a million writes recorded. */
  readonly #counts = new Map<WatchEventType, number>();
  readonly #abort = new AbortController();
  readonly #running: Promise<void>[] = [];
  /** Waiters of {@link modified} by object name: the clusters each still waits for. */
  readonly #waiters = new Map<string, Set<{ missing: Set<string>; resolve: () => void }>>();

  private constructor() {}

  /**
   * Resolves once every cluster of `clusters` has reported a MODIFIED of `name` among the writes
   * from index `from` on (take `writes.length` before the change). Woken by the watches, not by
   * polling: a benchmark with hundreds of changes in flight spends nothing while it waits.
   *
   * @throws Error after `limitMs`, naming the clusters not seen and the recorder's watch errors.
   */
  async modified(name: string, clusters: readonly string[], o: { from: number; limitMs: number }): Promise<void> {
    const waiter = { missing: new Set(clusters), resolve: (): void => undefined };
    const missing = waiter.missing;
    for (const w of this.writes.slice(o.from)) if (w.type === 'MODIFIED' && w.name === name) missing.delete(w.cluster);
    if (missing.size === 0) return;
    const waiters = this.#waiters.get(name) ?? new Set();
    this.#waiters.set(name, waiters);
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        waiter.resolve = resolve;
        waiters.add(waiter);
        timer = setTimeout(() => {
          const errors = this.errors.join('; ') || 'none';
          reject(new Error(`${name}: not modified in ${[...missing].join(', ')} within ${o.limitMs} ms; member watch errors: ${errors}`));
        }, o.limitMs);
      });
    } finally {
      clearTimeout(timer);
      waiters.delete(waiter);
      if (waiters.size === 0) this.#waiters.delete(name);
    }
  }

  static async start(fed: LocalFederation, ns: string): Promise<MemberWriteRecorder> {
    const recorder = new MemberWriteRecorder();
    for (const m of fed.members) await recorder.#watch(fed.client(m), m, ns);
    return recorder;
  }

  async #watch(client: DynamicClient, cluster: string, ns: string): Promise<void> {
    const resource = client.resource(RESOURCES.configMaps);
    const rv = (await resource.list({ limit: 1 })).metadata.resourceVersion;
    this.#running.push(this.#follow(resource, cluster, ns, rv));
  }

  /** Records the writes from `rv` on (see {@link followWatch}). */
  async #follow(resource: ResourceClient, cluster: string, ns: string, rv: string | undefined): Promise<void> {
    const stopped = await followWatch(resource, rv, this.#abort.signal, (event) => {
      const obj = event.object;
      if (obj.metadata.namespace !== ns || obj.metadata.name === 'kube-root-ca.crt') return;
      this.writes.push({
        cluster,
        type: event.type,
        name: obj.metadata.name ?? '',
        resourceVersion: obj.metadata.resourceVersion ?? '',
        at: performance.now(),
      });
      this.#counts.set(event.type, (this.#counts.get(event.type) ?? 0) + 1);
      if (event.type === 'MODIFIED') this.#wake(obj.metadata.name ?? '', cluster);
    });
    if (stopped !== undefined) this.errors.push(`${cluster}: ${stopped}`);
  }

  #wake(name: string, cluster: string): void {
    for (const waiter of this.#waiters.get(name) ?? []) {
      waiter.missing.delete(cluster);
      if (waiter.missing.size === 0) waiter.resolve();
    }
  }

  /** Writes of one event type. */
  count(type: WatchEventType): number {
    return this.#counts.get(type) ?? 0;
  }

  /** `cluster/name` of every object written more than once or modified or deleted. */
  duplicates(): string[] {
    const seen = new Map<string, number>();
    for (const w of this.writes) seen.set(`${w.cluster}/${w.name}`, (seen.get(`${w.cluster}/${w.name}`) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${k} x${n}`);
  }

  /** Stops the watches. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#running);
  }
}

/**
 * Follows a watch of `resource` from `rv` until `signal` aborts, handing each event but BOOKMARK
 * and ERROR to `onEvent`. An API server ends every watch after its timeout (30–60 minutes), so a
 * watch that ends is started again from the last resourceVersion seen, as an informer does.
 *
 * @returns why it stopped before `signal` aborted (an ERROR event, such as a compacted
 *   resourceVersion: events were missed, or a failure), or undefined when `signal` stopped it.
 */
export async function followWatch(
  resource: ResourceClient,
  rv: string | undefined,
  signal: AbortSignal,
  onEvent: (event: WatchEvent) => void,
): Promise<string | undefined> {
  try {
    for (let from = rv; !signal.aborted;) {
      for await (const event of resource.watch({ resourceVersion: from, signal })) {
        if (event.type === 'ERROR') return `watch error ${JSON.stringify(event.object)}`;
        from = event.object.metadata.resourceVersion ?? from;
        if (event.type !== 'BOOKMARK') onEvent(event);
      }
    }
  } catch (err) {
    if (!signal.aborted) return `watch failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  return undefined;
}

/** Scrapes one metric value (summed over matching label sets) from a controller manager's `/metrics`. */
export async function metricValue(cm: ManagedProcess, name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  return metricIn(await metricsText(cm), name, labels);
}

/** One metric value (summed over matching label sets) from a Prometheus text (see {@link metricsText}). */
export function metricIn(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number {
  let sum = 0;
  for (const series of metricSeries(text, name)) {
    if (Object.entries(labels).every(([k, v]) => series.labels[k] === v)) sum += series.value;
  }
  return sum;
}

/** Every series of the metric `name` in a Prometheus text: its labels and value. */
export function metricSeries(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const series: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of line.slice(name.length).matchAll(/(\w+)="([^"]*)"/g)) labels[key!] = value!;
    series.push({ labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return series;
}

/** The Prometheus text of `cm`'s metrics endpoint (plain HTTP, as the tests start it). */
export async function metricsText(cm: ManagedProcess): Promise<string> {
  const line = await cm.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true, timeoutMs: 30_000 });
  const { metrics } = JSON.parse(line) as { metrics: string };
  return (await fetch(`${metrics}/metrics`)).text();
}

/** Resident set size of a process in bytes (Linux `/proc`). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}
