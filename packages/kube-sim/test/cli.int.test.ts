import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import type { Json } from './support/conformance-target.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const cli = resolve(here, '../src/cli.ts');
const kubectlPath = '/usr/bin/kubectl';

// The kube-sim process itself: conformance.real.test.ts leaves this file out.
describe('kube-sim CLI', () => {
  let dir: string;
  let kubeconfig: string;
  let child: ChildProcess;
  let stdout = '';
  let exit: Promise<number | null>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kube-sim-cli-'));
    kubeconfig = join(dir, 'sim.kubeconfig');
    child = spawn(
      tsx,
      ['--conditions=@kubefed/source', cli, '--clusters', 'host,member1', '--kubeconfig', kubeconfig, '--regions', 'member1=eu-west-1'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    exit = new Promise((r) => child.on('exit', (code) => r(code)));
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    await vi.waitFor(() => expect(stdout.match(/^cluster \S+ ready at \S+$/gm)?.length).toBe(2), { timeout: 30_000, interval: 100 });
  });
  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('prints one ready line per cluster and writes a kubeconfig with a context each, current = first', async () => {
    expect(stdout).toMatch(/^cluster host ready at https:\/\/127\.0\.0\.1:\d+$/m);
    expect(stdout).toMatch(/^cluster member1 ready at https:\/\/127\.0\.0\.1:\d+$/m);
    const doc: Json = parse(await readFile(kubeconfig, 'utf8'));
    expect(doc['current-context']).toBe('host');
    expect((doc.contexts as Json[]).map((c) => c.name).sort()).toEqual(['host', 'member1']);
  });

  it.skipIf(!existsSync(kubectlPath))('serves each context to kubectl', async () => {
    for (const context of ['host', 'member1']) {
      const out = await new Promise<string>((res, rej) =>
        execFile(
          kubectlPath,
          ['--kubeconfig', kubeconfig, '--context', context, 'get', 'nodes', '-o', 'name'],
          { timeout: 30_000 },
          (err, so, se) => (err === null ? res(so) : rej(new Error(`${err.message}\n${se}`))),
        ),
      );
      expect(out.trim().split('\n')).toHaveLength(2);
      // --regions names member1's Nodes after its region; the host keeps region-<name>.
      expect(out).toContain(context === 'member1' ? 'node/eu-west-1-node-1' : 'node/region-host-node-1');
    }
  });

  it('exits 0 on SIGTERM', async () => {
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});

describe('kube-sim CLI flags', () => {
  it('exits 2 naming a --regions entry for an unknown cluster', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((res) => {
      execFile(
        tsx,
        [
          '--conditions=@kubefed/source',
          cli,
          '--clusters',
          'host',
          '--kubeconfig',
          join(tmpdir(), 'never-written.kubeconfig'),
          '--regions',
          'member9=eu',
        ],
        { cwd: root, timeout: 30_000 },
        (err, _so, se) => res({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stderr: se }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('kube-sim: --regions: "member9=eu" is not <cluster>=<region> for one of host');
  });
});
