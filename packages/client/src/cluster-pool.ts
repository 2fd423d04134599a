import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { type buildConnector, Pool } from 'undici';
import { ConfigError } from './api-error.js';
import { redactCredentials } from './redact-credentials.js';
import { verifyChainIgnoringDates } from './verify-chain-ignoring-dates.js';

/** TLS settings of one cluster connection. Verification is on unless a field here turns part of it off. */
export interface TlsSettings {
  /** PEM CA bundle to trust (replaces the system roots, like client-go). */
  ca?: Buffer | string;
  /** PEM client certificate and key. */
  cert?: Buffer | string;
  key?: Buffer | string;
  /** SNI / name to verify instead of the URL host (kubeconfig `tls-server-name`). */
  serverName?: string;
  /** Skip all certificate verification (kubeconfig `insecure-skip-tls-verify`, KubeFed `disabledTLSValidations: ['*']`). */
  insecureSkipVerify?: boolean;
  /** Skip only the host name check (KubeFed `SubjectName`). */
  skipSubjectName?: boolean;
  /** Accept an expired or not-yet-valid certificate that is otherwise valid (KubeFed `ValidityPeriod`). */
  skipValidityPeriod?: boolean;
}

/** Options of {@link createClusterPool}. */
export interface ClusterPoolOptions {
  /** The API server's URL: its scheme, host and port are used. */
  origin: URL;
  tls: TlsSettings;
  /** `http://` or `https://` proxy reached with CONNECT; `socks5://` is refused with a {@link ConfigError}. */
  proxyUrl?: string | undefined;
  /** Open sockets per host; default 64. */
  maxSockets?: number;
}

const validityErrors = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
/**
 * How long a TLS handshake may stay silent (Go's `TLSHandshakeTimeout` in client-go is 10 s too):
 * a server that accepts connections and never answers (a stopped or blackholed API server) would
 * otherwise keep the socket forever, one per request given up.
 */
const HANDSHAKE_TIMEOUT_MS = 10_000;

type ConnectCallback = (err: Error | null, stream: Duplex) => void;

/** Opens a CONNECT tunnel through an HTTP(S) proxy. */
function tunnel(proxy: URL, host: string, port: number, ca: TlsSettings['ca'], done: (err: Error | null, socket?: Duplex) => void): void {
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const headers: Record<string, string> = { host: authority };
  if (proxy.username !== '') {
    const creds = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    headers['proxy-authorization'] = `Basic ${Buffer.from(creds).toString('base64')}`;
  }
  const base = {
    host: proxy.hostname.replace(/^\[|\]$/g, ''),
    port: proxy.port === '' ? (proxy.protocol === 'https:' ? 443 : 80) : Number(proxy.port),
    method: 'CONNECT',
    path: authority,
    headers,
    agent: false as const,
  };
  const req = proxy.protocol === 'https:' ? https.request({ ...base, ...(ca === undefined ? {} : { ca }) }) : http.request(base);
  req.once('connect', (res, socket) => {
    if (res.statusCode !== 200) {
      socket.destroy();
      done(new Error(`proxy ${proxy.origin} refused CONNECT ${authority}: HTTP ${res.statusCode}`));
      return;
    }
    done(null, socket);
  });
  req.once('error', (e) => done(e));
  req.end();
}

/** A cluster's TLS settings with the secure context built from them once (CA, client certificate and key). */
class ClusterTls {
  #context: tls.SecureContext | undefined;

  constructor(readonly settings: TlsSettings) {}

  /**
   * The secure context of every connection to the cluster: parsing the CA bundle and the key
   * per connection was a measurable part of the controller manager's time while an unreachable
   * member's requests were retried, each on a new connection. Built at the first connection, where
   * a bad certificate or key is reported.
   */
  get secureContext(): tls.SecureContext {
    const { ca, cert, key } = this.settings;
    this.#context ??= tls.createSecureContext({
      ...(ca === undefined ? {} : { ca }),
      ...(cert === undefined ? {} : { cert }),
      ...(key === undefined ? {} : { key }),
    });
    return this.#context;
  }
}

/** Where a connection goes: the API server's host (no brackets around an IPv6 address), port and the TLS server name undici asks for. */
interface Endpoint {
  readonly host: string;
  readonly port: number;
  /** The name undici would send as SNI; empty or undefined for an IP address. */
  readonly servername?: string | null | undefined;
}

/**
 * The end of a connection attempt on `socket`: `cb` is called once, with the socket, and then let
 * go. The attempt's listeners stay on the socket for its whole life, so they must not keep the
 * callback, which holds whoever asked for the connection: with node's http agent, a keep-alive
 * socket kept its first request and response alive (two or three per member cluster, about
 * 40 KiB of heap each member: docs/development/performance-notes.md). `cleanup` removes the attempt's own timer or
 * listener; an error destroys the socket.
 */
function attemptEnd(socket: Duplex, cb: ConnectCallback, cleanup: () => void): (err: Error | null) => void {
  let pending: ConnectCallback | undefined = cb;
  return (err) => {
    const callback = pending;
    if (callback === undefined) return;
    pending = undefined;
    cleanup();
    if (err !== null) socket.destroy(err);
    callback(err, socket);
  };
}

function connectTls(endpoint: Endpoint, clusterTls: ClusterTls, socket: Duplex | undefined, cb: ConnectCallback): void {
  const { settings } = clusterTls;
  const { host } = endpoint;
  // An IP host has no server name: fall back to the host then.
  const requested = endpoint.servername ?? '';
  const serverName = settings.serverName ?? (requested === '' ? host : requested);
  const custom = settings.skipValidityPeriod === true && settings.insecureSkipVerify !== true;
  const connectOpts: tls.ConnectionOptions = {
    host,
    port: endpoint.port,
    // SNI must not be an IP address; Node then verifies the host (IP SANs) instead.
    ...(net.isIP(serverName) === 0 ? { servername: serverName } : {}),
    rejectUnauthorized: settings.insecureSkipVerify !== true && !custom,
    secureContext: clusterTls.secureContext,
    ...(settings.skipSubjectName === true ? { checkServerIdentity: () => undefined } : {}),
    ...(socket === undefined ? {} : { socket }),
  };
  const s = tls.connect(connectOpts);
  const onHandshakeTimeout = (): void =>
    finish(Object.assign(new Error(`TLS handshake timeout after ${HANDSHAKE_TIMEOUT_MS} ms`), { code: 'ETIMEDOUT' }));
  const finish = attemptEnd(s, cb, () => s.off('timeout', onHandshakeTimeout));
  s.setTimeout(HANDSHAKE_TIMEOUT_MS, onHandshakeTimeout);
  s.once('secureConnect', () => {
    s.setTimeout(0);
    if (!custom || s.authorized) {
      finish(null);
      return;
    }
    // rejectUnauthorized was off so that only validity-period errors could be forgiven. OpenSSL
    // reports only its last error, so "expired" may hide "untrusted": verify the chain ourselves.
    const code = String(s.authorizationError);
    const peer = s.getPeerCertificate(true);
    const untrusted = validityErrors.has(code) ? verifyChainIgnoringDates(peer, settings.ca) : code;
    if (untrusted !== undefined) {
      finish(
        Object.assign(new Error(`certificate verification failed: ${untrusted}`), {
          code: validityErrors.has(code) ? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' : code,
        }),
      );
      return;
    }
    const identityErr = settings.skipSubjectName === true ? undefined : tls.checkServerIdentity(serverName, peer);
    finish(identityErr ?? null);
  });
  s.once('error', (e: Error) => finish(e));
}

/** A plain TCP connection (an `http:` API server). */
function connectPlain(endpoint: Endpoint, cb: ConnectCallback): void {
  const s = net.connect({ host: endpoint.host, port: endpoint.port });
  const finish = attemptEnd(s, cb, () => s.off('error', finish));
  s.once('connect', () => finish(null));
  s.once('error', finish);
}

/**
 * The connections of one cluster: TLS with its settings (`tls`; none for an `http:` server),
 * through a CONNECT tunnel when a proxy is set. The pool calls it for every new connection; the
 * TLS context is built once, at the first.
 */
export function clusterConnector(tlsSettings: TlsSettings | undefined, proxy: URL | undefined): buildConnector.connector {
  const secure = tlsSettings === undefined ? undefined : new ClusterTls(tlsSettings);
  return (options, callback) => {
    const endpoint: Endpoint = {
      host: options.hostname.replace(/^\[|\]$/g, ''),
      port: Number(options.port === '' ? (options.protocol === 'https:' ? 443 : 80) : options.port),
      servername: options.servername,
    };
    const done: ConnectCallback = (err, socket) =>
      err === null ? callback(null, withTcpOptions(socket) as net.Socket) : callback(err, null);
    const open = (socket: Duplex | undefined): void => {
      if (secure !== undefined) connectTls(endpoint, secure, socket, done);
      else if (socket !== undefined) done(null, socket);
      else connectPlain(endpoint, done);
    };
    if (proxy === undefined) {
      open(undefined);
      return;
    }
    tunnel(proxy, endpoint.host, endpoint.port, undefined, (err, socket) => {
      if (err !== null || socket === undefined) done(err ?? new Error('proxy tunnel failed'), socket as Duplex);
      else open(withTcpOptions(socket));
    });
  };
}

/** How long a connection stays silent before TCP keep-alive probes start (client-go's dialer: 30 s). */
const TCP_KEEP_ALIVE_MS = 30_000;

/**
 * What undici's own connector (which this one replaces) and Go's dialer set on every connection:
 * Nagle's algorithm off, so that a small write is not held until the peer's delayed ACK (up to
 * 40 ms on Linux) while an earlier one is unacknowledged, and TCP keep-alive, so that a peer that
 * vanished is noticed on an idle connection. A TLS socket over a proxy tunnel passes them to the
 * tunnel's socket, set when the tunnel opened.
 */
function withTcpOptions<S extends Duplex | undefined>(socket: S): S {
  if (socket instanceof net.Socket) socket.setNoDelay(true).setKeepAlive(true, TCP_KEEP_ALIVE_MS);
  return socket;
}

/**
 * How long an idle pooled connection is kept: shorter than a server's own idle limit (kube-sim's
 * is 65 s), so that the client closes first rather than send a request on a connection the server
 * is closing.
 */
const IDLE_CONNECTION_MS = 60_000;

/**
 * A keep-alive connection pool (undici) for one cluster applying its TLS settings and proxy.
 * Throws {@link ConfigError} for an unsupported proxy scheme (socks5 is not supported). The pool
 * sets no timeouts of its own: the transport's deadline covers a request until its whole body
 * arrived, a watch until its response headers did.
 */
export function createClusterPool(options: ClusterPoolOptions): Pool {
  let proxy: URL | undefined;
  if (options.proxyUrl !== undefined && options.proxyUrl !== '') {
    try {
      proxy = new URL(options.proxyUrl);
    } catch {
      // Not the URL error as cause: its `input` is the URL with the password.
      throw new ConfigError(`proxy URL "${redactCredentials(options.proxyUrl)}" is not a valid URL`);
    }
    if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') {
      throw new ConfigError(
        `proxy URL "${redactCredentials(options.proxyUrl)}": scheme ${proxy.protocol.replace(/:$/, '')} is not supported (use http or https)`,
      );
    }
  }
  return new Pool(options.origin.origin, {
    connections: options.maxSockets ?? 64,
    connect: clusterConnector(options.origin.protocol === 'https:' ? options.tls : undefined, proxy),
    headersTimeout: 0,
    bodyTimeout: 0,
    keepAliveTimeout: IDLE_CONNECTION_MS,
    keepAliveMaxTimeout: IDLE_CONNECTION_MS,
  });
}
