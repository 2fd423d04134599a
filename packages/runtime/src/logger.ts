import { redactCredentials } from '@kubefed/client';
import { pino, stdSerializers, type Logger as PinoLogger, type LoggerOptions as PinoOptions } from 'pino';
import { boundLogFields, boundLogLine } from './bounded-log-line.js';

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

const SECRET_KEYS = [
  'token',
  'bearerToken',
  'password',
  '"client-key-data"',
  'clientKeyData',
  'authorization',
  'Authorization',
  '"proxy-authorization"',
  '"Proxy-Authorization"',
  'proxyAuthorization',
  'stringData',
];

/**
 * Paths pino removes from every line: tokens, bearer and proxy authorization headers, kubeconfig
 * credentials and Secret payloads, at the top level and up to three levels down (fast-redact `*`
 * matches one level). Credentials inside strings (URLs, error messages) are masked on the whole
 * line by {@link createLogger}, and the arguments of failed Redis commands by its `err` serializer.
 */
export const REDACT_PATHS: readonly string[] = (() => {
  const paths: string[] = [];
  const prefixes = ['', '*.', '*.*.', '*.*.*.'];
  for (const prefix of prefixes) for (const key of SECRET_KEYS) paths.push(key.startsWith('"') ? `${prefix}[${key}]` : `${prefix}${key}`);
  for (const prefix of prefixes) {
    paths.push(
      `${prefix}headers.authorization`,
      `${prefix}headers.Authorization`,
      `${prefix}headers["proxy-authorization"]`,
      `${prefix}headers["Proxy-Authorization"]`,
    );
  }
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

/** Nesting followed when walking an error for credentials; deeper values are replaced. */
const MAX_ERROR_DEPTH = 8;

interface FailedCommand {
  name?: unknown;
  args: unknown[];
}

const isFailedCommand = (v: unknown): v is FailedCommand =>
  typeof v === 'object' && v !== null && Array.isArray((v as { args?: unknown }).args);

/**
 * The arguments of a failed command that are credentials: Redis clients (ioredis) attach the
 * command to its error, and a failed login is `AUTH [user] <password>` or
 * `HELLO <protover> AUTH <user> <password>`.
 */
function credentialArgs(command: FailedCommand): string[] {
  const name = String(command.name).toLowerCase();
  const args = command.args.map((a) => String(a));
  if (name === 'auth') return args.slice(-1);
  const auth = args.findIndex((a) => a.toUpperCase() === 'AUTH');
  return name === 'hello' && auth >= 0 ? args.slice(auth + 2, auth + 3) : [];
}

/** Collects the credential arguments of every failed command in `value`: its causes, aggregated errors and fields. */
function collectCredentials(value: unknown, into: Set<string>, depth = 0, seen = new WeakSet<object>()): void {
  if (value === null || typeof value !== 'object' || depth > MAX_ERROR_DEPTH || seen.has(value)) return;
  seen.add(value);
  const record = value as Record<string, unknown>;
  if (isFailedCommand(record.command)) for (const secret of credentialArgs(record.command)) if (secret !== '') into.add(secret);
  for (const key of new Set([...Object.keys(record), 'cause', 'errors'])) collectCredentials(record[key], into, depth + 1, seen);
}

/**
 * A copy of a serialized error in which the arguments of every failed command are replaced by
 * `[Redacted]` (their name is kept) and the credentials among them are masked in every string
 * (a server may echo them into a message).
 */
function withoutCommandArgs(value: unknown, secrets: readonly string[], depth = 0, seen = new Set<object>()): unknown {
  if (typeof value === 'string') return boundLogFields(secrets.reduce((text, secret) => text.split(secret).join(REDACTED), value));
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_ERROR_DEPTH) return '[Too deep]';
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  try {
    if (value instanceof Error) return withoutCommandArgs(stdSerializers.err(value), secrets, depth + 1, seen);
    if (Array.isArray(value)) return value.map((v: unknown) => withoutCommandArgs(v, secrets, depth + 1, seen));
    const copy: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) copy[key] = withoutCommandArgs(v, secrets, depth + 1, seen);
    if (isFailedCommand((value as { command?: unknown }).command)) copy.command = { ...(copy.command as object), args: REDACTED };
    return copy;
  } finally {
    // Only the ancestors count: an object referenced twice is not a cycle.
    seen.delete(value);
  }
}

/**
 * pino's error serializer (type, message and stack with those of the causes, own fields), minus
 * the arguments of failed commands: ioredis attaches `HELLO 3 AUTH default <password>` to the
 * error of a failed login, and any command's arguments to a connection error.
 */
function serializeError(value: unknown): unknown {
  const secrets = new Set<string>();
  collectCredentials(value, secrets);
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  const serialized = stdSerializers.err(value as Error);
  if (value instanceof Error && typeof serialized.message === 'string') serialized.message = messageWithNewCauses(value);
  return withoutCommandArgs(serialized, ordered);
}

/**
 * The message of `err` followed by `: <message>` of each cause in its chain whose message it
 * does not already contain. pino's serializer appends every cause's message, and our errors
 * usually name their cause's message themselves, which printed it twice.
 */
function messageWithNewCauses(err: Error): string {
  let message = err.message;
  const seen = new Set<unknown>([err]);
  for (let cause: unknown = err.cause; cause instanceof Error && !seen.has(cause); cause = cause.cause) {
    seen.add(cause);
    if (cause.message !== '' && !message.includes(cause.message)) message = `${message}: ${cause.message}`;
  }
  return message;
}

/**
 * Creates the root logger of a process or test: JSON lines by default, `pretty` on request,
 * with the redaction of {@link REDACT_PATHS} and Secret payloads, errors (`err`, `error`)
 * without the arguments of failed Redis commands, and every line passed through
 * `redactCredentials` (URL passwords, `?password=`, authorization values in text), whichever
 * field, message or binding carries them. Strings in fields and errors are bounded to
 * `MAX_LOGGED_STRING_CHARS` and whole lines to `MAX_LOG_LINE_CHARS` (see `boundLogLine`).
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const serializers: Record<string, (v: unknown) => unknown> = { err: serializeError, error: serializeError };
  for (const field of secretAwareFields) serializers[field] = redactSecret;
  const opts: PinoOptions = {
    level: options.level ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    serializers,
    formatters: { log: boundLogFields },
    // Redaction first: a cut line could end inside a password, and the redaction's time is linear.
    hooks: { streamWrite: (line) => boundLogLine(redactCredentials(line)) },
    base: options.base ?? {},
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (options.destination !== undefined) return DeferredLogger.root(pino(opts, options.destination));
  if (options.pretty === true)
    return DeferredLogger.root(pino({ ...opts, transport: { target: 'pino-pretty', options: { colorize: true } } }));
  return DeferredLogger.root(pino(opts));
}

/** A logger that writes nothing (the default when no logger is given). */
export function silentLogger(): Logger {
  return DeferredLogger.root(pino({ level: 'silent' }));
}

type Level = Exclude<LogLevel, 'silent'>;
type LogArgs = [fields: LogFields, msg: string] | [msg: string];

/**
 * A pino logger whose children are made when they first write a line. A child per reconcile
 * and per sync job is the rule, and most of them write nothing: pino's `child` serializes the
 * bindings and runs the redaction over them at once, which was a quarter of what the controller
 * manager allocated during a bulk propagation (docs/development/performance-notes.md). A line below the level
 * makes no child either.
 */
class DeferredLogger implements Logger {
  #made: PinoLogger | undefined;

  private constructor(
    private readonly rootLogger: PinoLogger,
    private readonly make: () => PinoLogger,
  ) {}

  static root(logger: PinoLogger): Logger {
    const root = new DeferredLogger(logger, () => logger);
    root.#made = logger;
    return root;
  }

  trace(...args: LogArgs): void {
    this.#write('trace', args);
  }
  debug(...args: LogArgs): void {
    this.#write('debug', args);
  }
  info(...args: LogArgs): void {
    this.#write('info', args);
  }
  warn(...args: LogArgs): void {
    this.#write('warn', args);
  }
  error(...args: LogArgs): void {
    this.#write('error', args);
  }
  fatal(...args: LogArgs): void {
    this.#write('fatal', args);
  }

  child(fields: LogFields): Logger {
    return new DeferredLogger(this.rootLogger, () => this.#logger().child(fields));
  }

  #write(level: Level, args: LogArgs): void {
    if (!this.rootLogger.isLevelEnabled(level)) return;
    const logger = this.#logger();
    if (args.length === 1) logger[level](args[0]);
    else logger[level](args[0], args[1]);
  }

  #logger(): PinoLogger {
    return (this.#made ??= this.make());
  }
}
