import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRedisConnection } from '@kubefed/queue';
import { startRedis, type RedisHandle } from '@kubefed/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

let redis: RedisHandle;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  // A private server: the test adds an ACL user to it.
  redis = await startRedis({ forcePrivate: true });
  const admin = createRedisConnection(redis.url, { role: 'producer' });
  try {
    await admin.call('ACL', 'SETUSER', 'op', 'on', '>right-password', '~*', '&*', '+@all');
  } finally {
    admin.disconnect();
  }
  dir = await mkdtemp(join(tmpdir(), 'kubefed-cm-redis-'));
  kubeconfig = join(dir, 'kubeconfig');
  const yaml = [
    'apiVersion: v1',
    'kind: Config',
    'current-context: c',
    'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
    'users: [{name: u, user: {token: t}}]',
    'contexts: [{name: c, context: {cluster: c, user: u}}]',
    '',
  ];
  await writeFile(kubeconfig, yaml.join('\n'), { mode: 0o600 });
});

afterAll(async () => {
  await redis?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Runs the controller manager with `redisUrl` until it exits (at most 30 s); its exit code and JSON log lines. */
async function runWithRedis(redisUrl: string): Promise<{ code: number | null; lines: Record<string, unknown>[] }> {
  const args = ['--kubeconfig', kubeconfig, '--redis-url', redisUrl, '--metrics-addr', '127.0.0.1:0', '--health-addr', '127.0.0.1:0'];
  const child = spawn(
    process.execPath,
    ['--conditions=@kubefed/source', '--import', 'tsx', 'packages/controller-manager/src/main.ts', ...args],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, KUBECONFIG: '' },
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  const lines = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, lines };
}

const fatalMessage = (lines: Record<string, unknown>[]): string | undefined =>
  (lines.find((l) => l['msg'] === 'kubefed-controller-manager failed') as { err?: { message?: string } } | undefined)?.err?.message;

describe('kubefed-controller-manager with a Redis it cannot use', () => {
  it('exits 1 naming the URL, WRONGPASS and what to check when the password is wrong, without printing the password', async () => {
    const url = redis.url.replace('redis://', 'redis://op:wrong-password@');
    const { code, lines } = await runWithRedis(url);
    expect(code).toBe(1);
    const message = fatalMessage(lines);
    expect(message).toContain(`Redis at ${redis.url.replace('redis://', 'redis://op:***@')} (--redis-url) is unreachable: WRONGPASS`);
    expect(message).toContain('(check the user name and password of --redis-url, and the ACL of that user)');
    expect(message?.split('WRONGPASS')).toHaveLength(2);
    expect(JSON.stringify(lines)).not.toContain('wrong-password');
  });

  it('exits 1 naming the URL and the TLS failure when a rediss:// URL points at a port without TLS', async () => {
    const url = redis.url.replace('redis://', 'rediss://');
    const { code, lines } = await runWithRedis(url);
    expect(code).toBe(1);
    const message = fatalMessage(lines);
    expect(message).toMatch(new RegExp(`^Redis at ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(--redis-url\\) is unreachable: .+`));
    expect(message).toContain('(TLS: a rediss:// URL needs a TLS port of Redis');
    expect(message).not.toContain('did not answer PING');
  });
});
