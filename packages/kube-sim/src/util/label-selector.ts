/**
 * Label-selector parsing and matching, written independently of the product's own selector code
 * on purpose: the simulator must not share code with what it tests, so that a bug in one cannot
 * cancel out a bug in the other.
 *
 * Grammar (as kube-apiserver): comma-separated requirements, each one of
 * `key`, `!key`, `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`,
 * `key>N`, `key<N`.
 */

/** One parsed requirement. */
interface LabelRequirement {
  key: string;
  op: 'exists' | 'notexists' | 'eq' | 'neq' | 'in' | 'notin' | 'gt' | 'lt';
  values: string[];
}

/** A parsed selector; an empty one matches everything. */
export type LabelSelector = LabelRequirement[];

/** Thrown for a syntactically invalid selector (the caller turns it into a 400). */
export class SelectorParseError extends Error {}

const keyPattern = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const valuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

type Token = { t: 'id'; v: string } | { t: 'op'; v: string };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    const two = input.slice(i, i + 2);
    if (two === '==' || two === '!=') {
      tokens.push({ t: 'op', v: two });
      i += 2;
      continue;
    }
    if ('=!(),<>'.includes(c)) {
      tokens.push({ t: 'op', v: c });
      i++;
      continue;
    }
    let j = i;
    while (j < input.length && !' \t=!(),<>'.includes(input[j]!)) j++;
    tokens.push({ t: 'id', v: input.slice(i, j) });
    i = j;
  }
  return tokens;
}

function checkKey(key: string): void {
  if (!keyPattern.test(key)) throw new SelectorParseError(`invalid label key "${key}"`);
}
function checkValue(value: string): void {
  if (value.length > 63 || !valuePattern.test(value)) throw new SelectorParseError(`invalid label value: "${value}"`);
}

/** Parses a label selector string; throws {@link SelectorParseError} on bad syntax. */
export function parseLabelSelector(input: string): LabelSelector {
  const tokens = tokenize(input);
  const reqs: LabelSelector = [];
  let i = 0;
  const peek = (): Token | undefined => tokens[i];
  const next = (): Token | undefined => tokens[i++];
  if (tokens.length === 0) return reqs;
  for (;;) {
    let tok = next();
    if (tok === undefined) throw new SelectorParseError("found '', expected: identifier");
    if (tok.t === 'op' && tok.v === '!') {
      const id = next();
      if (id?.t !== 'id') throw new SelectorParseError("found '', expected: identifier after '!'");
      checkKey(id.v);
      reqs.push({ key: id.v, op: 'notexists', values: [] });
    } else if (tok.t === 'id') {
      const key = tok.v;
      checkKey(key);
      const op = peek();
      if (op === undefined || (op.t === 'op' && op.v === ',')) {
        reqs.push({ key, op: 'exists', values: [] });
      } else if (op.t === 'op' && (op.v === '=' || op.v === '==' || op.v === '!=' || op.v === '<' || op.v === '>')) {
        i++;
        const val = peek();
        let value = '';
        if (val?.t === 'id') {
          value = val.v;
          i++;
        }
        if (op.v === '<' || op.v === '>') {
          if (!/^-?\d+$/.test(value)) throw new SelectorParseError(`for 'Gt', 'Lt' operators, the value must be an integer`);
          reqs.push({ key, op: op.v === '<' ? 'lt' : 'gt', values: [value] });
        } else {
          checkValue(value);
          reqs.push({ key, op: op.v === '!=' ? 'neq' : 'eq', values: [value] });
        }
      } else if (op.t === 'id' && (op.v === 'in' || op.v === 'notin')) {
        i++;
        tok = next();
        if (tok?.t !== 'op' || tok.v !== '(') throw new SelectorParseError(`found '${tok?.v ?? ''}', expected: '('`);
        const values: string[] = [];
        for (;;) {
          const v = next();
          if (v === undefined) throw new SelectorParseError("found '', expected: ')'");
          if (v.t === 'op' && v.v === ')') break;
          if (v.t === 'op' && v.v === ',') continue;
          if (v.t !== 'id') throw new SelectorParseError(`found '${v.v}', expected: ',' or ')'`);
          checkValue(v.v);
          values.push(v.v);
        }
        if (values.length === 0) values.push('');
        reqs.push({ key, op: op.v === 'in' ? 'in' : 'notin', values });
      } else {
        throw new SelectorParseError(`found '${op.v}', expected: in, notin, =, ==, !=, gt, lt`);
      }
    } else {
      throw new SelectorParseError(`found '${tok.v}', expected: !, identifier, or 'end of string'`);
    }
    const sep = next();
    if (sep === undefined) break;
    if (sep.t !== 'op' || sep.v !== ',') throw new SelectorParseError(`found '${sep.v}', expected: ',' or 'end of string'`);
  }
  return reqs;
}

/** True when the labels satisfy every requirement. */
export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  for (const r of selector) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? labels[r.key] : undefined;
    switch (r.op) {
      case 'exists':
        if (!has) return false;
        break;
      case 'notexists':
        if (has) return false;
        break;
      case 'eq':
        if (v !== r.values[0]) return false;
        break;
      case 'neq':
        if (v === r.values[0]) return false;
        break;
      case 'in':
        if (v === undefined || !r.values.includes(v)) return false;
        break;
      case 'notin':
        if (v !== undefined && r.values.includes(v)) return false;
        break;
      case 'gt':
      case 'lt': {
        if (v === undefined || !/^-?\d+$/.test(v)) return false;
        const n = Number(v);
        const m = Number(r.values[0]);
        if (r.op === 'gt' ? !(n > m) : !(n < m)) return false;
        break;
      }
    }
  }
  return true;
}

/** One `field=value` / `field!=value` term of a field selector. */
export interface FieldRequirement {
  field: string;
  negate: boolean;
  value: string;
}

/** Parses a field selector (`a=b,c!=d`, also `==`); throws {@link SelectorParseError}. */
export function parseFieldSelector(input: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  if (input.trim() === '') return out;
  for (const part of input.split(',')) {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (m === null) throw new SelectorParseError(`invalid selector: '${input}'; can't understand '${part}'`);
    out.push({ field: m[1]!, negate: m[2] === '!=', value: m[3]! });
  }
  return out;
}
