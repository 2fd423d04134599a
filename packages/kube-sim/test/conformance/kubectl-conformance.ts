/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- test code (the lint rules of *.test.ts): parsed API JSON is loose by design */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import type { ConformanceTarget, Json, Substrate } from '../support/conformance-target.js';
import { configMap, deployment, expectCode } from '../support/fixtures.js';
import { widget, widgetCrd, widgetGroup } from '../support/widget-crd.js';

const kubectlPath = '/usr/bin/kubectl';
const hasKubectl = existsSync(kubectlPath);
// kubectl runs with a HOME of its own (no cache or config of the user) and the PATH of the tests.
// eslint-disable-next-line no-restricted-properties -- test code: the PATH kubectl's credential plugins would need
const kubectlEnv = (home: string): NodeJS.ProcessEnv => ({ PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home });

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** kubectl (at /usr/bin/kubectl) against the API server. */
export function kubectlConformance(substrate: Substrate): void {
  describe.skipIf(!hasKubectl)(`kubectl against the API server${hasKubectl ? '' : ` (skipped: no kubectl at ${kubectlPath})`}`, () => {
    let t: ConformanceTarget;
    let ns: string;
    let dir: string;
    let kubeconfig: string;
    let group: string;
    beforeAll(async () => {
      t = await substrate.open('kubectl');
      ns = t.namespace;
      dir = await mkdtemp(join(tmpdir(), 'kube-sim-kubectl-'));
      kubeconfig = join(dir, 'kubeconfig');
      await writeFile(kubeconfig, t.kubeconfigYaml, { mode: 0o600 });
      group = widgetGroup(t.suffix);
      expectCode(await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCrd(group) }), 201);
      await vi.waitFor(
        async () => {
          expectCode(await t.request('GET', `/apis/${group}/v1/namespaces/${ns}/widgets`), 200);
        },
        { timeout: 20_000, interval: 100 },
      );
    });
    afterAll(async () => {
      if (t?.real) await t.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
      await t?.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    const kubectl = (...args: string[]): Promise<Run> =>
      new Promise((resolve) => {
        execFile(
          kubectlPath,
          ['--kubeconfig', kubeconfig, '--namespace', ns, '--request-timeout=20s', ...args],
          { timeout: 45_000, env: kubectlEnv(dir) },
          (err, stdout, stderr) => {
            const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
            resolve({ code, stdout, stderr });
          },
        );
      });
    const ok = async (...args: string[]): Promise<string> => {
      const run = await kubectl(...args);
      expect(run, `kubectl ${args.join(' ')}`).toMatchObject({ code: 0 });
      return run.stdout;
    };
    const file = async (name: string, object: unknown): Promise<string> => {
      const path = join(dir, name);
      await writeFile(path, stringify(object));
      return path;
    };

    it('applies a Deployment client-side: created, then configured with a change', async () => {
      const d = deployment(ns, 'web', 1);
      expect(await ok('apply', '-f', await file('web.yaml', d))).toContain('deployment.apps/web created');
      d.spec.replicas = 2;
      d.metadata.labels.tier = 'frontend';
      expect(await ok('apply', '-f', await file('web.yaml', d))).toContain('deployment.apps/web configured');
      const got = expectCode(await t.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`), 200);
      expect(got.spec.replicas).toBe(2);
      expect(got.metadata.labels).toMatchObject({ app: 'web', tier: 'frontend' });
      expect(got.metadata.generation).toBe(2);
      const lastApplied = JSON.parse(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] as string);
      expect(lastApplied.spec.replicas).toBe(2);
      expect((got.spec.template.spec.containers as Json[]).map((c) => c.name)).toEqual(['app', 'sidecar']);
      expect(await ok('apply', '-f', await file('web.yaml', d))).toContain('deployment.apps/web unchanged');
    });

    it('applies a container list change client-side: image updated, a removed container deleted', async () => {
      const d = deployment(ns, 'containers', 1);
      expect(await ok('apply', '-f', await file('containers.yaml', d))).toContain('deployment.apps/containers created');
      d.spec.template.spec.containers = [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }];
      expect(await ok('apply', '-f', await file('containers.yaml', d))).toContain('deployment.apps/containers configured');
      const got = expectCode(await t.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/containers`), 200);
      expect(got.spec.template.spec.containers).toEqual([expect.objectContaining({ name: 'app', image: 'registry.k8s.io/pause:3.10' })]);
    });

    it('applies a file of kind List client-side and server-side (issue #18: needs /openapi/v2)', async () => {
      const list = (a: string, b: string): Json => ({
        apiVersion: 'v1',
        kind: 'List',
        items: [configMap(ns, 'listed-a', { v: a }), configMap(ns, 'listed-b', { v: b })],
      });
      const apply = async (...args: string[]): Promise<string> => {
        const run = await kubectl('apply', ...args);
        expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
        return run.stdout;
      };
      const path = await file('list.yaml', list('1', '1'));
      expect(await apply('-f', path)).toBe('configmap/listed-a created\nconfigmap/listed-b created\n');
      expect(await apply('-f', path)).toBe('configmap/listed-a unchanged\nconfigmap/listed-b unchanged\n');
      expect(await apply('-f', await file('list.yaml', list('2', '1')))).toBe(
        'configmap/listed-a configured\nconfigmap/listed-b unchanged\n',
      );
      expect(await apply('--server-side', '-f', await file('list.yaml', list('3', '1')))).toBe(
        'configmap/listed-a serverside-applied\nconfigmap/listed-b serverside-applied\n',
      );
      const got = expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/listed-a`), 200);
      expect(got.data).toEqual({ v: '3' });
    });

    it('applies a change client-side without printing warnings', async () => {
      const d = deployment(ns, 'quiet', 1);
      const path = await file('quiet.yaml', d);
      expect(await ok('apply', '-f', path)).toContain('deployment.apps/quiet created');
      d.spec.template.spec.containers[1].image = 'registry.k8s.io/pause:3.10';
      const changed = await kubectl('apply', '-f', await file('quiet.yaml', d));
      expect(changed).toMatchObject({ code: 0, stderr: '' });
      expect(changed.stdout).toContain('deployment.apps/quiet configured');
      const got = expectCode(await t.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/quiet`), 200);
      expect((got.spec.template.spec.containers as Json[]).map((c) => `${c.name} ${c.image}`)).toEqual([
        'app registry.k8s.io/pause:3.9',
        'sidecar registry.k8s.io/pause:3.10',
      ]);
    });

    it('applies server-side with --server-side', async () => {
      const cm = configMap(ns, 'ssa', { a: '1' });
      expect(await ok('apply', '--server-side', '-f', await file('ssa.yaml', cm))).toContain('configmap/ssa serverside-applied');
      expect(await ok('apply', '--server-side', '-f', await file('ssa.yaml', configMap(ns, 'ssa', { a: '2' })))).toContain(
        'configmap/ssa serverside-applied',
      );
      const got = expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/ssa`), 200);
      expect(got.data).toEqual({ a: '2' });
    });

    it('moves an object applied client-side to server-side apply, dropping what the new configuration leaves out', async () => {
      expect(await ok('apply', '-f', await file('migrated.yaml', configMap(ns, 'migrated', { a: '1', b: '2' })))).toContain(
        'configmap/migrated created',
      );
      const migrated = await kubectl('apply', '--server-side', '-f', await file('migrated.yaml', configMap(ns, 'migrated', { a: '3' })));
      expect(migrated).toMatchObject({ code: 0, stderr: '' });
      expect(migrated.stdout).toContain('configmap/migrated serverside-applied');
      const got = expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/migrated`), 200);
      expect(got.data).toEqual({ a: '3' });
      // The server rewrites the client-side annotation from the applied configuration (lastAppliedUpdater).
      expect(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toBe(
        `{"apiVersion":"v1","data":{"a":"3"},"kind":"ConfigMap","metadata":{"name":"migrated","namespace":"${ns}"}}\n`,
      );
      expect((got.metadata.managedFields as Json[]).map((m) => `${m.manager}/${m.operation}`)).toEqual([
        'kubectl-last-applied/Apply',
        'kubectl/Apply',
      ]);
      // And a client-side apply afterwards still works from that annotation.
      expect(await ok('apply', '-f', await file('migrated.yaml', configMap(ns, 'migrated', { a: '4' })))).toContain(
        'configmap/migrated configured',
      );
    });

    it('waits for a CRD condition with kubectl wait', async () => {
      const out = await ok('wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=20s');
      expect(out).toContain(`customresourcedefinition.apiextensions.k8s.io/widgets.${group} condition met`);
    });

    it('creates and deletes a namespace, waiting until it is gone', async () => {
      const name = `conf-kubectl-ns-${t.suffix}`;
      expect(await ok('create', 'namespace', name)).toContain(`namespace/${name} created`);
      expect(await ok('delete', 'namespace', name, '--timeout=30s')).toContain(`namespace "${name}" deleted`);
      expect((await t.request('GET', `/api/v1/namespaces/${name}`)).status).toBe(404);
    });

    it('lists across namespaces with get -A', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'everywhere') });
      const out = await ok('get', 'configmaps', '-A');
      const [header] = out.trim().split('\n');
      expect(header!.split(/\s{2,}/)).toEqual(['NAMESPACE', 'NAME', 'DATA', 'AGE']);
      expect(out).toMatch(new RegExp(`${ns}\\s+everywhere\\s+0\\s+`));
    });

    it('applies a custom resource client-side: created, then configured with a change, without warnings', async () => {
      const w = widget(group, ns, 'gizmo', { size: 2, color: 'red' });
      expect(await ok('apply', '-f', await file('gizmo.yaml', w))).toContain(`widget.${group}/gizmo created`);
      w.spec.size = 5;
      delete w.spec.color;
      // The patch is computed from the published schema: without ObjectMeta's fields kubectl
      // warns `unable to find api field "annotations"`.
      const changed = await kubectl('apply', '-f', await file('gizmo.yaml', w));
      expect(changed).toMatchObject({ code: 0, stderr: '' });
      expect(changed.stdout).toContain(`widget.${group}/gizmo configured`);
      const got = expectCode(await t.request('GET', `/apis/${group}/v1/namespaces/${ns}/widgets/gizmo`), 200);
      expect(got.spec).toEqual({ size: 5 });
    });

    it('shows an object with get -o yaml and -o json', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'shown', { k: 'v' }) });
      const asYaml = parse(await ok('get', 'configmap', 'shown', '-o', 'yaml'));
      expect(asYaml).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shown', namespace: ns }, data: { k: 'v' } });
      const asJson = JSON.parse(await ok('get', 'cm', 'shown', '-o', 'json'));
      expect(asJson.metadata.uid).toBe(asYaml.metadata.uid);
      const list = JSON.parse(await ok('get', 'configmaps', '-o', 'json'));
      expect(list.kind).toBe('List');
      expect((list.items as Json[]).map((i) => i.metadata.name)).toContain('shown');
    });

    it('prints Deployments as a table with READY, UP-TO-DATE and AVAILABLE columns', async () => {
      await t.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(ns, 'tabled', 0) });
      const out = await ok('get', 'deploy', 'tabled');
      const [header, row] = out.trim().split('\n');
      expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
      expect(row).toMatch(/^tabled\s+\d+\/0\s+\d+\s+\d+\s+\S+$/);
    });

    it('prints Deployments with -o wide: CONTAINERS, IMAGES and SELECTOR', async () => {
      await t.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(ns, 'widened', 0) });
      const out = await ok('get', 'deploy', 'widened', '-o', 'wide');
      const [header, row] = out.trim().split('\n');
      expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
      expect(row).toMatch(
        /^widened\s+\d+\/0\s+\d+\s+\d+\s+\S+\s+app,sidecar\s+registry\.k8s\.io\/pause:3\.9,registry\.k8s\.io\/pause:3\.9\s+app=widened$/,
      );
    });

    it('prints the additionalPrinterColumns of a custom resource', async () => {
      await t.request('POST', `/apis/${group}/v1/namespaces/${ns}/widgets`, {
        body: widget(group, ns, 'columns', { size: 8, color: 'blue' }),
      });
      const out = await ok('get', `widgets.${group}`, 'columns');
      const [header, row] = out.trim().split('\n');
      expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'SIZE', 'COLOR', 'AGE']);
      expect(row).toMatch(/^columns\s+8\s+blue\s+\S+$/);
      const short = await ok('get', 'wdg');
      expect(short).toContain('columns');
    });

    it('prints an empty cell for a printer column the object has no value for', async () => {
      expectCode(
        await t.request('POST', `/apis/${group}/v1/namespaces/${ns}/widgets`, { body: widget(group, ns, 'colorless', { size: 2 }) }),
        201,
      );
      const out = await ok('get', `widgets.${group}`, 'colorless');
      const [header, row] = out.trim().split('\n');
      const colorAt = header!.indexOf('COLOR');
      expect(row).toMatch(/^colorless\s+2\s+\S+$/);
      expect(row!.slice(colorAt, header!.indexOf('AGE')).trim()).toBe('');
    });

    describe('built-in table columns', () => {
      beforeAll(async () => {
        const post = async (path: string, body: unknown): Promise<void> => {
          expectCode(await t.request('POST', path, { body }), 201);
        };
        await post(`/api/v1/namespaces/${ns}/secrets`, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'cols' },
          type: 'Opaque',
          data: {},
        });
        await post(`/api/v1/namespaces/${ns}/services`, {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'cols' },
          spec: { selector: { app: 'cols' }, ports: [{ port: 80, protocol: 'TCP' }] },
        });
        await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'cols' } });
        await post(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: 'cols' },
          spec: { holderIdentity: 'me' },
        });
      });

      it.each([
        ['namespaces', ['NAME', 'STATUS', 'AGE']],
        ['nodes', ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']],
        ['secrets', ['NAME', 'TYPE', 'DATA', 'AGE']],
        ['services', ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']],
        ['serviceaccounts', ['NAME', 'SECRETS', 'AGE']],
        ['leases.coordination.k8s.io', ['NAME', 'HOLDER', 'AGE']],
        ['customresourcedefinitions', ['NAME', 'CREATED AT']],
      ])('prints %s with the kube-apiserver columns', async (resource, columns) => {
        const out = await ok('get', resource);
        const [header] = out.trim().split('\n');
        expect(header!.trim().split(/\s{2,}/)).toEqual(columns);
      });
    });

    it('sees a change with get -w', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'watched', { v: 'before' }) });
      const child = spawn(
        kubectlPath,
        [
          '--kubeconfig',
          kubeconfig,
          '--namespace',
          ns,
          'get',
          'configmap',
          'watched',
          '-w',
          '-o',
          'custom-columns=NAME:.metadata.name,V:.data.v',
          '--no-headers',
        ],
        { env: kubectlEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      try {
        await vi.waitFor(() => expect(stdout, stderr).toMatch(/watched\s+before/), { timeout: 20_000, interval: 100 });
        await t.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/watched`, {
          contentType: 'application/merge-patch+json',
          body: { data: { v: 'after' } },
        });
        await vi.waitFor(() => expect(stdout, stderr).toMatch(/watched\s+after/), { timeout: 20_000, interval: 100 });
      } finally {
        child.kill('SIGTERM');
      }
    });

    it('labels an object', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'labelled') });
      expect(await ok('label', 'configmap', 'labelled', 'team=blue')).toContain('configmap/labelled labeled');
      const got = expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/labelled`), 200);
      expect(got.metadata.labels).toEqual({ team: 'blue' });
      expect(await ok('get', 'cm', '-l', 'team=blue', '-o', 'name')).toContain('configmap/labelled');
      expect(await ok('label', 'configmap', 'labelled', 'team-')).toContain('configmap/labelled unlabeled');
    });

    it('patches with --type merge and --type json', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'patched', { a: '1' }) });
      expect(await ok('patch', 'configmap', 'patched', '--type', 'merge', '-p', '{"data":{"a":"2","b":"x"}}')).toContain(
        'configmap/patched patched',
      );
      expect(
        await ok('patch', 'configmap', 'patched', '--type', 'json', '-p', '[{"op":"replace","path":"/data/a","value":"3"}]'),
      ).toContain('configmap/patched patched');
      const got = expectCode(await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/patched`), 200);
      expect(got.data).toEqual({ a: '3', b: 'x' });
      const failing = await kubectl(
        'patch',
        'configmap',
        'patched',
        '--type',
        'json',
        '-p',
        '[{"op":"test","path":"/data/a","value":"9"}]',
      );
      expect(failing.code).not.toBe(0);
    });

    it('deletes an object and waits until it is gone', async () => {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, 'deleted') });
      expect(await ok('delete', 'configmap', 'deleted')).toContain('configmap "deleted" deleted');
      expect((await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/deleted`)).status).toBe(404);
      const missing = await kubectl('get', 'configmap', 'deleted');
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('configmaps "deleted" not found');
    });
  });
}
