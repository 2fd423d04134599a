// kubefedctl run as a process against kube-sim, for what a KubeFed user meets first: cobra's help
// layout (Global Flags in every subcommand's help, one line per command in the list), KubeFed's
// klog and `_` flag spellings, and the errors of orphaning-deletion on a missing object and of
// disable --delete-crd while federated objects exist (issue #41).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const fcmGvr = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' };

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host']);
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

/** The lines of the help section under `title`, up to the blank line that ends it. */
function section(help: string, title: string): string[] {
  const lines = help.split('\n');
  const start = lines.indexOf(title);
  expect(start, `${title} in:\n${help}`).toBeGreaterThanOrEqual(0);
  const rest = lines.slice(start + 1);
  return rest.slice(0, rest.indexOf(''));
}

describe('kubefedctl help', () => {
  it('shows the global flags in the help of a subcommand, as cobra does', async () => {
    const r = await fed.cli(['join', '--help']);
    expect(r.code).toBe(0);
    expect(section(r.stdout, 'Flags:').join('\n')).toContain('--cluster-context <context>');
    const globals = section(r.stdout, 'Global Flags:').join('\n');
    for (const flag of [
      '--kubeconfig <path>',
      '--host-cluster-context <context>',
      '--kubefed-namespace <namespace>',
      '--dry-run',
      '--v <level>',
    ])
      expect(globals).toContain(flag);
    expect(section(r.stdout, 'Flags:').join('\n')).not.toContain('--kubeconfig');
  });

  it('lists every command on one short line, its paragraph staying in its own help', async () => {
    const r = await fed.cli(['--help']);
    expect(r.code).toBe(0);
    const commands = section(r.stdout, 'Available Commands:');
    expect(commands.map((l) => /^ {2}(\S+) +\S/.exec(l)?.[1])).toEqual([
      'join',
      'unjoin',
      'rotate-token',
      'enable',
      'disable',
      'federate',
      'dashboard',
      'migrate',
      'orphaning-deletion',
      'plan',
      'status',
      'version',
      'completion',
      'help',
    ]);
    for (const line of commands) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(commands).toContain('  join                Register a cluster as a member of the federation');
    expect(r.stdout).toContain('Use "kubefedctl [command] --help" for more information about a command.');
    const join = await fed.cli(['join', '--help']);
    expect(join.stdout).toContain('Register a cluster as a member of the federation: create a service account');
  });
});

describe("kubefedctl with KubeFed's klog flags", () => {
  it('accepts --logtostderr, --v and --host_cluster_context with one deprecation line on stderr', async () => {
    const r = await fed.cli(['--logtostderr', '--v=3', '--host_cluster_context', 'host', 'version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kubefedctl version: \{gitVersion: "v/);
    expect(r.stderr).toBe(
      `warning: deprecated flags: --logtostderr ignored (klog's log file, header and module flags have no effect here); ` +
        'read --host_cluster_context as --host-cluster-context (flag names use "-")\n',
    );
  });

  it('reads --host_cluster_context as the host context and --v=2 as debug output', async () => {
    const r = await fed.cli([
      '--alsologtostderr',
      '--vmodule',
      'join=4',
      '--v=2',
      '--host_cluster_context',
      'host',
      'enable',
      'configmaps',
      '-o',
      'yaml',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('debug: host context "host"');
    expect(r.stdout).toContain('kind: FederatedTypeConfig');
  });
});

describe('kubefedctl errors with a hint', () => {
  it('names the missing object of orphaning-deletion once, with a hint; disable --delete-crd names the objects left', async () => {
    const ns = 'fed-hints';
    await fed.controlPlane('host', ns);
    const kubefedctl = (...args: string[]) => fed.cli(['--host-cluster-context', 'host', '--kubefed-namespace', ns, ...args]);
    expect((await kubefedctl('enable', 'configmaps')).code).toBe(0);

    const missing = await kubefedctl('orphaning-deletion', 'enable', 'federatedconfigmaps', 'nothere', '-n', 'app');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe(
      'Error: FederatedConfigMap "app/nothere" not found in the host cluster\n' +
        'hint: check the name and the namespace (-n): "kubectl get federatedconfigmaps.types.kubefed.io -n app" lists them\n',
    );

    const host = fed.client('host');
    await host.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app' } });
    const create = (name: string) =>
      host.resource(fcmGvr, 'app').create({
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedConfigMap',
        metadata: { name, namespace: 'app' },
        spec: { template: { data: {} }, placement: { clusters: [] } },
      });
    // The federated CRD that enable wrote may take a moment to be served.
    await vi.waitFor(() => create('cm-0'), { timeout: 30_000, interval: 200 });
    for (const name of ['cm-1', 'cm-2', 'cm-3', 'cm-4']) await create(name);

    const refused = await kubefedctl('disable', 'configmaps', '--delete-crd');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'Error: Cannot delete CRD "federatedconfigmaps.types.kubefed.io" while resource instances exist. ' +
        "Please try kubefedctl disable again after removing the resource instances or without the '--delete-crd' option " +
        '(instances: app/cm-0, app/cm-1, app/cm-2 and 2 more)\n' +
        'hint: delete them with "kubectl delete federatedconfigmaps.types.kubefed.io --all --all-namespaces" (their member objects go too unless orphaning deletion is enabled), or disable without --delete-crd to keep them\n',
    );
    const ftc = await host.resource(gvr.federatedTypeConfigs, ns).get('configmaps');
    expect((ftc['spec'] as { propagation: string }).propagation).toBe('Enabled');
  }, 180_000);
});
