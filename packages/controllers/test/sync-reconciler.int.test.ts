import { randomUUID } from 'node:crypto';
import { buildFederatedTypeConfig, defaultFederatedTypeConfig, MANAGED_LABEL, MANAGED_LABEL_TRUE, RESOURCES } from '@kubefed/api';
import { DynamicClient, type KubeObject, Kubeconfig } from '@kubefed/client';
import {
  DispatchScopes,
  MemberNotReadyError,
  MemberWatches,
  OwnWrites,
  registerSyncPath,
  StatusRecorder,
  StatusWriter,
  SyncReconciler,
  SyncWorker,
  syncTypeOf,
  VersionStore,
  watchPropagatedVersions,
} from '@kubefed/controllers';
import { federatedObjectRef, InMemoryJobProducer, PermanentSyncError, silentLogger as silentJobLogger } from '@kubefed/queue';
import {
  EventRecorder,
  Fleet,
  type Informer,
  listerWatcherFor,
  Manager,
  type ReconcileContext,
  silentLogger,
  systemClock,
} from '@kubefed/runtime';
import { type InProcessFederation as Federation, startInProcessFederation } from '@kubefed/testing';
import { TARGET_TYPES } from '@kubefed/testing/fixtures';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const NS = 'kube-federation-system';
const FED_CLUSTER_ROLES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' };
const CLUSTER_ROLES = RESOURCES.clusterRoles;
const type = syncTypeOf(defaultFederatedTypeConfig(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, NS)));
const MEMBERS = ['member1', 'member2'];
const POLL = { timeout: 10_000, interval: 50 };

/**
 * The reconciler's optional collaborators as `register-sync-path.ts` wires them per `--mode`:
 * member watch caches unless `watchMembers` is false; a version store whose records it can read
 * without a request only where the workers run in the same process (`all`: a watch-fed cache and
 * the workers' own writes; `controllers`: the workers' records are in another process); the
 * workers' own writes only in `all`. A `workers` process runs no reconciler.
 */
const MODES = [
  { mode: 'all', memberCopies: true, sharedVersions: true, ownWrites: true, skipsCurrentCopies: true },
  { mode: 'controllers', memberCopies: true, sharedVersions: false, ownWrites: false, skipsCurrentCopies: false },
  { mode: 'all without member watches', memberCopies: false, sharedVersions: true, ownWrites: true, skipsCurrentCopies: false },
] as const;

type Mode = (typeof MODES)[number];

let fed: Federation;
let manager: Manager;
let fleet: Fleet<string>;
let objects: Informer;
let versionCaches: ReturnType<typeof watchPropagatedVersions>;
const stop = new AbortController();
let running: Promise<void>;

beforeAll(async () => {
  fed = await startInProcessFederation({ members: { member1: {}, member2: {} }, federatedTypes: [TARGET_TYPES.clusterRoles] });
  manager = new Manager({ healthAddress: null, metricsAddress: null });
  fleet = new Fleet<string>({ connect: (_name, config) => DynamicClient.fromKubeconfig(Kubeconfig.fromString(config), { qps: 0 }) });
  manager.add(fleet);
  objects = manager.informer({
    name: 'federatedclusterroles',
    listerWatcher: listerWatcherFor(fed.hostClient.resource(FED_CLUSTER_ROLES)),
  });
  versionCaches = watchPropagatedVersions(manager, { host: fed.hostClient });
  running = manager.start(stop.signal);
  for (const name of MEMBERS) {
    fleet.engage(name, fed.member(name).kubeconfigYaml());
    fleet.setReady(name, true);
  }
  await vi.waitFor(() => {
    if (!objects.hasSynced() || versionCaches.cluster?.hasSynced() !== true) throw new Error('the host caches have not synced yet');
  }, POLL);
});

afterAll(async () => {
  stop.abort();
  await running;
  await fed[Symbol.asyncDispose]();
});

/** One process's sync path of `mode` over the shared host caches: its reconciler, the workers' worker, the job producer between them. */
interface SyncPathUnderTest extends AsyncDisposable {
  readonly reconciler: SyncReconciler;
  readonly scopes: DispatchScopes;
  readonly producer: InMemoryJobProducer;
  readonly recorder: StatusRecorder;
  readonly worker: SyncWorker;
  readonly members: MemberWatches | undefined;
  readonly statusWriter: StatusWriter;
  reconcile(key: string): ReturnType<SyncReconciler['reconcile']>;
}

function syncPath(mode: Mode): SyncPathUnderTest {
  const env = { host: fed.hostClient, clusters: () => MEMBERS.map((name) => ({ metadata: { name } })), kubefedNamespace: NS };
  const producer = new InMemoryJobProducer();
  const recorder = new StatusRecorder();
  const scopes = new DispatchScopes();
  const events = new EventRecorder({ events: (ns) => fed.hostClient.resource(RESOURCES.events, ns), component: 'kubefed-sync' });
  const ownWrites = mode.ownWrites ? new OwnWrites() : undefined;
  const members = mode.memberCopies
    ? new MemberWatches({
        type,
        fleet,
        statusChanges: () => false,
        ownWrites,
        logger: silentLogger(),
        clock: systemClock,
        onChange: () => undefined,
      })
    : undefined;
  members?.sync();
  // The workers' version store; the reconciler reads it only where the workers run in its process.
  const workerVersions = new VersionStore(fed.hostClient, { caches: versionCaches });
  const reconcilerVersions = mode.sharedVersions ? workerVersions : new VersionStore(fed.hostClient);
  const reconciler = new SyncReconciler({
    ...env,
    type,
    objects: objects.store,
    readyClusters: () => fleet.readyClusters(),
    producer,
    recorder,
    events,
    memberCopies: members,
    versions: reconcilerVersions,
    ownWrites,
    scopes,
  });
  const worker = new SyncWorker({
    ...env,
    types: (name) => (name === type.name ? type : undefined),
    caches: () => ({ objects, memberCopies: members }),
    memberClient: (cluster) => fleet.readyClient(cluster),
    recorder,
    versionStore: workerVersions,
    ownWrites,
  });
  const statusWriter = new StatusWriter({
    ...env,
    type,
    objects: objects.store,
    recorder,
    isReady: (c) => fleet.isReady(c),
    remoteStatusCollection: () => false,
    clock: systemClock,
  });
  const ctx: ReconcileContext = { logger: silentLogger(), signal: stop.signal, attempt: 0 };
  return {
    reconciler,
    scopes,
    producer,
    recorder,
    worker,
    members,
    statusWriter,
    reconcile: (key) => reconciler.reconcile(key, ctx),
    [Symbol.asyncDispose]: async () => {
      await members?.stop();
    },
  };
}

/** Creates a FederatedClusterRole with `placement` and waits for the host cache to hold it; returns its name. */
async function createFederatedClusterRole(placement: Record<string, unknown> = { clusters: [{ name: 'member1' }] }): Promise<string> {
  const name = `fcr-${randomUUID().slice(0, 8)}`;
  await fed.hostClient.resource(FED_CLUSTER_ROLES).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedClusterRole',
    metadata: { name },
    spec: { template: { rules: [] }, placement },
  });
  await expect.poll(() => objects.store.get(name) !== undefined, POLL).toBe(true);
  return name;
}

/** A first reconcile of `name`, and its finalizer in the host cache before the next one (the cache lags the write). */
async function firstReconcile(path: SyncPathUnderTest, name: string): Promise<void> {
  await path.reconcile(name);
  await expect.poll(() => objects.store.get(name)?.metadata.finalizers ?? [], POLL).toContain('kubefed.io/sync-controller');
}

/** Runs every pending job of `path` through its worker. */
async function runJobs(path: SyncPathUnderTest): Promise<void> {
  for (const job of path.producer.take()) await path.worker.process(job);
}

const jobsOf = (path: SyncPathUnderTest): string[] => path.producer.take().map((j) => `${j.kind} ${j.cluster}`);

describe.each(MODES)('SyncReconciler.reconcile in mode $mode', (mode) => {
  it('adds the finalizer and enqueues one sync job per Ready target cluster of a new object', async () => {
    await using path = syncPath(mode);
    const name = await createFederatedClusterRole();

    await expect(path.reconcile(name)).resolves.toEqual({ type: 'done' });

    expect(jobsOf(path)).toEqual(['sync member1']);
    const stored = await fed.hostClient.resource(FED_CLUSTER_ROLES).get(name);
    expect(stored.metadata.finalizers).toContain('kubefed.io/sync-controller');
  });

  it(`enqueues ${mode.skipsCurrentCopies ? 'no job' : 'a job again'} for a copy the worker converged`, async () => {
    await using path = syncPath(mode);
    const name = await createFederatedClusterRole();
    await firstReconcile(path, name);
    await runJobs(path);
    expect(path.recorder.outcomes(federatedObjectRef(type.name, name)).get('member1')).toMatchObject({ status: '' });
    // The copy is in the member watch cache (where there is one) before the reconciler looks again.
    if (path.members !== undefined) await expect.poll(() => path.members?.managedCopy('member1', name) ?? null, POLL).not.toBeNull();

    if (mode.skipsCurrentCopies) {
      await expect
        .poll(async () => {
          await path.reconcile(name);
          return jobsOf(path);
        }, POLL)
        .toEqual([]);
    } else {
      await path.reconcile(name);
      expect(jobsOf(path)).toEqual(['sync member1']);
    }
  });

  it('ends with a terminal outcome, a ComputePlacementFailed event and no job for an invalid cluster selector, and the worker fails its job for good', async () => {
    await using path = syncPath(mode);
    const name = await createFederatedClusterRole({
      clusterSelector: { matchExpressions: [{ key: 'region', operator: 'Near', values: ['eu'] }] },
    });

    const outcome = await path.reconcile(name);

    expect(outcome.type).toBe('terminal');
    expect(path.producer.history).toEqual([]);
    const events = (await fed.hostClient.resource(RESOURCES.events, 'default').list()).items.filter(
      (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
    );
    expect(events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'ComputePlacementFailed' }));
    // The status writer explains it in a False Propagation condition.
    await path.statusWriter.flush();
    const status = (await fed.hostClient.resource(FED_CLUSTER_ROLES).get(name)).status as { conditions?: unknown[] } | undefined;
    expect(status?.conditions).toMatchObject([{ type: 'Propagation', status: 'False', reason: 'ComputePlacementFailed' }]);
    // A job enqueued before the selector broke is not retried forever.
    await expect(path.worker.process({ kind: 'sync', federatedType: type.name, name, cluster: 'member1' })).rejects.toBeInstanceOf(
      PermanentSyncError,
    );
  });

  it('dispatches a changed member copy to its cluster alone, and a copy without a federated object as a removal', async () => {
    await using path = syncPath(mode);
    const name = await createFederatedClusterRole({ clusters: [{ name: 'member1' }, { name: 'member2' }] });
    await firstReconcile(path, name);
    await runJobs(path);

    // The copy in member2 changed by hand: its watch cache shows it before the event maps back to the key.
    const copies = fleet.readyClient('member2')?.resource(CLUSTER_ROLES);
    const current = await copies?.get(name);
    const drifted = await copies?.update({ ...current!, metadata: { ...current!.metadata, annotations: { edited: 'by-hand' } } });
    if (path.members !== undefined)
      await expect
        .poll(() => path.members?.managedCopy('member2', name)?.metadata.resourceVersion, POLL)
        .toBe(drifted?.metadata.resourceVersion);
    path.scopes.memberChanged(name, 'member2');
    await path.reconcile(name);
    expect(jobsOf(path)).toEqual(['sync member2']);

    // A managed copy in member1 whose federated object never existed: a possible orphan.
    const orphan = `orphan-${randomUUID().slice(0, 8)}`;
    const copy: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: orphan, labels: { [MANAGED_LABEL]: MANAGED_LABEL_TRUE } },
      rules: [],
    };
    await fleet.readyClient('member1')?.resource(CLUSTER_ROLES).create(copy);
    if (path.members !== undefined) await expect.poll(() => path.members?.managedCopy('member1', orphan) ?? null, POLL).not.toBeNull();
    path.scopes.memberChanged(orphan, 'member1');
    await expect(path.reconcile(orphan)).resolves.toEqual({ type: 'done' });
    expect(jobsOf(path)).toEqual(['remove member1']);
  });
});

describe('SyncReconciler.reconcile with a retention failure', () => {
  it('skips a cluster whose copy failed retention for this generation, unless that copy changed', async () => {
    await using path = syncPath(MODES[0]);
    const name = await createFederatedClusterRole();
    const generation = objects.store.get(name)?.metadata.generation ?? 0;
    path.recorder.report({ federatedType: type.name, name, cluster: 'member1', generation, result: { status: 'FieldRetentionFailed' } });

    await firstReconcile(path, name);
    expect(jobsOf(path)).toEqual([]);

    path.scopes.memberChanged(name, 'member1');
    await path.reconcile(name);
    expect(jobsOf(path)).toEqual(['sync member1']);
  });
});

describe('registerSyncPath', () => {
  const job = { kind: 'sync', federatedType: type.name, name: 'web', cluster: 'not-joined' } as const;
  const jobContext = { attempt: 1, signal: stop.signal, logger: silentJobLogger };

  it.each([
    { mode: 'all', controllers: true, workers: true },
    { mode: 'controllers', controllers: true, workers: false },
    { mode: 'workers', controllers: false, workers: true },
  ])('builds the roles of --mode $mode and nothing else', ({ controllers, workers }) => {
    const path = registerSyncPath(new Manager({ healthAddress: null, metricsAddress: null }), {
      host: fed.hostClient,
      scope: { kubefedNamespace: NS },
      fleet,
      clusters: () => [],
      ...(controllers ? { controllers: { producer: new InMemoryJobProducer() } } : {}),
      ...(workers ? { workers: {} } : {}),
    });
    expect({ recorder: path.recorder !== undefined, syncController: path.syncController !== undefined }).toEqual({
      recorder: controllers,
      syncController: controllers,
    });
    expect(path.processor !== undefined).toBe(workers);
    expect(path.syncController?.(type).name).toBe(controllers ? `sync-${type.name}` : undefined);
  });

  it('drops a job for a cluster that is not Ready here, or retries it with MemberNotReadyError when asked to', async () => {
    const manager = new Manager({ healthAddress: null, metricsAddress: null });
    const options = { host: fed.hostClient, scope: { kubefedNamespace: NS }, fleet, clusters: () => [] };
    const dropping = registerSyncPath(manager, { ...options, controllers: { producer: new InMemoryJobProducer() }, workers: {} });
    const retrying = registerSyncPath(manager, { ...options, workers: { outcomes: new StatusRecorder(), notReady: 'retry' } });

    await expect(dropping.processor?.(job, jobContext)).resolves.toBeUndefined();
    await expect(retrying.processor?.(job, jobContext)).rejects.toBeInstanceOf(MemberNotReadyError);
  });
});
