import { describe, expect, it } from 'vitest';
import { ConfigError, HelpShown, parseConfig, rateLimiter, redactUrl, VersionShown } from './config.js';

const env = { HOME: '/home/op' };

describe('parseConfig', () => {
  it('applies the defaults', () => {
    expect(parseConfig([], env)).toEqual({
      host: { kind: 'kubeconfig', paths: ['/home/op/.kube/config'] },
      context: undefined,
      kubefedNamespace: 'kube-federation-system',
      redisUrl: 'redis://127.0.0.1:6379',
      queuePrefix: undefined,
      workerConcurrency: 10,
      clusterWorkerConcurrency: {},
      workerRateLimit: 0,
      syncResyncPeriodMs: 300_000,
      hostRateLimit: { qps: 500, burst: 1000 },
      memberRateLimit: { qps: 100, burst: 200 },
      maxMemberClusters: 500,
      memberCacheBudget: { maxObjects: 100_000, maxBytes: 64 * 1024 * 1024 },
      metricsAddr: '127.0.0.1:9090',
      healthAddr: '127.0.0.1:8080',
      leaderElect: true,
      leaseDurationMs: undefined,
      renewDeadlineMs: undefined,
      retryPeriodMs: undefined,
      mode: 'all',
      logLevel: 'info',
      logFormat: 'json',
      defaultScope: 'Cluster',
    });
  });

  it('reads the member cache budget in bytes or as a quantity', () => {
    expect(parseConfig(['--member-cache-max-objects', '5000', '--member-cache-max-bytes', '1Gi'], env).memberCacheBudget).toEqual({
      maxObjects: 5000,
      maxBytes: 1024 ** 3,
    });
    expect(parseConfig(['--member-cache-max-bytes', '2097152'], env).memberCacheBudget.maxBytes).toBe(2 * 1024 * 1024);
  });

  it('reads --queue-prefix and --worker-concurrency', () => {
    const c = parseConfig(['--queue-prefix', 'kf-test', '--worker-concurrency', '3'], env);
    expect([c.queuePrefix, c.workerConcurrency]).toEqual(['kf-test', 3]);
  });

  it('reads per-cluster concurrency, the rate limit and the resync period', () => {
    const c = parseConfig(
      ['--cluster-worker-concurrency', 'member1=2, eu.member2=20', '--worker-rate-limit', '50', '--sync-resync-period', '30s'],
      env,
    );
    expect([c.clusterWorkerConcurrency, c.workerRateLimit, c.syncResyncPeriodMs]).toEqual([{ member1: 2, 'eu.member2': 20 }, 50, 30_000]);
  });

  it.each([
    [['--cluster-worker-concurrency', 'member1'], '--cluster-worker-concurrency: "member1" is not <cluster>=<integer in 1..1000>'],
    [['--cluster-worker-concurrency', 'Member1=3'], '--cluster-worker-concurrency: "Member1=3" is not <cluster>=<integer in 1..1000>'],
    [['--worker-rate-limit', '-1'], '--worker-rate-limit: "-1" is not a number of jobs per second (0 = unlimited)'],
    [['--kube-api-qps', '0'], '--kube-api-qps: "0" is not a positive number'],
    [['--member-api-burst', 'many'], '--member-api-burst: "many" is not a positive number'],
    [['--sync-resync-period', 'soon'], '--sync-resync-period: "soon" is not a positive duration such as 15s, 1m0s or 1500ms'],
    [['--sync-resync-period', '0'], '--sync-resync-period: "0" is not a positive duration such as 15s, 1m0s or 1500ms'],
    [['--worker-concurrency', '0'], '--worker-concurrency: "0" is not an integer in 1..1000'],
    [['--max-member-clusters', '0'], '--max-member-clusters: "0" is not an integer in 1..100000'],
    [['--member-cache-max-objects', '0'], '--member-cache-max-objects: "0" is not a positive integer'],
    [
      ['--member-cache-max-bytes', '64MB'],
      '--member-cache-max-bytes: "64MB" is not a size of at least 1Ki (bytes, or <n>Ki, <n>Mi, <n>Gi)',
    ],
    [['--worker-concurrency', 'x'], '--worker-concurrency: "x" is not an integer in 1..1000'],
    [['--queue-prefix', 'a:b'], '--queue-prefix: must be letters, digits, "_", "." or "-"'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseConfig(argv, env)).toThrow(message);
  });

  it('prints the version line with --version and stops', () => {
    let out = '';
    expect(() => parseConfig(['--version'], env, { out: (t) => (out += t) })).toThrow(VersionShown);
    expect(out).toMatch(/^kubefed-controller-manager version: \{gitVersion: "v/);
  });

  it('reads REDIS_URL and KUBECONFIG from the environment', () => {
    const c = parseConfig([], { ...env, REDIS_URL: 'redis://redis:6380', KUBECONFIG: '/a:/b' });
    expect(c.redisUrl).toBe('redis://redis:6380');
    expect(c.host).toEqual({ kind: 'kubeconfig', paths: ['/a', '/b'] });
  });

  it('uses the in-cluster service account in a pod without a kubeconfig', () => {
    expect(parseConfig([], { ...env, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }).host).toEqual({
      kind: 'inCluster',
      host: '10.0.0.1',
      port: '443',
    });
  });

  it.each<[string[], Partial<ReturnType<typeof parseConfig>>]>([
    [['--kubeconfig', '/k', '--context', 'host'], { host: { kind: 'kubeconfig', paths: ['/k'] }, context: 'host' }],
    [['--kubefed-namespace', 'fed'], { kubefedNamespace: 'fed' }],
    [['--metrics-addr', '127.0.0.1:0', '--health-addr', '[::1]:8081'], { metricsAddr: '127.0.0.1:0', healthAddr: '[::1]:8081' }],
    [['--leader-elect=false'], { leaderElect: false }],
    [['--leader-elect'], { leaderElect: true }],
    [
      ['--leader-elect-lease-duration', '1500ms', '--leader-elect-renew-deadline', '1s', '--leader-elect-retry-period', '500ms'],
      { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 500 },
    ],
    [['--mode', 'workers', '--log-level', 'debug', '--log-format', 'pretty'], { mode: 'workers', logLevel: 'debug', logFormat: 'pretty' }],
    [['--redis-url', 'rediss://:pw@cache:6379/2'], { redisUrl: 'rediss://:pw@cache:6379/2' }],
    [['--redis-url', 'redis+sentinel://:pw@s1:26379,s2:26379/mymaster'], { redisUrl: 'redis+sentinel://:pw@s1:26379,s2:26379/mymaster' }],
    [['--redis-url', 'redis+cluster://n1:7000,n2:7001'], { redisUrl: 'redis+cluster://n1:7000,n2:7001' }],
    [
      ['--redis-url', 'rediss://cache:6380', '--redis-ca-file', '/etc/redis tls/ca.pem'],
      { redisUrl: 'rediss://cache:6380?tlsCaFile=/etc/redis%20tls/ca.pem' },
    ],
    [
      [
        '--redis-url',
        'rediss+sentinel://s1/m?sentinelPassword=x',
        '--redis-ca-file',
        '/ca.pem',
        '--redis-cert-file',
        '/c.pem',
        '--redis-key-file',
        '/k.pem',
      ],
      { redisUrl: 'rediss+sentinel://s1/m?sentinelPassword=x&tlsCaFile=/ca.pem&tlsCertFile=/c.pem&tlsKeyFile=/k.pem' },
    ],
    [['--healthz-addr', '127.0.0.1:8081'], { healthAddr: '127.0.0.1:8081' }],
    [['--rest-config-qps', '50', '--rest-config-burst', '75'], { hostRateLimit: { qps: 50, burst: 75 } }],
    [['--kube-api-qps', '10', '--rest-config-qps', '20'], { hostRateLimit: { qps: 20, burst: 1000 } }],
    [['--v=2'], { logLevel: 'info' }],
    [['--v=4'], { logLevel: 'debug' }],
    [['-v=6'], { logLevel: 'trace' }],
    [['-v', '5'], { logLevel: 'debug' }],
    [['--v=6', '--log-level', 'warn'], { logLevel: 'warn' }],
    [['--master', 'https://10.0.0.1:6443'], { master: 'https://10.0.0.1:6443', host: { kind: 'masterOnly' } }],
    [
      ['--master', 'https://10.0.0.1:6443', '--kubeconfig', '/k'],
      { master: 'https://10.0.0.1:6443', host: { kind: 'kubeconfig', paths: ['/k'] } },
    ],
    [['--kubefed-config', '/etc/kubefed/config.yaml'], { kubefedConfigFile: '/etc/kubefed/config.yaml' }],
  ])('accepts %j', (argv, expected) => {
    expect(parseConfig(argv, env)).toMatchObject(expected);
  });

  it.each<[string[], string]>([
    [['--metrics-addr', 'nope'], '--metrics-addr: "nope" is not host:port'],
    [['--health-addr', '127.0.0.1:99999'], '--health-addr: "127.0.0.1:99999" is not host:port'],
    [['--healthz-addr', ':x'], '--healthz-addr: ":x" is not host:port'],
    [['--kubefed-namespace', 'Bad_NS'], '--kubefed-namespace: "Bad_NS" is not a valid namespace name'],
    [
      ['--redis-url', 'http://cache'],
      '--redis-url: Redis URL http://cache has scheme http: must start with redis://, rediss://, redis+sentinel://',
    ],
    [['--redis-url', 'redis://:secret@'], '--redis-url: Redis URL redis://:***@ has no host'],
    [
      ['--redis-url', 'redis://a:1,b:2'],
      '--redis-url: Redis URL redis://a:1,b:2 is not a URL: several hosts need redis+sentinel:// or redis+cluster://',
    ],
    [['--redis-url', 'redis+sentinel://:secret@s1:26379'], '--redis-url: Redis URL redis+sentinel://:***@s1:26379 must name the master'],
    [
      ['--redis-url', 'redis://:secret@cache', '--redis-ca-file', '/ca.pem'],
      '--redis-ca-file: needs a TLS Redis URL (rediss://, rediss+sentinel:// or rediss+cluster://), not redis://:***@cache',
    ],
    [
      ['--redis-url', 'rediss://cache?tlsCaFile=/a.pem', '--redis-ca-file', '/ca.pem'],
      '--redis-ca-file: --redis-url has ?tlsCaFile= already',
    ],
    [
      ['--redis-url', 'rediss://cache', '--redis-cert-file', '/c.pem'],
      '--redis-cert-file, --redis-key-file: Redis URL rediss://cache?tlsCertFile=/c.pem has only one of ?tlsCertFile= and ?tlsKeyFile=',
    ],
    [['--redis-ca-file', ''], '--redis-ca-file: must not be empty'],
    [['--leader-elect=maybe'], '--leader-elect: "maybe" is not true or false'],
    [['--v=high'], '--v: is not a verbosity level (0, 1, 2, ...)'],
    [['--master', 'api.example.com'], '--master: is not an http(s):// URL'],
    [['--rest-config-qps', '0'], '--rest-config-qps: "0" is not a positive number'],
    [['--leader-elect-retry-period', 'soon'], '--leader-elect-retry-period: "soon" is not a positive duration'],
    [['--mode', 'banana'], "option '--mode <mode>' argument 'banana' is invalid"],
    [['--log-format', 'xml'], "option '--log-format <format>' argument 'xml' is invalid"],
    [['--bogus'], "unknown option '--bogus'"],
    [['--kubeconfig'], "option '--kubeconfig <path>' argument missing"],
    [['extra'], 'too many arguments'],
  ])('rejects %j naming the flag', (argv, message) => {
    let caught: unknown;
    try {
      parseConfig(argv, env);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toContain(message);
    expect((caught as Error).message).not.toContain('\n');
    expect((caught as Error).message).not.toContain('secret');
  });

  it.each([
    ['Namespaced', 'Namespaced'],
    ['Cluster', 'Cluster'],
    ['', 'Cluster'],
  ])('takes the scope of a created KubeFedConfig from DEFAULT_KUBEFED_SCOPE=%j', (value, expected) => {
    expect(parseConfig([], { ...env, DEFAULT_KUBEFED_SCOPE: value }).defaultScope).toBe(expected);
  });

  it('serves /metrics to anyone over HTTP by default, and with --metrics-secure over HTTPS with the given certificate', () => {
    expect(parseConfig([], env).metricsSecure).toBeUndefined();
    expect(
      parseConfig(['--metrics-secure', '--metrics-cert-file', '/tls/tls.crt', '--metrics-key-file', '/tls/tls.key'], env).metricsSecure,
    ).toEqual({ certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' });
    expect(parseConfig(['--metrics-secure=false'], env).metricsSecure).toBeUndefined();
  });

  it.each([
    [['--metrics-secure'], '--metrics-secure needs --metrics-cert-file and --metrics-key-file'],
    [['--metrics-secure', '--metrics-cert-file', '/tls/tls.crt'], '--metrics-secure needs --metrics-cert-file and --metrics-key-file'],
    [
      ['--metrics-cert-file', '/tls/tls.crt', '--metrics-key-file', '/tls/tls.key'],
      '--metrics-cert-file and --metrics-key-file are used only with --metrics-secure',
    ],
    [['--metrics-secure=yes'], '"yes" is not true or false'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseConfig(argv, env)).toThrow(ConfigError);
    expect(() => parseConfig(argv, env)).toThrow(message);
  });

  it('rejects an unknown DEFAULT_KUBEFED_SCOPE naming the variable', () => {
    expect(() => parseConfig([], { ...env, DEFAULT_KUBEFED_SCOPE: 'Galaxy' })).toThrow(
      'DEFAULT_KUBEFED_SCOPE: "Galaxy" is not Cluster or Namespaced',
    );
  });

  it('prints help explaining every flag and signals HelpShown', () => {
    let out = '';
    expect(() => parseConfig(['--help'], env, { out: (s) => (out += s) })).toThrow(HelpShown);
    for (const flag of [
      '--kubeconfig',
      '--context',
      '--kubefed-namespace',
      '--redis-url',
      '--redis-ca-file',
      '--redis-cert-file',
      '--redis-key-file',
      '--metrics-addr',
      '--health-addr',
      '--leader-elect',
      '--leader-elect-lease-duration',
      '--leader-elect-renew-deadline',
      '--leader-elect-retry-period',
      '--mode',
      '--log-level',
      '--log-format',
    ]) {
      expect(out).toContain(flag);
    }
  });
});

describe('redactUrl', () => {
  it.each([
    ['redis://:pw@cache:6379', 'redis://:***@cache:6379'],
    ['redis://user:pw@cache', 'redis://user:***@cache'],
    ['redis://cache:6379', 'redis://cache:6379'],
    ['redis+sentinel://:pw@s1,s2/m?sentinelPassword=spw', 'redis+sentinel://:***@s1,s2/m?sentinelPassword=***'],
  ])('redacts %s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });
});

describe('rateLimiter', () => {
  it.each([
    [50, { max: 50, durationMs: 1000 }],
    [1, { max: 1, durationMs: 1000 }],
    [0.5, { max: 1, durationMs: 2000 }],
  ])('allows %d jobs per second as %j', (perSecond, limiter) => {
    expect(rateLimiter(perSecond)).toEqual(limiter);
  });
});

describe("parseConfig with KubeFed's klog flags", () => {
  it('accepts the flags of KubeFed’s Deployment, maps --v, and warns once about the ones without effect', () => {
    let err = '';
    const config = parseConfig(['--logtostderr=true', '--v=4', '--alsologtostderr', '--vmodule', 'sync=4', '--log_dir=/tmp'], env, {
      out: () => {},
      err: (s) => (err += s),
    });
    expect(config.logLevel).toBe('debug');
    expect(err).toBe(
      "warning: deprecated flags: --logtostderr, --alsologtostderr, --vmodule, --log_dir ignored (klog's log file, header and module flags have no effect here)\n",
    );
  });

  it('reads "_" in flag names as "-", as pflag did', () => {
    let err = '';
    const config = parseConfig(['--kubefed_namespace', 'fed', '--leader_elect=false'], env, { out: () => {}, err: (s) => (err += s) });
    expect(config).toMatchObject({ kubefedNamespace: 'fed', leaderElect: false });
    expect(err).toContain('read --kubefed_namespace as --kubefed-namespace, --leader_elect as --leader-elect');
  });

  it('still refuses a flag it does not know, naming it', () => {
    expect(() => parseConfig(['--log_dirr=/tmp'], env)).toThrow("unknown option '--log-dirr=/tmp'");
  });
});
