import { pino, stdSerializers, type LoggerOptions as PinoOptions } from 'pino';

/**
 * Structured log fields. Use the fixed vocabulary: `controller`, `cluster`, `kind`, `namespace`,
 * `name`, `queue`, `jobId`, `attempt`, `durationMs`, `err` (plus `reconcileId` per reconcile).
 */
export type LogFields = Record<string, unknown>;

/** A structured logger: a constant message, variable data in fields. Backed by pino. */
export interface Logger {
  trace(fields: LogFields, msg: string): void;
  trace(msg: string): void;
  debug(fields: LogFields, msg: string): void;
  debug(msg: string): void;
  info(fields: LogFields, msg: string): void;
  info(msg: string): void;
  warn(fields: LogFields, msg: string): void;
  warn(msg: string): void;
  error(fields: LogFields, msg: string): void;
  error(msg: string): void;
  fatal(fields: LogFields, msg: string): void;
  fatal(msg: string): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

/** Log levels, most verbose first. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** A sink for JSON log lines (e.g. an in-memory stream in tests). */
export interface LogDestination {
  write(line: string): unknown;
}

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Minimum level written; default `'info'`. */
  level?: LogLevel;
  /** Human-readable output through pino-pretty (a dependency of this package, so it is in the image) instead of JSON lines; default false. Ignored when `destination` is set. */
  pretty?: boolean;
  /** Where JSON lines go; default stdout. */
  destination?: LogDestination;
  /** Fields on every line (e.g. `{ component: 'controller-manager' }`). */
  base?: LogFields;
}

const SECRET_KEYS = ['token', 'bearerToken', 'password', '"client-key-data"', 'clientKeyData', 'authorization', 'Authorization', 'stringData'];

/**
 * Paths pino removes from every line: tokens, bearer headers, kubeconfig credentials and Secret
 * payloads, at the top level and up to three levels down (fast-redact `*` matches one level).
 */
export const REDACT_PATHS: readonly string[] = (() => {
  const paths: string[] = [];
  const prefixes = ['', '*.', '*.*.', '*.*.*.'];
  for (const prefix of prefixes) for (const key of SECRET_KEYS) paths.push(key.startsWith('"') ? `${prefix}[${key}]` : `${prefix}${key}`);
  for (const prefix of prefixes) paths.push(`${prefix}headers.authorization`, `${prefix}headers.Authorization`);
  for (const users of ['users[*].user', 'kubeconfig.users[*].user']) {
    paths.push(`${users}.token`, `${users}["client-key-data"]`, `${users}.password`);
  }
  return paths.map((p) => p.replace('.[', '['));
})();

const REDACTED = '[Redacted]';

/** Hides `data` and `stringData` of Secret objects logged under common field names. */
function redactSecret(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || (value as { kind?: unknown }).kind !== 'Secret') return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if ('data' in copy) copy.data = REDACTED;
  if ('stringData' in copy) copy.stringData = REDACTED;
  return copy;
}

const secretAwareFields = ['obj', 'object', 'old', 'new', 'secret', 'resource', 'desired', 'current'];

/**
 * Creates the root logger of a process or test: JSON lines by default, `pretty` on request,
 * with the redaction of {@link REDACT_PATHS} and Secret payloads.
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const serializers: Record<string, (v: unknown) => unknown> = { err: stdSerializers.err as (v: unknown) => unknown };
  for (const field of secretAwareFields) serializers[field] = redactSecret;
  const opts: PinoOptions = {
    level: options.level ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    serializers,
    base: options.base ?? {},
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (options.destination !== undefined) return pino(opts, options.destination);
  if (options.pretty === true) return pino({ ...opts, transport: { target: 'pino-pretty', options: { colorize: true } } });
  return pino(opts);
}

/** A logger that writes nothing (the default when no logger is given). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
