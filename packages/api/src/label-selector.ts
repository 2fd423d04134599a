/**
 * Kubernetes label selectors: the string form of `?labelSelector=` (parse, print), LabelSelector
 * objects (validate, convert), and matching labels against both, with Kubernetes semantics
 * (an empty selector matches everything; an absent LabelSelector matches nothing).
 */
import { formatIssues, LabelSelectorError, type ValidationIssue } from './errors.js';
import type { LabelSelector } from './meta.js';
import { asArray, asRecord, childPath, field, labelKeyProblems, labelValueProblems } from './validation.js';

/** Operators of a parsed selector requirement. */
export type SelectorOperator =
  'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Equals' | 'DoubleEquals' | 'NotEquals' | 'GreaterThan' | 'LessThan';

/** One requirement of a parsed selector. `values` is empty for Exists/DoesNotExist, one value for =, ==, !=, >, <. */
export interface SelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

/**
 * A parsed selector: the AND of its requirements, sorted by key. `matchesNothing` marks the
 * selector of an absent LabelSelector, which selects nothing.
 */
export interface Selector {
  readonly requirements: readonly SelectorRequirement[];
  readonly matchesNothing: boolean;
}

/** The selector that matches every label set. */
export const EVERYTHING: Selector = Object.freeze({ requirements: Object.freeze([]), matchesNothing: false });
/** The selector that matches no label set. */
export const NOTHING: Selector = Object.freeze({ requirements: Object.freeze([]), matchesNothing: true });

type TokenKind = 'ident' | '(' | ')' | ',' | '=' | '==' | '!=' | '!' | '>' | '<' | 'end';
interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly pos: number;
}

const SPECIAL = new Set(['(', ')', ',', '=', '!', '<', '>']);

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input.charAt(i);
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const two = input.slice(i, i + 2);
    if (two === '==' || two === '!=') {
      tokens.push({ kind: two, text: two, pos: i });
      i += 2;
    } else if (SPECIAL.has(c)) {
      tokens.push({ kind: c as TokenKind, text: c, pos: i });
      i++;
    } else {
      const start = i;
      while (i < input.length && !SPECIAL.has(input.charAt(i)) && !/\s/.test(input.charAt(i))) i++;
      tokens.push({ kind: 'ident', text: input.slice(start, i), pos: start });
    }
  }
  tokens.push({ kind: 'end', text: '', pos: input.length });
  return tokens;
}

const describe = (t: Token): string => (t.kind === 'end' ? 'end of input' : JSON.stringify(t.text));

/**
 * Parses the string form of a label selector, e.g. `a=b,a==b,c!=d,e in (f,g),h notin (i),j,!k`
 * (also `l>5`, `l<5`). Whitespace is allowed around tokens. An empty string selects everything.
 *
 * @throws LabelSelectorError naming the position and the problem (unexpected token, missing
 *   value, invalid key or value).
 */
export function parseSelector(input: string): Selector {
  const tokens = lex(input);
  let at = 0;
  const peek = (): Token => tokens[at] ?? { kind: 'end', text: '', pos: input.length };
  const next = (): Token => {
    const t = peek();
    if (at < tokens.length - 1) at++;
    return t;
  };
  const fail = (t: Token, problem: string): never => {
    throw new LabelSelectorError(`invalid label selector ${JSON.stringify(input)}: at position ${t.pos}: ${problem}`);
  };
  const checkKey = (t: Token): string => {
    const problems = labelKeyProblems(t.text);
    if (problems.length > 0) fail(t, `invalid label key ${JSON.stringify(t.text)}: ${problems.join('; ')}`);
    return t.text;
  };
  const checkValue = (t: Token): string => {
    const problems = labelValueProblems(t.text);
    if (problems.length > 0) fail(t, `invalid label value ${JSON.stringify(t.text)}: ${problems.join('; ')}`);
    return t.text;
  };
  const exactValue = (): string => {
    const t = peek();
    if (t.kind === 'end' || t.kind === ',') return '';
    if (t.kind !== 'ident') fail(t, `expected a value, found ${describe(t)}`);
    return checkValue(next());
  };
  const valueSet = (op: string): string[] => {
    const open = next();
    if (open.kind !== '(') fail(open, `expected "(" after "${op}", found ${describe(open)}`);
    const values: string[] = [];
    if (peek().kind === ')') fail(peek(), `values set for "${op}" must not be empty`);
    for (;;) {
      const v = next();
      if (v.kind !== 'ident') fail(v, `expected a value, found ${describe(v)}`);
      values.push(checkValue(v));
      const sep = next();
      if (sep.kind === ')') return values;
      if (sep.kind !== ',') fail(sep, `expected "," or ")", found ${describe(sep)}`);
    }
  };

  const requirements: SelectorRequirement[] = [];
  if (peek().kind === 'end') return EVERYTHING;
  for (;;) {
    const t = next();
    if (t.kind === '!') {
      const k = next();
      if (k.kind !== 'ident') fail(k, `expected a label key after "!", found ${describe(k)}`);
      requirements.push({ key: checkKey(k), operator: 'DoesNotExist', values: [] });
    } else if (t.kind === 'ident') {
      const key = checkKey(t);
      const op = peek();
      if (op.kind === 'end' || op.kind === ',') requirements.push({ key, operator: 'Exists', values: [] });
      else if (op.kind === '=' || op.kind === '==' || op.kind === '!=') {
        next();
        const operator = op.kind === '=' ? 'Equals' : op.kind === '==' ? 'DoubleEquals' : 'NotEquals';
        requirements.push({ key, operator, values: [exactValue()] });
      } else if (op.kind === '>' || op.kind === '<') {
        next();
        const v = next();
        if (v.kind !== 'ident' || !/^-?\d+$/.test(v.text)) fail(v, `expected an integer after "${op.kind}", found ${describe(v)}`);
        requirements.push({ key, operator: op.kind === '>' ? 'GreaterThan' : 'LessThan', values: [v.text] });
      } else if (op.kind === 'ident' && (op.text === 'in' || op.text === 'notin')) {
        next();
        requirements.push({ key, operator: op.text === 'in' ? 'In' : 'NotIn', values: valueSet(op.text) });
      } else {
        fail(
          op,
          `expected an operator (=, ==, !=, in, notin, >, <), "," or end of input after key ${JSON.stringify(key)}, found ${describe(op)}`,
        );
      }
    } else {
      fail(t, `expected a label key or "!", found ${describe(t)}`);
    }
    const sep = next();
    if (sep.kind === 'end') break;
    if (sep.kind !== ',') fail(sep, `expected "," or end of input, found ${describe(sep)}`);
    if (peek().kind === 'end') fail(peek(), 'expected a requirement after ","');
  }
  return { requirements: sortByKey(requirements), matchesNothing: false };
}

function sortByKey(reqs: SelectorRequirement[]): SelectorRequirement[] {
  return reqs
    .map((r, i) => [r, i] as const)
    .sort(([a, i], [b, j]) => (a.key < b.key ? -1 : a.key > b.key ? 1 : i - j))
    .map(([r]) => r);
}

/** Whether one requirement holds for `labels`. */
export function matchesRequirement(req: SelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const value = has ? labels[req.key] : undefined;
  switch (req.operator) {
    case 'In':
    case 'Equals':
    case 'DoubleEquals':
      return value !== undefined && req.values.includes(value);
    case 'NotIn':
    case 'NotEquals':
      return value === undefined || !req.values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'GreaterThan':
    case 'LessThan': {
      if (value === undefined || !/^-?\d+$/.test(value)) return false;
      const bound = Number(req.values[0]);
      return req.operator === 'GreaterThan' ? Number(value) > bound : Number(value) < bound;
    }
  }
}

/** Whether `labels` (absent = no labels) satisfy every requirement of `selector`. */
export function matchesSelector(selector: Selector, labels: Readonly<Record<string, string>> | undefined): boolean {
  if (selector.matchesNothing) return false;
  const l = labels ?? {};
  return selector.requirements.every((r) => matchesRequirement(r, l));
}

const OPERATOR_TEXT: Record<SelectorOperator, string> = {
  In: ' in ',
  NotIn: ' notin ',
  Exists: '',
  DoesNotExist: '',
  Equals: '=',
  DoubleEquals: '==',
  NotEquals: '!=',
  GreaterThan: '>',
  LessThan: '<',
};

/** Prints a selector in the string form `parseSelector` reads (values of in/notin sorted). `""` for everything. */
export function selectorToString(selector: Selector): string {
  return selector.requirements
    .map((r) => {
      if (r.operator === 'Exists') return r.key;
      if (r.operator === 'DoesNotExist') return `!${r.key}`;
      if (r.operator === 'In' || r.operator === 'NotIn') return `${r.key}${OPERATOR_TEXT[r.operator]}(${[...r.values].sort().join(',')})`;
      return `${r.key}${OPERATOR_TEXT[r.operator]}${r.values[0] ?? ''}`;
    })
    .join(',');
}

const OBJECT_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/**
 * Problems of a LabelSelector object (raw input tolerated): label keys/values, operators
 * In/NotIn/Exists/DoesNotExist, In/NotIn need values, Exists/DoesNotExist take none.
 * Paths are prefixed by `basePath`.
 */
export function validateLabelSelector(selector: unknown, basePath = ''): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (path: string, message: string): void => {
    issues.push({ path, message });
  };
  const matchLabels = asRecord(field(selector, 'matchLabels'));
  for (const [k, v] of Object.entries(matchLabels ?? {})) {
    const path = childPath(childPath(basePath, 'matchLabels'), k);
    for (const p of labelKeyProblems(k)) add(path, `invalid label key: ${p}`);
    if (typeof v === 'string') for (const p of labelValueProblems(v)) add(path, `invalid label value ${JSON.stringify(v)}: ${p}`);
  }
  asArray(field(selector, 'matchExpressions')).forEach((e, i) => {
    const path = childPath(childPath(basePath, 'matchExpressions'), i);
    const key = field(e, 'key');
    if (typeof key === 'string') for (const p of labelKeyProblems(key)) add(`${path}.key`, `invalid label key: ${p}`);
    const op = field(e, 'operator');
    const values = field(e, 'values');
    const count = Array.isArray(values) ? values.length : 0;
    if (typeof op === 'string') {
      if (!OBJECT_OPERATORS.includes(op)) add(`${path}.operator`, `must be one of ${OBJECT_OPERATORS.join(', ')}`);
      else if ((op === 'In' || op === 'NotIn') && count === 0) add(`${path}.values`, `must be specified when operator is ${op}`);
      else if ((op === 'Exists' || op === 'DoesNotExist') && count > 0)
        add(`${path}.values`, `may not be specified when operator is ${op}`);
    }
    asArray(values).forEach((v, j) => {
      if (typeof v === 'string') for (const p of labelValueProblems(v)) add(`${path}.values[${j}]`, `invalid label value: ${p}`);
    });
  });
  return issues;
}

/**
 * Converts a LabelSelector object to a {@link Selector}, as Kubernetes' LabelSelectorAsSelector:
 * absent (`undefined`/`null`) selects nothing; `{}` selects everything; otherwise matchLabels
 * (as `=`) AND matchExpressions.
 *
 * @throws LabelSelectorError listing every problem (see {@link validateLabelSelector}).
 */
export function labelSelectorToSelector(selector: LabelSelector | null | undefined): Selector {
  if (selector === null || selector === undefined) return NOTHING;
  const issues = validateLabelSelector(selector);
  if (issues.length > 0) throw new LabelSelectorError(`invalid label selector: ${formatIssues(issues)}`);
  const reqs: SelectorRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) reqs.push({ key, operator: 'Equals', values: [value] });
  for (const e of selector.matchExpressions ?? [])
    reqs.push({ key: e.key, operator: e.operator as SelectorOperator, values: [...(e.values ?? [])] });
  return { requirements: sortByKey(reqs), matchesNothing: false };
}

/**
 * Whether `labels` match a LabelSelector object (absent selector: nothing matches; `{}`: everything).
 *
 * @throws LabelSelectorError when the selector is invalid.
 */
export function matchesLabelSelector(
  selector: LabelSelector | null | undefined,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return matchesSelector(labelSelectorToSelector(selector), labels);
}

/**
 * The string form of a LabelSelector object (e.g. for a `labelSelector` query parameter):
 * requirements sorted by key, in/notin values sorted; `{}` gives `""`.
 *
 * @throws LabelSelectorError when the selector is invalid.
 */
export function labelSelectorToString(selector: LabelSelector): string {
  return selectorToString(labelSelectorToSelector(selector));
}
