import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './api-error.js';
import type { TlsSettings } from './cluster-pool.js';
import type { ClusterConnection } from './http-transport.js';
import {
  type AuthProvider,
  credentialSource,
  type ExecConfig,
  type KubeconfigCluster,
  type KubeconfigUser,
} from './kubeconfig-credentials.js';

/** One context of a kubeconfig, as callers see it. */
export interface KubeconfigContext {
  name: string;
  cluster: string;
  user: string;
  /** The context's default namespace, if set. */
  namespace: string | undefined;
  /** Server URL of the context's cluster (undefined when the cluster entry is missing). */
  server: string | undefined;
}

/** Where the service-account files and API server of an in-cluster config are. */
export interface InClusterOptions {
  /** `KUBERNETES_SERVICE_HOST` (the caller reads the environment). */
  host: string;
  /** `KUBERNETES_SERVICE_PORT`. */
  port: string | number;
  /** Directory holding `token`, `ca.crt`, `namespace`; default `/var/run/secrets/kubernetes.io/serviceaccount`. */
  serviceAccountDir?: string;
}

/**
 * The kubeconfig files kubectl would read: the `KUBECONFIG` value split on the platform's path
 * delimiter (empty entries dropped), else `<home>/.kube/config`. The caller passes the
 * environment (library code does not read it). Pass the result to {@link Kubeconfig.fromFiles}.
 */
export function kubeconfigPaths(env: { KUBECONFIG?: string | undefined; home?: string | undefined }): string[] {
  const fromEnv = (env.KUBECONFIG ?? '').split(path.delimiter).filter((p) => p !== '');
  if (fromEnv.length > 0) return [...new Set(fromEnv)];
  return env.home === undefined || env.home === '' ? [] : [path.join(env.home, '.kube', 'config')];
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

interface KubeconfigContextEntry {
  name: string;
  cluster: string;
  user: string;
  namespace: string | undefined;
}

/** The entries of one or several kubeconfig files, the first of each name kept. */
interface Entries {
  clusters: Map<string, KubeconfigCluster>;
  users: Map<string, KubeconfigUser>;
  contexts: Map<string, KubeconfigContextEntry>;
  current: string | undefined;
}

/** One parsed file: its entries in file order and its `current-context`. */
interface ParsedKubeconfig {
  clusters: KubeconfigCluster[];
  users: KubeconfigUser[];
  contexts: KubeconfigContextEntry[];
  current: string | undefined;
}

type Fields = Record<string, unknown>;
const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string field, `undefined` when absent or empty; anything else but a string is refused. */
function text(obj: Fields, key: string, where: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`${where}.${key} must be a string`);
  return v;
}

/** The entries of list `key` (`clusters`, `users`, `contexts`), each a mapping with a `name`. */
function namedEntries(doc: Fields, key: string): { name: string; body: Fields | undefined; where: string }[] {
  const list = doc[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new Error(`${key} must be a list`);
  return list.map((entry: unknown, i) => {
    const where = `${key}[${i}]`;
    if (!isFields(entry)) throw new Error(`${where} must be a mapping`);
    const name = text(entry, 'name', where);
    if (name === undefined) throw new Error(`${where}.name is missing`);
    const inner = key.slice(0, -1);
    const body = entry[inner];
    if (body !== undefined && body !== null && !isFields(body)) throw new Error(`${where}.${inner} must be a mapping`);
    return { name, body: body ?? undefined, where: `${where}.${inner}` };
  });
}

/** A path of the file, resolved against the file's directory when relative (as kubectl does). */
const resolvedIn = (dir: string | undefined, file: string | undefined): string | undefined =>
  file === undefined || dir === undefined || path.isAbsolute(file) ? file : path.join(dir, file);

function parseCluster(name: string, body: Fields | undefined, where: string, dir: string | undefined): KubeconfigCluster {
  if (body === undefined) throw new Error(`${where} is missing`);
  const server = text(body, 'server', where);
  if (server === undefined) throw new Error(`${where}.server is missing`);
  const skip = body['insecure-skip-tls-verify'];
  if (skip !== undefined && skip !== null && typeof skip !== 'boolean')
    throw new Error(`${where}.insecure-skip-tls-verify must be true or false`);
  return {
    name,
    server: server.replace(/\/$/, ''),
    caFile: resolvedIn(dir, text(body, 'certificate-authority', where)),
    caData: text(body, 'certificate-authority-data', where),
    skipTLSVerify: skip === true,
    tlsServerName: text(body, 'tls-server-name', where),
    proxyUrl: text(body, 'proxy-url', where),
  };
}

function parseExec(body: Fields, where: string, dir: string | undefined): ExecConfig | undefined {
  const exec = body['exec'];
  if (exec === undefined || exec === null) return undefined;
  const at = `${where}.exec`;
  if (!isFields(exec)) throw new Error(`${at} must be a mapping`);
  const command = text(exec, 'command', at);
  if (command === undefined) throw new Error(`${at}.command is missing`);
  const args = exec['args'] ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) throw new Error(`${at}.args must be a list of strings`);
  const env = exec['env'] ?? [];
  if (!Array.isArray(env)) throw new Error(`${at}.env must be a list`);
  const vars = env.map((e: unknown, i) => {
    if (!isFields(e) || typeof e['name'] !== 'string' || typeof e['value'] !== 'string')
      throw new Error(`${at}.env[${i}] must have a string name and value`);
    return { name: e['name'], value: e['value'] };
  });
  return {
    // A command with a path separator is relative to the kubeconfig (kubectl's rule); a bare name is looked up in PATH.
    command: command.includes('/') ? (resolvedIn(dir, command) ?? command) : command,
    args: args as string[],
    env: vars,
    apiVersion: text(exec, 'apiVersion', at),
    provideClusterInfo: exec['provideClusterInfo'] === true,
  };
}

function parseUser(name: string, body: Fields | undefined, where: string, dir: string | undefined): KubeconfigUser {
  if (body === undefined) return { name };
  const provider = body['auth-provider'];
  if (provider !== undefined && provider !== null && (!isFields(provider) || typeof provider['name'] !== 'string'))
    throw new Error(`${where}.auth-provider must be a mapping with a name`);
  return {
    name,
    token: text(body, 'token', where),
    tokenFile: resolvedIn(dir, text(body, 'tokenFile', where) ?? text(body, 'token-file', where)),
    username: text(body, 'username', where),
    password: text(body, 'password', where),
    certFile: resolvedIn(dir, text(body, 'client-certificate', where)),
    certData: text(body, 'client-certificate-data', where),
    keyFile: resolvedIn(dir, text(body, 'client-key', where)),
    keyData: text(body, 'client-key-data', where),
    impersonate: text(body, 'as', where),
    exec: parseExec(body, where, dir),
    ...(isFields(provider) ? { authProvider: provider as unknown as AuthProvider } : {}),
  };
}

function parseContext(name: string, body: Fields | undefined, where: string): KubeconfigContextEntry {
  if (body === undefined) throw new Error(`${where} is missing`);
  const cluster = text(body, 'cluster', where);
  if (cluster === undefined) throw new Error(`${where}.cluster is missing`);
  return { name, cluster, user: text(body, 'user', where) ?? '', namespace: text(body, 'namespace', where) };
}

/** Parses one kubeconfig document; relative paths resolve against the directory of `file`. */
function load(yaml: string, origin: string, file?: string): ParsedKubeconfig {
  const dir = file === undefined ? undefined : path.dirname(file);
  try {
    const doc: unknown = parseYaml(yaml);
    if (doc === null || doc === undefined) return { clusters: [], users: [], contexts: [], current: undefined };
    if (!isFields(doc)) throw new Error('expected a mapping with clusters, users and contexts');
    return {
      clusters: namedEntries(doc, 'clusters').map((e) => parseCluster(e.name, e.body, e.where, dir)),
      users: namedEntries(doc, 'users').map((e) => parseUser(e.name, e.body, e.where, dir)),
      contexts: namedEntries(doc, 'contexts').map((e) => parseContext(e.name, e.body, e.where)),
      current: text(doc, 'current-context', 'kubeconfig'),
    };
  } catch (e) {
    throw new ConfigError(`kubeconfig ${origin} is invalid: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

function readFileOrThrow(file: string, what: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new ConfigError(`cannot read ${what} "${file}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * A parsed kubeconfig (one or several files merged kubectl-style: the first file that sets
 * `current-context` wins, and the first entry of each name wins). Each {@link connection} has
 * credentials of its own, so contexts never interfere.
 */
export class Kubeconfig {
  private constructor(private readonly entries: Entries) {}

  /** Parses kubeconfig YAML. Relative file paths in it resolve against `baseDir` (default: cwd). Throws {@link ConfigError}. */
  static fromString(yaml: string, options: { baseDir?: string } = {}): Kubeconfig {
    const kc = load(yaml, 'string', options.baseDir === undefined ? undefined : path.join(options.baseDir, 'kubeconfig'));
    return Kubeconfig.merge([kc]);
  }

  /** Reads one kubeconfig file. Throws {@link ConfigError} when missing or invalid. */
  static fromFile(file: string): Kubeconfig {
    return Kubeconfig.fromFiles([file]);
  }

  /** Reads and merges several files like kubectl does with `KUBECONFIG=a:b` (missing files are skipped unless all are). */
  static fromFiles(files: readonly string[]): Kubeconfig {
    const configs: ParsedKubeconfig[] = [];
    for (const f of files) {
      if (files.length > 1 && !fs.existsSync(f)) continue;
      configs.push(load(readFileOrThrow(f, 'kubeconfig').toString('utf8'), `"${f}"`, f));
    }
    if (configs.length === 0) throw new ConfigError(`none of the kubeconfig files exist: ${files.join(', ')}`);
    return Kubeconfig.merge(configs);
  }

  /** A config from the pod's service-account files (token re-read every minute, like client-go). */
  static inCluster(options: InClusterOptions): Kubeconfig {
    const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
    const tokenFile = path.join(dir, 'token');
    readFileOrThrow(tokenFile, 'service account token');
    const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
    const nsFile = path.join(dir, 'namespace');
    const namespace = fs.existsSync(nsFile) ? fs.readFileSync(nsFile, 'utf8').trim() : undefined;
    return Kubeconfig.merge([
      {
        clusters: [
          { name: 'in-cluster', server: `https://${host}:${options.port}`, caFile: path.join(dir, 'ca.crt'), skipTLSVerify: false },
        ],
        users: [{ name: 'in-cluster', tokenFile }],
        contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', namespace }],
        current: 'in-cluster',
      },
    ]);
  }

  private static merge(configs: ParsedKubeconfig[]): Kubeconfig {
    const entries: Entries = { clusters: new Map(), users: new Map(), contexts: new Map(), current: undefined };
    for (const kc of configs) {
      for (const c of kc.clusters) if (!entries.clusters.has(c.name)) entries.clusters.set(c.name, c);
      for (const u of kc.users) if (!entries.users.has(u.name)) entries.users.set(u.name, u);
      for (const x of kc.contexts) if (!entries.contexts.has(x.name)) entries.contexts.set(x.name, x);
      // kubectl takes the first non-empty current-context.
      if (entries.current === undefined && kc.current !== undefined) entries.current = kc.current;
    }
    return new Kubeconfig(entries);
  }

  /** The `current-context`, if any. */
  get currentContext(): string | undefined {
    return this.entries.current;
  }

  /** All contexts in file order. */
  contexts(): KubeconfigContext[] {
    return [...this.entries.contexts.values()].map((c) => ({
      name: c.name,
      cluster: c.cluster,
      user: c.user,
      namespace: c.namespace,
      server: this.entries.clusters.get(c.cluster)?.server,
    }));
  }

  /**
   * The connection of one context (default: the current context). The cluster name in error
   * messages is `clusterName`, default the context name. Throws {@link ConfigError} for an unknown
   * context, a context whose cluster or user is missing, or unreadable certificate files.
   */
  connection(options: { context?: string | undefined; clusterName?: string | undefined } = {}): ClusterConnection {
    const name = options.context ?? this.entries.current;
    if (name === undefined) throw new ConfigError('kubeconfig has no current-context and no context was given');
    const ctx = this.entries.contexts.get(name);
    if (ctx === undefined) throw new ConfigError(`kubeconfig has no context "${name}"`);
    const cluster = this.entries.clusters.get(ctx.cluster);
    if (cluster === undefined) throw new ConfigError(`kubeconfig context "${name}" refers to unknown cluster "${ctx.cluster}"`);
    const user = this.entries.users.get(ctx.user) ?? { name: ctx.user };
    return connectionFor(cluster, user, ctx.namespace, options.clusterName ?? name);
  }
}

function material(file: string | undefined, data: string | undefined, what: string): Buffer | undefined {
  if (file !== undefined && file !== '') return readFileOrThrow(file, what);
  if (data !== undefined && data !== '') return Buffer.from(data, 'base64');
  return undefined;
}

function connectionFor(
  cluster: KubeconfigCluster,
  user: KubeconfigUser,
  namespace: string | undefined,
  clusterName: string,
): ClusterConnection {
  const tls: TlsSettings = {};
  const ca = material(cluster.caFile, cluster.caData, `CA file of cluster "${cluster.name}"`);
  const cert = material(user.certFile, user.certData, `client certificate of user "${user.name}"`);
  const key = material(user.keyFile, user.keyData, `client key of user "${user.name}"`);
  if (ca !== undefined) tls.ca = ca;
  if (cert !== undefined) tls.cert = cert;
  if (key !== undefined) tls.key = key;
  if (cluster.skipTLSVerify === true) tls.insecureSkipVerify = true;
  if (cluster.tlsServerName !== undefined) tls.serverName = cluster.tlsServerName;
  return {
    name: clusterName,
    server: cluster.server,
    tls,
    proxyUrl: cluster.proxyUrl,
    namespace,
    authHeaders: credentialSource(cluster, user, clusterName),
  };
}
