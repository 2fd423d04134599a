/**
 * The Kustomize manifests in deploy/: each overlay renders with `kubectl kustomize`, carries the
 * essentials (leader-elected controller manager, scalable sync workers, metrics Service, Redis
 * wiring, the bundled Redis's password and NetworkPolicy), and applies cleanly, after the CRDs of
 * deploy/crds, to a kube-sim host cluster.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster } from '@kubefed/kube-sim';
import { createRedisConnection, pingRedis } from '@kubefed/queue';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { runCommand, type RunResult } from './support/helm.js';

const KUBECTL = '/usr/bin/kubectl';
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const deployDir = join(repoRoot, 'deploy');
const crdDir = join(deployDir, 'crds');
const NS = 'kube-federation-system';
const OVERLAYS = ['bundled-redis', 'external-redis'] as const;
type Overlay = (typeof OVERLAYS)[number];

/** Parsed YAML/JSON (JSON.parse's result type): the assertions check its shape. */
type Parsed = ReturnType<typeof JSON.parse>;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: Parsed;
}

/** Runs kubectl with a time limit; `input` goes to its stdin. */
function kubectl(args: readonly string[], input?: string): Promise<RunResult> {
  return runCommand(KUBECTL, args, { input });
}

async function kubectlOk(args: readonly string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${String(r.code)}: ${r.stderr}`);
  return r.stdout;
}

function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]!.message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

/** The Redis password file each installation of bundled-redis creates (git ignores it). */
const REDIS_PASSWORD_FILE = join('overlays', 'bundled-redis', 'redis-password.env');
const redisPassword = randomBytes(32).toString('hex');
const copies: string[] = [];

/** A copy of deploy/ in a temporary directory, with the bundled Redis's password file as an operator creates it, or without one. */
function deployCopy(options: { redisPassword: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubefed-deploy-copy-'));
  copies.push(dir);
  cpSync(deployDir, dir, { recursive: true });
  rmSync(join(dir, REDIS_PASSWORD_FILE), { force: true });
  if (options.redisPassword) writeFileSync(join(dir, REDIS_PASSWORD_FILE), `password=${redisPassword}\n`);
  return dir;
}

let installed: string | undefined;
const renderCache = new Map<string, Promise<{ text: string; objects: K8sObject[] }>>();

/** `kubectl kustomize deploy/<dir>` (of a copy with the Redis password file), parsed; rendered once per directory. */
function render(dir: string): Promise<{ text: string; objects: K8sObject[] }> {
  let p = renderCache.get(dir);
  if (p === undefined) {
    installed ??= deployCopy({ redisPassword: true });
    p = kubectlOk(['kustomize', join(installed, dir)]).then((text) => ({ text, objects: parseObjects(text) }));
    renderCache.set(dir, p);
  }
  return p;
}

function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (found === undefined) throw new Error(`rendered manifests have no ${kind} ${name}`);
  return found;
}

function containerOf(deployment: K8sObject): Parsed {
  const containers = deployment.spec.template.spec.containers as Parsed[];
  expect(containers).toHaveLength(1);
  return containers[0];
}

function envVar(deployment: K8sObject, name: string): Parsed {
  return (containerOf(deployment).env as Parsed[]).find((e) => e.name === name);
}

/** `$(NAME)` references expanded from `env`, as the kubelet expands args and env values. */
const expand = (value: string, env: Readonly<Record<string, string>>): string =>
  value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (ref, name: string) => env[name] ?? ref);

/** The environment the kubelet gives a Deployment's container: values expanded in order, Secret keys from the rendered Secrets. */
function containerEnv(deployment: K8sObject, objects: readonly K8sObject[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of containerOf(deployment).env as Parsed[]) {
    const ref = e.valueFrom?.secretKeyRef;
    if (typeof e.value === 'string') env[e.name] = expand(e.value, env);
    else if (ref !== undefined) env[e.name] = Buffer.from(find(objects, 'Secret', ref.name).data[ref.key], 'base64').toString('utf8');
  }
  return env;
}

/** Whether `file` is an executable on PATH. */
const onPath = (file: string): boolean => (process.env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, file)));

/** A free TCP port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const crdFiles = readdirSync(crdDir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');

describe.skipIf(!existsSync(KUBECTL))(
  `deploy manifests (need kubectl with its built-in kustomize at ${KUBECTL}; skipped when it is missing)`,
  () => {
    afterAll(() => {
      for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
    });

    describe.each(OVERLAYS)('overlay %s', (overlay) => {
      it('includes every CRD of deploy/crds', async () => {
        const { objects } = await render(`overlays/${overlay}`);
        const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
        expect(crds).toHaveLength(crdFiles.length);
        expect(crds.every((o) => o.metadata.namespace === undefined)).toBe(true);
      });

      it('runs two leader-elected controller-manager replicas in controllers mode', async () => {
        const { objects } = await render(`overlays/${overlay}`);
        const cm = find(objects, 'Deployment', 'kubefed-controller-manager');
        expect(cm.metadata.namespace).toBe(NS);
        expect(cm.spec.replicas).toBe(2);
        const c = containerOf(cm);
        expect(c.args).toEqual(
          expect.arrayContaining(['--leader-elect=true', '--mode=controllers', '--metrics-addr=:9090', '--health-addr=:8080']),
        );
        expect(c.args).toContain('--kubefed-namespace=$(POD_NAMESPACE)');
        expect(envVar(cm, 'POD_NAMESPACE').valueFrom.fieldRef.fieldPath).toBe('metadata.namespace');
        expect(cm.spec.template.spec.serviceAccountName).toBe('kubefed-controller');
      });

      it('runs a scalable sync-worker Deployment in workers mode without leader election', async () => {
        const { objects } = await render(`overlays/${overlay}`);
        const workers = find(objects, 'Deployment', 'kubefed-sync-worker');
        expect(workers.spec.replicas).toBe(2);
        const c = containerOf(workers);
        // Explicit addresses: the processes' own defaults are loopback only.
        expect(c.args).toEqual(
          expect.arrayContaining(['--mode=workers', '--leader-elect=false', '--metrics-addr=:9090', '--health-addr=:8080']),
        );
        expect(c.image).toBe(containerOf(find(objects, 'Deployment', 'kubefed-controller-manager')).image);
      });

      it('admits to the controller-manager and sync-worker pods only /metrics (9090), from pods of the cluster', async () => {
        const { objects } = await render(`overlays/${overlay}`);
        const policy = find(objects, 'NetworkPolicy', 'kubefed-control-plane');
        expect(policy.metadata.namespace).toBe(NS);
        const selected = (name: string): boolean => {
          const labels = find(objects, 'Deployment', name).spec.template.metadata.labels as Record<string, string>;
          return (policy.spec.podSelector.matchExpressions as Parsed[]).every(
            (e) => e.operator === 'In' && (e.values as string[]).includes(labels[e.key as string] ?? ''),
          );
        };
        const deployments = objects.filter((o) => o.kind === 'Deployment').map((d) => d.metadata.name);
        expect(Object.fromEntries(deployments.map((d) => [d, selected(d)]))).toEqual({
          'kubefed-controller-manager': true,
          'kubefed-sync-worker': true,
          ...(deployments.includes('kubefed-redis') ? { 'kubefed-redis': false } : {}),
        });
        expect(policy.spec.policyTypes).toEqual(['Ingress']);
        expect(policy.spec.ingress).toEqual([{ from: [{ namespaceSelector: {} }], ports: [{ protocol: 'TCP', port: 9090 }] }]);
        for (const d of ['kubefed-controller-manager', 'kubefed-sync-worker'])
          expect((containerOf(find(objects, 'Deployment', d)).ports as Parsed[]).find((p) => p.name === 'metrics')?.containerPort).toBe(
            9090,
          );
      });

      it('probes /healthz and /readyz on 8080 and runs non-root with a read-only root filesystem', async () => {
        const { objects } = await render(`overlays/${overlay}`);
        for (const name of ['kubefed-controller-manager', 'kubefed-sync-worker']) {
          const d = find(objects, 'Deployment', name);
          const c = containerOf(d);
          const ports = Object.fromEntries((c.ports as Parsed[]).map((p) => [p.name, p.containerPort]));
          expect(ports).toEqual({ metrics: 9090, health: 8080 });
          expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'health' });
          expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'health' });
          expect(c.resources.requests).toBeDefined();
          expect(c.resources.limits).toBeDefined();
          expect(d.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
          expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
        }
      });

      it('exposes controller-manager metrics on port 9090 through a Service that selects its pods', async () => {
        const { objects } = await render(`overlays/${overlay}`);
        const svc = find(objects, 'Service', 'kubefed-controller-manager-metrics-service');
        expect(svc.spec.ports).toEqual([{ name: 'metrics', port: 9090, targetPort: 'metrics', protocol: 'TCP' }]);
        const podLabels = find(objects, 'Deployment', 'kubefed-controller-manager').spec.template.metadata.labels;
        expect(podLabels).toMatchObject(svc.spec.selector);
      });

      it('runs the controller manager and the sync workers as ServiceAccounts of their own, with no wildcard outside the federated types', async () => {
        const { objects } = await render(`overlays/${overlay}`);
        expect(find(objects, 'Deployment', 'kubefed-controller-manager').spec.template.spec.serviceAccountName).toBe('kubefed-controller');
        expect(find(objects, 'Deployment', 'kubefed-sync-worker').spec.template.spec.serviceAccountName).toBe('kubefed-sync-worker');
        for (const sa of ['kubefed-controller', 'kubefed-sync-worker'])
          expect(find(objects, 'ServiceAccount', sa).metadata.namespace).toBe(NS);
        const bindings = objects.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding');
        expect(
          bindings
            .map(
              (b) =>
                `${b.kind} ${b.metadata.name} -> ${b.roleRef.kind} ${b.roleRef.name}: ${(b.subjects as Parsed[]).map((s) => `${s.namespace}/${s.name}`).join()}`,
            )
            .sort(),
        ).toEqual([
          `ClusterRoleBinding kubefed-controller-manager -> ClusterRole kubefed-controller-manager: ${NS}/kubefed-controller`,
          `ClusterRoleBinding kubefed-sync-worker -> ClusterRole kubefed-sync-worker: ${NS}/kubefed-sync-worker`,
          `RoleBinding kubefed-controller-manager -> Role kubefed-controller-manager: ${NS}/kubefed-controller`,
          `RoleBinding kubefed-sync-worker -> Role kubefed-sync-worker: ${NS}/kubefed-sync-worker`,
        ]);
        // No wildcard but the resources of the federated types' group; Secrets in the kubefed namespace only.
        const rulesOf = (kind: string) => objects.filter((o) => o.kind === kind).flatMap((o) => o.rules as Parsed[]);
        const rules = [...rulesOf('ClusterRole'), ...rulesOf('Role')];
        expect(rules.filter((r) => r.apiGroups.includes('*') || r.verbs.includes('*'))).toEqual([]);
        expect(rules.filter((r) => r.resources.includes('*')).map((r) => r.apiGroups)).toEqual([
          ['types.kubefed.io'],
          ['types.kubefed.io'],
        ]);
        expect(rulesOf('ClusterRole').filter((r) => r.resources.includes('secrets'))).toEqual([]);
        expect(objects.filter((o) => o.kind === 'Role').every((o) => o.metadata.namespace === NS)).toBe(true);
      });
    });

    it('bundled-redis runs its own single Redis Deployment behind a Service', async () => {
      const { objects } = await render('overlays/bundled-redis');
      const redis = find(objects, 'Deployment', 'kubefed-redis');
      expect(redis.spec.replicas).toBe(1);
      expect(containerOf(redis).image).toBe('redis:7-alpine');
      const svc = find(objects, 'Service', 'kubefed-redis');
      expect(svc.spec.ports[0].port).toBe(6379);
      expect(redis.spec.template.metadata.labels).toMatchObject(svc.spec.selector);
    });

    it("bundled-redis cannot be built without the operator's password file", async () => {
      const r = await kubectl(['kustomize', join(deployCopy({ redisPassword: false }), 'overlays', 'bundled-redis')]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('redis-password.env');
    });

    it('bundled-redis gives Redis, the controller manager and the workers the password of one generated Secret, and no password-less URL', async () => {
      const { objects } = await render('overlays/bundled-redis');
      const secrets = objects.filter((o) => o.kind === 'Secret');
      expect(secrets.map((o) => o.metadata.name)).toEqual([expect.stringMatching(/^kubefed-redis-password-[a-z0-9]+$/)]);
      const secretName = secrets[0]!.metadata.name;
      expect(Buffer.from(secrets[0]!.data.password, 'base64').toString('utf8')).toBe(redisPassword);
      const fromSecret = { secretKeyRef: { name: secretName, key: 'password' } };

      const redis = find(objects, 'Deployment', 'kubefed-redis');
      const args = containerOf(redis).args as string[];
      expect(args.slice(args.indexOf('--requirepass'))).toEqual(['--requirepass', '$(REDIS_PASSWORD)']);
      expect(envVar(redis, 'REDIS_PASSWORD').valueFrom).toEqual(fromSecret);
      expect(containerEnv(redis, objects)).toEqual({ REDIS_PASSWORD: redisPassword, REDISCLI_AUTH: redisPassword });
      for (const probe of ['readinessProbe', 'livenessProbe'])
        expect(containerOf(redis)[probe]).toMatchObject({ exec: { command: ['redis-cli', 'ping'] } });

      for (const name of ['kubefed-controller-manager', 'kubefed-sync-worker']) {
        const d = find(objects, 'Deployment', name);
        expect(envVar(d, 'REDIS_PASSWORD').valueFrom).toEqual(fromSecret);
        expect(envVar(d, 'REDIS_URL')).toEqual({ name: 'REDIS_URL', value: 'redis://:$(REDIS_PASSWORD)@kubefed-redis:6379' });
        expect(containerEnv(d, objects).REDIS_URL).toBe(`redis://:${redisPassword}@kubefed-redis:6379`);
      }
      expect(find(objects, 'ConfigMap', 'kubefed-controller-manager-config').data).not.toHaveProperty('REDIS_URL');
    });

    it.skipIf(!onPath('redis-server') || !onPath('redis-cli'))(
      'bundled-redis: the rendered Redis command refuses clients without the password; the probes and the rendered REDIS_URL get in',
      async () => {
        const { objects } = await render('overlays/bundled-redis');
        const redis = find(objects, 'Deployment', 'kubefed-redis');
        const redisEnv = containerEnv(redis, objects);
        const port = await freePort();
        const dataDir = mkdtempSync(join(tmpdir(), 'kubefed-deploy-redis-'));
        let server: ChildProcess | undefined;
        try {
          const args = (containerOf(redis).args as string[]).map((a) => expand(a, redisEnv));
          server = spawn('redis-server', [...args, '--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir], { stdio: 'ignore' });
          const noEnv = { PATH: process.env.PATH ?? '' };
          const cli = (args: readonly string[], env: NodeJS.ProcessEnv = noEnv) =>
            runCommand('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { env });
          // The probes' command, with the container's environment (REDISCLI_AUTH).
          const [probe = '', ...probeArgs] = containerOf(redis).readinessProbe.exec.command as string[];
          expect(probe).toBe('redis-cli');
          await expect
            .poll(async () => (await cli(probeArgs, { ...noEnv, ...redisEnv })).stdout.trim(), { timeout: 10_000, interval: 100 })
            .toBe('PONG');
          expect((await cli(['ping'])).stdout).toContain('NOAUTH');
          const wrong = await cli(['-a', 'not-the-password', '--no-auth-warning', 'ping']);
          expect(wrong.stdout.trim()).not.toBe('PONG');
          expect(`${wrong.stdout}${wrong.stderr}`).toMatch(/WRONGPASS|NOAUTH/);
          // The rendered REDIS_URL, through the connection code of the processes, reaches it; with another password it does not.
          const ping = async (url: string): Promise<string> => {
            const connection = createRedisConnection(url, { role: 'producer', connectionName: 'deploy-manifests-test' });
            try {
              await pingRedis(connection, 5000);
              return 'PONG';
            } catch (err) {
              return String(err);
            } finally {
              connection.disconnect();
            }
          };
          for (const name of ['kubefed-controller-manager', 'kubefed-sync-worker']) {
            const url =
              containerEnv(find(objects, 'Deployment', name), objects).REDIS_URL?.replace('@kubefed-redis:6379', `@127.0.0.1:${port}`) ??
              '';
            expect(await ping(url)).toBe('PONG');
            expect(await ping(url.replace(redisPassword, 'not-the-password'))).not.toBe('PONG');
          }
        } finally {
          server?.kill('SIGKILL');
          rmSync(dataDir, { recursive: true, force: true });
        }
      },
    );

    it('bundled-redis admits only the controller-manager and sync-worker pods to Redis, on 6379', async () => {
      const { objects } = await render('overlays/bundled-redis');
      const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
      expect(policies.map((o) => o.metadata.name).sort()).toEqual(['kubefed-control-plane', 'kubefed-redis']);
      const policy = find(objects, 'NetworkPolicy', 'kubefed-redis');
      const selects = (selector: Parsed, labels: Record<string, string>) =>
        Object.entries(selector.matchLabels as Record<string, string>).every(([k, v]) => labels[k] === v);
      const podLabels = (name: string): Record<string, string> => find(objects, 'Deployment', name).spec.template.metadata.labels;
      expect(selects(policy.spec.podSelector, podLabels('kubefed-redis'))).toBe(true);
      expect(policy.spec.policyTypes).toEqual(['Ingress']);
      expect(policy.spec.ingress).toHaveLength(1);
      const [rule] = policy.spec.ingress as Parsed[];
      expect(rule.ports).toEqual([{ protocol: 'TCP', port: 6379 }]);
      // Pod selectors only (no namespaceSelector or ipBlock): pods of this namespace.
      expect((rule.from as Parsed[]).every((peer) => Object.keys(peer).join() === 'podSelector')).toBe(true);
      const admitted = (name: string) => (rule.from as Parsed[]).some((peer) => selects(peer.podSelector, podLabels(name)));
      expect(
        Object.fromEntries(objects.filter((o) => o.kind === 'Deployment').map((d) => [d.metadata.name, admitted(d.metadata.name)])),
      ).toEqual({
        'kubefed-controller-manager': true,
        'kubefed-sync-worker': true,
        'kubefed-redis': false,
      });
    });

    it('external-redis reads REDIS_URL from the Secret kubefed-redis and bundles no Redis', async () => {
      const { objects } = await render('overlays/external-redis');
      for (const name of ['kubefed-controller-manager', 'kubefed-sync-worker']) {
        expect(envVar(find(objects, 'Deployment', name), 'REDIS_URL').valueFrom).toEqual({
          secretKeyRef: { name: 'kubefed-redis', key: 'url' },
        });
      }
      expect(find(objects, 'ConfigMap', 'kubefed-controller-manager-config').data).not.toHaveProperty('REDIS_URL');
      expect(objects.filter((o) => o.metadata.name === 'kubefed-redis')).toEqual([]);
    });

    it('deploy/crds holds one CustomResourceDefinition per file, covering every KubeFed API group', () => {
      const crds = crdFiles.flatMap((f) => parseObjects(readFileSync(join(crdDir, f), 'utf8')));
      expect(crds).toHaveLength(crdFiles.length);
      expect(crds.every((o) => o.kind === 'CustomResourceDefinition')).toBe(true);
      expect(new Set(crds.map((o) => o.spec.group))).toEqual(new Set(['core.kubefed.io', 'types.kubefed.io', 'scheduling.kubefed.io']));
      expect(crds.map((o) => o.metadata.name)).toContain('kubefedclusters.core.kubefed.io');
    });

    describe('applied to a kube-sim host cluster', () => {
      const cleanups: (() => Promise<void>)[] = [];
      afterEach(async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      });

      it.each(OVERLAYS)(
        'installs the CRDs and then overlay %s: every object exists, RBAC allows the controller, the Deployments roll out',
        async (overlay: Overlay) => {
          const cluster = await startCluster({ name: 'host' });
          cleanups.push(() => cluster.stop());
          const dir = mkdtempSync(join(tmpdir(), 'kubefed-deploy-'));
          cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
          const kubeconfig = join(dir, 'host.kubeconfig');
          writeFileSync(kubeconfig, cluster.kubeconfigYaml());
          const k = (args: readonly string[], input?: string) =>
            kubectlOk([`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dir, 'cache')}`, ...args], input);

          await k(['apply', '--server-side', '-k', crdDir]);
          const crdList = JSON.parse(await k(['get', 'customresourcedefinitions', '-o', 'json']));
          const established = (crdList.items as Parsed[])
            .filter((crd) => (crd.status?.conditions as Parsed[] | undefined)?.some((c) => c.type === 'Established' && c.status === 'True'))
            .map((crd) => crd.metadata.name as string);
          expect(established).toHaveLength(crdFiles.length);

          const { objects: rendered } = await render(`overlays/${overlay}`);
          // kube-sim serves no networking.k8s.io: the NetworkPolicy is checked on the rendered objects above.
          // kube-sim also refuses the line breaks kustomize puts into long base64 values (the
          // API server ignores them): the Secret's data goes without.
          const objects = rendered
            .filter((o) => o.kind !== 'NetworkPolicy')
            .map((o) =>
              o.kind === 'Secret'
                ? {
                    ...o,
                    data: Object.fromEntries(Object.entries(o.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\s/g, '')])),
                  }
                : o,
            );
          await k(['apply', '--server-side', '-f', '-'], objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n'));
          if (overlay === 'external-redis') {
            await k(['-n', NS, 'create', 'secret', 'generic', 'kubefed-redis', '--from-literal=url=redis://redis.example.invalid:6379']);
          }

          for (const o of objects) {
            const ref =
              o.metadata.namespace === undefined ? [o.kind, o.metadata.name] : ['-n', o.metadata.namespace, o.kind, o.metadata.name];
            const live = JSON.parse(await k(['get', ...ref, '-o', 'json']));
            expect(live.metadata.name).toBe(o.metadata.name);
          }
          const svc = JSON.parse(await k(['-n', NS, 'get', 'service', 'kubefed-controller-manager-metrics-service', '-o', 'json']));
          expect(svc.spec.ports[0].port).toBe(9090);

          // RBAC as the API server evaluates it, for the pods' identity and for an unbound one.
          const canI = async (as: string, verb: string, resource: string) =>
            (
              await kubectl([
                `--kubeconfig=${kubeconfig}`,
                `--cache-dir=${join(dir, 'cache')}`,
                'auth',
                'can-i',
                verb,
                resource,
                '-n',
                NS,
                `--as=${as}`,
              ])
            ).stdout.trim();
          // (test/e2e/deploy-rbac.test.ts checks every rule, and runs the processes with these accounts.)
          const controllerManager = `system:serviceaccount:${NS}:kubefed-controller`;
          const syncWorker = `system:serviceaccount:${NS}:kubefed-sync-worker`;
          expect(await canI(controllerManager, 'update', 'leases.coordination.k8s.io/kubefed-controller-manager')).toBe('yes');
          expect(await canI(controllerManager, 'patch', 'federateddeployments.types.kubefed.io')).toBe('yes');
          expect(await canI(syncWorker, 'create', 'propagatedversions.core.kubefed.io')).toBe('yes');
          expect(await canI(syncWorker, 'update', 'leases.coordination.k8s.io/kubefed-controller-manager')).toBe('no');
          expect(await canI(controllerManager, 'create', 'deployments.apps')).toBe('no');
          expect(await canI(`system:serviceaccount:${NS}:default`, 'get', 'secrets')).toBe('no');

          // The simulated deployment controller and kubelet run the pods (no image is pulled).
          const deployments = objects.filter((o) => o.kind === 'Deployment');
          await expect
            .poll(
              async () => {
                const list = JSON.parse(await k(['-n', NS, 'get', 'deployments', '-o', 'json']));
                return Object.fromEntries((list.items as Parsed[]).map((d) => [d.metadata.name, d.status?.readyReplicas ?? 0]));
              },
              { timeout: 15_000, interval: 250 },
            )
            .toEqual(Object.fromEntries(deployments.map((d) => [d.metadata.name, d.spec.replicas])));
        },
      );
    });
  },
);
