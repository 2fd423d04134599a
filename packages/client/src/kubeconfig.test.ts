import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from './api-error.js';
import { Kubeconfig, kubeconfigPaths } from './kubeconfig.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const yaml = `
apiVersion: v1
kind: Config
current-context: host
clusters:
- name: host
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: ${b64('HOST-CA')}
- name: member1
  cluster:
    server: http://127.0.0.1:8080
- name: member2
  cluster:
    server: https://member2.example:443
    insecure-skip-tls-verify: true
    tls-server-name: kubernetes
users:
- name: host-admin
  user:
    token: host-token
- name: member1-admin
  user:
    username: admin
    password: secret
- name: member2-admin
  user:
    client-certificate-data: ${b64('CERT')}
    client-key-data: ${b64('KEY')}
contexts:
- name: host
  context: { cluster: host, user: host-admin, namespace: kube-federation-system }
- name: member1
  context: { cluster: member1, user: member1-admin }
- name: member2
  context: { cluster: member2, user: member2-admin }
- name: broken
  context: { cluster: nowhere, user: host-admin }
`;

describe('Kubeconfig', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const tmpdir = (): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kubefed-client-'));
    dirs.push(d);
    return d;
  };

  it('lists every context of a string with its cluster server and namespace', () => {
    const kc = Kubeconfig.fromString(yaml);
    expect(kc.currentContext).toBe('host');
    expect(kc.contexts().map((c) => [c.name, c.server, c.namespace])).toEqual([
      ['host', 'https://127.0.0.1:6443', 'kube-federation-system'],
      ['member1', 'http://127.0.0.1:8080', undefined],
      ['member2', 'https://member2.example:443', undefined],
      ['broken', undefined, undefined],
    ]);
  });

  it('builds the current context connection with its CA and bearer token', async () => {
    const conn = Kubeconfig.fromString(yaml).connection();
    expect(conn.name).toBe('host');
    expect(conn.server).toBe('https://127.0.0.1:6443');
    expect(conn.namespace).toBe('kube-federation-system');
    expect(conn.tls).toEqual({ ca: Buffer.from('HOST-CA') });
    expect(await conn.authHeaders()).toEqual({ Authorization: 'Bearer host-token' });
  });

  it('builds a named context independently of the current one', async () => {
    const kc = Kubeconfig.fromString(yaml);
    const m1 = kc.connection({ context: 'member1', clusterName: 'cluster-one' });
    expect(m1.name).toBe('cluster-one');
    expect(m1.server).toBe('http://127.0.0.1:8080');
    expect(await m1.authHeaders()).toEqual({ Authorization: `Basic ${b64('admin:secret')}` });
    const m2 = kc.connection({ context: 'member2' });
    expect(m2.tls).toEqual({ cert: Buffer.from('CERT'), key: Buffer.from('KEY'), insecureSkipVerify: true, serverName: 'kubernetes' });
    expect(await m2.authHeaders()).toEqual({});
  });

  it.each([
    ['an unknown context', { context: 'nope' }, 'kubeconfig has no context "nope"'],
    ['a context with an unknown cluster', { context: 'broken' }, 'refers to unknown cluster "nowhere"'],
  ])('refuses %s', (_t, opts, message) => {
    const kc = Kubeconfig.fromString(yaml);
    expect(() => kc.connection(opts)).toThrow(ConfigError);
    expect(() => kc.connection(opts)).toThrow(message);
  });

  it('rejects YAML that is not a kubeconfig', () => {
    expect(() => Kubeconfig.fromString('clusters: [ { name: x } ]')).toThrow(ConfigError);
  });

  it('merges files like kubectl: the first current-context and the first entry of a name win', () => {
    const dir = tmpdir();
    const a = path.join(dir, 'a.yaml');
    const b = path.join(dir, 'b.yaml');
    fs.writeFileSync(a, yaml);
    fs.writeFileSync(
      b,
      `current-context: other
clusters: [{ name: host, cluster: { server: 'https://shadowed:1' } }, { name: other, cluster: { server: 'https://other:1' } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: other, context: { cluster: other, user: u } }]
`,
    );
    const kc = Kubeconfig.fromFiles([a, path.join(dir, 'missing.yaml'), b]);
    expect(kc.currentContext).toBe('host');
    expect(kc.connection().server).toBe('https://127.0.0.1:6443');
    expect(kc.connection({ context: 'other' }).server).toBe('https://other:1');
  });

  it('resolves certificate files relative to the kubeconfig file', () => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'ca.crt'), 'FILE-CA');
    const file = path.join(dir, 'config');
    fs.writeFileSync(
      file,
      `current-context: c
clusters: [{ name: c, cluster: { server: 'https://h:1', certificate-authority: ca.crt } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: c, context: { cluster: c, user: u } }]
`,
    );
    expect(Kubeconfig.fromFile(file).connection().tls.ca).toEqual(Buffer.from('FILE-CA'));
  });

  it('reads a missing kubeconfig file as a ConfigError', () => {
    expect(() => Kubeconfig.fromFile('/nonexistent/kubeconfig')).toThrow(ConfigError);
  });

  it('builds an in-cluster config from the service account files', async () => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'token'), 'sa-token');
    fs.writeFileSync(path.join(dir, 'ca.crt'), 'SA-CA');
    fs.writeFileSync(path.join(dir, 'namespace'), 'kube-federation-system');
    const conn = Kubeconfig.inCluster({ host: '10.96.0.1', port: 443, serviceAccountDir: dir }).connection();
    expect(conn.server).toBe('https://10.96.0.1:443');
    expect(conn.namespace).toBe('kube-federation-system');
    expect(conn.tls.ca).toEqual(Buffer.from('SA-CA'));
    expect(await conn.authHeaders()).toEqual({ Authorization: 'Bearer sa-token' });
  });
});

describe('kubeconfigPaths', () => {
  it.each<[string | undefined, string | undefined, string[]]>([
    [`/a${path.delimiter}/b${path.delimiter}${path.delimiter}/a`, '/home/u', ['/a', '/b']],
    ['', '/home/u', ['/home/u/.kube/config']],
    [undefined, '/home/u', ['/home/u/.kube/config']],
    [undefined, undefined, []],
  ])('reads KUBECONFIG=%j with home %j as %j', (KUBECONFIG, home, expected) => {
    expect(kubeconfigPaths({ KUBECONFIG, home })).toEqual(expected);
  });
});
