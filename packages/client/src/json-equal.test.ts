import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json-equal.js';

describe('jsonEqual', () => {
  it.each([
    ['equal scalars', 1, 1, true],
    ['different scalars', 'a', 'b', false],
    ['null and an empty object', null, {}, false],
    ['keys in another order', { a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }, true],
    ['an undefined property and an absent one', { a: 1, b: undefined }, { a: 1 }, true],
    ['array items in another order', [1, 2], [2, 1], false],
    ['an array and an object with index keys', [1], { 0: 1 }, false],
    ['a missing key', { a: 1 }, { b: 1 }, false],
    ['nested difference', { a: { b: 1 } }, { a: { b: 2 } }, false],
  ])('compares %s', (_, a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
  });
});
