import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_LOG_LINE_CHARS, MAX_LOGGED_STRING_CHARS } from './bounded-log-line.js';
import { createLogger, type LogDestination } from './logger.js';

function memory(): LogDestination & { lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  return {
    write: (line: string) => chunks.push(line),
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const SECRET = 'sekrit-token-value-4711';

describe('createLogger', () => {
  it('writes JSON lines with the message and the given fields', () => {
    const out = memory();
    const logger = createLogger({ destination: out });
    logger.child({ controller: 'sync' }).info({ namespace: 'ns', name: 'web', durationMs: 3 }, 'reconciled');
    const [line] = out.lines();
    expect(line).toMatchObject({ level: 30, msg: 'reconciled', controller: 'sync', namespace: 'ns', name: 'web', durationMs: 3 });
  });

  describe('children', () => {
    afterEach(() => vi.restoreAllMocks());
    // Every pino logger inherits child() from one shared prototype: counting its calls counts the children made.
    const pinoChildren = () => {
      let proto = Object.getPrototypeOf(pino()) as object;
      while (!Object.hasOwn(proto, 'child')) proto = Object.getPrototypeOf(proto) as object;
      return vi.spyOn(proto as { child: () => unknown }, 'child');
    };

    it('makes no pino child for a child that writes nothing, or only below the level', () => {
      const out = memory();
      const logger = createLogger({ destination: out, level: 'info' });
      const made = pinoChildren();
      for (let i = 0; i < 100; i++)
        logger
          .child({ jobId: `job-${i}` })
          .child({ attempt: 1 })
          .debug({ step: 'render' }, 'below the level');
      expect(made).not.toHaveBeenCalled();
      expect(out.text()).toBe('');
    });

    it('makes each child once, at its first line, with the fields of every ancestor in order', () => {
      const out = memory();
      const logger = createLogger({ destination: out, level: 'debug' });
      const made = pinoChildren();
      const job = logger.child({ controller: 'sync' }).child({ jobId: 'j1', cluster: 'member1' });
      job.debug('first');
      job.warn({ attempt: 2 }, 'second');
      expect(made).toHaveBeenCalledTimes(2);
      expect(out.lines()).toMatchObject([
        { level: 20, msg: 'first', controller: 'sync', jobId: 'j1', cluster: 'member1' },
        { level: 40, msg: 'second', controller: 'sync', jobId: 'j1', cluster: 'member1', attempt: 2 },
      ]);
    });

    it('redacts credentials in the fields of a child', () => {
      const out = memory();
      createLogger({ destination: out }).child({ token: SECRET }).info('connecting');
      expect(out.text()).toContain('connecting');
      expect(out.text()).not.toContain(SECRET);
    });
  });

  it('honours the level option', () => {
    const out = memory();
    const logger = createLogger({ destination: out, level: 'warn' });
    logger.info('hidden');
    logger.warn('shown');
    expect(out.lines().map((l) => l.msg)).toEqual(['shown']);
  });

  it.each([
    ['a token field', { token: SECRET }],
    ['a nested token', { cluster: { auth: { token: SECRET } } }],
    ['a bearer authorization header', { req: { headers: { authorization: `Bearer ${SECRET}` } } }],
    ['a kubeconfig user token', { kubeconfig: { users: [{ name: 'u', user: { token: SECRET } }] } }],
    ['a kubeconfig client key', { users: [{ name: 'u', user: { 'client-key-data': SECRET } }] }],
    ['a kubeconfig password', { users: [{ name: 'u', user: { password: SECRET } }] }],
    [
      'a Secret object data',
      { obj: { kind: 'Secret', metadata: { name: 's' }, data: { token: Buffer.from(SECRET).toString('base64'), other: SECRET } } },
    ],
    ['a Secret object stringData', { object: { kind: 'Secret', metadata: { name: 's' }, stringData: { key: SECRET } } }],
    ['a bearerToken field', { config: { bearerToken: SECRET } }],
  ])('never prints the secret in %s', (_title, fields) => {
    const out = memory();
    createLogger({ destination: out }).info(fields, 'connecting');
    expect(out.text()).toContain('connecting');
    expect(out.text()).not.toContain(SECRET);
    expect(out.text()).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(out.text()).toContain('[Redacted]');
  });

  it('keeps data of objects that are not Secrets', () => {
    const out = memory();
    createLogger({ destination: out }).info({ obj: { kind: 'ConfigMap', data: { a: 'visible' } } }, 'seen');
    expect(out.text()).toContain('visible');
  });

  it('serializes errors under err with message and stack', () => {
    const out = memory();
    createLogger({ destination: out }).error({ err: new Error('boom') }, 'failed');
    const [line] = out.lines();
    expect(line?.err).toMatchObject({ type: 'Error', message: 'boom' });
  });

  it.each<[string, Error, string]>([
    [
      'a cause whose message the error already names is printed once',
      new Error('Redis at redis://r:1 is unreachable: ECONNREFUSED', { cause: new Error('ECONNREFUSED') }),
      'Redis at redis://r:1 is unreachable: ECONNREFUSED',
    ],
    [
      'a cause it does not name is appended',
      new Error('writing the status failed', { cause: new Error('409 Conflict') }),
      'writing the status failed: 409 Conflict',
    ],
    [
      'a chain: only the causes not named yet',
      new Error('start failed: step B', { cause: new Error('step B', { cause: new Error('socket hang up') }) }),
      'start failed: step B: socket hang up',
    ],
  ])('serializes the message with its causes: %s', (_title, err, expected) => {
    const out = memory();
    createLogger({ destination: out }).error({ err }, 'failed');
    expect(out.lines()[0]?.err).toMatchObject({ message: expected });
  });

  it('logs an error whose cause is not an Error', () => {
    const out = memory();
    createLogger({ destination: out }).error({ err: new Error('outer', { cause: 'just a string' }) }, 'failed');
    expect(out.lines()[0]?.err).toMatchObject({ message: 'outer' });
  });
});

/** A failed Redis login as ioredis reports it: the command, with the password among its arguments, is attached to the error. */
function redisLoginError(message: string, command: { name: string; args: unknown[] }): Error {
  return Object.assign(new Error(message), { command });
}

const WRONGPASS = 'WRONGPASS invalid username-password pair or user is disabled.';

describe('redaction of credentials that errors carry', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'HELLO 3 AUTH of a RESP3 login under err',
      { err: redisLoginError(WRONGPASS, { name: 'hello', args: ['3', 'AUTH', 'default', SECRET] }) },
      'WRONGPASS',
    ],
    ['AUTH of a RESP2 login', { err: redisLoginError(WRONGPASS, { name: 'auth', args: [SECRET] }) }, 'WRONGPASS'],
    ['AUTH with a user name', { err: redisLoginError(WRONGPASS, { name: 'auth', args: ['kubefed', SECRET] }) }, 'WRONGPASS'],
    [
      'a login error under error',
      { error: redisLoginError(WRONGPASS, { name: 'hello', args: ['3', 'AUTH', 'default', SECRET] }) },
      'WRONGPASS',
    ],
    [
      'arguments a server echoed into the message',
      {
        err: redisLoginError(`ERR unknown command 'HELLO', with args beginning with: '3' 'AUTH' 'default' '${SECRET}'`, {
          name: 'hello',
          args: [3, 'AUTH', 'default', SECRET],
        }),
      },
      'ERR unknown command',
    ],
    [
      'a login error as the cause of another error',
      {
        err: new Error('redis unreachable', {
          cause: redisLoginError(`ERR unknown command 'HELLO', with args beginning with: '${SECRET}'`, {
            name: 'hello',
            args: ['3', 'AUTH', 'default', SECRET],
          }),
        }),
      },
      'redis unreachable',
    ],
    [
      'a login error inside an AggregateError',
      { err: new AggregateError([redisLoginError(WRONGPASS, { name: 'auth', args: [SECRET] })], 'all connections failed') },
      'all connections failed',
    ],
    [
      'a login error kept in a field of another error',
      { err: Object.assign(new Error('worker failed'), { last: redisLoginError(WRONGPASS, { name: 'auth', args: [SECRET] }) }) },
      'worker failed',
    ],
    [
      'the arguments of any failed command',
      { err: redisLoginError('ERR something', { name: 'set', args: ['key', SECRET] }) },
      'ERR something',
    ],
  ])('never prints %s, and still logs the error', (_title, fields, message) => {
    const out = memory();
    createLogger({ destination: out }).warn(fields, 'redis connection error');
    expect(out.text()).toContain(message);
    expect(out.text()).not.toContain(SECRET);
  });

  it('keeps the name of the failed command', () => {
    const out = memory();
    createLogger({ destination: out }).warn(
      { err: redisLoginError(WRONGPASS, { name: 'hello', args: ['3', 'AUTH', 'default', SECRET] }) },
      'redis connection error',
    );
    expect(out.lines()[0]?.err).toMatchObject({ message: WRONGPASS, command: { name: 'hello', args: '[Redacted]' } });
  });
});

describe('redaction of credentials in URLs and proxy headers', () => {
  it.each<[string, (logger: ReturnType<typeof createLogger>) => void, string]>([
    [
      'a redis URL with a password',
      (l) => l.info({ redisUrl: `redis://:${SECRET}@redis.example.com:6379/0` }, 'starting'),
      'redis://:***@redis.example.com:6379/0',
    ],
    [
      'a redis URL with user and password',
      (l) => l.info({ redisUrl: `rediss://kubefed:${SECRET}@redis.example.com:6380` }, 'starting'),
      'rediss://kubefed:***@redis.example.com:6380',
    ],
    [
      'a ?password= parameter',
      (l) => l.info({ url: `redis://redis.example.com:6379/0?db=1&password=${SECRET}` }, 'starting'),
      'redis://redis.example.com:6379/0?db=1&password=***',
    ],
    [
      'an API server URL with user info',
      (l) => l.info({ server: `https://admin:${SECRET}@api.example.com:6443/prefix` }, 'starting'),
      'https://admin:***@api.example.com:6443/prefix',
    ],
    [
      'a proxy URL in a nested field',
      (l) => l.info({ cluster: { proxyUrl: `http://user:${SECRET}@proxy.example.com:3128` } }, 'engaged'),
      'http://user:***@proxy.example.com:3128',
    ],
    [
      'a proxy URL in a child binding',
      (l) => l.child({ proxy: `https://u:${SECRET}@proxy.example.com` }).info('engaged'),
      'https://u:***@proxy.example.com',
    ],
    [
      'a proxy URL in an error message',
      (l) => l.error({ err: new Error(`proxy URL "http://u:${SECRET}@proxy.example.com:3128" is not valid`) }, 'failed'),
      'http://u:***@proxy.example.com:3128',
    ],
    ['a URL in the message', (l) => l.info(`dialing http://u:${SECRET}@proxy.example.com`), 'http://u:***@proxy.example.com'],
    [
      'a proxy-authorization header',
      (l) => l.debug({ req: { headers: { 'proxy-authorization': `Basic ${SECRET}` } } }, 'request'),
      '[Redacted]',
    ],
    ['a Proxy-Authorization header', (l) => l.debug({ headers: { 'Proxy-Authorization': `Basic ${SECRET}` } }, 'request'), '[Redacted]'],
    [
      'a proxy-authorization header quoted in a message',
      (l) => l.error({ err: new Error(`CONNECT refused; sent Proxy-Authorization: Basic ${SECRET}`) }, 'failed'),
      'Proxy-Authorization: [Redacted]',
    ],
  ])('never prints the credentials of %s', (_title, log, shown) => {
    const out = memory();
    log(createLogger({ destination: out, level: 'debug' }));
    expect(out.text()).toContain(shown);
    expect(out.text()).not.toContain(SECRET);
  });

  it('leaves URLs without credentials alone', () => {
    const out = memory();
    createLogger({ destination: out }).info(
      { server: 'https://api.example.com:6443', redis: 'redis://redis:6379/0?db=1', mail: 'user@example.com' },
      'starting',
    );
    expect(out.lines()[0]).toMatchObject({
      server: 'https://api.example.com:6443',
      redis: 'redis://redis:6379/0?db=1',
      mail: 'user@example.com',
    });
  });
});

describe('bounds on what a line quotes', () => {
  it('bounds a long string field, nested fields and error messages, and keeps the line valid JSON', () => {
    const out = memory();
    const path = `/data/${'a.'.repeat(50_000)}`;
    const err = Object.assign(new Error(`apply ${path} failed`), { path });
    createLogger({ destination: out }).error({ err, cluster: 'member1', detail: { path, list: [path] } }, 'sync failed');
    const [line] = out.lines();
    expect(out.text().length).toBeLessThan(MAX_LOG_LINE_CHARS);
    expect(line).toMatchObject({ level: 50, msg: 'sync failed', cluster: 'member1' });
    const detail = line?.detail as { path: string; list: string[] };
    expect(detail.path).toHaveLength(MAX_LOGGED_STRING_CHARS + `… (${path.length - MAX_LOGGED_STRING_CHARS} more characters)`.length);
    expect(detail.list[0]).toBe(detail.path);
    const logged = line?.err as { message: string; path: string };
    expect(logged.message.length).toBeLessThan(MAX_LOGGED_STRING_CHARS + 100);
    expect(logged.path).toBe(detail.path);
  });

  it('replaces a line over the cap by one that names its level, time, message and length', () => {
    const out = memory();
    const fields = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, 'x'.repeat(MAX_LOGGED_STRING_CHARS)]));
    createLogger({ destination: out }).warn(fields, 'many fields');
    const [line] = out.lines();
    expect(out.text().length).toBeLessThanOrEqual(MAX_LOG_LINE_CHARS);
    expect(line).toMatchObject({ level: 40, msg: 'many fields' });
    expect(line?.time).toEqual(expect.any(String));
    expect(line?.lineChars).toBeGreaterThan(40 * MAX_LOGGED_STRING_CHARS);
    expect(line?.line).toEqual(expect.stringContaining('"f0":"xxx'));
  });

  it('masks a password before it cuts a line, wherever the password stands', () => {
    const out = memory();
    const fields = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, `redis://u:pw${i}@h ${'x'.repeat(4000)}`]));
    createLogger({ destination: out }).warn(fields, 'many urls');
    expect(out.text()).not.toMatch(/pw\d/);
  });
});
