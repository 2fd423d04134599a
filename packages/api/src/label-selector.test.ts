import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LabelSelectorError } from './errors.js';
import {
  labelSelectorToString,
  matchesLabelSelector,
  matchesSelector,
  parseSelector,
  selectorToString,
  validateLabelSelector,
} from './label-selector.js';
import type { LabelSelector } from './meta.js';

describe('parseSelector', () => {
  it('parses every operator of the string form', () => {
    const s = parseSelector('a=b,a==b,c!=d,e in (f,g),h notin (i),j,!k,l>5,m<7');
    expect(s.requirements).toEqual([
      { key: 'a', operator: 'Equals', values: ['b'] },
      { key: 'a', operator: 'DoubleEquals', values: ['b'] },
      { key: 'c', operator: 'NotEquals', values: ['d'] },
      { key: 'e', operator: 'In', values: ['f', 'g'] },
      { key: 'h', operator: 'NotIn', values: ['i'] },
      { key: 'j', operator: 'Exists', values: [] },
      { key: 'k', operator: 'DoesNotExist', values: [] },
      { key: 'l', operator: 'GreaterThan', values: ['5'] },
      { key: 'm', operator: 'LessThan', values: ['7'] },
    ]);
  });

  it.each([
    ['', ''],
    ['   ', ''],
    ['x=y', 'x=y'],
    [' env in ( prod , dev ) , tier ', 'env in (dev,prod),tier'],
    ['b=1,a=2', 'a=2,b=1'],
    ['kubefed.io/managed=true', 'kubefed.io/managed=true'],
    ['a=', 'a='],
    ['!a,b!=c', '!a,b!=c'],
  ])('parses %j and prints it as %j', (input, printed) => {
    expect(selectorToString(parseSelector(input))).toBe(printed);
  });

  it.each([
    ['a in b', 'at position 5: expected "(" after "in", found "b"'],
    ['a in ()', 'at position 6: values set for "in" must not be empty'],
    ['a in (b', 'at position 7: expected "," or ")", found end of input'],
    ['a,', 'at position 2: expected a requirement after ","'],
    [',a', 'at position 0: expected a label key or "!", found ","'],
    ['a b', 'at position 2: expected an operator (=, ==, !=, in, notin, >, <), "," or end of input after key "a", found "b"'],
    ['!', 'at position 1: expected a label key after "!", found end of input'],
    ['a=b=c', 'at position 3: expected "," or end of input, found "="'],
    ['a>b', 'at position 2: expected an integer after ">", found "b"'],
    ['-a=b', 'at position 0: invalid label key "-a"'],
    ['a=-b', 'at position 2: invalid label value "-b"'],
    ['a/b/c=d', 'at position 0: invalid label key "a/b/c"'],
    [`${'x'.repeat(64)}=y`, 'name part must be no more than 63 characters'],
  ])('rejects %j naming the position and problem', (input, problem) => {
    expect(() => parseSelector(input)).toThrow(LabelSelectorError);
    expect(() => parseSelector(input)).toThrow(problem);
  });
});

describe('matchesSelector', () => {
  const labels = { env: 'prod', tier: 'web', size: '10' };
  it.each([
    ['', true],
    ['env=prod', true],
    ['env==prod', true],
    ['env=dev', false],
    ['env!=dev', true],
    ['missing!=x', true],
    ['env in (dev,prod)', true],
    ['env in (dev)', false],
    ['missing in (x)', false],
    ['env notin (prod)', false],
    ['missing notin (x)', true],
    ['tier', true],
    ['missing', false],
    ['!missing', true],
    ['!tier', false],
    ['size>5', true],
    ['size<5', false],
    ['env>5', false],
    ['env=prod,tier=db', false],
  ])('evaluates %j against env=prod,tier=web,size=10 as %s', (sel, expected) => {
    expect(matchesSelector(parseSelector(sel), labels)).toBe(expected);
  });

  it('treats absent labels as an empty label set', () => {
    expect(matchesSelector(parseSelector('!a'), undefined)).toBe(true);
    expect(matchesSelector(parseSelector('a'), undefined)).toBe(false);
  });
});

describe('LabelSelector objects', () => {
  const labels = { region: 'eu', zone: 'a' };
  it.each<[string, LabelSelector | undefined, boolean]>([
    ['an absent selector matches nothing', undefined, false],
    ['an empty selector matches everything', {}, true],
    ['empty matchLabels match everything', { matchLabels: {} }, true],
    ['matchLabels must all match', { matchLabels: { region: 'eu', zone: 'b' } }, false],
    ['matchLabels match', { matchLabels: { region: 'eu' } }, true],
    ['In matches a listed value', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }, true],
    ['NotIn rejects a listed value', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, false],
    ['Exists needs the key', { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, false],
    ['DoesNotExist needs the key absent', { matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }, true],
    [
      'matchLabels AND matchExpressions',
      { matchLabels: { region: 'eu' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] },
      false,
    ],
  ])('%s', (_title, selector, expected) => {
    expect(matchesLabelSelector(selector, labels)).toBe(expected);
  });

  it.each<[LabelSelector, string]>([
    [{}, ''],
    [{ matchLabels: { b: '1', a: '2' } }, 'a=2,b=1'],
    [
      {
        matchLabels: { env: 'prod' },
        matchExpressions: [
          { key: 'zone', operator: 'NotIn', values: ['c', 'a'] },
          { key: 'gpu', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
          { key: 'app', operator: 'In', values: ['web'] },
        ],
      },
      'app in (web),env=prod,gpu,!legacy,zone notin (a,c)',
    ],
  ])('prints %j as %j, which parses back to the same selector', (selector, text) => {
    expect(labelSelectorToString(selector)).toBe(text);
    for (const l of [{}, { env: 'prod', gpu: '1', app: 'web', zone: 'b' }, { env: 'prod', zone: 'a' }]) {
      expect(matchesSelector(parseSelector(text), l)).toBe(matchesLabelSelector(selector, l));
    }
  });

  it.each<[unknown, { path: string; message: string }[]]>([
    [
      { matchExpressions: [{ key: 'a', operator: 'Has', values: [] }] },
      [{ path: 'matchExpressions[0].operator', message: 'must be one of In, NotIn, Exists, DoesNotExist' }],
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      [{ path: 'matchExpressions[0].values', message: 'must be specified when operator is In' }],
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      [{ path: 'matchExpressions[0].values', message: 'may not be specified when operator is Exists' }],
    ],
    [{ matchLabels: { 'bad key': 'x' } }, [{ path: 'matchLabels.bad key', message: expect.stringContaining('invalid label key') }]],
    [
      { matchLabels: { ok: 'bad value' } },
      [{ path: 'matchLabels.ok', message: expect.stringContaining('invalid label value "bad value"') }],
    ],
  ])('reports problems of %j with field paths', (selector, issues) => {
    expect(validateLabelSelector(selector)).toEqual(issues);
  });

  it('refuses to match with an invalid selector', () => {
    expect(() => matchesLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, {})).toThrow(
      'invalid label selector: matchExpressions[0].operator: must be one of In, NotIn, Exists, DoesNotExist',
    );
  });
});

describe('label selector properties', () => {
  const key = fc.constantFrom('app', 'tier', 'kubefed.io/managed', 'zone', 'x');
  const value = fc.constantFrom('', 'a', 'b', 'web', 'prod-1');
  const labelsArb = fc.dictionary(key, value, { maxKeys: 5 });
  const requirement = fc.oneof(
    fc.record({
      key,
      operator: fc.constantFrom('In', 'NotIn'),
      values: fc.array(
        value.filter((v) => v !== ''),
        { minLength: 1, maxLength: 3 },
      ),
    }),
    fc.record({ key, operator: fc.constantFrom('Exists', 'DoesNotExist') }),
  );
  const selectorArb = fc.record(
    { matchLabels: fc.dictionary(key, value, { maxKeys: 3 }), matchExpressions: fc.array(requirement, { maxLength: 4 }) },
    { requiredKeys: [] },
  );

  it('the string form of a LabelSelector selects exactly what the object selects', () => {
    fc.assert(
      fc.property(selectorArb, labelsArb, (selector, labels) => {
        const text = labelSelectorToString(selector);
        expect(matchesSelector(parseSelector(text), labels)).toBe(matchesLabelSelector(selector, labels));
        expect(selectorToString(parseSelector(text))).toBe(text);
      }),
    );
  });
});
