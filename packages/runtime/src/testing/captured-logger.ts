import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../logger.js';

/** A logger whose JSON lines are kept in `lines`, parsed, for tests that check what was logged. */
export function capturedLogger(): { lines: Record<string, unknown>[]; logger: Logger } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ destination }) };
}
