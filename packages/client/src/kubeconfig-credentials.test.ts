import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from './api-error.js';
import { Kubeconfig } from './kubeconfig.js';

/** A kubeconfig with one context `c` on cluster `c` whose user is `user`. */
const withUser = (user: Record<string, unknown>, cluster: Record<string, unknown> = {}): string =>
  JSON.stringify({
    'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  });

const headersOf = (yaml: string, baseDir?: string): Promise<Record<string, string>> =>
  Kubeconfig.fromString(yaml, baseDir === undefined ? {} : { baseDir })
    .connection()
    .authHeaders();

/** An exec plugin: node running `script`, which may read the plugin's environment. */
const nodePlugin = (script: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', script], ...extra },
});
const printCredential = (status: Record<string, unknown>): string =>
  `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: ${JSON.stringify(status)} }))`;

describe('kubeconfig credentials', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const tmpdir = (): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kubefed-credentials-'));
    dirs.push(d);
    return d;
  };

  it('sends a static token, Basic credentials and the user to impersonate', async () => {
    expect(await headersOf(withUser({ token: 't0k', as: 'jane' }))).toEqual({ Authorization: 'Bearer t0k', 'Impersonate-User': 'jane' });
    expect(await headersOf(withUser({ username: 'admin', password: 'pw' }))).toEqual({
      Authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}`,
    });
    expect(await headersOf(withUser({}))).toEqual({});
  });

  it('reads a token file relative to the kubeconfig, without its trailing newline', async () => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'token'), 'from-file\n');
    expect(await headersOf(withUser({ tokenFile: 'token' }), dir)).toEqual({ Authorization: 'Bearer from-file' });
    await expect(headersOf(withUser({ tokenFile: 'missing' }), dir)).rejects.toThrow(
      /cannot obtain credentials of user "u" for cluster "c": cannot read token file ".*missing"/,
    );
  });

  it('runs an exec plugin once while its token is valid, with KUBERNETES_EXEC_INFO and its env', async () => {
    const dir = tmpdir();
    const runs = path.join(dir, 'runs');
    const script = [
      `require('fs').appendFileSync(${JSON.stringify(runs)}, 'x');`,
      `const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);`,
      `process.stdout.write(JSON.stringify({ status: { token: info.kind + '-' + info.spec.cluster.server + '-' + process.env.EXTRA, expirationTimestamp: '2999-01-01T00:00:00Z' } }));`,
    ].join('\n');
    const connection = Kubeconfig.fromString(
      withUser(nodePlugin(script, { env: [{ name: 'EXTRA', value: 'yes' }], provideClusterInfo: true })),
    ).connection();
    const [a, b] = await Promise.all([connection.authHeaders(), connection.authHeaders()]);
    expect(a).toEqual({ Authorization: 'Bearer ExecCredential-https://127.0.0.1:6443-yes' });
    expect(b).toEqual(a);
    expect(await connection.authHeaders()).toEqual(a);
    expect(fs.readFileSync(runs, 'utf8')).toBe('x');
  });

  it('runs an exec plugin again once its token has expired', async () => {
    const dir = tmpdir();
    const runs = path.join(dir, 'runs');
    const script = `require('fs').appendFileSync(${JSON.stringify(runs)}, 'x'); ${printCredential({ token: 'short', expirationTimestamp: '2000-01-01T00:00:00Z' })}`;
    const connection = Kubeconfig.fromString(withUser(nodePlugin(script))).connection();
    await connection.authHeaders();
    await connection.authHeaders();
    expect(fs.readFileSync(runs, 'utf8')).toBe('xx');
  });

  it('resolves a plugin command with a path separator against the kubeconfig directory', async () => {
    const dir = tmpdir();
    const plugin = path.join(dir, 'bin', 'plugin');
    fs.mkdirSync(path.dirname(plugin));
    fs.writeFileSync(plugin, `#!${process.execPath}\n${printCredential({ token: 'relative' })}\n`, { mode: 0o755 });
    expect(await headersOf(withUser({ exec: { command: './bin/plugin' } }), dir)).toEqual({ Authorization: 'Bearer relative' });
  });

  it.each([
    ['exits non-zero', `process.stderr.write('denied: ' + 'y'.repeat(5000)); process.exit(3)`, /exited with 3: denied: y+$/],
    ['prints no JSON', `process.stdout.write('hello')`, /printed no ExecCredential JSON/],
    ['prints no token', printCredential({}), /printed no status\.token/],
    [
      'gives a client certificate',
      printCredential({ clientCertificateData: 'CERT' }),
      /gave a client certificate; only tokens are supported/,
    ],
  ])('refuses a plugin that %s, naming the user and cluster', async (_what, script, message) => {
    const err = await headersOf(withUser(nodePlugin(script))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^cannot obtain credentials of user "u" for cluster "c": credential plugin /);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message.length).toBeLessThan(500);
  });

  it('refuses a plugin that cannot be run', async () => {
    await expect(headersOf(withUser({ exec: { command: 'no-such-plugin-kubefed' } }))).rejects.toThrow(
      /credential plugin "no-such-plugin-kubefed" could not be run: .*ENOENT/,
    );
  });

  it('sends the id-token of an oidc auth-provider', async () => {
    const part = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const idToken = `${part({ alg: 'none' })}.${part({ exp: 4_102_444_800, iss: 'https://issuer.example' })}.sig`;
    const user = {
      'auth-provider': {
        name: 'oidc',
        config: { 'id-token': idToken, 'client-id': 'kubefed', 'idp-issuer-url': 'https://issuer.example' },
      },
    };
    expect(await headersOf(withUser(user))).toEqual({ Authorization: `Bearer ${idToken}` });
  });
});

describe('kubeconfig parsing', () => {
  it.each([
    ['a list that is not a list', { clusters: { name: 'x' } }, 'clusters must be a list'],
    ['an entry without a name', { clusters: [{ cluster: { server: 'https://a' } }] }, 'clusters[0].name is missing'],
    ['a cluster without a server', { clusters: [{ name: 'x', cluster: {} }] }, 'clusters[0].cluster.server is missing'],
    [
      'a server that is not a string',
      { clusters: [{ name: 'x', cluster: { server: 443 } }] },
      'clusters[0].cluster.server must be a string',
    ],
    [
      'insecure-skip-tls-verify that is not a boolean',
      { clusters: [{ name: 'x', cluster: { server: 'https://a', 'insecure-skip-tls-verify': 'yes' } }] },
      'clusters[0].cluster.insecure-skip-tls-verify must be true or false',
    ],
    ['a context without a cluster', { contexts: [{ name: 'c', context: { user: 'u' } }] }, 'contexts[0].context.cluster is missing'],
    ['an exec without a command', { users: [{ name: 'u', user: { exec: { args: [] } } }] }, 'users[0].user.exec.command is missing'],
    [
      'exec env entries without a value',
      { users: [{ name: 'u', user: { exec: { command: 'x', env: [{ name: 'A' }] } } }] },
      'users[0].user.exec.env[0] must have a string name and value',
    ],
  ])('refuses %s, naming the field', (_what, doc, message) => {
    expect(() => Kubeconfig.fromString(JSON.stringify(doc))).toThrow(ConfigError);
    expect(() => Kubeconfig.fromString(JSON.stringify(doc))).toThrow(`kubeconfig string is invalid: ${message}`);
  });

  it('refuses YAML that does not parse or is not a mapping', () => {
    expect(() => Kubeconfig.fromString('clusters: [')).toThrow(/^kubeconfig string is invalid: /);
    expect(() => Kubeconfig.fromString('- a\n- b\n')).toThrow(
      'kubeconfig string is invalid: expected a mapping with clusters, users and contexts',
    );
  });

  it('reads an empty file as a kubeconfig without contexts', () => {
    expect(Kubeconfig.fromString('').contexts()).toEqual([]);
  });

  it('drops the trailing slash of a server URL', () => {
    expect(Kubeconfig.fromString(withUser({}, { server: 'https://127.0.0.1:6443/' })).connection().server).toBe('https://127.0.0.1:6443');
  });
});
