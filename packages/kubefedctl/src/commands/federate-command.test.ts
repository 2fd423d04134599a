import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { run, type RunIo } from '../cli.js';

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = { stdout: '', stderr: '' };
  const io: RunIo = { stdout: (s) => void (r.stdout += s), stderr: (s) => void (r.stderr += s), env: { HOME: '/nonexistent-home' } };
  const code = await run(argv, io);
  return { code, ...r };
}

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubefedctl-federate-'));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('kubefedctl federate argument checks (before any cluster access)', () => {
  it.each([
    [['federate'], 'Error: TYPE-NAME is required'],
    [['federate', 'configmaps'], 'Error: RESOURCE-NAME is required'],
    [['federate', 'configmaps', 'x', '-o', 'json'], 'Error: Invalid value for --output: json'],
    [['federate', 'configmaps', 'x', '-o', 'yaml', '--enable-type'], "Error: Flag '--enable-type' cannot be used with '--output [yaml]'"],
    [['federate', 'namespace', 'demo', '--include-owned'], "Error: Flag '--include-owned' can only be used with '--contents'."],
    [['federate', 'configmaps', '-f', 'in.yaml'], "Error: Flag '--filename' does not take any args. Got args: [configmaps]"],
    [['federate', '-f', '/nonexistent/in.yaml'], 'Error: -f /nonexistent/in.yaml: cannot read the file'],
  ])('%j fails with exit 1: %s', async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });
});

describe('kubefedctl federate -f (offline)', () => {
  it('prints each resource of the file as its federated object, using --federated-group', async () => {
    const file = path.join(dir, 'in.yaml');
    fs.writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Namespace',
        'metadata: { name: demo, annotations: { owner: me } }',
        'spec: { finalizers: [kubernetes] }',
        '---',
        'apiVersion: v1',
        'kind: ServiceAccount',
        'metadata: { name: builder, namespace: demo }',
        'secrets: [{ name: builder-token }]',
        '',
      ].join('\n'),
    );
    const r = await cli(['federate', '-f', file, '--federated-group', 'fed.example.com']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning: Annotations defined for Namespace "demo" will not appear in the template of the federated resource: owner',
    );
    expect(r.stdout.split('\n').filter((l) => l === '---')).toHaveLength(2);
    expect(parseAllDocuments(r.stdout).map((d) => (Array.isArray(d) ? undefined : d.toJS()) as unknown)).toEqual([
      {
        apiVersion: 'fed.example.com/v1beta1',
        kind: 'FederatedNamespace',
        metadata: { name: 'demo', namespace: 'demo' },
        spec: { template: { spec: {} }, placement: { clusterSelector: { matchLabels: {} } } },
      },
      {
        apiVersion: 'fed.example.com/v1beta1',
        kind: 'FederatedServiceAccount',
        metadata: { name: 'builder', namespace: 'demo' },
        spec: { template: {}, placement: { clusterSelector: { matchLabels: {} } } },
      },
    ]);
  });
});
