/**
 * Test support of the Redis topology tests (TLS, ACL, Sentinel, Cluster): starts `redis-server`
 * processes on free 127.0.0.1 ports, each with its own configuration file in one temporary
 * directory, and kills them all when the {@link RedisProcesses} is disposed. Nothing here is
 * shipped: `packages/testing`'s `startRedis` covers the single plain server.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A running `redis-server` (or sentinel). */
export interface RedisProcess {
  readonly port: number;
  readonly pid: number;
  /** Everything it printed (the last 20 000 characters), for failure messages. */
  output(): string;
  /** Resolves when it has exited. */
  readonly exited: Promise<void>;
  /** Sends `signal` (default SIGKILL) and waits for the exit. Idempotent. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Options of {@link RedisProcesses.start}. */
export interface StartOptions {
  /** Configuration lines after `port`, `bind`, `dir`, persistence off. */
  readonly config?: readonly string[];
  /** Run as a sentinel (`redis-server <file> --sentinel`). Default false. */
  readonly sentinel?: boolean;
  /**
   * The port is a TLS port: `port 0` + `tls-port <port>`, so `config` must give the TLS files.
   * Default false.
   */
  readonly tls?: boolean;
  /** Default 20 000 ms (the machine may be loaded). */
  readonly startTimeoutMs?: number;
}

/** Free loopback TCP ports, as many as asked (each probed by binding it). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = createServer();
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return server;
    }),
  );
  const ports = servers.map((s) => {
    const address = s.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return address.port;
  });
  await Promise.all(
    servers.map(async (s) => {
      s.close();
      await once(s, 'close');
    }),
  );
  return ports;
}

/** The Redis processes of one test file, in one temporary directory; dispose to kill them all. */
export class RedisProcesses implements AsyncDisposable {
  readonly dir: string;
  readonly #processes: RedisProcess[] = [];
  readonly #killOnExit = (): void => {
    for (const p of this.#processes) process.kill(p.pid, 'SIGKILL');
  };

  private constructor(dir: string) {
    this.dir = dir;
    process.once('exit', this.#killOnExit);
  }

  static async create(): Promise<RedisProcesses> {
    return new RedisProcesses(await mkdtemp(join(tmpdir(), 'kubefed-redis-topology-')));
  }

  /**
   * Starts `redis-server` on `port` with persistence off and resolves once it accepts
   * connections (it says so in its log).
   *
   * @throws Error with its output when it exits or does not get ready in time.
   */
  async start(port: number, options: StartOptions = {}): Promise<RedisProcess> {
    const sentinel = options.sentinel ?? false;
    const file = join(this.dir, `${sentinel ? 'sentinel' : 'redis'}-${port}.conf`);
    const lines = [
      options.tls === true ? `port 0\ntls-port ${port}` : `port ${port}`,
      'bind 127.0.0.1',
      `dir ${this.dir}`,
      ...(sentinel ? [] : ['save ""', 'appendonly no', `dbfilename dump-${port}.rdb`]),
      ...(options.config ?? []),
    ];
    await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    const child = spawn('redis-server', sentinel ? [file, '--sentinel'] : [file], { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const started = this.#track(child, port);
    // A sentinel says "Sentinel ID is ..." when it listens; a server "Ready to accept connections".
    const ready = sentinel ? /Sentinel ID is|\+monitor master/ : /Ready to accept connections/;
    const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
    await new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (ready.test(started.output())) return done(resolve);
        if (child.exitCode !== null || child.signalCode !== null)
          return done(() => reject(new Error(`redis-server on port ${port} exited: ${started.output()}`)));
        if (Date.now() > deadline)
          return done(() => reject(new Error(`redis-server on port ${port} not ready in time: ${started.output()}`)));
      };
      const timer = setInterval(check, 20);
      const done = (then: () => void): void => {
        clearInterval(timer);
        then();
      };
      check();
    });
    return started;
  }

  /** Runs `redis-cli` with `args`; resolves with its standard output. */
  async cli(args: readonly string[], timeoutMs = 30_000): Promise<string> {
    const { stdout } = await run('redis-cli', [...args], { cwd: this.dir, timeout: timeoutMs });
    return stdout;
  }

  #track(child: ChildProcess, port: number): RedisProcess {
    let output = '';
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error(`redis-server on port ${port} did not start`);
    const handle: RedisProcess = {
      port,
      pid,
      output: () => output,
      exited,
      kill: async (signal = 'SIGKILL') => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        await exited;
      },
    };
    this.#processes.push(handle);
    return handle;
  }

  /** Kills every process (SIGKILL: nothing is persisted) and removes the directory. */
  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all(this.#processes.splice(0).map((p) => p.kill('SIGKILL')));
    process.removeListener('exit', this.#killOnExit);
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** PEM files of a test CA and the certificates it signed. */
export interface TestCertificates {
  readonly caFile: string;
  /** Server certificate for 127.0.0.1 and localhost. */
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  /** Client certificate (for `tls-auth-clients yes`). */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** A CA that signed nothing here: trusting only it must fail. */
  readonly otherCaFile: string;
}

/** Makes a CA, a server and a client certificate with `openssl` (P-256 keys, valid one day) in `dir`. */
export async function makeCertificates(dir: string): Promise<TestCertificates> {
  const f = (name: string): string => join(dir, name);
  const openssl = (args: string[]): Promise<unknown> => run('openssl', args, { cwd: dir });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await openssl([
    'req',
    '-x509',
    '-new',
    ...key,
    '-keyout',
    f('ca-key.pem'),
    '-out',
    f('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=kubefed test CA',
  ]);
  await openssl([
    'req',
    '-x509',
    '-new',
    ...key,
    '-keyout',
    f('other-ca-key.pem'),
    '-out',
    f('other-ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=kubefed other CA',
  ]);
  const sign = async (name: string, subject: string, extensions: string): Promise<void> => {
    await openssl(['req', '-new', ...key, '-keyout', f(`${name}-key.pem`), '-out', f(`${name}.csr`), '-subj', subject]);
    await writeFile(f(`${name}.ext`), `${extensions}\n`);
    await openssl([
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca-key.pem'),
      '-CAcreateserial',
      '-out',
      f(`${name}.pem`),
      '-days',
      '1',
      '-extfile',
      f(`${name}.ext`),
    ]);
  };
  await sign('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth');
  await sign('client', '/CN=kubefed', 'extendedKeyUsage=clientAuth');
  return {
    caFile: f('ca.pem'),
    serverCertFile: f('server.pem'),
    serverKeyFile: f('server-key.pem'),
    clientCertFile: f('client.pem'),
    clientKeyFile: f('client-key.pem'),
    otherCaFile: f('other-ca.pem'),
  };
}

/** The `redis.conf` lines of a TLS server with `certs` (clients need no certificate unless `authClients`). */
export function tlsConfig(certs: TestCertificates, authClients = false): string[] {
  return [
    `tls-cert-file ${certs.serverCertFile}`,
    `tls-key-file ${certs.serverKeyFile}`,
    `tls-ca-cert-file ${certs.caFile}`,
    `tls-auth-clients ${authClients ? 'yes' : 'no'}`,
  ];
}
