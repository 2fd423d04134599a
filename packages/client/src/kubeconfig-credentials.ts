import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type https from 'node:https';
import { ConfigError } from './api-error.js';

/** A kubeconfig `clusters[].cluster`, file paths absolute. */
export interface KubeconfigCluster {
  name: string;
  server: string;
  caFile?: string | undefined;
  caData?: string | undefined;
  skipTLSVerify?: boolean | undefined;
  tlsServerName?: string | undefined;
  proxyUrl?: string | undefined;
}

/** A kubeconfig `users[].user.exec`: a client-go credential plugin. */
export interface ExecConfig {
  command: string;
  args: readonly string[];
  env: readonly { name: string; value: string }[];
  apiVersion?: string | undefined;
  provideClusterInfo?: boolean | undefined;
}

/** A kubeconfig `users[].user.auth-provider` (oidc, and the azure and gcp providers kubectl dropped). */
export interface AuthProvider {
  name: string;
  config?: Record<string, string>;
}

/** A kubeconfig `users[].user`, file paths absolute. */
export interface KubeconfigUser {
  name: string;
  token?: string | undefined;
  /** Re-read every minute, as client-go does. */
  tokenFile?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  certFile?: string | undefined;
  certData?: string | undefined;
  keyFile?: string | undefined;
  keyData?: string | undefined;
  /** `as`: the user to impersonate. */
  impersonate?: string | undefined;
  exec?: ExecConfig | undefined;
  authProvider?: AuthProvider | undefined;
}

/** How long a token file's content is used before it is read again (client-go's cached token source). */
const TOKEN_FILE_REREAD_MS = 60_000;
/** At most this much of a credential plugin's standard error is quoted in an error. */
const MAX_QUOTED_STDERR = 300;

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** What a credential plugin printed (client.authentication.k8s.io ExecCredential), the fields used. */
interface ExecCredentialStatus {
  token?: unknown;
  expirationTimestamp?: unknown;
  clientCertificateData?: unknown;
}

/**
 * The request headers of `user` against `cluster`: `Authorization` from, in this order, the
 * user's static `token`, its `tokenFile` (read again every minute), its exec credential plugin
 * (its token kept until its `expirationTimestamp`, for the process's life without one) or its
 * auth-provider, else `username` / `password` (Basic); `Impersonate-User` from `as`. Resolves to
 * the same headers while they stay valid; rejects with {@link ConfigError} naming the user and
 * `clusterName` when a credential cannot be had.
 */
export function credentialSource(
  cluster: KubeconfigCluster,
  user: KubeconfigUser,
  clusterName: string,
): () => Promise<Record<string, string>> {
  const fail = (detail: string, cause?: unknown): ConfigError =>
    new ConfigError(`cannot obtain credentials of user "${user.name}" for cluster "${clusterName}": ${detail}`, { cause });
  const fixed: Record<string, string> = user.impersonate === undefined ? {} : { 'Impersonate-User': user.impersonate };
  const bearer = (token: string): Record<string, string> => ({ ...fixed, Authorization: `Bearer ${token.trim()}` });

  const token = user.token;
  if (token !== undefined) return () => Promise.resolve(bearer(token));
  const tokenFile = user.tokenFile;
  if (tokenFile !== undefined) {
    let read: { headers: Record<string, string>; at: number } | undefined;
    return () => {
      const now = Date.now();
      if (read === undefined || now - read.at >= TOKEN_FILE_REREAD_MS) {
        try {
          read = { headers: bearer(fs.readFileSync(tokenFile, 'utf8')), at: now };
        } catch (e) {
          return Promise.reject(fail(`cannot read token file "${tokenFile}": ${messageOf(e)}`, e));
        }
      }
      return Promise.resolve(read.headers);
    };
  }
  const exec = user.exec;
  if (exec !== undefined) {
    let held: { headers: Record<string, string>; until: number } | undefined;
    let running: Promise<Record<string, string>> | undefined;
    return () => {
      if (held !== undefined && Date.now() < held.until) return Promise.resolve(held.headers);
      running ??= runPlugin(exec, cluster)
        .then((status) => {
          if (typeof status.token !== 'string' || status.token === '') {
            throw fail(
              status.clientCertificateData === undefined
                ? `credential plugin "${exec.command}" printed no status.token`
                : `credential plugin "${exec.command}" gave a client certificate; only tokens are supported`,
            );
          }
          const expires =
            typeof status.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : Number.POSITIVE_INFINITY;
          held = { headers: bearer(status.token), until: Number.isNaN(expires) ? Number.POSITIVE_INFINITY : expires };
          return held.headers;
        })
        .catch((e: unknown) => {
          throw e instanceof ConfigError ? e : fail(messageOf(e), e);
        })
        .finally(() => {
          running = undefined;
        });
      return running;
    };
  }
  const provider = user.authProvider;
  if (provider !== undefined) return authProviderSource(cluster, user, provider, fixed, fail);
  if (user.username !== undefined || user.password !== undefined) {
    const basic = { ...fixed, Authorization: `Basic ${Buffer.from(`${user.username ?? ''}:${user.password ?? ''}`).toString('base64')}` };
    return () => Promise.resolve(basic);
  }
  return () => Promise.resolve(fixed);
}

/** Runs a credential plugin as client-go does (KUBERNETES_EXEC_INFO set, the configured env added) and parses its ExecCredential. */
function runPlugin(exec: ExecConfig, cluster: KubeconfigCluster): Promise<ExecCredentialStatus> {
  const info = {
    apiVersion: exec.apiVersion ?? 'client.authentication.k8s.io/v1beta1',
    kind: 'ExecCredential',
    spec: {
      interactive: false,
      ...(exec.provideClusterInfo === true
        ? {
            cluster: {
              server: cluster.server,
              ...(cluster.tlsServerName === undefined ? {} : { 'tls-server-name': cluster.tlsServerName }),
              ...(cluster.caData === undefined ? {} : { 'certificate-authority-data': cluster.caData }),
              ...(cluster.skipTLSVerify === true ? { 'insecure-skip-tls-verify': true } : {}),
              ...(cluster.proxyUrl === undefined ? {} : { 'proxy-url': cluster.proxyUrl }),
            },
          }
        : {}),
    },
  };
  // The plugin runs in this process's environment, as kubectl runs it (it finds its own
  // configuration and PATH there); nothing here is read for the client's configuration.
  // eslint-disable-next-line no-restricted-properties
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const { name, value } of exec.env) env[name] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(exec.command, [...exec.args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < MAX_QUOTED_STDERR) stderr += d;
    });
    child.on('error', (e) => reject(new Error(`credential plugin "${exec.command}" could not be run: ${e.message}`)));
    child.on('close', (code) => {
      if (code !== 0) {
        const said = stderr.trim().slice(0, MAX_QUOTED_STDERR);
        reject(new Error(`credential plugin "${exec.command}" exited with ${String(code)}${said === '' ? '' : `: ${said}`}`));
        return;
      }
      try {
        const parsed = JSON.parse(stdout) as { status?: ExecCredentialStatus };
        resolve(parsed.status ?? {});
      } catch {
        reject(new Error(`credential plugin "${exec.command}" printed no ExecCredential JSON`));
      }
    });
  });
}

/**
 * An auth-provider user (oidc, azure, gcp): handled by @kubernetes/client-node, loaded at the
 * first request of such a user only (it costs some 25 MiB of heap and most of a second of CPU to
 * load, which no other kind of user pays).
 */
function authProviderSource(
  cluster: KubeconfigCluster,
  user: KubeconfigUser,
  provider: AuthProvider,
  fixed: Record<string, string>,
  fail: (detail: string, cause?: unknown) => ConfigError,
): () => Promise<Record<string, string>> {
  return async () => {
    try {
      const { KubeConfig } = await import('@kubernetes/client-node');
      const kc = new KubeConfig();
      kc.loadFromOptions({
        // client-node refuses http:// servers unless skipTLSVerify is set; only the headers are used here.
        clusters: [{ name: cluster.name, server: cluster.server, skipTLSVerify: true }],
        users: [{ name: user.name, authProvider: provider }],
        contexts: [{ name: 'ctx', cluster: cluster.name, user: user.name }],
        currentContext: 'ctx',
      });
      const opts: https.RequestOptions = {};
      await kc.applyToHTTPSOptions(opts);
      const headers: Record<string, string> = { ...fixed };
      for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string' || typeof v === 'number') headers[k] = String(v);
      return headers;
    } catch (e) {
      throw fail(`auth-provider "${provider.name}": ${messageOf(e)}`, e);
    }
  };
}
