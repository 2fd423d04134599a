import { homedir } from 'node:os';
import {
  buildInfo,
  formatBuildInfo,
  isDns1123Label,
  KubeFedError,
  KUBEFED_NAMESPACE_DEFAULT,
  normalizeKlogFlags,
  parseGoDuration,
} from '@kubefed/api';
import { kubeconfigPaths } from '@kubefed/client';
import { parseRedisUrl, redactRedisUrl } from '@kubefed/queue';
import { parseAddress } from '@kubefed/runtime';
import { Command, CommanderError, Option } from 'commander';
import { z } from 'zod';

/** What the process runs: controllers, sync workers, or both. */
export const MODES = ['all', 'controllers', 'workers'] as const;
export type Mode = (typeof MODES)[number];
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export const LOG_FORMATS = ['json', 'pretty'] as const;

/** Where the host cluster's credentials come from. */
export type HostSource =
  | { readonly kind: 'kubeconfig'; readonly paths: readonly string[] }
  /** `--master` without `--kubeconfig`: that URL alone, with no credentials (as client-go's BuildConfigFromFlags). */
  | { readonly kind: 'masterOnly' }
  | { readonly kind: 'inCluster'; readonly host: string; readonly port: string };

/** The validated configuration of the controller-manager process. */
export interface ControllerManagerConfig {
  readonly host: HostSource;
  /** Kubeconfig context; undefined = current context. */
  readonly context: string | undefined;
  /** `--master`: API server URL of the host, replacing the kubeconfig context's server (alone: that URL without credentials). */
  readonly master?: string | undefined;
  /** `--kubefed-config`: a KubeFedConfig YAML file used instead of the object in the API (read at start, never written). */
  readonly kubefedConfigFile?: string | undefined;
  readonly kubefedNamespace: string;
  /**
   * `--redis-url` (default `$REDIS_URL`, else `redis://127.0.0.1:6379`): one of the forms of
   * `parseRedisUrl` in @kubefed/queue (one server, Sentinel, Cluster; TLS with `rediss`), with
   * `--redis-ca-file`, `--redis-cert-file` and `--redis-key-file` folded in as its `tlsCaFile`,
   * `tlsCertFile` and `tlsKeyFile` parameters, so that the URL alone says how to connect.
   */
  readonly redisUrl: string;
  /**
   * BullMQ key prefix of the sync job queues (`--queue-prefix`); default undefined: derived from
   * the host cluster and kubefed namespace (`defaultQueuePrefix`), so federations sharing one
   * Redis never share queues.
   */
  readonly queuePrefix?: string | undefined;
  /** Sync jobs run in parallel per member cluster in this process (`--worker-concurrency`, default 10). */
  readonly workerConcurrency: number;
  /** `--cluster-worker-concurrency`: per member cluster overrides of `workerConcurrency`. */
  readonly clusterWorkerConcurrency: Readonly<Record<string, number>>;
  /** `--worker-rate-limit`: sync jobs per second per member cluster across every process; 0 = unlimited. */
  readonly workerRateLimit: number;
  /** `--sync-resync-period`: every federated object is synced again this often (ms, positive). */
  readonly syncResyncPeriodMs: number;
  /** `--kube-api-qps` / `--kube-api-burst`: rate limit of the host cluster client (KubeFed's flags and defaults: 500 / 1000). */
  readonly hostRateLimit: { readonly qps: number; readonly burst: number };
  /** `--member-api-qps` / `--member-api-burst`: rate limit of each member cluster's client (default 100 / 200). */
  readonly memberRateLimit: { readonly qps: number; readonly burst: number };
  /**
   * `--max-member-clusters`: member clusters this process serves at most (default 500); a
   * KubeFedCluster beyond it gets `Ready=False` `TooManyMemberClusters` and costs no client,
   * informer, sync worker or Redis connection.
   */
  readonly maxMemberClusters: number;
  /**
   * `--member-cache-max-objects` / `--member-cache-max-bytes`: what each member's informers may
   * hold in this process (default 100000 objects, 64Mi of JSON); a member past it is disengaged and
   * reported `Ready=False` `CacheBudgetExceeded` for 5 minutes, then tried again.
   */
  readonly memberCacheBudget: { readonly maxObjects: number; readonly maxBytes: number };
  readonly metricsAddr: string;
  /**
   * `--metrics-secure`: `/metrics` only over HTTPS (`--metrics-cert-file`, `--metrics-key-file`)
   * and only to bearer tokens the host authenticates (TokenReview) whose user may `get` the
   * non-resource URL `/metrics` (SubjectAccessReview); undefined = plain HTTP to anyone (default).
   */
  readonly metricsSecure?: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly healthAddr: string;
  readonly leaderElect: boolean;
  /** `--leader-elect-lease-duration`; undefined (not given): the KubeFedConfig's `spec.leaderElect.leaseDuration`. */
  readonly leaseDurationMs: number | undefined;
  /** `--leader-elect-renew-deadline`; undefined (not given): the KubeFedConfig's `spec.leaderElect.renewDeadline`. */
  readonly renewDeadlineMs: number | undefined;
  /** `--leader-elect-retry-period`; undefined (not given): the KubeFedConfig's `spec.leaderElect.retryPeriod`. */
  readonly retryPeriodMs: number | undefined;
  readonly mode: Mode;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly logFormat: (typeof LOG_FORMATS)[number];
  /** Scope written into a created default KubeFedConfig; from `DEFAULT_KUBEFED_SCOPE`, default `Cluster`. */
  readonly defaultScope: 'Cluster' | 'Namespaced';
}

/** A bad flag or environment value; the message names it (`--metrics-addr: ...`). */
export class ConfigError extends KubeFedError {}

/** `--help` was shown (commander printed it); the process should exit 0. */
export class HelpShown extends KubeFedError {}

/** `--version` was printed; the process should exit 0. */
export class VersionShown extends KubeFedError {}

/** The one-line version `--version` prints: the build stamp kubefedctl's `version` prints too. */
function versionLine(): string {
  return formatBuildInfo(
    'kubefed-controller-manager',
    buildInfo({ nodeVersion: process.version, os: process.platform, arch: process.arch }),
  );
}

/** klog's `--v=N` as a log level: up to 3 info, 4 and 5 debug, 6 and more trace. */
function klogLevel(v: number): 'info' | 'debug' | 'trace' {
  return v >= 6 ? 'trace' : v >= 4 ? 'debug' : 'info';
}

/** The environment variables the process reads. */
export interface ConfigEnv {
  KUBECONFIG?: string | undefined;
  REDIS_URL?: string | undefined;
  HOME?: string | undefined;
  KUBERNETES_SERVICE_HOST?: string | undefined;
  KUBERNETES_SERVICE_PORT?: string | undefined;
  /** Scope of a KubeFedConfig created because none exists (`Cluster` | `Namespaced`), as in KubeFed. */
  DEFAULT_KUBEFED_SCOPE?: string | undefined;
}

/** The command-line program (flags, defaults and help text). Its output goes to `out`/`err`. */
export function buildProgram(env: ConfigEnv, output: { out: (s: string) => void; err: (s: string) => void }): Command {
  const program = new Command('kubefed-controller-manager').description(
    'Runs the KubeFed control plane against a host cluster: the KubeFedCluster health controller and the ' +
      'KubeFedConfig handling, the FederatedTypeConfig and sync controllers, and the sync workers (Redis/BullMQ), with leader election on the ' +
      'Lease "kubefed-controller-manager" in the kubefed namespace. Stops gracefully on SIGINT/SIGTERM.',
  );
  hostFlags(program);
  redisFlags(program, env);
  workerFlags(program);
  apiRateFlags(program);
  serverFlags(program);
  leaderElectionFlags(program);
  processFlags(program);
  return program
    .helpOption('-h, --help', 'show this help')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: output.out, writeErr: () => {}, outputError: () => {} });
}

/** The host cluster and the control plane's namespace and KubeFedConfig. */
function hostFlags(cmd: Command): Command {
  return cmd
    .option(
      '--kubeconfig <path>',
      'kubeconfig of the host cluster (default: $KUBECONFIG, else ~/.kube/config, else in-cluster service account)',
    )
    .option('--context <name>', 'kubeconfig context of the host cluster (default: the current context)')
    .option(
      '--master <url>',
      'API server of the host cluster; replaces the server of the kubeconfig context (without a kubeconfig: this URL with no credentials)',
    )
    .option(
      '--kubefed-config <path>',
      'KubeFedConfig YAML file used instead of the KubeFedConfig "kubefed" in the API (read at start; the object in the API is then neither created nor followed)',
    )
    .option(
      '--kubefed-namespace <namespace>',
      'namespace of the control plane (KubeFedClusters, KubeFedConfig, Lease)',
      KUBEFED_NAMESPACE_DEFAULT,
    );
}

/** Redis and the queue prefix; `REDIS_URL` is the default of --redis-url. */
function redisFlags(cmd: Command, env: ConfigEnv): Command {
  return cmd
    .option(
      '--redis-url <url>',
      'Redis for the sync job queues: redis://[user:password@]host:port[/db] (one server), redis+sentinel://[user:password@]host:26379,host2:26379/<master-name> (Sentinel), ' +
        'redis+cluster://[user:password@]host:port,host2:port (Cluster; the queue prefix is wrapped in {} there); rediss… for TLS',
      env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    )
    .option('--redis-ca-file <path>', 'PEM CA bundle trusted for the Redis server certificates (rediss… URLs; default: the system CAs)')
    .option(
      '--redis-cert-file <path>',
      'PEM client certificate presented to Redis (rediss… URLs; with --redis-key-file), for servers with tls-auth-clients yes',
    )
    .option('--redis-key-file <path>', 'PEM key of --redis-cert-file')
    .option(
      '--queue-prefix <prefix>',
      'BullMQ key prefix of the sync job queues (must match between controllers and workers; default: kubefed-<hash of the host cluster ID and the kubefed namespace>, unique per federation)',
    );
}

/** How many sync jobs run, how fast, and the resync period. */
function workerFlags(cmd: Command): Command {
  return cmd
    .option('--worker-concurrency <n>', 'sync jobs run in parallel per member cluster by this process (modes all and workers)', '10')
    .option(
      '--max-member-clusters <n>',
      'member clusters served by this process at most; a KubeFedCluster beyond it is reported Ready=False TooManyMemberClusters and not used',
      '500',
    )
    .option(
      '--member-cache-max-objects <n>',
      "objects each member cluster's informers may cache in this process; a member past it is reported Ready=False CacheBudgetExceeded and not used for 5 minutes",
      '100000',
    )
    .option(
      '--member-cache-max-bytes <quantity>',
      "approximate JSON size each member cluster's informers may cache in this process (bytes, or a quantity such as 64Mi or 1Gi); past it as --member-cache-max-objects",
      '64Mi',
    )
    .option(
      '--cluster-worker-concurrency <cluster=n,...>',
      'per member cluster overrides of --worker-concurrency, e.g. member1=2,member2=20',
      '',
    )
    .option(
      '--worker-rate-limit <jobs-per-second>',
      'sync jobs started per second per member cluster, across every worker process (0 = unlimited)',
      '0',
    )
    .option(
      '--sync-resync-period <duration>',
      'every federated object is synced again this often to repair drift missed by the member watches (positive Go duration)',
      '5m',
    );
}

/** Client-side rate limits of the host and member API servers. */
function apiRateFlags(cmd: Command): Command {
  return cmd
    .option('--kube-api-qps <qps>', 'requests per second to the host cluster API server (sustained)', '500')
    .option('--kube-api-burst <n>', 'requests to the host cluster API server in a burst', '1000')
    .option('--rest-config-qps <qps>', "KubeFed's name of --kube-api-qps (wins when both are given)")
    .option('--rest-config-burst <n>', "KubeFed's name of --kube-api-burst (wins when both are given)")
    .option(
      '--member-api-qps <qps>',
      'requests per second to each member cluster API server (sustained), health probes and sync workers together',
      '100',
    )
    .option('--member-api-burst <n>', 'requests to each member cluster API server in a burst', '200');
}

/** The metrics and health servers. */
function serverFlags(cmd: Command): Command {
  return (
    cmd
      // Loopback by default: out of a cluster nothing else on the network reaches them; the chart and
      // deploy/ pass `:9090` and `:8080` (docs/operations.md, "Who can write what").
      .option(
        '--metrics-addr <host:port>',
        'where Prometheus /metrics is served (":9090" = all interfaces, port 0 = a free port)',
        '127.0.0.1:9090',
      )
      .addOption(
        new Option(
          '--metrics-secure [bool]',
          '/metrics over HTTPS, only for bearer tokens the host authenticates whose user may get /metrics (TokenReview + SubjectAccessReview; needs --metrics-cert-file and --metrics-key-file)',
        ).default('false'),
      )
      .option('--metrics-cert-file <path>', 'PEM certificate of /metrics with --metrics-secure')
      .option('--metrics-key-file <path>', 'PEM private key of /metrics with --metrics-secure')
      .option('--health-addr <host:port>', 'where /healthz and /readyz are served (":8080" = all interfaces)', '127.0.0.1:8080')
      .option('--healthz-addr <host:port>', "KubeFed's name of --health-addr (wins when both are given)")
  );
}

/** Leader election (defaults from the KubeFedConfig). */
function leaderElectionFlags(cmd: Command): Command {
  return cmd
    .addOption(new Option('--leader-elect [bool]', 'run controllers only while holding the leader Lease (true|false)').default('true'))
    .option(
      '--leader-elect-lease-duration <duration>',
      'how long a leader claim is valid without renewal (Go duration; default: spec.leaderElect.leaseDuration of the KubeFedConfig, 15s)',
    )
    .option(
      '--leader-elect-renew-deadline <duration>',
      'a leader that cannot renew for this long steps down (Go duration; default: spec.leaderElect.renewDeadline of the KubeFedConfig, 10s)',
    )
    .option(
      '--leader-elect-retry-period <duration>',
      'time between acquire/renew attempts (Go duration; default: spec.leaderElect.retryPeriod of the KubeFedConfig, 5s)',
    );
}

/** The mode, logging and --version. */
function processFlags(cmd: Command): Command {
  return cmd
    .addOption(new Option('--mode <mode>', 'what to run: controllers, sync workers, or both').choices(MODES).default('all'))
    .addOption(new Option('--log-level <level>', 'minimum log level').choices(LOG_LEVELS).default('info'))
    .option(
      '-v, --v <level>',
      "klog-style verbosity, as KubeFed's Deployment passes it: 0-3 info, 4-5 debug, 6+ trace (--log-level wins when both are given)",
    )
    .option('--version', 'print the version and exit')
    .addOption(new Option('--log-format <format>', 'JSON lines or human-readable output').choices(LOG_FORMATS).default('json'));
}

const addressOf = (flag: string) =>
  z.string().superRefine((v, ctx) => {
    try {
      parseAddress(flag, v);
    } catch {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not host:port with a port in 0..65535` });
    }
  });

/** A `[bool]` flag: given bare (true), or `true` / `false`. */
const booleanFlag = z.union([z.literal(true), z.string()]).transform((v, ctx) => {
  if (v === true || v === 'true') return true;
  if (v === 'false') return false;
  ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not true or false` });
  return z.NEVER;
});

const durationOf = z.string().transform((v, ctx) => {
  const ms = parseGoDuration(v);
  if (ms === undefined || ms <= 0) {
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not a positive duration such as 15s, 1m0s or 1500ms` });
    return z.NEVER;
  }
  return ms;
});

const positiveNumber = z.string().transform((v, ctx) => {
  const n = /^\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
  if (!(n > 0)) {
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not a positive number` });
    return z.NEVER;
  }
  return n;
});

const flagsSchema = z.object({
  kubeconfig: z.string().min(1, 'must not be empty').optional(),
  context: z.string().min(1, 'must not be empty').optional(),
  master: z
    .string()
    .refine((v) => /^https?:\/\/[^/\s]+/.test(v), 'is not an http(s):// URL')
    .optional(),
  kubefedConfig: z.string().min(1, 'must not be empty').optional(),
  restConfigQps: positiveNumber.optional(),
  restConfigBurst: positiveNumber.optional(),
  v: z.string().regex(/^\d+$/, 'is not a verbosity level (0, 1, 2, ...)').transform(Number).optional(),
  kubefedNamespace: z.string().superRefine((v, ctx) => {
    if (!isDns1123Label(v))
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not a valid namespace name (DNS-1123 label)` });
  }),
  redisUrl: z.string().superRefine((v, ctx) => {
    try {
      parseRedisUrl(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  }),
  redisCaFile: z.string().min(1, 'must not be empty').optional(),
  redisCertFile: z.string().min(1, 'must not be empty').optional(),
  redisKeyFile: z.string().min(1, 'must not be empty').optional(),
  queuePrefix: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, "_", "." or "-"')
    .optional(),
  workerConcurrency: z.string().transform((v, ctx) => {
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > 1000) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not an integer in 1..1000` });
      return z.NEVER;
    }
    return n;
  }),
  maxMemberClusters: z.string().transform((v, ctx) => {
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > 100_000) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not an integer in 1..100000` });
      return z.NEVER;
    }
    return n;
  }),
  memberCacheMaxObjects: z.string().transform((v, ctx) => {
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < 1) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not a positive integer` });
      return z.NEVER;
    }
    return n;
  }),
  memberCacheMaxBytes: z.string().transform((v, ctx) => {
    const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(v);
    const n = m === null ? NaN : Number(m[1]) * 1024 ** ['', 'Ki', 'Mi', 'Gi'].indexOf(m[2] ?? '');
    if (!Number.isSafeInteger(n) || n < 1024) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not a size of at least 1Ki (bytes, or <n>Ki, <n>Mi, <n>Gi)` });
      return z.NEVER;
    }
    return n;
  }),
  clusterWorkerConcurrency: z.string().transform((v, ctx) => {
    const out: Record<string, number> = {};
    for (const part of v
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')) {
      const m = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)=(\d+)$/.exec(part);
      const n = m === null ? NaN : Number(m[3]);
      if (m === null || !Number.isInteger(n) || n < 1 || n > 1000) {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(part)} is not <cluster>=<integer in 1..1000>` });
        return z.NEVER;
      }
      out[m[1] ?? ''] = n;
    }
    return out;
  }),
  workerRateLimit: z.string().transform((v, ctx) => {
    const n = /^\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
    if (!(n >= 0)) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not a number of jobs per second (0 = unlimited)` });
      return z.NEVER;
    }
    return n;
  }),
  // 0 used to mean "never": a job that failed for good was then never retried.
  syncResyncPeriod: durationOf,
  kubeApiQps: positiveNumber,
  kubeApiBurst: positiveNumber,
  memberApiQps: positiveNumber,
  memberApiBurst: positiveNumber,
  metricsAddr: addressOf('--metrics-addr'),
  healthAddr: addressOf('--health-addr'),
  healthzAddr: addressOf('--healthz-addr').optional(),
  leaderElect: booleanFlag,
  metricsSecure: booleanFlag,
  metricsCertFile: z.string().min(1, 'must not be empty').optional(),
  metricsKeyFile: z.string().min(1, 'must not be empty').optional(),
  leaderElectLeaseDuration: durationOf.optional(),
  leaderElectRenewDeadline: durationOf.optional(),
  leaderElectRetryPeriod: durationOf.optional(),
  mode: z.enum(MODES),
  logLevel: z.enum(LOG_LEVELS),
  logFormat: z.enum(LOG_FORMATS),
});

const flagName = (key: PropertyKey | undefined): string => `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** A Redis URL with its passwords (user info, `?password=`, `?sentinelPassword=`) replaced by `***`, for messages and logs. */
export function redactUrl(value: string): string {
  return redactRedisUrl(value);
}

/** The TLS flags and the URL parameter each one becomes. */
const TLS_FLAGS = [
  ['--redis-ca-file', 'tlsCaFile'],
  ['--redis-cert-file', 'tlsCertFile'],
  ['--redis-key-file', 'tlsKeyFile'],
] as const;

/**
 * `url` with the TLS file flags folded in as its `tls*File` parameters.
 *
 * @throws ConfigError naming the flag: TLS files for a URL without TLS, a flag that repeats a
 *   parameter of the URL, or a client certificate without its key.
 */
function redisUrlWithTls(url: string, files: Readonly<Record<(typeof TLS_FLAGS)[number][0], string | undefined>>): string {
  const target = parseRedisUrl(url);
  const params = new URLSearchParams(/\?([^#]*)/.exec(url)?.[1] ?? '');
  const added: string[] = [];
  for (const [flag, param] of TLS_FLAGS) {
    const path = files[flag];
    if (path === undefined) continue;
    if (target.tls === undefined)
      throw new ConfigError(`${flag}: needs a TLS Redis URL (rediss://, rediss+sentinel:// or rediss+cluster://), not ${redactUrl(url)}`);
    if (params.has(param)) throw new ConfigError(`${flag}: --redis-url has ?${param}= already: give the file once`);
    // Slashes may stay as they are in a query: the path stays readable in logs.
    added.push(`${param}=${encodeURIComponent(path).replace(/%2F/g, '/')}`);
  }
  const withFiles = added.length === 0 ? url : `${url}${url.includes('?') ? '&' : '?'}${added.join('&')}`;
  try {
    parseRedisUrl(withFiles);
  } catch (err) {
    throw new ConfigError(`--redis-cert-file, --redis-key-file: ${(err as Error).message}`, { cause: err });
  }
  return withFiles;
}

/**
 * Parses the command line (`argv` without node and script) and environment into the
 * configuration. Throws {@link HelpShown} after `--help` was printed, and {@link ConfigError}
 * with a one-line message naming the flag for anything invalid. KubeFed's spellings are read
 * as its pflag/klog command line read them (`normalizeKlogFlags` of @kubefed/api): `_` in a
 * flag name is `-`, and klog's flags without effect here (`--logtostderr`, `--alsologtostderr`,
 * `--vmodule`, `--log_dir`, ...) are ignored with one `warning: deprecated flags: ...` line to `err`.
 */
export function parseConfig(
  argv: readonly string[],
  env: ConfigEnv,
  output: { out: (s: string) => void; err?: (s: string) => void } = { out: () => {} },
): ControllerManagerConfig {
  const program = buildProgram(env, { out: output.out, err: () => {} });
  const klog = normalizeKlogFlags(argv);
  try {
    // klog (Go's flag package) also takes `-v=2`; commander reads a short option's `=` as part of the value.
    program.parse(
      klog.argv.map((a) => (/^-v=/.test(a) ? `-${a}` : a)),
      { from: 'user' },
    );
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help') throw new HelpShown('help shown');
      throw new ConfigError(err.message.replace(/^error: /, ''), { cause: err });
    }
    throw err;
  }
  if (klog.deprecation !== undefined) output.err?.(`warning: ${klog.deprecation}\n`);
  if (program.opts().version === true) {
    output.out(versionLine());
    throw new VersionShown('version shown');
  }
  const parsed = flagsSchema.safeParse(program.opts());
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${flagName(issue?.path[0])}: ${issue?.message ?? 'invalid value'}`);
  }
  const f = parsed.data;
  const redisUrl = redisUrlWithTls(f.redisUrl, {
    '--redis-ca-file': f.redisCaFile,
    '--redis-cert-file': f.redisCertFile,
    '--redis-key-file': f.redisKeyFile,
  });
  const scope = env.DEFAULT_KUBEFED_SCOPE ?? '';
  if (scope !== '' && scope !== 'Cluster' && scope !== 'Namespaced') {
    throw new ConfigError(`DEFAULT_KUBEFED_SCOPE: ${JSON.stringify(scope)} is not Cluster or Namespaced`);
  }
  return {
    host: f.master !== undefined && f.kubeconfig === undefined ? { kind: 'masterOnly' } : hostSource(f.kubeconfig, env),
    context: f.context,
    master: f.master,
    kubefedConfigFile: f.kubefedConfig,
    kubefedNamespace: f.kubefedNamespace,
    redisUrl,
    queuePrefix: f.queuePrefix,
    workerConcurrency: f.workerConcurrency,
    clusterWorkerConcurrency: f.clusterWorkerConcurrency,
    workerRateLimit: f.workerRateLimit,
    syncResyncPeriodMs: f.syncResyncPeriod,
    hostRateLimit: { qps: f.restConfigQps ?? f.kubeApiQps, burst: Math.max(1, Math.round(f.restConfigBurst ?? f.kubeApiBurst)) },
    memberRateLimit: { qps: f.memberApiQps, burst: Math.max(1, Math.round(f.memberApiBurst)) },
    maxMemberClusters: f.maxMemberClusters,
    memberCacheBudget: { maxObjects: f.memberCacheMaxObjects, maxBytes: f.memberCacheMaxBytes },
    metricsAddr: f.metricsAddr,
    metricsSecure: metricsSecureOf(f),
    healthAddr: f.healthzAddr ?? f.healthAddr,
    leaderElect: f.leaderElect,
    leaseDurationMs: f.leaderElectLeaseDuration,
    renewDeadlineMs: f.leaderElectRenewDeadline,
    retryPeriodMs: f.leaderElectRetryPeriod,
    mode: f.mode,
    logLevel: f.v !== undefined && program.getOptionValueSource('logLevel') === 'default' ? klogLevel(f.v) : f.logLevel,
    logFormat: f.logFormat,
    defaultScope: scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
  };
}

/** `--kubeconfig`, else `$KUBECONFIG` / `~/.kube/config`, else in-cluster when running in a pod. */
function hostSource(flag: string | undefined, env: ConfigEnv): HostSource {
  if (flag !== undefined) return { kind: 'kubeconfig', paths: [flag] };
  if ((env.KUBECONFIG ?? '') === '' && (env.KUBERNETES_SERVICE_HOST ?? '') !== '') {
    return { kind: 'inCluster', host: env.KUBERNETES_SERVICE_HOST ?? '', port: env.KUBERNETES_SERVICE_PORT ?? '443' };
  }
  return { kind: 'kubeconfig', paths: kubeconfigPaths({ KUBECONFIG: env.KUBECONFIG, home: env.HOME ?? homedir() }) };
}

/** A BullMQ limiter allowing `perSecond` jobs per second (fractions as jobs per longer window). */
export function rateLimiter(perSecond: number): { max: number; durationMs: number } {
  return perSecond >= 1 ? { max: Math.round(perSecond), durationMs: 1000 } : { max: 1, durationMs: Math.round(1000 / perSecond) };
}

/** The files of `--metrics-secure`; a certificate without it, or it without both files, is refused. */
function metricsSecureOf(f: {
  metricsSecure: boolean;
  metricsCertFile?: string | undefined;
  metricsKeyFile?: string | undefined;
}): ControllerManagerConfig['metricsSecure'] {
  if (!f.metricsSecure) {
    if (f.metricsCertFile !== undefined || f.metricsKeyFile !== undefined) {
      throw new ConfigError(
        '--metrics-cert-file and --metrics-key-file are used only with --metrics-secure (without it /metrics is plain HTTP to anyone)',
      );
    }
    return undefined;
  }
  if (f.metricsCertFile === undefined || f.metricsKeyFile === undefined) {
    throw new ConfigError(
      '--metrics-secure needs --metrics-cert-file and --metrics-key-file: a certificate for the metrics Service (e.g. from cert-manager), so that scrapers send their tokens over TLS',
    );
  }
  return { certFile: f.metricsCertFile, keyFile: f.metricsKeyFile };
}
