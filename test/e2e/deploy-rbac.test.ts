/**
 * The host RBAC of deploy/: the controller manager (ServiceAccount `kubefed-controller`) and the
 * sync workers (`kubefed-sync-worker`) each hold only what their mode uses in the host cluster.
 *
 * The RBAC objects of `kubectl kustomize deploy/base` go to a kube-sim host (real RBAC, real
 * 403s); each account gets a token through the TokenRequest API (`kubectl create token`). Then:
 * SelfSubjectAccessReviews made with each token allow every request its mode makes and refuse a
 * table of requests outside it, a few of which are also made for real; and the two processes run
 * with those tokens (split mode, the host joined as a member too) and propagate, schedule and
 * delete without a single forbidden request.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESOURCES } from '@kubefed/api';
import { DynamicClient, getOrUndefined, isForbidden, Kubeconfig, type KubeObject } from '@kubefed/client';
import { ManagedProcess, POLL, type RedisHandle, sourceEntry, startRedis } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import {
  at,
  createFederatedNamespace,
  FEDERATED_CONFIG_MAPS,
  FEDERATED_DEPLOYMENTS,
  propagatedTo,
  propagationOf,
} from './support/e2e-federation.js';

const KUBECTL = '/usr/bin/kubectl';
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NS = 'kube-federation-system';
const TENANT = 'rbac-tenant';
const CONTROLLER_MANAGER_SA = 'kubefed-controller';
const SYNC_WORKER_SA = 'kubefed-sync-worker';
const RBAC_KINDS = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/** Runs a command (never rejects); `input` goes to its stdin. */
function run(file: string, args: readonly string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env['KUBECONFIG'];
  return new Promise((resolve) => {
    const child = execFile(file, args, { env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
    child.stdin?.end(input ?? '');
  });
}

async function mustRun(file: string, args: readonly string[], input?: string): Promise<string> {
  const r = await run(file, args, input);
  if (r.code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/**
 * One request as `kubectl auth can-i` words: `<verb> <resource>[.<group>][/<subresource>] [<name>] [-n <namespace>]`;
 * without `-n`, a namespaced resource means every namespace.
 */
type Request = string;

interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  name?: string;
  namespace?: string;
}

function attributesOf(request: Request): ResourceAttributes {
  const words = request.split(/\s+/);
  const nsAt = words.indexOf('-n');
  const namespace = nsAt >= 0 ? words[nsAt + 1] : undefined;
  const [verb = '', target = '', name] = nsAt >= 0 ? words.slice(0, nsAt) : words;
  const [qualified = '', subresource] = target.split('/');
  const dot = qualified.indexOf('.');
  return {
    verb,
    resource: dot < 0 ? qualified : qualified.slice(0, dot),
    group: dot < 0 ? '' : qualified.slice(dot + 1),
    ...(subresource === undefined ? {} : { subresource }),
    ...(name === undefined ? {} : { name }),
    ...(namespace === undefined ? {} : { namespace }),
  };
}

const SSAR = { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews' };

/** The API server's answer to a SelfSubjectAccessReview made with `client`'s credentials. */
async function allowed(client: DynamicClient, request: Request): Promise<boolean> {
  const review = await client.resource(SSAR).create({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: { resourceAttributes: attributesOf(request) },
  });
  return (review.status as { allowed?: boolean } | undefined)?.allowed === true;
}

/** The requests the API server does not answer `expected` (allowed, or refused) for. */
async function answeredOtherwise(client: DynamicClient, requests: readonly Request[], expected: boolean): Promise<Request[]> {
  const answers = await Promise.all(requests.map(async (r) => ((await allowed(client, r)) === expected ? undefined : r)));
  return answers.filter((r): r is Request => r !== undefined);
}

/** What the controller manager (`--mode=controllers`) requests in the host. */
const CONTROLLER_MANAGER_USES: readonly Request[] = [
  // KubeFedCluster health controller; replica scheduling lists the clusters.
  `list kubefedclusters.core.kubefed.io -n ${NS}`,
  `watch kubefedclusters.core.kubefed.io -n ${NS}`,
  `patch kubefedclusters.core.kubefed.io/status member1 -n ${NS}`,
  `get secrets member1-abcde -n ${NS}`,
  // A short-lived member token renewed into its host Secret.
  `patch secrets member1-abcde -n ${NS}`,
  `create events -n ${NS}`,
  // KubeFedConfig, read at start, created when missing, completed with the unlisted feature gates.
  `get kubefedconfigs.core.kubefed.io kubefed -n ${NS}`,
  `list kubefedconfigs.core.kubefed.io -n ${NS}`,
  `watch kubefedconfigs.core.kubefed.io -n ${NS}`,
  `create kubefedconfigs.core.kubefed.io -n ${NS}`,
  `patch kubefedconfigs.core.kubefed.io kubefed -n ${NS}`,
  // FederatedTypeConfig controller: finalizer and status.
  `list federatedtypeconfigs.core.kubefed.io -n ${NS}`,
  `watch federatedtypeconfigs.core.kubefed.io -n ${NS}`,
  `patch federatedtypeconfigs.core.kubefed.io configmaps -n ${NS}`,
  `patch federatedtypeconfigs.core.kubefed.io/status configmaps -n ${NS}`,
  // Leader election.
  `create leases.coordination.k8s.io -n ${NS}`,
  `get leases.coordination.k8s.io kubefed-controller-manager -n ${NS}`,
  `update leases.coordination.k8s.io kubefed-controller-manager -n ${NS}`,
  `create configmaps -n ${NS}`,
  `get configmaps kubefed-controller-manager -n ${NS}`,
  `update configmaps kubefed-controller-manager -n ${NS}`,
  `create endpoints -n ${NS}`,
  `update endpoints kubefed-controller-manager -n ${NS}`,
  // The sync outcome signing key.
  `get secrets kubefed-sync-outcome-key -n ${NS}`,
  `create secrets -n ${NS}`,
  // Sync controllers (every namespace), their finalizer and the status writer; a type enabled later.
  'list federatedconfigmaps.types.kubefed.io',
  'watch federatedconfigmaps.types.kubefed.io',
  'list federatednamespaces.types.kubefed.io',
  'watch federatednamespaces.types.kubefed.io',
  `patch federatedconfigmaps.types.kubefed.io settings -n ${TENANT}`,
  `update federatedconfigmaps.types.kubefed.io/status settings -n ${TENANT}`,
  `get federatednamespaces.types.kubefed.io ${TENANT} -n ${TENANT}`,
  'list federatedwidgets.types.kubefed.io',
  `update federatedwidgets.types.kubefed.io/status w -n ${TENANT}`,
  `create events -n ${TENANT}`,
  `patch events -n ${TENANT}`,
  // Replica scheduling.
  'list replicaschedulingpreferences.scheduling.kubefed.io',
  'watch replicaschedulingpreferences.scheduling.kubefed.io',
  `get replicaschedulingpreferences.scheduling.kubefed.io web -n ${TENANT}`,
  `update replicaschedulingpreferences.scheduling.kubefed.io/status web -n ${TENANT}`,
  'list federateddeployments.types.kubefed.io',
  `get federateddeployments.types.kubefed.io web -n ${TENANT}`,
  `update federateddeployments.types.kubefed.io web -n ${TENANT}`,
  // The status controller of services (FederatedServiceStatus; runs with RawResourceStatusCollection Disabled).
  'list federatedservicestatuses.core.kubefed.io',
  'watch federatedservicestatuses.core.kubefed.io',
  `create federatedservicestatuses.core.kubefed.io -n ${TENANT}`,
  `update federatedservicestatuses.core.kubefed.io web -n ${TENANT}`,
  // The host's identity (default queue prefix).
  'get namespaces kube-system',
];

/** What the sync workers (`--mode=workers`) request in the host. */
const SYNC_WORKER_USES: readonly Request[] = [
  `list kubefedclusters.core.kubefed.io -n ${NS}`,
  `watch kubefedclusters.core.kubefed.io -n ${NS}`,
  `get kubefedconfigs.core.kubefed.io kubefed -n ${NS}`,
  `list kubefedconfigs.core.kubefed.io -n ${NS}`,
  `watch kubefedconfigs.core.kubefed.io -n ${NS}`,
  `list federatedtypeconfigs.core.kubefed.io -n ${NS}`,
  `watch federatedtypeconfigs.core.kubefed.io -n ${NS}`,
  `get secrets member1-abcde -n ${NS}`,
  `get secrets kubefed-sync-outcome-key -n ${NS}`,
  `create secrets -n ${NS}`,
  `get federatedconfigmaps.types.kubefed.io settings -n ${TENANT}`,
  `get federatednamespaces.types.kubefed.io ${TENANT} -n ${TENANT}`,
  'get federatedclusterroles.types.kubefed.io admin',
  `get federatedwidgets.types.kubefed.io w -n ${TENANT}`,
  // The versions, from a watch-fed cache (a GET until it has synced).
  'list propagatedversions.core.kubefed.io',
  'watch propagatedversions.core.kubefed.io',
  'list clusterpropagatedversions.core.kubefed.io',
  'watch clusterpropagatedversions.core.kubefed.io',
  `get propagatedversions.core.kubefed.io configmap-settings -n ${TENANT}`,
  `create propagatedversions.core.kubefed.io -n ${TENANT}`,
  `update propagatedversions.core.kubefed.io/status configmap-settings -n ${TENANT}`,
  // The record itself when the uids of the copies (annotation kubefed.io/member-uids) change.
  `update propagatedversions.core.kubefed.io configmap-settings -n ${TENANT}`,
  'get clusterpropagatedversions.core.kubefed.io clusterrole-admin',
  'create clusterpropagatedversions.core.kubefed.io',
  'update clusterpropagatedversions.core.kubefed.io/status clusterrole-admin',
  'update clusterpropagatedversions.core.kubefed.io clusterrole-admin',
  `create events -n ${TENANT}`,
  `patch events -n ${TENANT}`,
  'get namespaces kube-system',
  `get namespaces ${TENANT}`,
];

/** Requests neither account may make: workloads, other namespaces' Secrets, RBAC, CRDs, listing Secrets. */
const NOBODY: readonly Request[] = [
  'create deployments.apps -n default',
  'create pods -n kube-system',
  'create pods/exec -n kube-federation-system',
  'get secrets -n default',
  'get secrets -n kube-system',
  `list secrets -n ${NS}`,
  `watch secrets -n ${NS}`,
  `update secrets kubefed-sync-outcome-key -n ${NS}`,
  `delete secrets member1-abcde -n ${NS}`,
  'list secrets',
  'delete clusterroles.rbac.authorization.k8s.io kubefed-controller-manager',
  'create clusterrolebindings.rbac.authorization.k8s.io',
  `create rolebindings.rbac.authorization.k8s.io -n ${NS}`,
  'bind clusterroles.rbac.authorization.k8s.io cluster-admin',
  'impersonate serviceaccounts',
  'create customresourcedefinitions.apiextensions.k8s.io',
  'update customresourcedefinitions.apiextensions.k8s.io federatedconfigmaps.types.kubefed.io',
  `create federatedconfigmaps.types.kubefed.io -n ${TENANT}`,
  `delete federatedconfigmaps.types.kubefed.io settings -n ${TENANT}`,
  `update kubefedclusters.core.kubefed.io member1 -n ${NS}`,
  `delete kubefedclusters.core.kubefed.io member1 -n ${NS}`,
  `create kubefedclusters.core.kubefed.io -n ${NS}`,
  `delete federatedtypeconfigs.core.kubefed.io configmaps -n ${NS}`,
  `update kubefedconfigs.core.kubefed.io kubefed -n ${NS}`,
  `delete leases.coordination.k8s.io kubefed-controller-manager -n ${NS}`,
  `update leases.coordination.k8s.io another-lease -n ${NS}`,
  `update configmaps another-lock -n ${NS}`,
  `delete configmaps kubefed-controller-manager -n ${NS}`,
  'create namespaces',
  `delete namespaces ${TENANT}`,
  `update namespaces ${TENANT}`,
  'list namespaces',
  'list configmaps',
  'create configmaps -n default',
  `delete propagatedversions.core.kubefed.io configmap-settings -n ${TENANT}`,
  `delete federatedservicestatuses.core.kubefed.io web -n ${TENANT}`,
];

/** Requests of the other mode that each account must not make. */
const CONTROLLER_MANAGER_REFUSED: readonly Request[] = [
  ...NOBODY,
  `create propagatedversions.core.kubefed.io -n ${TENANT}`,
  `update propagatedversions.core.kubefed.io/status configmap-settings -n ${TENANT}`,
  'get namespaces default',
  `get namespaces ${TENANT}`,
];
const SYNC_WORKER_REFUSED: readonly Request[] = [
  ...NOBODY,
  `create federatedservicestatuses.core.kubefed.io -n ${TENANT}`,
  'list federatedconfigmaps.types.kubefed.io',
  'watch federatedconfigmaps.types.kubefed.io',
  `patch federatedconfigmaps.types.kubefed.io settings -n ${TENANT}`,
  `update federatedconfigmaps.types.kubefed.io/status settings -n ${TENANT}`,
  `update federateddeployments.types.kubefed.io web -n ${TENANT}`,
  `update replicaschedulingpreferences.scheduling.kubefed.io/status web -n ${TENANT}`,
  `create leases.coordination.k8s.io -n ${NS}`,
  `update leases.coordination.k8s.io kubefed-controller-manager -n ${NS}`,
  `update configmaps kubefed-controller-manager -n ${NS}`,
  `patch kubefedclusters.core.kubefed.io/status member1 -n ${NS}`,
  `create kubefedconfigs.core.kubefed.io -n ${NS}`,
  `patch kubefedconfigs.core.kubefed.io kubefed -n ${NS}`,
  `patch federatedtypeconfigs.core.kubefed.io configmaps -n ${NS}`,
  `patch propagatedversions.core.kubefed.io configmap-settings -n ${TENANT}`,
];

/** A kubeconfig with one context `host`: the host's server and CA, authenticated by `token` alone. */
function tokenKubeconfig(adminKubeconfig: string, token: string): string {
  const admin = parse(adminKubeconfig) as {
    contexts: { name: string; context: { cluster: string } }[];
    clusters: { name: string; cluster: Record<string, unknown> }[];
  };
  const clusterName = admin.contexts.find((c) => c.name === 'host')?.context.cluster;
  const cluster = admin.clusters.find((c) => c.name === clusterName)?.cluster;
  if (cluster === undefined) throw new Error('the federation kubeconfig has no host cluster');
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'host', cluster }],
    users: [{ name: 'sa', user: { token } }],
    contexts: [{ name: 'host', context: { cluster: 'host', user: 'sa' } }],
    'current-context': 'host',
  });
}

/** The forbidden requests a process logged (kube-sim's message, or the reason of an ApiError). */
const forbiddenLines = (p: ManagedProcess): string[] => p.lines.filter((l) => /forbidden|"code":403\b/i.test(l));

describe.skipIf(!existsSync(KUBECTL))(
  `deploy RBAC of the controller manager and the sync workers (needs ${KUBECTL}; skipped when it is missing)`,
  () => {
    // Nothing of the control plane yet: the last test starts it with the accounts' tokens, then joins.
    const fed = useLocalFederation({ members: ['member1'], controllerManager: false, join: false, types: [] });
    let dir: string;
    const kubeconfigs = new Map<string, string>();
    const clients = new Map<string, DynamicClient>();
    const processes: ManagedProcess[] = [];
    let redis: RedisHandle | undefined;
    const clientOf = (sa: string): DynamicClient => {
      const c = clients.get(sa);
      if (c === undefined) throw new Error(`no client for ${sa}`);
      return c;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'kubefed-deploy-rbac-'));
      const k = (args: readonly string[], input?: string) =>
        mustRun(KUBECTL, ['--kubeconfig', fed.kubeconfigPath, '--context', 'host', ...args], input);
      const rendered = parseAllDocuments(await mustRun(KUBECTL, ['kustomize', join(repoRoot, 'deploy', 'base')]))
        .map((d) => d.toJS() as KubeObject | null)
        .filter((o): o is KubeObject => o !== null && RBAC_KINDS.has(o.kind ?? ''));
      await k(['apply', '--server-side', '-f', '-'], rendered.map((o) => stringify(o, { lineWidth: 0 })).join('---\n'));
      const adminKubeconfig = await k(['config', 'view', '--raw']);
      for (const sa of [CONTROLLER_MANAGER_SA, SYNC_WORKER_SA]) {
        const token = (await k(['-n', NS, 'create', 'token', sa, '--duration=1h'])).trim();
        const path = join(dir, `${sa}.kubeconfig`);
        writeFileSync(path, tokenKubeconfig(adminKubeconfig, token), { mode: 0o600 });
        kubeconfigs.set(sa, path);
        clients.set(sa, DynamicClient.fromKubeconfig(Kubeconfig.fromFile(path), { context: 'host', qps: 0 }));
      }
    }, 120_000);

    afterAll(async () => {
      for (const p of processes.splice(0).reverse()) await p.stop();
      for (const c of clients.values()) c.close();
      await redis?.stop();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it.each([
      [CONTROLLER_MANAGER_SA, CONTROLLER_MANAGER_USES],
      [SYNC_WORKER_SA, SYNC_WORKER_USES],
    ])('allows %s every request its mode makes in the host', async (sa, requests) => {
      expect(await answeredOtherwise(clientOf(sa), requests, true)).toEqual([]);
    });

    it.each([
      [CONTROLLER_MANAGER_SA, CONTROLLER_MANAGER_REFUSED],
      [SYNC_WORKER_SA, SYNC_WORKER_REFUSED],
    ])('refuses %s everything outside its mode: workloads, other Secrets, RBAC, CRDs, the other mode', async (sa, requests) => {
      expect(await answeredOtherwise(clientOf(sa), requests, false)).toEqual([]);
    });

    it.each([CONTROLLER_MANAGER_SA, SYNC_WORKER_SA])(
      'answers 403 when %s creates a Deployment, reads a Secret of kube-system or deletes a ClusterRole',
      async (sa) => {
        const client = clientOf(sa);
        const attempts = {
          createDeployment: () =>
            client.resource(RESOURCES.deployments, 'default').create({
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: 'escalate' },
              spec: {
                selector: { matchLabels: { a: 'b' } },
                template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
              },
            }),
          readSecret: () => client.resource(RESOURCES.secrets, 'kube-system').get('anything'),
          listSecrets: () => client.resource(RESOURCES.secrets, NS).list(),
          deleteClusterRole: () => client.resource(RESOURCES.clusterRoles).delete('kubefed-controller-manager'),
        };
        const outcomes = Object.fromEntries(
          await Promise.all(
            Object.entries(attempts).map(async ([what, attempt]) => [
              what,
              await attempt().then(
                () => 'allowed',
                (err: unknown) => (isForbidden(err) ? 'forbidden' : String(err)),
              ),
            ]),
          ),
        );
        expect(outcomes).toEqual({
          createDeployment: 'forbidden',
          readSecret: 'forbidden',
          listSecrets: 'forbidden',
          deleteClusterRole: 'forbidden',
        });
        expect((await fed.client('host').resource(RESOURCES.clusterRoles).get('kubefed-controller-manager')).metadata.name).toBe(
          'kubefed-controller-manager',
        );
      },
    );

    it(
      'runs the controller manager and the sync workers with their tokens: members Ready, propagation, scheduling and deletion without a forbidden request',
      { timeout: 180_000 },
      async () => {
        // A private Redis: the processes derive their queue prefix from the host (no --queue-prefix).
        redis = await startRedis({ forcePrivate: true });
        const env = { ...process.env };
        delete env['KUBECONFIG'];
        const start = (sa: string, mode: string, leaderElect: boolean): ManagedProcess => {
          const p = new ManagedProcess(
            `${mode} (${sa})`,
            [
              ...sourceEntry('packages/controller-manager/src/main.ts'),
              '--kubeconfig',
              kubeconfigs.get(sa) ?? '',
              '--redis-url',
              redis?.url ?? '',
              `--mode=${mode}`,
              `--leader-elect=${String(leaderElect)}`,
              '--metrics-addr',
              '127.0.0.1:0',
              '--health-addr',
              '127.0.0.1:0',
            ],
            { env },
          );
          processes.push(p);
          return p;
        };
        const controllers = start(CONTROLLER_MANAGER_SA, 'controllers', true);
        const workers = start(SYNC_WORKER_SA, 'workers', false);
        await Promise.all(
          [controllers, workers].map((p) => p.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true, timeoutMs: 60_000 })),
        );

        // The controller manager creates the KubeFedConfig that kubefedctl join looks for.
        const host = fed.client('host');
        await expect.poll(() => getOrUndefined(host.resource(RESOURCES.kubeFedConfigs, NS), 'kubefed'), POLL).toBeDefined();
        for (const args of [
          ['join', 'member1', '--cluster-context', 'member1'],
          ['join', 'host', '--cluster-context', 'host'],
          ['enable', '--default-types'],
        ]) {
          const r = await fed.kubefedctl([...args, '--host-cluster-context', 'host']);
          expect(r.stderr, `kubefedctl ${args.join(' ')}`).not.toContain('error');
          expect(r.code).toBe(0);
        }
        const readyClusters = async () =>
          (await host.resource(RESOURCES.kubeFedClusters, NS).list()).items
            .filter((c) =>
              ((c.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
                (x) => x.type === 'Ready' && x.status === 'True',
              ),
            )
            .map((c) => c.metadata.name)
            .sort();
        await expect.poll(readyClusters, POLL).toEqual(['host', 'member1']);

        // Propagation into the host (a member too: its own Namespace is read by the workers) and member1.
        const clusters = ['host', 'member1'];
        await createFederatedNamespace(fed, TENANT, clusters);
        const fedConfigMaps = host.resource(FEDERATED_CONFIG_MAPS, TENANT);
        await fedConfigMaps.create({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedConfigMap',
          metadata: { name: 'settings', namespace: TENANT },
          spec: { template: { data: { a: 'b' } }, placement: { clusters: clusters.map((name) => ({ name })) } },
        });
        await expect.poll(() => propagationOf(fedConfigMaps, 'settings'), POLL).toEqual(propagatedTo(clusters));
        expect((await fed.client('member1').resource(RESOURCES.configMaps, TENANT).get('settings'))['data']).toEqual({ a: 'b' });
        const version = await host.resource(RESOURCES.propagatedVersions, TENANT).get('configmap-settings');
        expect((at(version, '/status/clusterVersions') as { clusterName: string }[]).map((c) => c.clusterName).sort()).toEqual(clusters);

        // Replica scheduling: the controller manager writes the FederatedDeployment and the RSP status.
        await host.resource(FEDERATED_DEPLOYMENTS, TENANT).create({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedDeployment',
          metadata: { name: 'web', namespace: TENANT },
          spec: {
            template: {
              spec: {
                replicas: 1,
                selector: { matchLabels: { app: 'web' } },
                template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
              },
            },
            placement: { clusters: [] },
          },
        });
        const rsps = host.resource(RESOURCES.replicaSchedulingPreferences, TENANT);
        await rsps.create({
          apiVersion: 'scheduling.kubefed.io/v1alpha1',
          kind: 'ReplicaSchedulingPreference',
          metadata: { name: 'web', namespace: TENANT },
          spec: { targetKind: 'FederatedDeployment', totalReplicas: 3, clusters: { member1: { weight: 1 } } },
        });
        await expect
          .poll(
            async () => at(await getOrUndefined(fed.client('member1').resource(RESOURCES.deployments, TENANT), 'web'), '/spec/replicas'),
            POLL,
          )
          .toBe(3);
        await expect
          .poll(
            async () =>
              (at(await rsps.get('web'), '/status/conditions') as { type: string; status: string }[] | undefined)?.find(
                (c) => c.type === 'Scheduled',
              )?.status,
            POLL,
          )
          .toBe('True');

        // Deletion: the member copies go, then the finalizer.
        await fedConfigMaps.delete('settings');
        await expect.poll(() => getOrUndefined(fedConfigMaps, 'settings'), POLL).toBeUndefined();
        expect(await getOrUndefined(fed.client('member1').resource(RESOURCES.configMaps, TENANT), 'settings')).toBeUndefined();

        // The default lock: KubeFed's ConfigMap, its record in the leader annotation.
        const lock = await host.resource(RESOURCES.configMaps, NS).get('kubefed-controller-manager');
        expect(JSON.parse(lock.metadata.annotations?.['control-plane.alpha.kubernetes.io/leader'] ?? '{}')).toMatchObject({
          holderIdentity: expect.any(String),
        });
        expect(await getOrUndefined(host.resource(RESOURCES.secrets, NS), 'kubefed-sync-outcome-key')).toBeDefined();
        expect({ controllers: forbiddenLines(controllers), workers: forbiddenLines(workers) }).toEqual({ controllers: [], workers: [] });
        expect([controllers.running, workers.running]).toEqual([true, true]);
      },
    );
  },
);
