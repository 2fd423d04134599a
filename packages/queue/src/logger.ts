/**
 * The logging interface this package writes to: the subset of pino's `Logger` it uses, so a
 * pino logger (or a child of one) can be passed as is. Messages are constant strings; data
 * goes into the first argument (`queue`, `cluster`, `jobId`, `attempt`, `err`, ...).
 */
export interface QueueLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  child(bindings: Record<string, unknown>): QueueLogger;
}

/** A logger that discards everything: the default wherever a logger is optional. */
export const silentLogger: QueueLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
