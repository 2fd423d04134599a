import { RedisConnectionError } from './queue-error.js';

/** A `host:port` of a Sentinel or Cluster node. */
export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * PEM files for TLS (`rediss` schemes). Without `caFile` the server certificate is checked
 * against Node's default CAs; `certFile` and `keyFile` (together) present a client certificate,
 * for servers started with `tls-auth-clients yes`.
 */
export interface RedisTlsFiles {
  readonly caFile?: string | undefined;
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
}

/** What every form of Redis URL names besides its nodes. */
interface RedisTargetBase {
  /** TLS settings when the scheme is `rediss`/`rediss+...`; undefined = plain TCP. */
  readonly tls: RedisTlsFiles | undefined;
}

/**
 * Where a Redis URL points, as parsed by {@link parseRedisUrl}:
 * - `standalone`: one server; `url` is the URL for ioredis (without this package's own
 *   `tls*File` parameters; ioredis reads the other parameters as options, e.g. `?password=`).
 * - `sentinel`: the master `masterName` found through `sentinels` (and found again after a failover).
 * - `cluster`: a Redis Cluster reached through any of `nodes` (the others are discovered).
 */
export type RedisTarget =
  | (RedisTargetBase & { readonly mode: 'standalone'; readonly url: string })
  | (RedisTargetBase & {
      readonly mode: 'sentinel';
      readonly sentinels: readonly RedisAddress[];
      readonly masterName: string;
      readonly db: number;
      readonly username: string | undefined;
      readonly password: string | undefined;
      readonly sentinelUsername: string | undefined;
      readonly sentinelPassword: string | undefined;
    })
  | (RedisTargetBase & {
      readonly mode: 'cluster';
      readonly nodes: readonly RedisAddress[];
      readonly username: string | undefined;
      readonly password: string | undefined;
    });

/** The schemes {@link parseRedisUrl} accepts, for messages. */
export const redisUrlSchemes = ['redis', 'rediss', 'redis+sentinel', 'rediss+sentinel', 'redis+cluster', 'rediss+cluster'] as const;

/** Query parameters naming TLS files: understood with every `rediss` scheme and removed before ioredis sees the URL. */
const TLS_PARAMS = { tlsCaFile: 'caFile', tlsCertFile: 'certFile', tlsKeyFile: 'keyFile' } as const;
type TlsParam = keyof typeof TLS_PARAMS;
const isTlsParam = (key: string): key is TlsParam => Object.hasOwn(TLS_PARAMS, key);

/** Parameters of the multi-node forms (ioredis reads any parameter of a plain URL; these forms are strict). */
const SENTINEL_PARAMS = new Set(['username', 'password', 'sentinelUsername', 'sentinelPassword', ...Object.keys(TLS_PARAMS)]);
const CLUSTER_PARAMS = new Set(['username', 'password', ...Object.keys(TLS_PARAMS)]);

/** Query parameters of a Redis URL that hold secrets (ioredis reads every parameter as an option: `?password=`, `?sentinelPassword=`). */
const SECRET_PARAM = /pass|secret|token/i;

/** The pieces of `scheme://[userinfo@]authority[/path][?query]`, as written (nothing decoded). */
interface UrlParts {
  readonly scheme: string;
  readonly userinfo: string | undefined;
  readonly authority: string;
  readonly path: string;
  readonly query: string | undefined;
}

/** Splits a URL whose authority may list several `host:port` (which WHATWG `URL` refuses). */
function splitUrl(url: string): UrlParts | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/.exec(url);
  if (m === null) return undefined;
  const [, scheme = '', authorityWithUser = '', path = '', query] = m;
  const at = authorityWithUser.lastIndexOf('@');
  return {
    scheme: scheme.toLowerCase(),
    userinfo: at < 0 ? undefined : authorityWithUser.slice(0, at),
    authority: authorityWithUser.slice(at + 1),
    path,
    query,
  };
}

/**
 * `redis://user:***@host:port/db?password=***`: the URL without its passwords (in the user info
 * or in a parameter such as `password` / `sentinelPassword`), for messages and logs. Everything
 * else is kept as written. Works for the multi-node forms (`redis+sentinel://h1,h2/mymaster`).
 */
export function redactRedisUrl(url: string): string {
  const parts = splitUrl(url);
  if (parts === undefined) return '<unparsable Redis URL>';
  let userinfo = '';
  if (parts.userinfo !== undefined) {
    const colon = parts.userinfo.indexOf(':');
    userinfo = colon < 0 || colon === parts.userinfo.length - 1 ? `${parts.userinfo}@` : `${parts.userinfo.slice(0, colon)}:***@`;
  }
  const query =
    parts.query === undefined
      ? ''
      : `?${parts.query
          .split('&')
          .map((pair) => {
            const eq = pair.indexOf('=');
            const key = eq < 0 ? pair : pair.slice(0, eq);
            return eq >= 0 && SECRET_PARAM.test(safeDecode(key)) ? `${key}=***` : pair;
          })
          .join('&')}`;
  return `${parts.scheme}://${userinfo}${parts.authority}${parts.path}${query}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * Parses a Redis URL of one of these forms (TLS with the `rediss` schemes):
 *
 * - `redis[s]://[[user]:password@]host[:port][/db][?option=value...]`: one server, as ioredis
 *   reads it (`?password=` works too).
 * - `redis[s]+sentinel://[[user]:password@]host[:port][,host[:port]...]/master-name[/db]`:
 *   Redis Sentinel (default port 26379); the user and password are the master's (and its
 *   replicas'), `?sentinelUsername=` / `?sentinelPassword=` those of the sentinels.
 * - `redis[s]+cluster://[[user]:password@]host[:port][,host[:port]...]`: Redis Cluster
 *   (default port 6379); any reachable node is enough, the others are discovered.
 *
 * Every `rediss` form takes `?tlsCaFile=<path>` (CA bundle trusted for the server certificates)
 * and `?tlsCertFile=<path>&tlsKeyFile=<path>` (a client certificate).
 *
 * @throws RedisConnectionError naming the (redacted) URL and what is wrong with it.
 */
export function parseRedisUrl(url: string): RedisTarget {
  const shown = redactRedisUrl(url);
  const fail = (why: string): never => {
    throw new RedisConnectionError(`Redis URL ${shown} ${why}`);
  };
  const parts = splitUrl(url);
  if (parts === undefined) return fail(`is not a URL: expected ${redisUrlSchemes.map((s) => `${s}://`).join(', ')}`);
  const scheme = parts.scheme;
  if (!(redisUrlSchemes as readonly string[]).includes(scheme)) {
    return fail(`has scheme ${scheme}: must start with ${redisUrlSchemes.map((s) => `${s}://`).join(', ')}`);
  }
  const secure = scheme.startsWith('rediss');
  const params = new URLSearchParams(parts.query ?? '');
  const tls = secure ? tlsFilesOf(params, fail) : undefined;
  if (!secure) {
    for (const key of params.keys()) if (isTlsParam(key)) fail(`has ?${key}= but TLS is off: use ${scheme.replace('redis', 'rediss')}://`);
  }
  if (scheme === 'redis' || scheme === 'rediss') return { mode: 'standalone', tls, url: standaloneUrl(url, parts, fail) };

  const mode = scheme.endsWith('+sentinel') ? 'sentinel' : 'cluster';
  const allowed = mode === 'sentinel' ? SENTINEL_PARAMS : CLUSTER_PARAMS;
  for (const key of params.keys()) {
    if (!allowed.has(key)) fail(`has unknown parameter ?${key}=: ${scheme}:// takes ${[...allowed].join(', ')}`);
  }
  const nodes = addressesOf(parts.authority, mode === 'sentinel' ? 26379 : 6379, fail);
  const [userinfoUser, userinfoPassword] = credentialsOf(parts.userinfo, fail);
  const username = params.get('username') ?? userinfoUser;
  const password = params.get('password') ?? userinfoPassword;
  if (mode === 'cluster') {
    if (parts.path !== '' && parts.path !== '/') fail('has a path: a Redis Cluster has only database 0, so write no /db');
    return { mode, tls, nodes, username, password };
  }
  const segments = parts.path.split('/').slice(1);
  const masterName = safeDecode(segments[0] ?? '');
  if (masterName === '' || segments.length > 2)
    fail('must name the master after the sentinels: redis+sentinel://host:26379,.../<master-name>[/<db>]');
  const dbText = segments[1] ?? '0';
  const db = /^\d{1,5}$/.test(dbText) ? Number(dbText) : fail(`has database ${JSON.stringify(dbText)}: must be a number`);
  return {
    mode,
    tls,
    sentinels: nodes,
    masterName,
    db,
    username,
    password,
    sentinelUsername: params.get('sentinelUsername') ?? undefined,
    sentinelPassword: params.get('sentinelPassword') ?? undefined,
  };
}

function tlsFilesOf(params: URLSearchParams, fail: (why: string) => never): RedisTlsFiles {
  const files: Record<string, string> = {};
  for (const [key, value] of params) {
    if (!isTlsParam(key)) continue;
    if (value === '') fail(`has an empty ?${key}=: give the path of a PEM file`);
    files[TLS_PARAMS[key]] = value;
  }
  if ((files.certFile === undefined) !== (files.keyFile === undefined))
    fail('has only one of ?tlsCertFile= and ?tlsKeyFile=: a client certificate needs both');
  return files;
}

/** The URL for ioredis: checked by WHATWG `URL` as ioredis will parse it, without the `tls*File` parameters. */
function standaloneUrl(url: string, parts: UrlParts, fail: (why: string) => never): string {
  if (parts.authority === '' || parts.authority.startsWith(':')) fail('has no host');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(`is not a URL${parts.authority.includes(',') ? ': several hosts need redis+sentinel:// or redis+cluster://' : ''}`);
  }
  if (parsed.hostname === '') fail('has no host');
  const own = [...parsed.searchParams.keys()].filter(isTlsParam);
  // ioredis ignores ?password= (and ?username=) once the URL has a user name: move them into the user info.
  const moved = (['username', 'password'] as const).filter((key) => parsed[key] === '' && parsed.searchParams.has(key));
  if (own.length === 0 && moved.length === 0) return url;
  for (const key of moved) {
    parsed[key] = encodeURIComponent(parsed.searchParams.get(key) ?? '');
    parsed.searchParams.delete(key);
  }
  for (const key of own) parsed.searchParams.delete(key);
  return parsed.toString();
}

/** `host[:port],[v6]:port,...` with `defaultPort` where none is written. */
function addressesOf(authority: string, defaultPort: number, fail: (why: string) => never): RedisAddress[] {
  if (authority === '') fail('names no host');
  return authority.split(',').map((entry) => {
    const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._~%-]+))(?::(\d{1,5}))?$/.exec(entry.trim());
    const port = m?.[3] === undefined ? defaultPort : Number(m[3]);
    if (m === null || port < 1 || port > 65535) return fail(`has ${JSON.stringify(entry)} where host[:port] is expected`);
    return { host: m[1] ?? m[2] ?? '', port };
  });
}

/** `user:password` decoded; an empty user or password is undefined. */
function credentialsOf(userinfo: string | undefined, fail: (why: string) => never): [string | undefined, string | undefined] {
  if (userinfo === undefined) return [undefined, undefined];
  const colon = userinfo.indexOf(':');
  const decode = (text: string): string | undefined => {
    try {
      return text === '' ? undefined : decodeURIComponent(text);
    } catch {
      return fail('has a user name or password that is not percent-encoded');
    }
  };
  return colon < 0 ? [decode(userinfo), undefined] : [decode(userinfo.slice(0, colon)), decode(userinfo.slice(colon + 1))];
}
