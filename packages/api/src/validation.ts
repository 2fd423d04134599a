/**
 * Validation plumbing shared by every kind: turning zod issues into field-path issues,
 * collecting semantic issues, and the Kubernetes name/label/duration checks.
 */
import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from './errors.js';

/** Outcome of validating an object: the typed value, or every problem found. */
export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T; readonly issues: readonly [] }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/** Formats a path like `['spec', 'overrides', 1, 'op']` as `spec.overrides[1].op`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      out += out === '' ? s : `.${s}`;
    }
  }
  return out;
}

/** Joins a base path and a child segment (`a` + `b` → `a.b`, `a` + 0 → `a[0]`). */
export function childPath(base: string, seg: string | number): string {
  if (typeof seg === 'number') return `${base}[${seg}]`;
  return base === '' ? seg : `${base}.${seg}`;
}

const article = (word: string): string => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

function messageFor(iss: z.core.$ZodRawIssue): string | undefined {
  switch (iss.code) {
    case 'invalid_type': {
      if (iss.input === undefined) return 'Required value';
      const expected = String(iss.expected);
      if (expected === 'record') return 'must be an object';
      if (expected === 'int') return 'must be an integer';
      return `must be ${article(expected)}`;
    }
    case 'invalid_value': {
      const values = iss.values.map((v) => (v === '' ? '""' : String(v)));
      return values.length === 1 ? `must be ${values[0] ?? ''}` : `must be one of ${values.join(', ')}`;
    }
    case 'too_small':
      return iss.origin === 'array' || iss.origin === 'string'
        ? `must have at least ${String(iss.minimum)} ${iss.origin === 'array' ? 'items' : 'characters'}`
        : `must be greater than ${iss.inclusive === true ? 'or equal to ' : ''}${String(iss.minimum)}`;
    case 'too_big':
      return iss.origin === 'array' || iss.origin === 'string'
        ? `must have at most ${String(iss.maximum)} ${iss.origin === 'array' ? 'items' : 'characters'}`
        : `must be less than ${iss.inclusive === true ? 'or equal to ' : ''}${String(iss.maximum)}`;
    default:
      return undefined;
  }
}

/** Runs a zod schema and returns its issues with our field paths and messages (empty when valid). */
function shapeIssues(schema: z.ZodType, value: unknown): { issues: ValidationIssue[]; data?: unknown } {
  const result = schema.safeParse(value, { error: messageFor });
  if (result.success) return { issues: [], data: result.data };
  return { issues: result.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })) };
}

/** Accumulates issues found by semantic checks. */
export class IssueCollector {
  readonly issues: ValidationIssue[] = [];
  add(path: string, message: string): void {
    this.issues.push({ path, message });
  }
}

/**
 * Validates `value` with `schema` (shape) and `semantic` (rules the schema cannot express),
 * reporting every issue of both. `semantic` receives the raw input and must tolerate fields of
 * the wrong type (the shape check reports those).
 */
export function validateWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  semantic?: (raw: unknown, out: IssueCollector) => void,
): ValidationResult<z.output<S>> {
  const shape = shapeIssues(schema, value);
  const out = new IssueCollector();
  semantic?.(value, out);
  const seen = new Set(shape.issues.map((i) => `${i.path}\u0000${i.message}`));
  const issues = [...shape.issues, ...out.issues.filter((i) => !seen.has(`${i.path}\u0000${i.message}`))];
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: shape.data as z.output<S>, issues: [] };
}

/** Returns the value of a successful result or throws a {@link ValidationError} naming `subject`. */
export function unwrap<T>(result: ValidationResult<T>, subject: string): T {
  if (result.ok) return result.value;
  throw new ValidationError(subject, result.issues);
}

/** Describes an object for error messages: `Kind "ns/name"` (or just the kind when unnamed). */
export function describeObject(kind: string, raw: unknown): string {
  const meta = field(raw, 'metadata');
  const name = field(meta, 'name');
  const ns = field(meta, 'namespace');
  if (typeof name !== 'string' || name === '') return kind;
  return typeof ns === 'string' && ns !== '' ? `${kind} "${ns}/${name}"` : `${kind} "${name}"`;
}

/** Reads `obj[key]` when `obj` is a plain object, else `undefined`. */
export function field(obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  return (obj as Record<string, unknown>)[key];
}

/** `value` as a plain object, or `undefined`. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `value` as an array, or an empty array when it is not one. */
export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** True for a DNS-1123 label: at most 63 lowercase alphanumerics or `-`, alphanumeric at both ends. */
export function isDns1123Label(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}

/** True for a DNS-1123 subdomain: at most 253 characters, dot-separated DNS-1123 labels. */
export function isDns1123Subdomain(s: string): boolean {
  return s.length > 0 && s.length <= 253 && s.split('.').every((l) => DNS1123_LABEL.test(l));
}

/** True for a DNS-1035 label: like DNS-1123 but starting with a letter. */
export function isDns1035Label(s: string): boolean {
  return s.length <= 63 && DNS1035_LABEL.test(s);
}

/**
 * Problems with a label key (a Kubernetes qualified name: optional DNS-1123 subdomain prefix
 * and `/`, then a name of at most 63 characters). Empty array when valid.
 */
export function labelKeyProblems(key: string): string[] {
  const parts = key.split('/');
  let name = key;
  const problems: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '') problems.push('prefix part must be non-empty');
    else if (!isDns1123Subdomain(prefix)) problems.push('prefix part must be a lowercase DNS-1123 subdomain of at most 253 characters');
  } else if (parts.length > 2) {
    return ['a qualified name must consist of an optional prefix, a "/" and a name'];
  }
  if (name === '') problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  else if (!QUALIFIED_NAME.test(name))
    problems.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    );
  return problems;
}

/** Problems with a label value (empty, or at most 63 characters of `[A-Za-z0-9_.-]`, alphanumeric at both ends). */
export function labelValueProblems(value: string): string[] {
  if (value === '') return [];
  if (value.length > 63) return ['must be no more than 63 characters'];
  if (!QUALIFIED_NAME.test(value))
    return [
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    ];
  return [];
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration string (`1500ms`, `1m0s`, `-2h45m`, `0`) into milliseconds.
 * Returns `undefined` when the string is not a valid Go duration.
 */
export function parseGoDuration(s: string): number | undefined {
  const m = /^([-+]?)(.*)$/.exec(s);
  if (m === null) return undefined;
  const sign = m[1] === '-' ? -1 : 1;
  const body = m[2] ?? '';
  if (body === '0') return 0;
  if (body === '') return undefined;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < body.length) {
    re.lastIndex = pos;
    const part = re.exec(body);
    if (part === null) return undefined;
    total += Number(part[1]) * (DURATION_UNITS[part[2] ?? ''] ?? Number.NaN);
    pos = re.lastIndex;
  }
  return Number.isFinite(total) ? sign * total : undefined;
}

/**
 * Formats milliseconds as Go's `time.Duration.String()` does (`20s`, `1m0s`, `5m0s`, `1.5s`, `500ms`).
 */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < 1000) {
    out = rest >= 1 ? `${trimNumber(rest)}ms` : rest >= 1e-3 ? `${trimNumber(rest * 1e3)}µs` : `${trimNumber(rest * 1e6)}ns`;
  } else {
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    const s = `${trimNumber(rest / 1000)}s`;
    out = h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s;
  }
  return neg ? `-${out}` : out;
}

function trimNumber(n: number): string {
  return String(Number(n.toFixed(9)));
}

/**
 * Parses `value` with any zod schema, throwing a {@link ValidationError} naming `subject` and
 * listing every shape problem with its field path. For boundaries outside the KubeFed kinds
 * (job payloads, config files).
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, subject: string): z.output<S> {
  return unwrap(validateWith(schema, value), subject);
}
