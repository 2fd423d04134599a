import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { silentLogger, type QueueLogger } from './logger.js';

describe('QueueLogger', () => {
  it('accepts a pino logger as is', () => {
    const lines: string[] = [];
    const logger: QueueLogger = pino({ base: null, timestamp: false }, { write: (line: string) => void lines.push(line) });
    logger.child({ queue: 'kubefed-sync.c1' }).warn({ cluster: 'c1' }, 'sync queue error');
    expect(JSON.parse(lines[0]!)).toMatchObject({ queue: 'kubefed-sync.c1', cluster: 'c1', msg: 'sync queue error' });
  });

  it('stays silent by default, children included', () => {
    expect(silentLogger.child({ a: 1 })).toBe(silentLogger);
    expect(() => silentLogger.error({}, 'ignored')).not.toThrow();
  });
});
