import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  CLUSTER_CONNECTION_ANNOTATION,
  connectionDigest,
  JOIN_SERVICE_ACCOUNT_ANNOTATION,
  requestMemberToken,
  TOKEN_EXPIRATION_ANNOTATION,
  TOKEN_LIFETIME_ANNOTATION,
  tokenAnnotations,
} from '@kubefed/client';
import { generateClusterPki } from '@kubefed/kube-sim';
import { defaultKubeFedConfigSpec, type KubeFedConfigSpec, RESOURCES } from '@kubefed/api';
import { Manager } from '@kubefed/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KubeFedConfigSource,
  registerKubeFedClusterController,
  registerKubeFedConfigController,
  type MemberFleet,
} from '@kubefed/controllers';
import {
  clientFor,
  createNamespace,
  type InProcessFederation,
  joinMember,
  kubeFedClusterCondition,
  registerCluster,
  startInProcessFederation,
} from '@kubefed/testing';

const KFC = RESOURCES.kubeFedClusters;
const KFCONFIG = RESOURCES.kubeFedConfigs;

let fed: InProcessFederation;

beforeAll(async () => {
  fed = await startInProcessFederation({
    members: {
      member1: { region: 'eu-west', zones: ['eu-west-b', 'eu-west-a'], version: 'v1.30.2' },
      member2: {},
    },
  });
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

const FAST = { scope: 'Cluster', clusterHealthCheck: { period: '200ms', timeout: '1s', failureThreshold: 3, successThreshold: 1 } };

/** A fresh kubefed namespace in the host, optionally with a KubeFedConfig spec. */
async function kubefedNamespace(spec?: object): Promise<string> {
  const ns = `kf-${randomUUID().slice(0, 8)}`;
  await createNamespace(fed.hostClient, ns);
  if (spec !== undefined) {
    await fed.hostClient
      .resource(KFCONFIG, ns)
      .create({ apiVersion: 'core.kubefed.io/v1beta1', kind: 'KubeFedConfig', metadata: { name: 'kubefed' }, spec });
  }
  return ns;
}

interface Running extends AsyncDisposable {
  readonly fleet: MemberFleet;
  readonly source: KubeFedConfigSource;
  /** The controller's `clustersKnown`, bound to the manager's run. */
  readonly clustersKnown: () => Promise<void>;
}

/** Runs the cluster health controller and the KubeFedConfig handling for `namespace`, in process. */
function runManager(namespace: string, memberRateLimit?: { qps: number; burst: number }): Running {
  const manager = new Manager({ healthAddress: null, metricsAddress: null });
  const source = new KubeFedConfigSource(namespace);
  registerKubeFedConfigController(manager, { host: fed.hostClient, namespace, source });
  const { fleet, clustersKnown } = registerKubeFedClusterController(manager, {
    host: fed.hostClient,
    namespace,
    settings: { current: () => source.current().clusterHealthCheck, onChange: (l) => source.onChange(() => l()) },
    ...(memberRateLimit === undefined ? {} : { memberRateLimit }),
  });
  const stop = new AbortController();
  const finished = manager.start(stop.signal).then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  return {
    fleet,
    source,
    clustersKnown: () => clustersKnown(stop.signal),
    async [Symbol.asyncDispose]() {
      stop.abort();
      const err = await finished;
      if (err !== undefined) throw err;
    },
  };
}

/** Polls until the KubeFedCluster `name` in `ns` is Ready (within 5 s). */
async function untilReady(ns: string, name: string): Promise<void> {
  await expect
    .poll(() => kubeFedClusterCondition(fed, ns, name, 'Ready'), { timeout: 5000, interval: 100 })
    .toMatchObject({ status: 'True' });
}

async function status(ns: string, name: string): Promise<Record<string, unknown>> {
  const obj = await fed.hostClient.resource(KFC, ns).get(name);
  return (obj.status ?? {}) as Record<string, unknown>;
}

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const EVENTS = { group: '', version: 'v1', resource: 'events' };

/** Events in `ns`, as reason and message. */
async function events(ns: string): Promise<{ reason: unknown; message: unknown }[]> {
  return (await fed.hostClient.resource(EVENTS, ns).list()).items.map((e) => ({ reason: e['reason'], message: e['message'] }));
}

interface RecordingServer extends AsyncDisposable {
  readonly url: string;
  /** `<method> <path> <authorization header>` of every request received. */
  readonly requests: string[];
}

/** A plain HTTP server posing as a member API server: records every request and answers with `answer(path)`. */
async function recordingServer(answer: (path: string) => { status: number; body: string }): Promise<RecordingServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.authorization ?? '-'}`);
    const { status: code, body } = answer(req.url ?? '/');
    res.writeHead(code, { 'content-type': body.startsWith('{') ? 'application/json' : 'text/plain' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface TlsListener extends AsyncDisposable {
  readonly url: string;
  /** base64 PEM of the CA that signed its certificate. */
  readonly caBundle: string;
  /** TCP connections accepted (a request needs one). */
  readonly connections: () => number;
  /** `<method> <path> <authorization header>` of every request received. */
  readonly requests: string[];
}

/** A TLS server of someone else's, posing as a member API server with a certificate of its own CA: answers ok to everything. */
async function tlsListener(): Promise<TlsListener> {
  const pki = generateClusterPki('elsewhere');
  const requests: string[] = [];
  let connections = 0;
  const server = createTlsServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    requests.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.authorization ?? '-'}`);
    res
      .writeHead(200, { 'content-type': req.url === '/version' ? 'application/json' : 'text/plain' })
      .end(req.url === '/version' ? '{"gitVersion":"v1.0.0"}' : 'ok');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caBundle: Buffer.from(pki.caCertPem).toString('base64'),
    connections: () => connections,
    requests,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('cluster health controller against kube-sim', () => {
  it('marks joined members Ready with their kubernetes version, and region and zones where nodes may be listed', async () => {
    const ns = await kubefedNamespace(FAST);
    await joinMember(fed, fed.member('member1'), ns);
    await joinMember(fed, fed.member('member2'), ns, { access: 'none' });
    await using running = runManager(ns);

    await expect
      .poll(() => status(ns, 'member1'), { timeout: 5000, interval: 100 })
      .toMatchObject({
        conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: '/healthz responded with ok' }],
        kubernetesVersion: 'v1.30.2',
        region: 'eu-west',
        zones: ['eu-west-a', 'eu-west-b'],
      });
    await expect
      .poll(() => status(ns, 'member2'), { timeout: 5000, interval: 100 })
      .toMatchObject({
        conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady' }],
        kubernetesVersion: 'v1.31.0',
      });
    const s2 = await status(ns, 'member2');
    expect(s2.region).toBeUndefined();
    expect(s2.zones).toBeUndefined();
    expect([...running.fleet.readyClusters().keys()].sort()).toEqual(['member1', 'member2']);

    await fed.hostClient.resource(KFC, ns).delete('member2');
    await expect.poll(() => [...running.fleet.readyClusters().keys()], { timeout: 3000, interval: 50 }).toEqual(['member1']);
  });

  it.skipIf(!existsSync('/usr/bin/kubectl'))(
    "shows KubeFed's AGE, READY and KUBERNETES-VERSION columns in `kubectl get kubefedclusters` (kubectl required)",
    async () => {
      const ns = await kubefedNamespace(FAST);
      await joinMember(fed, fed.member('member1'), ns);
      await using _running = runManager(ns);
      await expect
        .poll(() => status(ns, 'member1'), { timeout: 5000, interval: 100 })
        .toMatchObject({
          conditions: [{ type: 'Ready', status: 'True' }],
        });
      const dir = mkdtempSync(join(tmpdir(), 'kfc-kubectl-'));
      try {
        const kubeconfig = join(dir, 'kubeconfig');
        writeFileSync(kubeconfig, fed.host.kubeconfigYaml());
        const { stdout } = await promisify(execFile)('kubectl', ['--kubeconfig', kubeconfig, 'get', 'kubefedclusters', '-n', ns], {
          timeout: 30_000,
        });
        const [header, row] = stdout.trim().split('\n');
        expect(header?.split(/\s{2,}/)).toEqual(['NAME', 'AGE', 'READY', 'KUBERNETES-VERSION']);
        expect(row?.split(/\s+/)).toEqual(['member1', expect.stringMatching(/^\d+s$/), 'True', 'v1.30.2']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('reports an unreachable member Offline within failureThreshold periods and Ready again after restore', async () => {
    const ns = await kubefedNamespace(FAST);
    const member2 = fed.member('member2');
    await joinMember(fed, member2, ns);
    await using running = runManager(ns);
    await untilReady(ns, 'member2');

    member2.faults.unreachable();
    try {
      // failureThreshold 3 × period 200 ms, plus the 1 s probe timeout and slack.
      await expect
        .poll(() => kubeFedClusterCondition(fed, ns, 'member2', 'Offline'), { timeout: 4000, interval: 100 })
        .toMatchObject({
          status: 'True',
          reason: 'ClusterNotReachable',
          message: expect.stringMatching(/^cluster is not reachable: /),
        });
      await expect
        .poll(
          async () =>
            (await fed.hostClient.resource({ group: '', version: 'v1', resource: 'events' }, ns).list()).items.map((e) => e.reason),
          { timeout: 3000, interval: 100 },
        )
        .toContain('RetrievingClusterHealthFailed');
      const offline = await status(ns, 'member2');
      expect(offline.conditions).toHaveLength(1);
      expect(offline.kubernetesVersion).toBeUndefined();
      expect(running.fleet.isReady('member2')).toBe(false);
    } finally {
      member2.faults.restore();
    }
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member2', 'Ready'), { timeout: 4000, interval: 100 })
      .toMatchObject({ status: 'True' });
    expect(running.fleet.isReady('member2')).toBe(true);
  });

  it('probes a Ready member at once when a connection of its client fails, long before the next period', async () => {
    // A 5-minute period: within the poll below only the failed connections can cause a probe.
    const ns = await kubefedNamespace({ ...FAST, clusterHealthCheck: { ...FAST.clusterHealthCheck, period: '5m' } });
    const member2 = fed.member('member2');
    await joinMember(fed, member2, ns);
    await using running = runManager(ns);
    await untilReady(ns, 'member2');
    // A reader of the member through the Fleet's client, as the sync controllers and workers are
    // (of Nodes: what the join of joinMember lets the member's service account read).
    const hold = running.fleet.informer('member2', { resource: { group: '', version: 'v1', resource: 'nodes' } });
    if (hold === undefined) throw new Error('member2 is not engaged');
    try {
      await expect.poll(() => hold.informer.hasSynced(), { timeout: 5000, interval: 100 }).toBe(true);
      member2.faults.unreachable();
      try {
        // failureThreshold 3: the watch's reconnects, one probe a second at most, fail 3 probes.
        await expect
          .poll(() => kubeFedClusterCondition(fed, ns, 'member2', 'Offline'), { timeout: 20_000, interval: 200 })
          .toMatchObject({ status: 'True', reason: 'ClusterNotReachable' });
        expect(running.fleet.isReady('member2')).toBe(false);
      } finally {
        member2.faults.restore();
      }
    } finally {
      hold.release();
    }
  }, 40_000);

  it("takes a member's readiness from its stored status until the restarted controller's first probe decides", async () => {
    const ns = await kubefedNamespace({ ...FAST, clusterHealthCheck: { ...FAST.clusterHealthCheck, timeout: '10s' } });
    const member1 = fed.member('member1');
    await joinMember(fed, member1, ns);
    {
      await using first = runManager(ns);
      await untilReady(ns, 'member1');
      await first.clustersKnown();
    }
    // The restarted controller's probes get no answer: only the stored status can say Ready.
    member1.faults.hang();
    try {
      await using second = runManager(ns);
      await second.clustersKnown();
      expect(second.fleet.isReady('member1')).toBe(true);
      expect(second.fleet.get('member1')).toBeDefined();
    } finally {
      member1.faults.restore();
    }
  });

  it("keeps probing a member whose sync client is saturated: probes never wait behind the member's queued sync requests", async () => {
    const ns = await kubefedNamespace(FAST);
    await joinMember(fed, fed.member('member1'), ns);
    // 1 request/s for the client sync workers use: 100 queued requests keep its budget busy for 100 s.
    await using running = runManager(ns, { qps: 1, burst: 1 });
    await untilReady(ns, 'member1');
    const sync = running.fleet.readyClusters().get('member1');
    expect(sync).toBeDefined();
    const stop = new AbortController();
    const queued = Array.from({ length: 100 }, () =>
      sync!
        .resource(SECRETS, ns)
        .list({ signal: stop.signal })
        .catch(() => undefined),
    );
    try {
      const saturated = (await kubeFedClusterCondition(fed, ns, 'member1', 'Ready'))?.lastProbeTime;
      // lastProbeTime has a resolution of one second: two moves mean probes went on for over a second.
      const moved = new Set<unknown>();
      await expect
        .poll(
          async () => {
            const probe = (await kubeFedClusterCondition(fed, ns, 'member1', 'Ready'))?.lastProbeTime;
            if (probe !== saturated) moved.add(probe);
            return moved.size;
          },
          { timeout: 8000, interval: 100 },
        )
        .toBeGreaterThanOrEqual(2);
      expect(await kubeFedClusterCondition(fed, ns, 'member1', 'Ready')).toMatchObject({ status: 'True' });
    } finally {
      stop.abort();
      await Promise.all(queued);
    }
  });

  it('keeps lastTransitionTime while the status stays Ready and only moves lastProbeTime', async () => {
    const ns = await kubefedNamespace(FAST);
    await joinMember(fed, fed.member('member1'), ns);
    await using _running = runManager(ns);
    await untilReady(ns, 'member1');
    const initial = (await kubeFedClusterCondition(fed, ns, 'member1', 'Ready'))!;
    await expect
      .poll(async () => (await kubeFedClusterCondition(fed, ns, 'member1', 'Ready'))?.lastProbeTime, { timeout: 4000, interval: 100 })
      .not.toBe(initial.lastProbeTime);
    expect((await kubeFedClusterCondition(fed, ns, 'member1', 'Ready'))?.lastTransitionTime).toBe(initial.lastTransitionTime);
  });

  it('reports ConfigMalformed for a cluster whose token secret is missing', async () => {
    const ns = await kubefedNamespace(FAST);
    await registerCluster(fed, 'ghost', ns, { apiEndpoint: fed.member('member1').url, secretRef: { name: 'no-such-secret' } });
    await using running = runManager(ns);
    await expect
      .poll(() => status(ns, 'ghost'), { timeout: 5000, interval: 100 })
      .toMatchObject({
        conditions: [
          {
            type: 'ConfigMalformed',
            status: 'True',
            reason: 'ClusterConfigMalformed',
            message: "cluster's configuration may be malformed",
          },
        ],
      });
    expect(running.fleet.isReady('ghost')).toBe(false);
    await expect
      .poll(async () => (await fed.hostClient.resource({ group: '', version: 'v1', resource: 'events' }, ns).list()).items, {
        timeout: 3000,
        interval: 100,
      })
      .toContainEqual(
        expect.objectContaining({
          type: 'Warning',
          reason: 'MalformedClusterConfig',
          message: expect.stringMatching(/^The configuration for this cluster may be malformed: .*no-such-secret/),
          involvedObject: expect.objectContaining({ kind: 'KubeFedCluster', name: 'ghost' }),
        }),
      );
  });

  it('rebuilds the member client when the token secret or the cluster spec changes', async () => {
    const ns = await kubefedNamespace(FAST);
    await joinMember(fed, fed.member('member1'), ns);
    await using _running = runManager(ns);
    await untilReady(ns, 'member1');

    const secrets = fed.hostClient.resource({ group: '', version: 'v1', resource: 'secrets' }, ns);
    const secret = await secrets.get('member1-secret');
    await secrets.delete('member1-secret');
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'ConfigMalformed'), { timeout: 4000, interval: 100 })
      .toMatchObject({ status: 'True' });

    await secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'member1-secret', annotations: secret.metadata.annotations ?? {} },
      data: secret.data,
    });
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'Ready'), { timeout: 4000, interval: 100 })
      .toMatchObject({ status: 'True' });

    // A new endpoint takes binding the token to it (write access to the Secret), as join does.
    const clusters = fed.hostClient.resource(KFC, ns);
    const cluster = await clusters.get('member1');
    const spec = cluster.spec as { apiEndpoint: string };
    spec.apiEndpoint = 'https://127.0.0.1:1';
    await clusters.update(cluster);
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'Ready'), { timeout: 4000, interval: 100 })
      .toMatchObject({ status: 'False', reason: 'ClusterSecretNotBound' });
    await secrets.patch(
      'member1-secret',
      { metadata: { annotations: { [CLUSTER_CONNECTION_ANNOTATION]: connectionDigest(spec) } } },
      'merge',
    );
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'Offline'), { timeout: 4000, interval: 100 })
      .toMatchObject({ status: 'True', reason: 'ClusterNotReachable' });
  });

  it('creates the default KubeFedConfig and applies a changed health-check period without a restart', async () => {
    const ns = await kubefedNamespace();
    await joinMember(fed, fed.member('member1'), ns);
    await using running = runManager(ns);
    const configs = fed.hostClient.resource(KFCONFIG, ns);
    await expect
      .poll(() => configs.get('kubefed').then((c) => c.spec), { timeout: 5000, interval: 100 })
      .toMatchObject({
        scope: 'Cluster',
        clusterHealthCheck: { period: '10s', timeout: '3s', failureThreshold: 3, successThreshold: 1 },
        leaderElect: { leaseDuration: '15s' },
      });
    await untilReady(ns, 'member1');

    const config = await configs.get('kubefed');
    const spec = config.spec as { clusterHealthCheck: { period: string } };
    spec.clusterHealthCheck.period = '200ms';
    await configs.update(config);
    await expect.poll(() => running.source.current().clusterHealthCheck.periodMs, { timeout: 5000, interval: 50 }).toBe(200);

    // With the old 10 s period the probe time could not move twice within a few seconds.
    const probeTimes = new Set<string>();
    await expect
      .poll(
        async () => {
          probeTimes.add((await kubeFedClusterCondition(fed, ns, 'member1', 'Ready'))?.lastProbeTime ?? '');
          return probeTimes.size;
        },
        { timeout: 8000, interval: 100 },
      )
      .toBeGreaterThanOrEqual(3);

    // An invalid change is refused at admission by the CRD's rules: the previous settings stay in force.
    const again = await configs.get('kubefed');
    (again.spec as { clusterHealthCheck: { period: string } }).clusterHealthCheck.period = '-5s';
    await expect(configs.update(again)).rejects.toMatchObject({
      reason: 'Invalid',
      message: expect.stringContaining('spec.clusterHealthCheck.period'),
    });
    const windowEnd = Date.now() + 800;
    while (Date.now() < windowEnd) {
      expect(running.source.current().clusterHealthCheck.periodMs).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it("completes a feature gate list given in part as KubeFed's defaulting webhook did: the stored config equals the defaulted one (KubeFed e2e defaulting.go)", async () => {
    // KubeFed's e2e case: only these values given; the CRD's schema defaults fill the blocks, the
    // controller adds the unlisted gate (a schema default cannot add items to a list).
    const given: KubeFedConfigSpec = {
      scope: 'Cluster',
      controllerDuration: { availableDelay: '31s' },
      clusterHealthCheck: { period: '21s' },
      featureGates: [
        { name: 'PushReconciler', configuration: 'Disabled' },
        { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
      ],
    };
    const ns = await kubefedNamespace(given);
    await using _running = runManager(ns);
    const configs = fed.hostClient.resource(KFCONFIG, ns);
    await expect
      .poll(() => configs.get('kubefed').then((c) => c.spec), { timeout: 5000, interval: 100 })
      .toEqual(defaultKubeFedConfigSpec(given));
    expect(defaultKubeFedConfigSpec(given).featureGates).toEqual([
      { name: 'PushReconciler', configuration: 'Disabled' },
      { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
      { name: 'SchedulerPreferences', configuration: 'Enabled' },
    ]);
  });

  it("never sends a token Secret bound to another cluster: a KubeFedCluster naming member1's Secret and its own server is refused in its status", async () => {
    const ns = await kubefedNamespace(FAST);
    await joinMember(fed, fed.member('member1'), ns);
    const token = Buffer.from(
      String(((await fed.hostClient.resource(SECRETS, ns).get('member1-secret')).data as Record<string, string>)['token']),
      'base64',
    ).toString();
    await using server = await recordingServer((path) =>
      path === '/version' ? { status: 200, body: '{"gitVersion":"v1.0.0"}' } : { status: 200, body: 'ok' },
    );
    await registerCluster(fed, 'evil', ns, { apiEndpoint: server.url, secretRef: { name: 'member1-secret' } });
    await using running = runManager(ns);

    await expect
      .poll(() => status(ns, 'evil'), { timeout: 5000, interval: 100 })
      .toMatchObject({
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ClusterSecretNotBound',
            message: expect.stringMatching(new RegExp(`secret ${ns}/member1-secret is bound to cluster member1, not to evil`)),
          },
        ],
      });
    await expect
      .poll(() => events(ns), { timeout: 3000, interval: 100 })
      .toContainEqual({
        reason: 'ClusterSecretNotBound',
        message: expect.stringContaining(`secret ${ns}/member1-secret is bound to cluster member1, not to evil`),
      });
    await untilReady(ns, 'member1');
    expect(running.fleet.isReady('evil')).toBe(false);
    // Several probe periods later the server has still not been contacted at all, least of all with member1's token.
    const until = Date.now() + 1000;
    while (Date.now() < until) {
      expect(server.requests).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(server.requests.join('\n')).not.toContain(token);
  });

  it('refuses a token Secret without the binding annotation (joins made before it existed) until it is annotated with the cluster', async () => {
    const ns = await kubefedNamespace(FAST);
    await joinMember(fed, fed.member('member1'), ns);
    const secrets = fed.hostClient.resource(SECRETS, ns);
    const bound = await secrets.get('member1-secret');
    await secrets.update({ ...bound, metadata: { ...bound.metadata, annotations: {} } });
    await using running = runManager(ns);

    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'Ready'), { timeout: 5000, interval: 100 })
      .toMatchObject({
        status: 'False',
        reason: 'ClusterSecretNotBound',
        message: expect.stringContaining(`secret ${ns}/member1-secret is not bound to a cluster (no kubefed.io/cluster-name annotation)`),
      });
    expect(running.fleet.isReady('member1')).toBe(false);

    await secrets.patch('member1-secret', { metadata: { annotations: bound.metadata.annotations ?? {} } }, 'merge');
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'Ready'), { timeout: 5000, interval: 100 })
      .toMatchObject({ status: 'True', reason: 'ClusterReady' });
    expect(running.fleet.isReady('member1')).toBe(true);
  });

  it.each([
    ['apiEndpoint and caBundle', (listener: TlsListener) => ({ apiEndpoint: listener.url, caBundle: listener.caBundle })],
    ['apiEndpoint, with TLS verification off', (listener: TlsListener) => ({ apiEndpoint: listener.url, disabledTLSValidations: ['*'] })],
  ])(
    "never sends a token to another server: whoever edits a KubeFedCluster's %s gets Ready False and no connection",
    async (_what, change) => {
      const ns = await kubefedNamespace(FAST);
      await joinMember(fed, fed.member('member1'), ns);
      const token = Buffer.from(
        String(((await fed.hostClient.resource(SECRETS, ns).get('member1-secret')).data as Record<string, string>)['token']),
        'base64',
      ).toString();
      await using listener = await tlsListener();
      await using running = runManager(ns);
      await untilReady(ns, 'member1');

      await fed.hostClient.resource(KFC, ns).patch('member1', { spec: change(listener) }, 'merge');
      await expect
        .poll(() => kubeFedClusterCondition(fed, ns, 'member1', 'Ready'), { timeout: 5000, interval: 100 })
        .toMatchObject({
          status: 'False',
          reason: 'ClusterSecretNotBound',
          message: expect.stringContaining(
            `the connection settings of member1 (spec.apiEndpoint "${listener.url}", caBundle, proxyURL, disabledTLSValidations) differ from those secret ${ns}/member1-secret is bound to`,
          ),
        });
      expect(running.fleet.isReady('member1')).toBe(false);
      // Several probe periods later nothing has connected to the listener, least of all with member1's token.
      const until = Date.now() + 1000;
      while (Date.now() < until) {
        expect(listener.connections()).toBe(0);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(listener.requests.join('\n')).not.toContain(token);
    },
  );

  it("keeps what a member's server answers out of the cluster's events, conditions and status", async () => {
    const ns = await kubefedNamespace(FAST);
    const marker = `MARKER-${randomUUID()}`;
    let healthz = { status: 500, body: `internal error ${marker}` };
    await using server = await recordingServer((path) =>
      path === '/version' ? { status: 200, body: JSON.stringify({ gitVersion: `v1.30.0 ${marker}` }) } : healthz,
    );
    await fed.hostClient.resource(SECRETS, ns).create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'echo-secret',
        annotations: { 'kubefed.io/cluster-name': 'echo', [CLUSTER_CONNECTION_ANNOTATION]: connectionDigest({ apiEndpoint: server.url }) },
      },
      data: { token: Buffer.from('echo-token').toString('base64') },
    });
    await registerCluster(fed, 'echo', ns, { apiEndpoint: server.url, secretRef: { name: 'echo-secret' } });
    await using _running = runManager(ns);
    const seen = async (): Promise<string> => JSON.stringify([await status(ns, 'echo'), await events(ns)]);

    // An HTTP error: the status code is reported, the body is not.
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'echo', 'Offline'), { timeout: 5000, interval: 100 })
      .toMatchObject({
        status: 'True',
        reason: 'ClusterNotReachable',
        message: 'cluster is not reachable: GET /healthz returned HTTP 500',
      });
    await expect
      .poll(() => events(ns), { timeout: 3000, interval: 100 })
      .toContainEqual({
        reason: 'RetrievingClusterHealthFailed',
        message: 'Failed to retrieve health of the cluster: GET /healthz returned HTTP 500',
      });
    expect(await seen()).not.toContain(marker);

    // A 2xx answer other than ok.
    healthz = { status: 200, body: `not ok ${marker}` };
    await expect
      .poll(() => kubeFedClusterCondition(fed, ns, 'echo', 'Ready'), { timeout: 5000, interval: 100 })
      .toMatchObject({ status: 'False', reason: 'ClusterNotReady' });
    expect(await seen()).not.toContain(marker);

    // Healthy, with a /version that is not a version.
    healthz = { status: 200, body: 'ok' };
    await untilReady(ns, 'echo');
    expect(await seen()).not.toContain(marker);
    expect(server.requests.some((r) => r.startsWith('GET /version '))).toBe(true);
  });

  describe('short-lived member tokens', () => {
    /**
     * Joins member1 into `ns` and gives its host Secret a short-lived token as `join --token-lifetime`
     * does: a TokenRequest token of 10 minutes, the member having shortened the 20 minutes asked
     * for (kube-apiserver's --service-account-max-token-expiration), so it is past half of its
     * lifetime at once. With `selfRenewal` the member ServiceAccount may ask for its own tokens.
     */
    async function shortLivedJoin(ns: string, selfRenewal: boolean): Promise<string> {
      await joinMember(fed, fed.member('member1'), ns);
      const sa = 'member1-host';
      using member = clientFor(fed.member('member1'));
      if (selfRenewal) {
        const rbac = (resource: string) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });
        await member.resource(rbac('roles'), ns).create({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'own-token' },
          rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], resourceNames: [sa], verbs: ['create'] }],
        });
        await member.resource(rbac('rolebindings'), ns).create({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'own-token' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'own-token' },
          subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
        });
      }
      const issued = await requestMemberToken(member, { namespace: ns, serviceAccount: sa, lifetimeSeconds: 600 });
      const token = Buffer.from(issued.token).toString('base64');
      await fed.hostClient.resource(SECRETS, ns).patch(
        'member1-secret',
        {
          metadata: { annotations: { ...tokenAnnotations(issued, 1200), [JOIN_SERVICE_ACCOUNT_ANNOTATION]: sa } },
          data: { token },
        },
        'merge',
      );
      return token;
    }

    it('renews a token past half of its lifetime with the token itself, and the member stays Ready with the new one', async () => {
      const ns = await kubefedNamespace(FAST);
      const first = await shortLivedJoin(ns, true);
      await using _running = runManager(ns);
      const secrets = fed.hostClient.resource(SECRETS, ns);
      await expect
        .poll(async () => ((await secrets.get('member1-secret')).data as Record<string, string> | undefined)?.['token'], {
          timeout: 10_000,
          interval: 100,
        })
        .not.toBe(first);
      const renewedAt = Date.now();
      const secret = await secrets.get('member1-secret');
      const annotations = secret.metadata.annotations ?? {};
      expect(annotations[TOKEN_LIFETIME_ANNOTATION]).toBe('1200');
      const expiresIn = Date.parse(annotations[TOKEN_EXPIRATION_ANNOTATION] ?? '') - Date.now();
      expect(expiresIn).toBeGreaterThan(1100_000);
      expect(expiresIn).toBeLessThanOrEqual(1200_000);
      // Probes made with the new token (the member client is rebuilt from the Secret) find the member Ready.
      await expect
        .poll(
          async () => {
            const ready = await kubeFedClusterCondition(fed, ns, 'member1', 'Ready');
            return ready?.status === 'True' && Date.parse(String(ready.lastProbeTime)) > renewedAt + 1000;
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      // Not due again: renewed once.
      expect(((await secrets.get('member1-secret')).data as Record<string, string>)['token']).toBe(
        (secret.data as Record<string, string>)['token'],
      );
    });

    it('records TokenRenewalFailed naming the service account when the member refuses, and keeps the cluster Ready on the current token', async () => {
      const ns = await kubefedNamespace(FAST);
      const first = await shortLivedJoin(ns, false);
      await using _running = runManager(ns);
      await expect
        .poll(async () => (await events(ns)).filter((e) => e.reason === 'TokenRenewalFailed').map((e) => e.message), {
          timeout: 10_000,
          interval: 100,
        })
        .toEqual([
          expect.stringMatching(
            new RegExp(
              `^cannot renew the token of cluster member1: the member refused a token for service account ${ns}/member1-host: .*forbidden`,
              'i',
            ),
          ),
        ]);
      expect(await kubeFedClusterCondition(fed, ns, 'member1', 'Ready')).toMatchObject({ status: 'True' });
      expect(((await fed.hostClient.resource(SECRETS, ns).get('member1-secret')).data as Record<string, string>)['token']).toBe(first);
    });
  });
});
