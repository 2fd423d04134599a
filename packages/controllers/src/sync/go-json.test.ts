import { describe, expect, it } from 'vitest';
import { goJson } from './go-json.js';

describe('goJson (Go encoding/json of generic values)', () => {
  it.each<[string, unknown, string]>([
    ['null', null, 'null'],
    ['booleans', [true, false], '[true,false]'],
    ['integers', [0, 5, -12, 9007199254740991], '[0,5,-12,9007199254740991]'],
    ['decimals in shortest form', [1.5, 0.1, -2.25], '[1.5,0.1,-2.25]'],
    ['small numbers in exponent form below 1e-6', [0.000001, 0.0000001, 1.5e-7], '[0.000001,1e-7,1.5e-7]'],
    ['large numbers in exponent form from 1e21', [1e20, 1e21, 1.5e22], '[100000000000000000000,1e+21,1.5e+22]'],
    ['keys sorted', { b: 1, a: { d: 1, c: 2 } }, '{"a":{"c":2,"d":1},"b":1}'],
    ['keys sorted by UTF-8 bytes (U+FF5E before U+1F600)', { '😀': 1, '～': 2, z: 3 }, '{"z":3,"～":2,"😀":1}'],
    ['undefined properties skipped', { a: undefined, b: 1 }, '{"b":1}'],
    ['HTML characters escaped', '<a href="x">&</a>', '"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e"'],
    ['newline, carriage return and tab as short escapes', 'a\nb\rc\td', '"a\\nb\\rc\\td"'],
    ['other control characters as \\u00XX', '\u0000\u0008\u000c\u001f', '"\\u0000\\u0008\\u000c\\u001f"'],
    ['backslash and quote', 'a\\b"c', '"a\\\\b\\"c"'],
    ['U+2028 and U+2029 escaped', '\u2028\u2029', '"\\u2028\\u2029"'],
    ['non-ASCII kept literally', 'grüße ✓ 😀', '"grüße ✓ 😀"'],
    ['lone surrogates replaced', 'a\ud800b\udc00', '"a\\ufffdb\\ufffd"'],
    ['DEL kept literally', '\u007f', '"\u007f"'],
    ['empty containers', { a: [], b: {} }, '{"a":[],"b":{}}'],
  ])('encodes %s', (_title, value, expected) => {
    expect(goJson(value)).toBe(expected);
  });

  it.each<[string, unknown]>([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a bigint', 1n],
  ])('refuses %s', (_title, value) => {
    expect(() => goJson(value)).toThrow(TypeError);
  });
});
