import fs from 'node:fs';
import type https from 'node:https';
import path from 'node:path';
import { type Cluster, type Context, KubeConfig, type User } from '@kubernetes/client-node';
import { ConfigError } from './api-error.js';
import type { TlsSettings } from './cluster-pool.js';
import type { ClusterConnection } from './http-transport.js';

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

interface Entries {
  clusters: Map<string, Cluster>;
  users: Map<string, User>;
  contexts: Map<string, Context>;
  current: string | undefined;
}

function load(yaml: string, origin: string, file?: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromString(yaml);
    if (file !== undefined) kc.makePathsAbsolute(path.dirname(file));
  } catch (e) {
    throw new ConfigError(`kubeconfig ${origin} is invalid: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return kc;
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
 * `current-context` wins, and the first entry of each name wins). Each {@link connection} gets a
 * KubeConfig of its own holding only that context, so contexts never interfere.
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
    const configs: KubeConfig[] = [];
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
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'in-cluster', server: `https://${host}:${options.port}`, caFile: path.join(dir, 'ca.crt'), skipTLSVerify: false }],
      users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile } } }],
      contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', ...(namespace === undefined ? {} : { namespace }) }],
      currentContext: 'in-cluster',
    });
    return Kubeconfig.merge([kc]);
  }

  private static merge(configs: KubeConfig[]): Kubeconfig {
    const entries: Entries = { clusters: new Map(), users: new Map(), contexts: new Map(), current: undefined };
    for (const kc of configs) {
      for (const c of kc.getClusters()) if (!entries.clusters.has(c.name)) entries.clusters.set(c.name, c);
      for (const u of kc.getUsers()) if (!entries.users.has(u.name)) entries.users.set(u.name, u);
      for (const x of kc.getContexts()) if (!entries.contexts.has(x.name)) entries.contexts.set(x.name, x);
      // client-node takes the last file's current-context; kubectl (and we) the first non-empty one.
      const cur = kc.getCurrentContext() as string | undefined;
      if (entries.current === undefined && cur !== undefined && cur !== '') entries.current = cur;
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
    if (cluster.server === '' || (cluster.server as string | undefined) === undefined) {
      throw new ConfigError(`kubeconfig cluster "${cluster.name}" has no server`);
    }
    return connectionFor(cluster, user, ctx, options.clusterName ?? name);
  }
}

function material(file: string | undefined, data: string | undefined, what: string): Buffer | undefined {
  if (file !== undefined && file !== '') return readFileOrThrow(file, what);
  if (data !== undefined && data !== '') return Buffer.from(data, 'base64');
  return undefined;
}

function connectionFor(cluster: Cluster, user: User, ctx: Context, clusterName: string): ClusterConnection {
  const plainHttp = cluster.server.startsWith('http:');
  // client-node refuses http:// servers unless skipTLSVerify is set; TLS does not apply to them anyway.
  const kcCluster: Cluster = plainHttp ? { ...cluster, skipTLSVerify: true } : cluster;
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [kcCluster], users: [user], contexts: [{ ...ctx, name: 'ctx' }], currentContext: 'ctx' });

  const tls: TlsSettings = {};
  const ca = material(cluster.caFile, cluster.caData, `CA file of cluster "${cluster.name}"`);
  const cert = material(user.certFile, user.certData, `client certificate of user "${user.name}"`);
  const key = material(user.keyFile, user.keyData, `client key of user "${user.name}"`);
  if (ca !== undefined) tls.ca = ca;
  if (cert !== undefined) tls.cert = cert;
  if (key !== undefined) tls.key = key;
  if (cluster.skipTLSVerify) tls.insecureSkipVerify = true;
  if (cluster.tlsServerName !== undefined && cluster.tlsServerName !== '') tls.serverName = cluster.tlsServerName;

  // Static credentials are computed once; exec plugins, auth providers and token files refresh per request.
  const dynamic = user.exec !== undefined || user.authProvider !== undefined;
  let cached: Record<string, string> | undefined;
  const authHeaders = async (): Promise<Record<string, string>> => {
    if (cached !== undefined) return cached;
    const opts: https.RequestOptions = {};
    try {
      await kc.applyToHTTPSOptions(opts);
    } catch (e) {
      throw new ConfigError(
        `cannot obtain credentials of user "${user.name}" for cluster "${clusterName}": ${e instanceof Error ? e.message : String(e)}`,
        {
          cause: e,
        },
      );
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (typeof v === 'string' || typeof v === 'number') headers[k] = String(v);
    }
    if (typeof opts.auth === 'string') headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    if (!dynamic) cached = headers;
    return headers;
  };

  return {
    name: clusterName,
    server: cluster.server,
    tls,
    proxyUrl: cluster.proxyUrl,
    namespace: ctx.namespace,
    authHeaders,
  };
}
