import { boundText } from '@kubefed/api';

/**
 * The most characters of one string in a log line (a field, an error's message or stack). Errors
 * and fields may quote what a tenant or a member wrote: an override path, a member's Status
 * message, an admission webhook's denial.
 */
export const MAX_LOGGED_STRING_CHARS = 4096;

/** The most characters of one whole log line; a longer line is replaced by {@link boundLogLine}. */
export const MAX_LOG_LINE_CHARS = 32_768;

/** How much of a replaced line is kept, in its `line` field. */
const KEPT_LINE_CHARS = 4096;

/** Nesting followed when bounding fields; deeper values are kept as they are (the line cap still holds). */
const MAX_FIELD_DEPTH = 6;

/**
 * `value` with every string longer than {@link MAX_LOGGED_STRING_CHARS} bounded, through plain
 * objects and arrays up to {@link MAX_FIELD_DEPTH} levels. Errors and other class instances are
 * left to their serializers. Returns `value` itself when nothing needed bounding.
 */
export function boundLogFields<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return (value.length > MAX_LOGGED_STRING_CHARS ? boundText(value, MAX_LOGGED_STRING_CHARS) : value) as T;
  if (value === null || typeof value !== 'object' || depth >= MAX_FIELD_DEPTH) return value;
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    let copy: unknown[] | undefined;
    items.forEach((item, i) => {
      const bounded = boundLogFields(item, depth + 1);
      if (bounded !== item) (copy ??= [...items])[i] = bounded;
    });
    return (copy ?? value) as T;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const bounded = boundLogFields(item, depth + 1);
    if (bounded !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = bounded;
  }
  return (copy ?? value) as T;
}

/**
 * `line` (one JSON log line) itself when it has at most {@link MAX_LOG_LINE_CHARS} characters;
 * else a JSON line of its own with the original level, time and message, `lineChars` (the
 * original length) and `line` (its first characters as a string), so a reader of JSON lines
 * still parses every line.
 */
export function boundLogLine(line: string): string {
  if (line.length <= MAX_LOG_LINE_CHARS) return line;
  const replaced: Record<string, unknown> = {
    level: jsonField(line.slice(0, 64), /^\{"level":(\d+|"[a-z]+")/),
    time: jsonField(line.slice(0, 128), /"time":("[^"]*"|\d+)/),
    msg: lastMessage(line),
    lineChars: line.length,
    line: boundText(line, KEPT_LINE_CHARS),
  };
  return `${JSON.stringify(replaced)}\n`;
}

function jsonField(text: string, pattern: RegExp): unknown {
  const raw = pattern.exec(text)?.[1];
  return raw === undefined ? undefined : JSON.parse(raw);
}

/** pino writes `msg` last: `…,"msg":"reconcile failed"}`. */
function lastMessage(line: string): string | undefined {
  const at = line.lastIndexOf(',"msg":');
  if (at < 0) return undefined;
  const end = line.lastIndexOf('}');
  try {
    const msg: unknown = JSON.parse(line.slice(at + ',"msg":'.length, end));
    return typeof msg === 'string' ? boundText(msg) : undefined;
  } catch {
    return undefined;
  }
}
