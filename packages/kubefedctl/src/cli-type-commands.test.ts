import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './cli.js';

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = { stdout: '', stderr: '' };
  const code = await run(argv, {
    stdout: (s) => void (r.stdout += s),
    stderr: (s) => void (r.stderr += s),
    env: { HOME: '/nonexistent-home' },
  });
  return { code, ...r };
}

let dir: string;
let rspFile: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubefedctl-types-'));
  rspFile = path.join(dir, 'rsp.yaml');
  fs.writeFileSync(
    rspFile,
    'apiVersion: scheduling.kubefed.io/v1alpha1\nkind: ReplicaSchedulingPreference\nmetadata: {name: web, namespace: demo}\nspec: {targetKind: FederatedDeployment, totalReplicas: 9}\n',
  );
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('argument checks of enable, disable, orphaning-deletion and plan (no cluster contacted)', () => {
  it.each([
    [['enable'], 'Error: enable: a type is required'],
    [['enable', 'deployments.apps', '--default-types'], 'Error: enable: give either a type or --default-types, not both'],
    [['enable', 'deployments.apps', '-o', 'json'], "argument 'json' is invalid"],
    [['disable', 'deployments.apps', '--version', 'v1'], 'Error: --version flag valid only with --delete-crd'],
    [['disable', 'deployments.apps', '--federated-group', 'x.io'], 'Error: --federated-group flag valid only with --delete-crd'],
    [['disable', 'deployments.apps', '--delete-crd', '--keep-ftc'], 'Error: give either --keep-ftc or --delete-crd, not both'],
    [['enable', '-f', '/nonexistent/directive.yaml'], 'Error: -f /nonexistent/directive.yaml: cannot read the file'],
    [['enable', 'deployments.apps', '-f', 'directive.yaml'], 'Error: enable -f: the type and its versions come from the file'],
    [['enable', '-f', 'directive.yaml', '--federated-group', 'x.io'], 'Error: enable -f: the type and its versions come from the file'],
    [['orphaning-deletion', 'enable', 'federateddeployments'], "missing required argument 'name'"],
    [['orphaning-deletion', 'pause', 'federateddeployments', 'web'], "unknown command 'pause'"],
    [['plan'], 'Error: plan: an RSP name (live) or -f <file> (offline) is required'],
    [['plan', 'web', '--clusters', 'a'], 'Error: --clusters is only valid with -f (offline planning)'],
    [['plan', '-f', '/nonexistent/rsp.yaml', '--clusters', 'a'], 'Error: -f /nonexistent/rsp.yaml: cannot read the file'],
  ])('kubefedctl %j fails with exit 1', async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });

  it('requires --clusters and valid pairs for an offline plan', async () => {
    const noClusters = await cli(['plan', '-f', rspFile]);
    expect(noClusters.code).toBe(1);
    expect(noClusters.stderr).toContain('--clusters is required');
    const badPair = await cli(['plan', '-f', rspFile, '--clusters', 'a,b', '--current', 'a3']);
    expect(badPair.code).toBe(1);
    expect(badPair.stderr).toContain('Error: --current: "a3" is not <cluster>=<integer>');
  });

  it('plans offline with the RSP namespace/name as tie-break key by default', async () => {
    const r = await cli(['plan', '-f', rspFile, '--clusters', 'a,b', '--current', 'a=2', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { key: string; placed: number; plan: Record<string, number> };
    expect(out.key).toBe('demo/web');
    expect(out.placed).toBe(9);
    expect(Object.keys(out.plan)).toEqual(['a', 'b']);
  });

  it('lists the new commands in the help', async () => {
    const r = await cli(['--help']);
    for (const c of ['enable', 'disable', 'orphaning-deletion', 'plan']) expect(r.stdout).toContain(c);
  });
});
