import { ConfigError } from './api-error.js';
import type { TlsSettings } from './cluster-pool.js';
import type { ClusterConnection } from './http-transport.js';
import { redactCredentials } from './redact-credentials.js';

/** The parts of a KubeFedCluster (core.kubefed.io/v1beta1) a client is built from. */
export interface KubeFedClusterInput {
  metadata: { name?: string | undefined; namespace?: string | undefined };
  spec: {
    apiEndpoint: string;
    /** base64 PEM CA bundle (JSON encoding of `[]byte`). */
    caBundle?: string | undefined;
    secretRef: { name: string };
    disabledTLSValidations?: readonly string[] | undefined;
    proxyURL?: string | undefined;
  };
}

/** The parts of the referenced Secret used: `data.token` (base64). */
export interface SecretInput {
  data?: Record<string, string> | undefined;
}

const schemeRe = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;

/**
 * Parses a KubeFedCluster `spec.apiEndpoint` like client-go's `DefaultServerURL`: a value without
 * a scheme gets `https://` and must then be a bare host or host:port (no path); the scheme must
 * be http or https; a port must be 1–65535. A URL with a scheme may carry a path prefix.
 * Returns the normalized URL without a trailing slash. Throws {@link ConfigError} naming the value
 * (without a password it carries).
 */
export function parseApiEndpoint(value: string): string {
  const v = value.trim();
  // Messages quote the value without the password it may carry (they reach logs and status).
  const shown = redactCredentials(value);
  if (v === '') throw new ConfigError('apiEndpoint: Required value');
  const hasScheme = schemeRe.test(v);
  const candidate = hasScheme ? v : `https://${v}`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    // Not the URL error as cause: its `input` is the value with the password.
    const port = /:(\d+)(?:\/|$)/.exec(v)?.[1];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
      throw new ConfigError(`apiEndpoint: invalid port ${port} in "${shown}" (must be 1-65535)`);
    }
    throw new ConfigError(`apiEndpoint: host must be a URL or a host:port pair: "${shown}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`apiEndpoint: scheme must be http or https, got "${url.protocol.replace(/:$/, '')}" in "${shown}"`);
  }
  if (url.hostname === '') throw new ConfigError(`apiEndpoint: host must be a URL or a host:port pair: "${shown}"`);
  if (!hasScheme && url.pathname !== '/' && url.pathname !== '') {
    throw new ConfigError(`apiEndpoint: host must be a URL or a host:port pair: "${shown}"`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError(`apiEndpoint: must not contain a query or fragment: "${shown}"`);
  }
  if (url.port === '0') {
    throw new ConfigError(`apiEndpoint: invalid port 0 in "${shown}" (must be 1-65535)`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * Maps `disabledTLSValidations` to TLS settings: `*` skips verification entirely, `SubjectName`
 * skips the host name check, `ValidityPeriod` accepts expired / not-yet-valid certificates.
 * An empty or missing list keeps full verification. Unknown values throw {@link ConfigError}.
 */
export function tlsValidationSettings(
  disabled: readonly string[] | undefined,
): Pick<TlsSettings, 'insecureSkipVerify' | 'skipSubjectName' | 'skipValidityPeriod'> {
  const out: Pick<TlsSettings, 'insecureSkipVerify' | 'skipSubjectName' | 'skipValidityPeriod'> = {};
  for (const d of disabled ?? []) {
    switch (d) {
      case '*':
        if ((disabled ?? []).length !== 1) {
          throw new ConfigError('disabledTLSValidations: when * is specified, it is expected to be the only option in list');
        }
        out.insecureSkipVerify = true;
        break;
      case 'SubjectName':
        out.skipSubjectName = true;
        break;
      case 'ValidityPeriod':
        out.skipValidityPeriod = true;
        break;
      default:
        throw new ConfigError(`disabledTLSValidations: unsupported value "${d}" (supported: *, SubjectName, ValidityPeriod)`);
    }
  }
  return out;
}

function decodeBase64(value: string, what: string): Buffer {
  const s = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 === 1) throw new ConfigError(`${what} is not valid base64`);
  return Buffer.from(s, 'base64');
}

/**
 * Builds the connection of a member cluster from its KubeFedCluster and the Secret named by
 * `spec.secretRef` (bearer token in `data.token`), with KubeFed's rules and messages.
 * TLS verification stays on unless `disabledTLSValidations` turns part of it off.
 * Throws {@link ConfigError} naming the cluster when anything is malformed (the cluster health
 * controller reports that as `ConfigMalformed`). socks5 proxies are refused (not supported).
 */
export function connectionFromKubeFedCluster(cluster: KubeFedClusterInput, secret: SecretInput): ClusterConnection {
  const name = cluster.metadata.name ?? '';
  const prefix = `KubeFedCluster "${name}"`;
  if (cluster.spec.apiEndpoint.trim() === '') throw new ConfigError(`The api endpoint of cluster ${name} is empty`);
  let server: string;
  let tlsFlags: ReturnType<typeof tlsValidationSettings>;
  try {
    server = parseApiEndpoint(cluster.spec.apiEndpoint);
    tlsFlags = tlsValidationSettings(cluster.spec.disabledTLSValidations);
  } catch (e) {
    throw new ConfigError(`${prefix}: spec.${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const tokenB64 = secret.data?.token;
  const token = tokenB64 === undefined ? '' : decodeBase64(tokenB64, `${prefix}: secret data.token`).toString('utf8').trim();
  if (token === '') throw new ConfigError(`The secret for cluster ${name} is missing a non-empty value for "token"`);
  const tls: TlsSettings = { ...tlsFlags };
  const caBundle = cluster.spec.caBundle;
  if (caBundle !== undefined && caBundle !== '') tls.ca = decodeBase64(caBundle, `${prefix}: spec.caBundle`);
  const proxyUrl = cluster.spec.proxyURL ?? '';
  if (proxyUrl !== '') {
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(proxyUrl)?.[1]?.toLowerCase();
    if (scheme !== 'http' && scheme !== 'https' && scheme !== 'socks5') {
      throw new ConfigError(`${prefix}: spec.proxyURL: proxy URL scheme must be one of: [http, https, socks5]`);
    }
    if (scheme === 'socks5') throw new ConfigError(`${prefix}: spec.proxyURL: socks5 proxies are not supported by this client`);
  }
  const headers = { Authorization: `Bearer ${token}` };
  return {
    name,
    server,
    tls,
    proxyUrl: proxyUrl === '' ? undefined : proxyUrl,
    authHeaders: () => Promise.resolve(headers),
  };
}
