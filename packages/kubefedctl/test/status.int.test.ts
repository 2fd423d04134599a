// `kubefedctl status` through the real CLI process against a kube-sim host: the table, -o json,
// --watch redrawing on a change and stopping on SIGINT, and clear errors for bad arguments. The
// federated object's status is written here as the sync controller writes it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { KubeObject } from '@kubefed/client';
import { ManagedProcess, sourceEntry } from '@kubefed/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const NS = 'fed-status';
const APP = 'shop';
const FEDERATED_CONFIG_MAPS = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' };
const mainTs = path.resolve(import.meta.dirname, '../src/main.ts');

let fed: SimFederation;
const global = (): string[] => ['--host-cluster-context', 'host', '--kubefed-namespace', NS];

async function writeStatus(name: string, status: Record<string, unknown>): Promise<void> {
  const objects = fed.client('host').resource(FEDERATED_CONFIG_MAPS, APP);
  const current = await objects.get(name);
  await objects.updateStatus({ ...current, status: { observedGeneration: current.metadata.generation, ...status } });
}

const condition = (status: 'True' | 'False', reason?: string): Record<string, unknown> => ({
  type: 'Propagation',
  status,
  ...(reason === undefined ? {} : { reason }),
  lastTransitionTime: '2026-11-24T10:00:00Z',
  lastUpdateTime: '2026-11-24T10:00:00Z',
});

beforeAll(async () => {
  fed = await SimFederation.start(['host']);
  await fed.controlPlane('host', NS);
  const enabled = await fed.cli(['enable', 'configmaps', ...global()]);
  expect(enabled.stderr).not.toContain('Error:');
  expect(enabled.code).toBe(0);
  const host = fed.client('host');
  await host.resource(gvr.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: APP } });
  const settings: KubeObject = {
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedConfigMap',
    metadata: { name: 'settings', namespace: APP },
    spec: { template: { data: { a: 'b' } }, placement: { clusters: [{ name: 'east' }, { name: 'west' }] } },
  };
  // The new CRD may need a moment before it is served.
  await vi.waitFor(() => host.resource(FEDERATED_CONFIG_MAPS, APP).create(settings), { timeout: 10_000, interval: 100 });
  await writeStatus('settings', {
    conditions: [condition('False', 'CheckClusters')],
    clusters: [{ name: 'east' }, { name: 'west', status: 'CreationFailed' }],
  });
}, 120_000);

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

describe('kubefedctl status', () => {
  it('prints each federated object with its Propagation condition and the status of every placed cluster', async () => {
    const r = await fed.cli(['status', '-n', APP, ...global()]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual(['KIND', 'NAME', 'PROPAGATION', 'CLUSTERS']);
    expect(lines[1]?.split(/\s{2,}/)).toEqual(['FederatedConfigMap', 'settings', 'False (CheckClusters)', 'east OK, west CreationFailed']);
  }, 60_000);

  it('prints machine-readable JSON for every namespace with -A -o json', async () => {
    const r = await fed.cli(['status', 'configmaps', '-A', '-o', 'json', ...global()]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { items: unknown[] };
    expect(out.items).toEqual([
      {
        kind: 'FederatedConfigMap',
        namespace: APP,
        name: 'settings',
        generation: 1,
        observedGeneration: 1,
        propagation: 'False',
        reason: 'CheckClusters',
        placement: 'clusters: east, west',
        clusters: [
          { name: 'east', status: 'OK' },
          { name: 'west', status: 'CreationFailed' },
        ],
      },
    ]);
  }, 60_000);

  it.each([
    [['status', 'widgets', '-n', APP], 'Error: no federated type matches "widgets"', 'enabled types: configmaps'],
    [
      ['status', 'configmaps', 'missing', '-n', APP],
      'Error: FederatedConfigMap "missing" not found in namespace "shop"',
      'kubefedctl status configmaps -A',
    ],
    [['status', '-n', APP, '-A'], 'give either -n <namespace> or -A, not both', ''],
  ])(
    'exits 1 naming the problem for %j',
    async (args, message, hint) => {
      const r = await fed.cli([...args, ...global()]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain(hint);
    },
    60_000,
  );

  it('redraws with --watch when the status changes and exits 0 on SIGINT', async () => {
    const watch = new ManagedProcess(
      'kubefedctl status --watch',
      [
        ...sourceEntry(mainTs),
        '--kubeconfig',
        fed.kubeconfig,
        'status',
        'configmaps',
        'settings',
        '-n',
        APP,
        '--watch',
        '--interval',
        '100ms',
        ...global(),
      ],
      {
        env: { ...process.env, HOME: fed.dir, KUBECONFIG: '' },
      },
    );
    try {
      await watch.waitForLine(/west CreationFailed/, { fromStart: true, timeoutMs: 30_000 });
      await writeStatus('settings', { conditions: [condition('True')], clusters: [{ name: 'east' }, { name: 'west' }] });
      await watch.waitForLine(/east OK, west OK/, { fromStart: true, timeoutMs: 30_000 });
      // Unchanged status is not printed again: exactly the first table and the redraw.
      expect(watch.lines.filter((l) => l.startsWith('KIND'))).toHaveLength(2);
      expect(await watch.stop('SIGINT')).toBe(0);
      expect(watch.lines.filter((l) => /error|warning/.test(l))).toEqual([]);
    } finally {
      await watch.kill();
    }
  }, 90_000);

  it('stops --watch quietly with exit 0 once the reader of its output is gone (status --watch | head -1)', async () => {
    const command = [process.execPath, ...sourceEntry(mainTs), '--kubeconfig', fed.kubeconfig, 'status', 'configmaps', 'settings']
      .concat(['-n', APP, '--watch', '--interval', '100ms', ...global()])
      .map((a) => `'${a}'`)
      .join(' ');
    const shell = spawn('bash', ['-c', `set -o pipefail; ${command} | head -1`], {
      cwd: path.resolve(import.meta.dirname, '../../..'),
      env: { ...process.env, HOME: fed.dir, KUBECONFIG: '' },
      // Its own process group, so that the finally below ends kubefedctl and head with it.
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    shell.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => shell.once('exit', (code) => resolve(code)));
    let done = false;
    void exited.then(() => (done = true));
    try {
      await vi.waitFor(() => expect(stdout).toMatch(/^KIND/), { timeout: 30_000, interval: 100 });
      // Each change makes the watch write a table; the first one after head has gone meets the closed pipe.
      let failed = false;
      await vi.waitFor(
        async () => {
          failed = !failed;
          await writeStatus('settings', {
            conditions: [condition(failed ? 'False' : 'True', failed ? 'CheckClusters' : undefined)],
            clusters: [{ name: 'east' }, { name: 'west', ...(failed ? { status: 'CreationFailed' } : {}) }],
          });
          expect(done).toBe(true);
        },
        { timeout: 30_000, interval: 500 },
      );
      expect(await exited).toBe(0);
      expect(stdout).toBe(`${stdout.split('\n')[0] ?? ''}\n`);
      expect(stderr).toBe('');
    } finally {
      if (!done && shell.pid !== undefined) process.kill(-shell.pid, 'SIGKILL');
    }
  }, 90_000);
});
