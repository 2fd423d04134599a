import { execFile } from 'node:child_process';
import path from 'node:path';
import { getOrUndefined, type KubeObject } from '@kubefed/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type CliRun, gvr, SimFederation } from './sim-federation.js';

const ns = 'kube-federation-system';
const fedGvr = (resource: string) => ({ group: 'types.kubefed.io', version: 'v1beta1', resource });
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const mainTs = path.join(repoRoot, 'packages/kubefedctl/src/main.ts');

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host']);
  await fed.controlPlane('host', ns);
  const host = fed.client('host');
  for (const name of ['demo', 'shop'])
    await host.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { team: name } } });
  await host.resource(gvr.configMaps, 'demo').create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web-config', namespace: 'demo', labels: { app: 'web' }, annotations: { note: 'not federated' } },
    data: { color: 'blue' },
  });
  await host
    .resource(gvr.configMaps, 'demo')
    .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'preview', namespace: 'demo' }, data: { a: '1' } });
  await host
    .resource(gvr.secrets, 'demo')
    .create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: 'demo' }, stringData: { user: 'x' } });
  await host
    .resource(gvr.configMaps, 'shop')
    .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'catalog', namespace: 'shop' }, data: { items: '3' } });
  await host
    .resource(gvr.secrets, 'shop')
    .create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'payment', namespace: 'shop' }, stringData: { key: 'k' } });
}, 60_000);

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

/** Runs the CLI like `fed.cli`, with `input` on its standard input. */
function cliWithStdin(args: string[], input: string): Promise<CliRun> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: fed.dir };
    delete env['KUBECONFIG'];
    const child = execFile(
      process.execPath,
      ['--conditions=@kubefed/source', '--import', 'tsx', mainTs, '--kubeconfig', fed.kubeconfig, ...args],
      { cwd: repoRoot, timeout: 45_000, env },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

function yamlDocs(text: string): KubeObject[] {
  return parseAllDocuments(text).map((d) => (Array.isArray(d) ? {} : d.toJS()) as KubeObject);
}

describe('kubefedctl federate against kube-sim', () => {
  it('federates a ConfigMap once, refuses a second time, a type without FTC and --contents for a non-namespace, and -o yaml writes nothing', async () => {
    const host = fed.client('host');
    const enabled = await fed.cli(['enable', 'configmaps']);
    expect(enabled.code).toBe(0);

    const r = await fed.cli(['federate', 'configmaps', 'web-config', '-n', 'demo']);
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Successfully created FederatedConfigMap "demo/web-config" from ConfigMap');
    expect(r.stderr).toContain(
      'warning: Annotations defined for ConfigMap "demo/web-config" will not appear in the template of the federated resource: note',
    );
    const fcm = await host.resource(fedGvr('federatedconfigmaps'), 'demo').get('web-config');
    expect(fcm.kind).toBe('FederatedConfigMap');
    expect(fcm['spec']).toEqual({
      template: { metadata: { labels: { app: 'web' } }, data: { color: 'blue' } },
      placement: { clusterSelector: { matchLabels: {} } },
    });

    const [again, noFtc, yaml, contents] = await Promise.all([
      fed.cli(['federate', 'configmaps', 'web-config', '-n', 'demo']),
      fed.cli(['federate', 'secrets', 'creds', '-n', 'demo']),
      fed.cli(['federate', 'cm', 'preview', '-n', 'demo', '-o', 'yaml']),
      fed.cli(['federate', 'configmaps', 'preview', '-n', 'demo', '--contents']),
    ]);
    expect(contents.code).toBe(1);
    expect(contents.stderr).toContain("Error: Flag '--contents' can only be used with type 'namespaces'.");

    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Error: FederatedConfigMap "demo/web-config" already exists');

    expect(noFtc.code).toBe(1);
    expect(noFtc.stderr).toContain('"secrets" not found');
    expect(noFtc.stderr).toContain("Consider using '--enable-type'");
    expect(await getOrUndefined(host.resource(gvr.federatedTypeConfigs, ns), 'secrets')).toBeUndefined();

    expect(yaml.code).toBe(0);
    expect(yaml.stdout.startsWith('---\n')).toBe(true);
    expect(yamlDocs(yaml.stdout)).toEqual([
      {
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedConfigMap',
        metadata: { name: 'preview', namespace: 'demo' },
        spec: { template: { data: { a: '1' } }, placement: { clusterSelector: { matchLabels: {} } } },
      },
    ]);
    expect(await getOrUndefined(host.resource(fedGvr('federatedconfigmaps'), 'demo'), 'preview')).toBeUndefined();
  }, 180_000);

  it('federates a namespace with --contents, enabling the missing types with --enable-type', async () => {
    const host = fed.client('host');
    await expect.poll(() => getOrUndefined(host.resource(gvr.serviceAccounts, 'shop'), 'default'), { timeout: 10_000 }).toBeDefined();
    const r = await fed.cli(['federate', 'namespace', 'shop', '--contents', '--enable-type'], 120_000);
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('federatedtypeconfig.core.kubefed.io/namespaces created in namespace kube-federation-system');
    expect(r.stdout).toContain('Successfully created FederatedNamespace "shop/shop" from Namespace');
    const fns = await host.resource(fedGvr('federatednamespaces'), 'shop').get('shop');
    // Labels are kept as they are, including the one the API server sets on every namespace.
    expect(fns['spec']).toEqual({
      template: { metadata: { labels: { team: 'shop', 'kubernetes.io/metadata.name': 'shop' } }, spec: {} },
      placement: { clusterSelector: { matchLabels: {} } },
    });
    const secret = await host.resource(fedGvr('federatedsecrets'), 'shop').get('payment');
    expect((secret['spec'] as { template: { data: Record<string, string> } }).template.data).toEqual({
      key: Buffer.from('k').toString('base64'),
    });
    await host.resource(fedGvr('federatedconfigmaps'), 'shop').get('catalog');
    // What Kubernetes makes in every namespace stays the members' own.
    expect(r.stderr).toContain('skipped serviceaccount/default: created by Kubernetes in every namespace');
    expect(r.stderr).toContain('skipped configmap/kube-root-ca.crt: created by Kubernetes in every namespace');
    expect(await getOrUndefined(host.resource(fedGvr('federatedserviceaccounts'), 'shop'), 'default')).toBeUndefined();
    expect(await getOrUndefined(host.resource(fedGvr('federatedconfigmaps'), 'shop'), 'kube-root-ca.crt')).toBeUndefined();
  }, 180_000);

  it('federates a namespace with --contents without what each cluster makes for itself, and lists what it skipped and why', async () => {
    const host = fed.client('host');
    const apps = 'apps';
    await host.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: apps } });
    const lastApplied = { 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"v1"}' };
    await host.resource(gvr.deployments, apps).create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: apps, annotations: lastApplied },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      },
    });
    await host.resource(gvr.configMaps, apps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app-config', namespace: apps, annotations: lastApplied },
      data: { mode: 'fast' },
    });
    await host
      .resource(gvr.serviceAccounts, apps)
      .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: apps } });
    await host.resource(gvr.secrets, apps).create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'builder-token', namespace: apps, annotations: { 'kubernetes.io/service-account.name': 'builder' } },
      type: 'kubernetes.io/service-account-token',
    });
    // kube-sim's controllers: the Deployment's ReplicaSet and its two Pods, the token, the root CA and the default ServiceAccount.
    const names = async (resource: { group: string; version: string; resource: string }) =>
      (await host.resource(resource, apps).list()).items.map((o) => o.metadata.name ?? '');
    await expect.poll(async () => (await names(gvr.pods)).length, { timeout: 20_000 }).toBe(2);
    const [replicaSet] = await names(gvr.replicaSets);
    const pods = await names(gvr.pods);
    await expect.poll(() => names(gvr.serviceAccounts), { timeout: 10_000 }).toContain('default');
    await expect.poll(() => names(gvr.configMaps), { timeout: 10_000 }).toContain('kube-root-ca.crt');
    await expect
      .poll(async () => (await host.resource(gvr.secrets, apps).get('builder-token'))['data'], { timeout: 10_000 })
      .toHaveProperty('token');

    const r = await fed.cli(['federate', 'namespace', apps, '--contents', '--enable-type'], 120_000);
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    const created = [...r.stdout.matchAll(/^Successfully created (\S+ "[^"]+")/gm)].map((m) => m[1]).sort();
    expect(created).toEqual([
      'FederatedConfigMap "apps/app-config"',
      'FederatedDeployment "apps/web"',
      'FederatedNamespace "apps/apps"',
      'FederatedServiceAccount "apps/builder"',
    ]);
    const skipped = r.stderr.split('\n').filter((l) => l.startsWith('skipped '));
    expect(skipped).toEqual(
      expect.arrayContaining([
        `skipped replicaset.apps/${replicaSet}: its controller Deployment web makes it in each cluster (--include-owned federates it)`,
        ...pods.map(
          (p) => `skipped pod/${p}: its controller ReplicaSet ${replicaSet} makes it in each cluster (--include-owned federates it)`,
        ),
        'skipped configmap/kube-root-ca.crt: created by Kubernetes in every namespace',
        'skipped serviceaccount/default: created by Kubernetes in every namespace',
        'skipped secret/builder-token: a service account token: each cluster issues its own',
      ]),
    );
    expect(skipped.filter((l) => !l.includes(': kept by '))).toHaveLength(6);
    expect(r.stderr).not.toContain('last-applied-configuration');
    expect(r.stderr).not.toContain('warning:');
    // No type was enabled for the owned objects alone.
    for (const ftc of ['pods', 'replicasets.apps'])
      expect(await getOrUndefined(host.resource(gvr.federatedTypeConfigs, ns), ftc)).toBeUndefined();
    expect(await getOrUndefined(host.resource(fedGvr('federatedsecrets'), apps), 'builder-token')).toBeUndefined();

    // --include-owned: the ReplicaSet and the Pods too (printed, not written: the rest exists already).
    const owned = await fed.cli(['federate', 'namespace', apps, '--contents', '--include-owned', '-o', 'yaml'], 120_000);
    expect(owned.stderr).not.toContain('Error:');
    expect(owned.code).toBe(0);
    const federated = yamlDocs(owned.stdout).map((d) => `${d.kind ?? ''}/${d.metadata.name ?? ''}`);
    expect(federated).toEqual(
      expect.arrayContaining(['FederatedDeployment/web', `FederatedReplicaSet/${replicaSet}`, ...pods.map((p) => `FederatedPod/${p}`)]),
    );
    expect(federated).not.toContain('FederatedConfigMap/kube-root-ca.crt');
    expect(owned.stderr).not.toContain('--include-owned federates');
    expect(owned.stderr).toContain('skipped configmap/kube-root-ca.crt');
  }, 180_000);

  it('converts YAML from standard input offline with -f -', async () => {
    const input = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: web, namespace: demo, uid: abc, resourceVersion: "7" }',
      'spec: { replicas: 2, selector: { matchLabels: { app: web } } }',
      'status: { readyReplicas: 2 }',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: { name: web, namespace: demo }',
      'spec: { clusterIP: 10.0.0.1, ports: [{ port: 80, nodePort: 30080 }] }',
      '',
    ].join('\n');
    const [r, bad] = await Promise.all([
      cliWithStdin(['federate', '-f', '-'], input),
      cliWithStdin(['federate', '-f', '-'], 'kind: Secret\nmetadata: { name: x }\n'),
    ]);
    expect(r.stderr).not.toContain('Error:');
    expect(r.code).toBe(0);
    expect(yamlDocs(r.stdout)).toEqual([
      {
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedDeployment',
        metadata: { name: 'web', namespace: 'demo' },
        spec: {
          template: { spec: { replicas: 2, selector: { matchLabels: { app: 'web' } } } },
          placement: { clusterSelector: { matchLabels: {} } },
        },
      },
      {
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedService',
        metadata: { name: 'web', namespace: 'demo' },
        spec: { template: { spec: { ports: [{ port: 80 }] } }, placement: { clusterSelector: { matchLabels: {} } } },
      },
    ]);
    expect(await getOrUndefined(fed.client('host').resource(fedGvr('federateddeployments'), 'demo'), 'web')).toBeUndefined();
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Error: standard input: document 1: apiVersion is required');
  }, 120_000);
});
