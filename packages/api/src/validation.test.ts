import { describe, expect, it } from 'vitest';
import { KubeFedError, ValidationError } from './errors.js';
import { formatGoDuration, formatPath, labelKeyProblems, labelValueProblems, parseGoDuration } from './validation.js';

describe('validation helpers', () => {
  it.each([
    [['spec', 'overrides', 1, 'clusterOverrides', 0, 'op'], 'spec.overrides[1].clusterOverrides[0].op'],
    [[], ''],
    [[0, 'a'], '[0].a'],
  ])('formats path %j as %j', (path, text) => {
    expect(formatPath(path)).toBe(text);
  });

  it.each([
    ['20s', 20_000],
    ['1m0s', 60_000],
    ['5m0s', 300_000],
    ['1500ms', 1500],
    ['1.5s', 1500],
    ['1h2m3s', 3_723_000],
    ['-2s', -2000],
    ['0', 0],
    ['100us', 0.1],
    ['', undefined],
    ['5', undefined],
    ['5x', undefined],
    ['s', undefined],
  ])('parses Go duration %j as %s ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([
    [20_000, '20s'],
    [60_000, '1m0s'],
    [300_000, '5m0s'],
    [1500, '1.5s'],
    [500, '500ms'],
    [3_723_000, '1h2m3s'],
    [0, '0s'],
  ])('formats %s ms as Go duration %j', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });

  it.each([
    ['app', []],
    ['kubefed.io/managed', []],
    ['a.b-c_d', []],
    ['/x', ['prefix part must be non-empty']],
    ['Example.com/x', ['prefix part must be a lowercase DNS-1123 subdomain of at most 253 characters']],
    ['x/', ['name part must be non-empty']],
    ['-x', [expect.stringContaining('must start and end with an alphanumeric character')]],
  ])('checks label key %j', (key, problems) => {
    expect(labelKeyProblems(key)).toEqual(problems);
  });

  it.each([
    ['', 0],
    ['prod', 0],
    ['a_b.c-d', 0],
    ['x'.repeat(64), 1],
    ['a b', 1],
  ])('checks label value %j (%i problems)', (value, count) => {
    expect(labelValueProblems(value)).toHaveLength(count);
  });

  it('keeps the cause on KubeFed errors and lists issues on validation errors', () => {
    const cause = new Error('root');
    const e = new ValidationError('Thing "x"', [{ path: 'spec.a', message: 'Required value' }], { cause });
    expect(e).toBeInstanceOf(KubeFedError);
    expect(e.cause).toBe(cause);
    expect(e.name).toBe('ValidationError');
    expect(e.message).toBe('Thing "x" is invalid: spec.a: Required value');
  });
});
