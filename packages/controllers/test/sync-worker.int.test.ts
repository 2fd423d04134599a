import { randomUUID } from 'node:crypto';
import { buildFederatedTypeConfig, defaultFederatedTypeConfig, RESOURCES } from '@kubefed/api';
import { DynamicClient, Kubeconfig } from '@kubefed/client';
import type { SimCluster } from '@kubefed/kube-sim';
import { EventRecorder } from '@kubefed/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemberWriteError, StatusRecorder, SyncWorker, syncTypeOf, VersionStore } from '@kubefed/controllers';
import { federatedObjectRef, type QueueLogger } from '@kubefed/queue';
import { clientFor, type InProcessFederation as Federation, startInProcessFederation } from '@kubefed/testing';
import { TARGET_TYPES } from '@kubefed/testing/fixtures';

const FED_CLUSTER_ROLES = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedclusterroles' };
const EVENTS = RESOURCES.events;
const MEMBER_CLUSTER_ROLES = RESOURCES.clusterRoles;
const NS = 'kube-federation-system';
const type = syncTypeOf(defaultFederatedTypeConfig(buildFederatedTypeConfig(TARGET_TYPES.clusterRoles, NS)));

/** A client of `cluster` whose token the API server refuses (401). */
const refusedClient = (cluster: SimCluster): DynamicClient =>
  DynamicClient.fromKubeconfig(Kubeconfig.fromString(cluster.kubeconfigYaml().replaceAll(cluster.adminToken, 'not-the-token')));

/** Creates a FederatedClusterRole placed on member1; returns its name. */
async function createFederatedClusterRole(): Promise<string> {
  const name = `fcr-${randomUUID().slice(0, 8)}`;
  await fed.hostClient.resource(FED_CLUSTER_ROLES).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedClusterRole',
    metadata: { name },
    spec: { template: { rules: [] }, placement: { clusters: [{ name: 'member1' }] } },
  });
  return name;
}

/** The uid of the FederatedClusterRole `name`, which every outcome about it carries. */
async function uidOf(name: string): Promise<string | undefined> {
  return (await fed.hostClient.resource(FED_CLUSTER_ROLES).get(name)).metadata.uid;
}

let fed: Federation;

beforeAll(async () => {
  fed = await startInProcessFederation({ members: { member1: {} }, federatedTypes: [TARGET_TYPES.clusterRoles, TARGET_TYPES.namespaces] });
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

describe('sync worker failures before a member write', () => {
  it('reports ClientRetrievalFailed with a Warning event when a Ready cluster has no client, and retries', async () => {
    const name = await createFederatedClusterRole();
    const recorder = new StatusRecorder();
    const worker = new SyncWorker({
      host: fed.hostClient,
      clusters: () => [],
      kubefedNamespace: NS,
      types: (n) => (n === type.name ? type : undefined),
      memberClient: () => {
        throw new Error('the secret of the cluster is not bound to it');
      },
      recorder,
      events: new EventRecorder({ events: (ns) => fed.hostClient.resource(EVENTS, ns), component: 'kubefed-sync' }),
    });

    const attempt = worker.process({ kind: 'sync', federatedType: type.name, name, cluster: 'member1' });
    await expect(attempt).rejects.toBeInstanceOf(MemberWriteError);
    expect(recorder.outcomes(federatedObjectRef(type.name, name)).get('member1')).toEqual({
      status: 'ClientRetrievalFailed',
      generation: 1,
      uid: await uidOf(name),
    });
    const events = (await fed.hostClient.resource(EVENTS, 'default').list()).items.filter(
      (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: 'UpdateInClusterFailed',
        message: `Failed to update ClusterRole "${name}" in cluster "member1": Error retrieving client for cluster: the secret of the cluster is not bound to it`,
      }),
    ]);
  });

  it('reports RetrievalFailed, for any generation, when the federated object cannot be read from the host', async () => {
    const name = await createFederatedClusterRole();
    const recorder = new StatusRecorder();
    using host = refusedClient(fed.host);
    using member = clientFor(fed.member('member1'));
    const worker = new SyncWorker({
      host,
      clusters: () => [],
      kubefedNamespace: NS,
      types: (n) => (n === type.name ? type : undefined),
      memberClient: () => member,
      recorder,
    });
    await expect(worker.process({ kind: 'sync', federatedType: type.name, name, cluster: 'member1' })).rejects.toBeInstanceOf(
      MemberWriteError,
    );
    expect(recorder.outcomes(federatedObjectRef(type.name, name)).get('member1')).toEqual({ status: 'RetrievalFailed' });
  });

  it('reports VersionRetrievalFailed with an UpdateInClusterFailed event when the propagated version cannot be read', async () => {
    const name = await createFederatedClusterRole();
    using member = clientFor(fed.member('member1'));
    await member.resource(MEMBER_CLUSTER_ROLES).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name, labels: { 'kubefed.io/managed': 'true' } },
      rules: [],
    });
    const recorder = new StatusRecorder();
    using refused = refusedClient(fed.host);
    const worker = new SyncWorker({
      host: fed.hostClient,
      clusters: () => [{ metadata: { name: 'member1' } }],
      kubefedNamespace: NS,
      types: (n) => (n === type.name ? type : undefined),
      memberClient: () => member,
      recorder,
      versionStore: new VersionStore(refused),
      events: new EventRecorder({ events: (ns) => fed.hostClient.resource(EVENTS, ns), component: 'kubefed-sync' }),
    });
    await expect(worker.process({ kind: 'sync', federatedType: type.name, name, cluster: 'member1' })).rejects.toBeInstanceOf(
      MemberWriteError,
    );
    expect(recorder.outcomes(federatedObjectRef(type.name, name)).get('member1')).toEqual({
      status: 'VersionRetrievalFailed',
      generation: 1,
      uid: await uidOf(name),
    });
    const events = (await fed.hostClient.resource(EVENTS, 'default').list()).items.filter(
      (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: 'UpdateInClusterFailed',
        message: expect.stringContaining(`Failed to update ClusterRole "${name}" in cluster "member1": `) as unknown,
      }),
    ]);
  });

  it("records RemoveManagedLabelFromInCluster once when it unlabels the host's own Namespace in a host that is also a member", async () => {
    const target = `app-${randomUUID().slice(0, 8)}`;
    const namespaces = fed.hostClient.resource({ group: '', version: 'v1', resource: 'namespaces' });
    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: target, labels: { 'kubefed.io/managed': 'true' } } });
    // Placed nowhere: the host's copy leaves the placement.
    await fed.hostClient.resource({ group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' }, target).create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: target },
      spec: { placement: { clusters: [] } },
    });
    const nsType = syncTypeOf(defaultFederatedTypeConfig(buildFederatedTypeConfig(TARGET_TYPES.namespaces, NS)));
    const worker = new SyncWorker({
      host: fed.hostClient,
      clusters: () => [{ metadata: { name: 'host' } }],
      kubefedNamespace: NS,
      types: (n) => (n === nsType.name ? nsType : undefined),
      memberClient: () => fed.hostClient,
      recorder: new StatusRecorder(),
      events: new EventRecorder({ events: (ns) => fed.hostClient.resource(EVENTS, ns), component: 'kubefed-sync' }),
    });
    const job = { kind: 'sync', federatedType: nsType.name, namespace: target, name: target, cluster: 'host' } as const;
    const normalEvents = async (): Promise<unknown[]> =>
      (await fed.hostClient.resource(EVENTS, target).list()).items
        .filter((e) => (e as { type?: string }).type === 'Normal')
        .map((e) => {
          const { reason, message, count } = e as { reason?: string; message?: string; count?: number };
          return { reason, message, count };
        });

    await worker.process(job);
    expect((await namespaces.get(target)).metadata.labels?.['kubefed.io/managed']).toBeUndefined();
    const expected = [
      {
        reason: 'RemoveManagedLabelFromInCluster',
        message: `Removing managed label from Namespace "${target}" in cluster "host"`,
        count: 1,
      },
    ];
    expect(await normalEvents()).toEqual(expected);
    // Nothing left to do: no write, no event.
    await worker.process(job);
    expect(await normalEvents()).toEqual(expected);
  });
});

describe('the job context of a sync worker', () => {
  /** A logger that keeps the messages it is given. */
  const recordingLogger = (lines: string[]): QueueLogger => {
    const logger: QueueLogger = {
      debug: (_, msg) => lines.push(msg),
      info: (_, msg) => lines.push(msg),
      warn: (_, msg) => lines.push(msg),
      error: (_, msg) => lines.push(msg),
      child: () => logger,
    };
    return logger;
  };

  it('stops without touching the member or reporting when the job is aborted, and writes through the job logger otherwise', async () => {
    const name = await createFederatedClusterRole();
    using member = clientFor(fed.member('member1'));
    const recorder = new StatusRecorder();
    const worker = new SyncWorker({
      host: fed.hostClient,
      clusters: () => [{ metadata: { name: 'member1' } }],
      kubefedNamespace: NS,
      types: (n) => (n === type.name ? type : undefined),
      memberClient: () => member,
      recorder,
    });
    const job = { kind: 'sync', federatedType: type.name, name, cluster: 'member1' } as const;
    const lines: string[] = [];
    const aborted = new AbortController();
    aborted.abort(new Error('the worker host is closing'));

    await expect(worker.process(job, { attempt: 1, signal: aborted.signal, logger: recordingLogger(lines) })).rejects.toThrow(
      'the worker host is closing',
    );
    await expect(member.resource(MEMBER_CLUSTER_ROLES).get(name)).rejects.toMatchObject({ reason: 'NotFound' });
    expect(recorder.outcomes(federatedObjectRef(type.name, name)).size).toBe(0);

    await worker.process(job, { attempt: 2, signal: new AbortController().signal, logger: recordingLogger(lines) });
    expect((await member.resource(MEMBER_CLUSTER_ROLES).get(name)).metadata.labels?.['kubefed.io/managed']).toBe('true');
    expect(recorder.outcomes(federatedObjectRef(type.name, name)).get('member1')).toEqual({
      status: '',
      generation: 1,
      uid: await uidOf(name),
    });
    expect(lines).toEqual(['member object created']);
  });
});
