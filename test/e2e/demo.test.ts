// README command one: `npm run demo`. Runs the root package.json's demo script as a process (the
// same command line npm runs), waits until it says the federation converged and keeps running,
// checks what it printed and that kubectl reaches the clusters through the kubeconfig it wrote,
// then stops it with SIGINT (Ctrl-C) and checks that every process it started is gone.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Kubeconfig } from '@kubefed/client';
import { ManagedProcess } from '@kubefed/testing';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-e2e-'));
const kubeconfigPath = path.join(dir, 'demo.kubeconfig');

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The demo script of the root package.json as argv (`node --conditions=... --import tsx packages/demo/src/main.ts`). */
function demoCommand(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const script = pkg.scripts['demo'] ?? '';
  expect(script).toMatch(/^node /);
  return script.split(' ').slice(1);
}

/** True while something accepts TCP connections at the URL's host:port. */
async function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe('npm run demo', () => {
  it('starts the federation, prints where everything landed, keeps running, and stops every process on Ctrl-C', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env['KUBECONFIG'];
    const demo = new ManagedProcess('npm run demo', [...demoCommand(), '--kubeconfig', kubeconfigPath, '--timeout', '4m'], { env });
    try {
      await demo.waitForLine(/Press Ctrl-C/, { fromStart: true, timeoutMs: 280_000 });
      const stdout = `${demo.lines.join('\n')}\n`;
      expect(stdout).toContain('everything has converged');
      // kubefedctl status: every sample object propagated.
      const status = stdout.slice(stdout.indexOf('$ kubefedctl status -n demo'));
      for (const name of ['FederatedNamespace', 'FederatedConfigMap', 'FederatedDeployment'])
        expect(status).toMatch(new RegExp(`${name}\\s+\\S+\\s+True\\s`));
      // The RSP's 6 replicas: 4 in member1 and 2 in member2 (weights 2:1), none in member3 (its region is not selected).
      const replicas = stdout.slice(stdout.indexOf('Replicas of demo/web'));
      expect(replicas).toMatch(/member1\s+us-east-1\s+4\s+4\s+4\s+nginx:1\.27\n/);
      expect(replicas).toMatch(/member2\s+eu-west-1\s+2\s+2\s+2\s+nginx:1\.27-alpine\n/);
      expect(replicas).toMatch(/member3\s+ap-southeast-1\s+0\s+0\s+0\s+-\n/);

      // The kubeconfig it wrote works for kubectl: the three members are joined and Ready.
      const { stdout: clusters } = await run(
        'kubectl',
        [
          '--kubeconfig',
          kubeconfigPath,
          '--context',
          'host',
          'get',
          'kubefedclusters',
          '-n',
          'kube-federation-system',
          '-o',
          'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}',
        ],
        { env },
      );
      expect(clusters.trim().split(' ').sort()).toEqual(['member1=True', 'member2=True', 'member3=True']);
      const servers = ['host', 'member1'].map((context) => Kubeconfig.fromFile(kubeconfigPath).connection({ context }).server);
      for (const server of servers) expect(await answers(server)).toBe(true);

      expect(await demo.stop('SIGINT')).toBe(0);
      expect(demo.lines.join('\n')).toContain('stopping every process the demo started');
      for (const server of servers) expect(await answers(server)).toBe(false);
    } finally {
      await demo.kill();
    }
  }, 300_000);
});
