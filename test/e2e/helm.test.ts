/**
 * The Helm chart deploy/helm/kubefed: `helm lint`, `helm template` for both scopes and both Redis
 * set-ups with assertions on the rendered objects, the generated files (CRDs of deploy/crds, the
 * default FederatedTypeConfigs of `kubefedctl enable`) kept current, and the rendered manifests
 * applied to a kube-sim host cluster with the Deployments rolling out. helm is built from its Go
 * module by `bash tools/helm/build.sh` (tools/helm/README.md). helm.real.test.ts installs the chart on
 * real Kubernetes components.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_FEDERATED_TYPES, defaultKubeFedConfig, kubeFedConfigSchema, validateKubeFedConfig } from '@kubefed/api';
import { startCluster } from '@kubefed/kube-sim';
import { run } from '@kubefed/kubefedctl';
import { POLL } from '@kubefed/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CHART_DIR, CRDS_DIR, chartGeneratedFiles } from '../../tools/helm/chart-files.js';
import {
  CHART,
  containerOf,
  crdsFirst,
  envVar,
  find,
  helmBinary,
  helmBuilt,
  helmTemplate,
  type K8sObject,
  KUBECTL,
  type Parsed,
  parseObjects,
  REPO_ROOT,
  runCommand,
  runOk,
  setArgs,
} from './support/helm.js';

const NS = 'kube-federation-system';
const SCOPES = ['Cluster', 'Namespaced'] as const;
type Scope = (typeof SCOPES)[number];
const EXTERNAL = { 'redis.bundled.enabled': 'false', 'redis.external.url': 'rediss://kubefed@redis.example.com:6380/0' };

const renders = new Map<string, Promise<K8sObject[]>>();
/** helm template with these values, rendered once per distinct set. */
function render(values: Readonly<Record<string, string>> = {}, namespace = NS): Promise<K8sObject[]> {
  const key = JSON.stringify([namespace, values]);
  let p = renders.get(key);
  if (p === undefined) {
    p = helmTemplate({ namespace, values });
    renders.set(key, p);
  }
  return p;
}

const scopeValues = (scope: Scope): Record<string, string> => (scope === 'Cluster' ? {} : { 'global.scope': 'Namespaced' });
const rulesOf = (o: K8sObject): Parsed[] => o.rules as Parsed[];
const baseRbac = [
  ...parseObjects(readFileSync(join(REPO_ROOT, 'deploy/base/controller-manager-rbac.yaml'), 'utf8')),
  ...parseObjects(readFileSync(join(REPO_ROOT, 'deploy/base/sync-worker-rbac.yaml'), 'utf8')),
];
const crdFileCount = readdirSync(CRDS_DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').length;

describe('the chart files generated from deploy/crds and kubefedctl enable', () => {
  it('holds exactly the CRDs of deploy/crds and the FederatedTypeConfigs of the default types (run npm run generate when this fails)', () => {
    const expected = chartGeneratedFiles();
    const onDisk = Object.fromEntries(Object.keys(expected).map((path) => [path, readFileSync(join(CHART_DIR, path), 'utf8')]));
    expect(onDisk).toEqual(expected);
    expect(readdirSync(join(CHART_DIR, 'crds')).sort()).toEqual(
      Object.keys(expected)
        .filter((p) => p.startsWith('crds/'))
        .map((p) => p.slice('crds/'.length))
        .sort(),
    );
  });

  it('carries the version of packages/controller-manager as chart version and appVersion (the image tag)', () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'packages/controller-manager/package.json'), 'utf8')) as { version: string })
      .version;
    const chart = parseObjects(readFileSync(join(CHART, 'Chart.yaml'), 'utf8'))[0] as Parsed;
    expect({ version: chart.version, appVersion: chart.appVersion }).toEqual({ version, appVersion: version });
  });
});

describe('helm chart deploy/helm/kubefed', () => {
  beforeAll(() => {
    // npm test builds it first (tools/test-prereqs.sh); run alone, build it with bash tools/helm/build.sh.
    if (!helmBuilt()) throw new Error(`${helmBinary()} is missing: run bash tools/helm/build.sh`);
  });

  it.each([
    ['Cluster scope, bundled Redis', {}],
    ['Namespaced scope, bundled Redis', { 'global.scope': 'Namespaced' }],
    [
      'external Redis with password and TLS',
      { ...EXTERNAL, 'redis.external.passwordSecret.name': 'redis-auth', 'redis.external.tls.caSecret.name': 'redis-ca' },
    ],
  ])('passes helm lint --strict: %s', async (_title, values) => {
    const r = await runCommand(helmBinary(), ['lint', '--strict', CHART, '-n', NS, ...setArgs(values)]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(r.code).toBe(0);
  });

  describe.each(SCOPES)('helm template, scope %s', (scope) => {
    it('renders every CRD of deploy/crds and the default FederatedTypeConfigs in the release namespace', async () => {
      const objects = await render(scopeValues(scope));
      expect(objects.filter((o) => o.kind === 'CustomResourceDefinition')).toHaveLength(crdFileCount);
      const ftcs = objects.filter((o) => o.kind === 'FederatedTypeConfig');
      expect(ftcs.map((o) => o.metadata.name).sort()).toEqual(
        DEFAULT_FEDERATED_TYPES.map((t) => (t.group === '' ? t.pluralName : `${t.pluralName}.${t.group}`)).sort(),
      );
      expect(ftcs.every((o) => o.metadata.namespace === NS)).toBe(true);
    });

    it('runs two leader-elected controller-manager replicas and two sync workers, both with the scope and the Redis URL', async () => {
      const objects = await render(scopeValues(scope));
      const cm = find(objects, 'Deployment', 'kubefed-controller-manager');
      expect(cm.metadata.namespace).toBe(NS);
      expect(cm.spec.replicas).toBe(2);
      expect(containerOf(cm).args).toEqual(
        expect.arrayContaining([
          '--kubefed-namespace=$(POD_NAMESPACE)',
          '--mode=controllers',
          '--leader-elect=true',
          '--metrics-addr=:9090',
          '--health-addr=:8080',
        ]),
      );
      expect(cm.spec.template.spec.serviceAccountName).toBe('kubefed-controller');
      const workers = find(objects, 'Deployment', 'kubefed-sync-worker');
      expect(workers.spec.replicas).toBe(2);
      // Explicit addresses: the processes' own defaults are loopback only.
      expect(containerOf(workers).args).toEqual(
        expect.arrayContaining(['--mode=workers', '--leader-elect=false', '--metrics-addr=:9090', '--health-addr=:8080']),
      );
      expect(workers.spec.template.spec.serviceAccountName).toBe('kubefed-sync-worker');
      for (const d of [cm, workers]) {
        expect(containerOf(d).image).toBe('kubefed-controller-manager:0.1.0');
        expect(envVar(d, 'DEFAULT_KUBEFED_SCOPE').value).toBe(scope);
        expect(envVar(d, 'REDIS_URL').value).toBe('redis://:$(REDIS_PASSWORD)@kubefed-redis:6379');
        expect(envVar(d, 'POD_NAMESPACE').valueFrom.fieldRef.fieldPath).toBe('metadata.namespace');
        expect(containerOf(d).readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'health' });
        expect(containerOf(d).securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      }
    });

    it('writes a KubeFedConfig with the scope and KubeFed defaults that @kubefed/api validates once defaulted', async () => {
      const config = find(await render(scopeValues(scope)), 'KubeFedConfig', 'kubefed');
      expect(config.metadata.namespace).toBe(NS);
      expect(config.spec.scope).toBe(scope);
      expect(config.spec.clusterHealthCheck).toEqual({ period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s' });
      expect(config.spec.syncController.adoptResources).toBe('Enabled');
      // As stored: the fields left out (spec.leaderElect.resourceLock) get the API's defaults.
      const result = validateKubeFedConfig(defaultKubeFedConfig(kubeFedConfigSchema.parse(config)));
      expect(result.ok ? [] : result.issues).toEqual([]);
    });

    it('exposes /metrics of the controller manager and of the workers through Services selecting their pods', async () => {
      const objects = await render(scopeValues(scope));
      for (const role of ['controller-manager', 'sync-worker']) {
        const svc = find(objects, 'Service', `kubefed-${role}-metrics-service`);
        expect(svc.spec.ports).toEqual([{ name: 'metrics', port: 9090, targetPort: 'metrics', protocol: 'TCP' }]);
        expect(find(objects, 'Deployment', `kubefed-${role}`).spec.template.metadata.labels).toMatchObject(svc.spec.selector);
      }
    });
  });

  it('Cluster scope grants exactly the RBAC of deploy/base: cluster-wide ClusterRoles and Roles in the release namespace', async () => {
    const objects = await render();
    const rbac = (list: readonly K8sObject[]) =>
      list
        .filter((o) => ['ClusterRole', 'Role'].includes(o.kind))
        .map((o) => ({ kind: o.kind, name: o.metadata.name, rules: rulesOf(o) }))
        .sort((a, b) => `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`));
    expect(rbac(objects)).toEqual(rbac(baseRbac));
    const bindings = objects
      .filter((o) => o.kind.endsWith('Binding'))
      .map(
        (b) =>
          `${b.kind} ${b.metadata.name} -> ${b.roleRef.kind} ${b.roleRef.name}: ${(b.subjects as Parsed[]).map((s) => `${s.namespace}/${s.name}`).join()}`,
      );
    expect(bindings.sort()).toEqual([
      `ClusterRoleBinding kubefed-controller-manager -> ClusterRole kubefed-controller-manager: ${NS}/kubefed-controller`,
      `ClusterRoleBinding kubefed-sync-worker -> ClusterRole kubefed-sync-worker: ${NS}/kubefed-sync-worker`,
      `RoleBinding kubefed-controller-manager -> Role kubefed-controller-manager: ${NS}/kubefed-controller`,
      `RoleBinding kubefed-sync-worker -> Role kubefed-sync-worker: ${NS}/kubefed-sync-worker`,
    ]);
  });

  it('Namespaced scope keeps every rule of deploy/base in Roles of the release namespace, cluster-wide only the read of Namespaces, under names of its own', async () => {
    const ns = 'tenant-a-federation';
    const objects = await render({ 'global.scope': 'Namespaced' }, ns);
    const clusterRoles = objects.filter((o) => o.kind === 'ClusterRole');
    expect(clusterRoles.map((o) => o.metadata.name).sort()).toEqual([`kubefed-controller-manager:${ns}`, `kubefed-sync-worker:${ns}`]);
    expect(clusterRoles.flatMap(rulesOf).map((r) => `${r.resources.join()}:${r.verbs.join()}`)).toEqual([
      'namespaces:get',
      'namespaces:get',
    ]);
    for (const account of ['controller-manager', 'sync-worker']) {
      const role = find(objects, 'Role', `kubefed-${account}`);
      expect(role.metadata.namespace).toBe(ns);
      const baseRules = baseRbac.filter((o) => o.kind.endsWith('Role') && o.metadata.name === `kubefed-${account}`).flatMap(rulesOf);
      const chartRules = [...rulesOf(role), ...rulesOf(find(objects, 'ClusterRole', `kubefed-${account}:${ns}`))];
      const key = (r: Parsed) => JSON.stringify(r);
      expect(chartRules.map(key).sort()).toEqual(baseRules.map(key).sort());
      expect(find(objects, 'ClusterRoleBinding', `kubefed-${account}:${ns}`).subjects[0].namespace).toBe(ns);
    }
  });

  it('bundled Redis: one password Secret shared by Redis, the controller manager and the workers, and a NetworkPolicy admitting only them', async () => {
    const objects = await render();
    const secret = find(objects, 'Secret', 'kubefed-redis-password');
    expect(Buffer.from(secret.data.password, 'base64').toString('utf8')).toMatch(/^[A-Za-z0-9]{48}$/);
    const fromSecret = { secretKeyRef: { name: 'kubefed-redis-password', key: 'password' } };
    const redis = find(objects, 'Deployment', 'kubefed-redis');
    expect(envVar(redis, 'REDIS_PASSWORD').valueFrom).toEqual(fromSecret);
    expect(containerOf(redis).args).toEqual(['--save', '', '--appendonly', 'no', '--requirepass', '$(REDIS_PASSWORD)']);
    for (const name of ['kubefed-controller-manager', 'kubefed-sync-worker'])
      expect(envVar(find(objects, 'Deployment', name), 'REDIS_PASSWORD').valueFrom).toEqual(fromSecret);
    expect(find(objects, 'Service', 'kubefed-redis').spec.ports[0].port).toBe(6379);
    const policy = find(objects, 'NetworkPolicy', 'kubefed-redis');
    expect(policy.spec.podSelector.matchLabels).toEqual({ 'kubefed-control-plane': 'redis' });
    expect(policy.spec.ingress).toEqual([
      {
        from: [
          { podSelector: { matchLabels: { 'kubefed-control-plane': 'controller-manager' } } },
          { podSelector: { matchLabels: { 'kubefed-control-plane': 'sync-worker' } } },
        ],
        ports: [{ protocol: 'TCP', port: 6379 }],
      },
    ]);
  });

  it('a NetworkPolicy admits to the controller-manager and sync-worker pods only /metrics (9090), from every pod or from metricsFrom', async () => {
    const objects = await render();
    const policy = find(objects, 'NetworkPolicy', 'kubefed-control-plane');
    expect(policy.metadata.namespace).toBe(NS);
    const selected = (name: string): boolean => {
      const labels = find(objects, 'Deployment', name).spec.template.metadata.labels as Record<string, string>;
      return (policy.spec.podSelector.matchExpressions as Parsed[]).every(
        (e) => e.operator === 'In' && (e.values as string[]).includes(labels[e.key as string] ?? ''),
      );
    };
    expect(['kubefed-controller-manager', 'kubefed-sync-worker', 'kubefed-redis'].map(selected)).toEqual([true, true, false]);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    expect(policy.spec.ingress).toEqual([{ from: [{ namespaceSelector: {} }], ports: [{ protocol: 'TCP', port: 9090 }] }]);
    const ports = containerOf(find(objects, 'Deployment', 'kubefed-controller-manager')).ports as Parsed[];
    expect(ports.find((p) => p.name === 'metrics')?.containerPort).toBe(9090);
    const monitoring = 'controllermanager.networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name';
    const narrowed = find(await render({ ...EXTERNAL, [monitoring]: 'monitoring' }), 'NetworkPolicy', 'kubefed-control-plane');
    expect(narrowed.spec.ingress[0].from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
    ]);
    const off = await render({ 'controllermanager.networkPolicy.enabled': 'false' });
    expect(off.filter((o) => o.kind === 'NetworkPolicy').map((o) => o.metadata.name)).toEqual(['kubefed-redis']);
  });

  it('bundled Redis pinned by redis.bundled.imageDigest runs image@digest', async () => {
    const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
    const redis = find(await render({ 'redis.bundled.imageDigest': digest }), 'Deployment', 'kubefed-redis');
    expect(containerOf(redis).image).toBe(`redis:7-alpine@${digest}`);
    expect(containerOf(find(await render(), 'Deployment', 'kubefed-redis')).image).toBe('redis:7-alpine');
  });

  it('bundled Redis with an existing Secret creates no Secret and references that one', async () => {
    const objects = await render({ 'redis.bundled.existingSecret': 'my-redis-password' });
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(envVar(find(objects, 'Deployment', 'kubefed-redis'), 'REDIS_PASSWORD').valueFrom.secretKeyRef.name).toBe('my-redis-password');
    expect(envVar(find(objects, 'Deployment', 'kubefed-controller-manager'), 'REDIS_PASSWORD').valueFrom.secretKeyRef.name).toBe(
      'my-redis-password',
    );
  });

  it('external Redis: the URL with the password of a Secret, its CA and client certificate mounted and passed as flags; no Redis of its own', async () => {
    const objects = await render({
      ...EXTERNAL,
      'redis.external.passwordSecret.name': 'redis-auth',
      'redis.external.tls.caSecret.name': 'redis-ca',
      'redis.external.tls.clientCertSecret': 'redis-client',
    });
    expect(objects.filter((o) => o.metadata.name.startsWith('kubefed-redis'))).toEqual([]);
    for (const name of ['kubefed-controller-manager', 'kubefed-sync-worker']) {
      const d = find(objects, 'Deployment', name);
      expect(envVar(d, 'REDIS_PASSWORD').valueFrom).toEqual({ secretKeyRef: { name: 'redis-auth', key: 'password' } });
      expect(envVar(d, 'REDIS_URL').value).toBe('rediss://kubefed:$(REDIS_PASSWORD)@redis.example.com:6380/0');
      expect(containerOf(d).args).toEqual(
        expect.arrayContaining([
          '--redis-ca-file=/etc/kubefed/redis-ca/ca.crt',
          '--redis-cert-file=/etc/kubefed/redis-client/tls.crt',
          '--redis-key-file=/etc/kubefed/redis-client/tls.key',
        ]),
      );
      expect(d.spec.template.spec.volumes).toEqual(
        expect.arrayContaining([
          { name: 'redis-ca', secret: { secretName: 'redis-ca' } },
          { name: 'redis-client', secret: { secretName: 'redis-client' } },
        ]),
      );
    }
  });

  it('external Redis without a password Secret uses the URL as given', async () => {
    const d = find(await render(EXTERNAL), 'Deployment', 'kubefed-sync-worker');
    expect(envVar(d, 'REDIS_URL').value).toBe(EXTERNAL['redis.external.url']);
    expect(envVar(d, 'REDIS_PASSWORD')).toBeUndefined();
  });

  it.each([
    [{ 'global.scope': 'Cluster-wide' }, 'global.scope: must be Cluster or Namespaced, not "Cluster-wide"'],
    [{ 'redis.bundled.enabled': 'false' }, 'redis.external.url: required when redis.bundled.enabled is false'],
    [{ 'redis.bundled.enabled': 'false', 'redis.external.url': 'http://redis:6379' }, 'redis.external.url: scheme must be redis, rediss'],
    [
      { ...EXTERNAL, 'redis.external.url': 'redis://:secret@redis:6379', 'redis.external.passwordSecret.name': 'redis-auth' },
      'redis.external.url: carries a password while redis.external.passwordSecret.name is set',
    ],
    [{ 'redis.bundled.imageDigest': 'sha256:abc' }, 'redis.bundled.imageDigest: must be sha256:<64 lowercase hex digits>'],
  ])('refuses %j with a message naming the value', async (values, message) => {
    const r = await runCommand(helmBinary(), ['template', 'kubefed', CHART, '-n', NS, ...setArgs(values)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });

  it("maps KubeFed's values: replicas, leader election, health checks, feature gates, adoption, image, scheduling and resources", async () => {
    const objects = await render({
      'controllermanager.controller.replicaCount': '3',
      'controllermanager.syncWorker.replicaCount': '5',
      'controllermanager.leaderElectLeaseDuration': '30s',
      'controllermanager.leaderElectRenewDeadline': '20s',
      'controllermanager.leaderElectRetryPeriod': '4s',
      'controllermanager.clusterHealthCheckPeriod': '20s',
      'controllermanager.clusterHealthCheckFailureThreshold': '5',
      'controllermanager.clusterHealthCheckTimeout': '4s',
      'controllermanager.featureGates.SchedulerPreferences': 'Disabled',
      'controllermanager.syncController.adoptResources': 'Disabled',
      'controllermanager.controller.repository': 'registry.example.com/kubefed',
      'controllermanager.controller.tag': '0.1.0-rc1',
      'controllermanager.imagePullSecrets[0].name': 'pull',
      'controllermanager.commonNodeSelector.pool': 'system',
      'controllermanager.commonTolerations[0].key': 'dedicated',
      'controllermanager.commonTolerations[0].operator': 'Exists',
      'controllermanager.controller.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key':
        'zone',
      'controllermanager.controller.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator':
        'Exists',
      'controllermanager.controller.resources.limits.memory': '1Gi',
    });
    const cm = find(objects, 'Deployment', 'kubefed-controller-manager');
    const workers = find(objects, 'Deployment', 'kubefed-sync-worker');
    expect([cm.spec.replicas, workers.spec.replicas]).toEqual([3, 5]);
    expect(containerOf(cm).args).toEqual(
      expect.arrayContaining(['--leader-elect-lease-duration=30s', '--leader-elect-renew-deadline=20s', '--leader-elect-retry-period=4s']),
    );
    expect((containerOf(workers).args as string[]).filter((a) => a.startsWith('--leader-elect-'))).toEqual([]);
    const config = find(objects, 'KubeFedConfig', 'kubefed').spec;
    expect(config.leaderElect).toMatchObject({ leaseDuration: '30s', renewDeadline: '20s', retryPeriod: '4s' });
    expect(config.clusterHealthCheck).toEqual({ period: '20s', failureThreshold: 5, successThreshold: 1, timeout: '4s' });
    expect(config.featureGates).toContainEqual({ name: 'SchedulerPreferences', configuration: 'Disabled' });
    expect(config.syncController.adoptResources).toBe('Disabled');
    for (const d of [cm, workers]) {
      expect(containerOf(d).image).toBe('registry.example.com/kubefed/kubefed-controller-manager:0.1.0-rc1');
      const pod = d.spec.template.spec;
      expect(pod.imagePullSecrets).toEqual([{ name: 'pull' }]);
      expect(pod.nodeSelector).toEqual({ pool: 'system' });
      expect(pod.tolerations).toEqual([{ key: 'dedicated', operator: 'Exists' }]);
    }
    expect(cm.spec.template.spec.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }],
        },
      },
    });
    expect(workers.spec.template.spec.affinity.podAntiAffinity).toBeDefined();
    expect(containerOf(cm).resources.limits).toEqual({ cpu: '1', memory: '1Gi' });
  });

  describe('against a kube-sim host cluster', () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function host(): Promise<{
      kubeconfig: string;
      k: (args: readonly string[], input?: string) => Promise<string>;
      canI: (as: string, what: string, namespace: string) => Promise<string>;
    }> {
      const cluster = await startCluster({ name: 'host' });
      cleanups.push(() => cluster.stop());
      const dir = mkdtempSync(join(tmpdir(), 'kubefed-helm-'));
      cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
      const kubeconfig = join(dir, 'host.kubeconfig');
      writeFileSync(kubeconfig, cluster.kubeconfigYaml());
      const base = [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dir, 'cache')}`];
      return {
        kubeconfig,
        k: (args, input) => runOk(KUBECTL, [...base, ...args], { input }),
        // `kubectl auth can-i` exits 1 for "no": its answer is the output.
        canI: async (as, what, namespace) =>
          (await runCommand(KUBECTL, [...base, 'auth', 'can-i', ...what.split(' '), '-n', namespace, `--as=${as}`])).stdout.trim(),
      };
    }

    it('the FederatedTypeConfigs and Federated CRDs equal what kubefedctl enable --default-types writes', async () => {
      const { kubeconfig, k } = await host();
      await k(['create', 'namespace', NS]);
      let stdout = '';
      let stderr = '';
      const code = await run(['enable', '--default-types', '-o', 'yaml', `--kubeconfig=${kubeconfig}`, `--kubefed-namespace=${NS}`], {
        stdout: (s) => void (stdout += s),
        stderr: (s) => void (stderr += s),
        env: { HOME: '/nonexistent-home' },
      });
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      const fromCli = parseObjects(stdout);
      const chart = await render();
      const byName = (list: readonly K8sObject[], kind: string) =>
        Object.fromEntries(list.filter((o) => o.kind === kind).map((o) => [o.metadata.name, o]));
      const chartFtcs = byName(chart, 'FederatedTypeConfig');
      expect(byName(fromCli, 'FederatedTypeConfig')).toEqual(
        Object.fromEntries(Object.entries(chartFtcs).map(([name, o]) => [name, { ...o, metadata: { name, namespace: NS } }])),
      );
      const cliCrds = byName(fromCli, 'CustomResourceDefinition');
      expect(Object.keys(cliCrds)).toHaveLength(DEFAULT_FEDERATED_TYPES.length);
      const chartCrds = byName(chart, 'CustomResourceDefinition');
      // The chart is rendered offline, with no API server to read the target types' schemas from:
      // its templates keep every field (x-kubernetes-preserve-unknown-fields), where enable writes
      // the target's schema (docs/user-guide.md, enable). Everything else is the same.
      for (const [name, crd] of Object.entries(cliCrds)) {
        expect(templateSchema(chartCrds[name]), name).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
        expect(templateSchema(crd), name).toHaveProperty('properties');
        expect(withOpenTemplate(chartCrds[name]), name).toEqual(withOpenTemplate(crd));
      }
    });

    it.each(SCOPES)(
      '%s scope: the rendered chart applies, the FederatedTypeConfigs exist, RBAC holds, the Deployments roll out',
      async (scope: Scope) => {
        const { k, canI } = await host();
        const ns = scope === 'Cluster' ? NS : 'tenant-federation';
        await k(['create', 'namespace', ns]);
        // kube-sim serves no networking.k8s.io: the NetworkPolicy is checked on the rendered objects above.
        const { crds, rest } = crdsFirst((await render(scopeValues(scope), ns)).filter((o) => o.kind !== 'NetworkPolicy'));
        const yaml = (list: readonly K8sObject[]) => list.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
        await k(['apply', '--server-side', '-f', '-'], yaml(crds));
        await k(['wait', '--for=condition=Established', '--timeout=60s', ...crds.map((c) => `crd/${c.metadata.name}`)]);
        await k(['apply', '--server-side', '-f', '-'], yaml(rest));

        for (const o of rest) {
          const ref =
            o.metadata.namespace === undefined ? [o.kind, o.metadata.name] : ['-n', o.metadata.namespace, o.kind, o.metadata.name];
          expect(JSON.parse(await k(['get', ...ref, '-o', 'json'])).metadata.name).toBe(o.metadata.name);
        }
        const ftcs = JSON.parse(await k(['-n', ns, 'get', 'federatedtypeconfigs', '-o', 'json'])).items as Parsed[];
        expect(ftcs).toHaveLength(DEFAULT_FEDERATED_TYPES.length);
        expect(JSON.parse(await k(['-n', ns, 'get', 'kubefedconfig', 'kubefed', '-o', 'json'])).spec.scope).toBe(scope);

        const controllerManager = `system:serviceaccount:${ns}:kubefed-controller`;
        expect(await canI(controllerManager, 'patch federateddeployments.types.kubefed.io', ns)).toBe('yes');
        expect(await canI(controllerManager, 'patch federateddeployments.types.kubefed.io', 'default')).toBe(
          scope === 'Cluster' ? 'yes' : 'no',
        );
        expect(await canI(controllerManager, 'update leases.coordination.k8s.io/kubefed-controller-manager', ns)).toBe('yes');
        expect(await canI(`system:serviceaccount:${ns}:kubefed-sync-worker`, 'create propagatedversions.core.kubefed.io', ns)).toBe('yes');
        expect(await canI(controllerManager, 'create deployments.apps', ns)).toBe('no');

        // The simulated deployment controller and kubelet run the pods (no image is pulled).
        const deployments = rest.filter((o) => o.kind === 'Deployment');
        await expect
          .poll(async () => {
            const list = JSON.parse(await k(['-n', ns, 'get', 'deployments', '-o', 'json']));
            return Object.fromEntries((list.items as Parsed[]).map((d) => [d.metadata.name, d.status?.readyReplicas ?? 0]));
          }, POLL)
          .toEqual(Object.fromEntries(deployments.map((d) => [d.metadata.name, d.spec.replicas])));
      },
    );
  });
});

/** `spec.template`'s schema in the one version of a Federated<Kind> CRD. */
function templateSchema(crd: K8sObject | undefined): unknown {
  const versions = (crd?.['spec'] as { versions?: { schema?: { openAPIV3Schema?: Parsed } }[] } | undefined)?.versions ?? [];
  return versions[0]?.schema?.openAPIV3Schema?.properties?.spec?.properties?.template;
}

/** A copy of a Federated<Kind> CRD with `spec.template`'s schema left out. */
function withOpenTemplate(crd: K8sObject | undefined): unknown {
  const copy: Parsed = structuredClone(crd);
  const version = copy?.spec?.versions?.[0];
  if (version?.schema?.openAPIV3Schema?.properties?.spec?.properties !== undefined)
    delete version.schema.openAPIV3Schema.properties.spec.properties.template;
  return copy;
}
