import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const cli = resolve(here, 'cli.ts');

interface Started {
  child: ChildProcess;
  urls: Map<string, string>;
  stderr: () => string;
  exit: Promise<number | null>;
  /** Reads the ready lines printed so far; returns how many clusters are ready. */
  ready: () => number;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function run(args: string[]): Promise<Started> {
  const dir = await mkdtemp(join(tmpdir(), 'kube-sim-cli-capacity-'));
  dirs.push(dir);
  // Node itself rather than the tsx CLI, which would stand between the test and kube-sim's signal handlers.
  const child = spawn(
    process.execPath,
    ['--conditions=@kubefed/source', '--import', 'tsx', cli, '--http', '--kubeconfig', join(dir, 'kc'), ...args],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const urls = new Map<string, string>();
  const ready = (): number => {
    for (const m of stdout.matchAll(/^cluster (\S+) ready at (\S+)$/gm)) urls.set(m[1]!, m[2]!);
    return urls.size;
  };
  return { child, urls, stderr: () => stderr, exit, ready };
}

async function json(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: { 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('kube-sim CLI --pod-capacity', () => {
  it('limits scheduling per named cluster and leaves the others unlimited', async () => {
    const started = await run(['--clusters', 'host,member1', '--pod-capacity', 'member1=0']);
    await vi.waitFor(() => expect(started.ready()).toBe(2), { timeout: 30_000, interval: 100 });
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'pause' }] } },
      },
    };
    for (const url of started.urls.values())
      expect((await json(`${url}/apis/apps/v1/namespaces/default/deployments`, 'POST', deployment)).status).toBe(201);
    const phase = async (cluster: string): Promise<unknown> => {
      const list = await json(`${started.urls.get(cluster) ?? ''}/api/v1/namespaces/default/pods`);
      return (list.body['items'] as { status: { phase: string } }[]).map((p) => p.status.phase);
    };
    await vi.waitFor(
      async () => {
        expect(await phase('host')).toEqual(['Running']);
        expect(await phase('member1')).toEqual(['Pending']);
      },
      { timeout: 5000, interval: 50 },
    );
    started.child.kill('SIGTERM');
    expect(await started.exit).toBe(0);
  });

  it('refuses a capacity for a cluster it does not start, with exit code 2', async () => {
    const started = await run(['--clusters', 'host', '--pod-capacity', 'member9=1']);
    expect(await started.exit).toBe(2);
    expect(started.stderr()).toContain('no cluster named "member9"');
  });
});

describe('kube-sim CLI faults', () => {
  it('keeps running while its only cluster is unreachable and serves again after SIGUSR2', async () => {
    const started = await run(['--clusters', 'solo']);
    await vi.waitFor(() => expect(started.ready()).toBe(1), { timeout: 30_000, interval: 100 });
    const url = started.urls.get('solo') ?? '';
    expect((await json(`${url}/kube-sim/faults`, 'POST', { unreachable: true })).status).toBe(200);
    await vi.waitFor(() => expect(fetch(`${url}/version`)).rejects.toThrow(), { timeout: 10_000, interval: 100 });
    expect(started.child.exitCode).toBe(null);
    started.child.kill('SIGUSR2');
    await vi.waitFor(async () => expect((await json(`${url}/version`)).status).toBe(200), { timeout: 10_000, interval: 100 });
    started.child.kill('SIGTERM');
    expect(await started.exit).toBe(0);
  });
});
