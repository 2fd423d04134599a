import { describe, expect, it } from 'vitest';
import { createLogger, type LogDestination } from './logger.js';

function memory(): LogDestination & { lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  return {
    write: (line: string) => chunks.push(line),
    text: () => chunks.join(''),
    lines: () => chunks.join('').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>),
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
    ['a Secret object data', { obj: { kind: 'Secret', metadata: { name: 's' }, data: { token: Buffer.from(SECRET).toString('base64'), other: SECRET } } }],
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
});
