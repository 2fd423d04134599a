import { describe, expect, it } from 'vitest';
import {
  applyJsonPatch,
  decodePointerSegment,
  encodePointerSegment,
  JsonPatchError,
  type JsonPatchOperation,
  parsePointer,
} from './json-patch.js';

const doc = () => ({ a: { b: 1, 'x/y': 2, 'm~n': 3, n: null as unknown }, list: [10, 20, 30], s: 'str' });

describe('JSON pointers (RFC 6901)', () => {
  it.each<[string, string[]]>([
    ['', []],
    ['/', ['']],
    ['/a/b', ['a', 'b']],
    ['/a~1b', ['a/b']],
    ['/m~0n', ['m~n']],
    ['/~01', ['~1']],
    ['/a//b', ['a', '', 'b']],
  ])('parses %j into %j', (pointer, segments) => {
    expect(parsePointer(pointer)).toEqual(segments);
  });

  it('rejects a pointer without a leading slash', () => {
    expect(() => parsePointer('a/b')).toThrow(/must start with "\/"/);
  });

  it.each([['a/b'], ['m~n'], ['~1'], ['plain']])('round-trips the key %j through encode and decode', (key) => {
    expect(decodePointerSegment(encodePointerSegment(key))).toBe(key);
  });
});

describe('applyJsonPatch (evanphx/json-patch v4 semantics, docs/kubefed-compatibility.md §4.4.7)', () => {
  it.each<[string, JsonPatchOperation[], unknown]>([
    ['add sets a new object key', [{ op: 'add', path: '/a/c', value: 5 }], { ...doc(), a: { ...doc().a, c: 5 } }],
    ['add overwrites an existing object key', [{ op: 'add', path: '/a/b', value: 'x' }], { ...doc(), a: { ...doc().a, b: 'x' } }],
    ['add inserts into an array at an index', [{ op: 'add', path: '/list/1', value: 15 }], { ...doc(), list: [10, 15, 20, 30] }],
    ['add at index == length appends', [{ op: 'add', path: '/list/3', value: 40 }], { ...doc(), list: [10, 20, 30, 40] }],
    ['add at - appends', [{ op: 'add', path: '/list/-', value: 40 }], { ...doc(), list: [10, 20, 30, 40] }],
    [
      'add at -1 appends (negative index counts from the end)',
      [{ op: 'add', path: '/list/-1', value: 40 }],
      { ...doc(), list: [10, 20, 30, 40] },
    ],
    ['add at -2 inserts before the last element', [{ op: 'add', path: '/list/-2', value: 25 }], { ...doc(), list: [10, 20, 25, 30] }],
    ['add without value sets null', [{ op: 'add', path: '/z' }], { ...doc(), z: null }],
    ['add decodes ~1 in a key', [{ op: 'add', path: '/a/x~1y', value: 9 }], { ...doc(), a: { ...doc().a, 'x/y': 9 } }],
    ['add decodes ~0 in a key', [{ op: 'add', path: '/a/m~0n', value: 9 }], { ...doc(), a: { ...doc().a, 'm~n': 9 } }],
    ['replace sets an existing key', [{ op: 'replace', path: '/s', value: 'new' }], { ...doc(), s: 'new' }],
    [
      'replace of a missing object key succeeds and sets it (§9.8)',
      [{ op: 'replace', path: '/a/missing', value: true }],
      { ...doc(), a: { ...doc().a, missing: true } },
    ],
    ['replace of an array element', [{ op: 'replace', path: '/list/0', value: 1 }], { ...doc(), list: [1, 20, 30] }],
    ['replace with a negative index', [{ op: 'replace', path: '/list/-1', value: 3 }], { ...doc(), list: [10, 20, 3] }],
    ['replace of a whole subtree with an object', [{ op: 'replace', path: '/a', value: { k: [1] } }], { ...doc(), a: { k: [1] } }],
    ['remove an object key', [{ op: 'remove', path: '/a/b' }], { ...doc(), a: { 'x/y': 2, 'm~n': 3, n: null } }],
    ['remove a key holding null', [{ op: 'remove', path: '/a/n' }], { ...doc(), a: { b: 1, 'x/y': 2, 'm~n': 3 } }],
    ['remove an array element', [{ op: 'remove', path: '/list/1' }], { ...doc(), list: [10, 30] }],
    ['remove the last element with -1', [{ op: 'remove', path: '/list/-1' }], { ...doc(), list: [10, 20] }],
    [
      'operations apply in order',
      [
        { op: 'add', path: '/q', value: {} },
        { op: 'add', path: '/q/r', value: 1 },
        { op: 'remove', path: '/s' },
      ],
      { a: doc().a, list: [10, 20, 30], q: { r: 1 } },
    ],
    ['the empty key "/" addresses the key ""', [{ op: 'add', path: '/', value: 1 }], { ...doc(), '': 1 }],
  ])('%s', (_title, ops, expected) => {
    expect(applyJsonPatch(doc(), ops)).toEqual(expected);
  });

  it.each<[string, JsonPatchOperation[], number, RegExp]>([
    ['add below a missing parent', [{ op: 'add', path: '/nope/x', value: 1 }], 0, /parent does not exist/],
    ['add below a scalar', [{ op: 'add', path: '/s/x', value: 1 }], 0, /parent does not exist/],
    ['add below null', [{ op: 'add', path: '/a/n/x', value: 1 }], 0, /parent does not exist/],
    ['replace below a missing parent', [{ op: 'replace', path: '/nope/x', value: 1 }], 0, /parent does not exist/],
    ['remove below a missing parent', [{ op: 'remove', path: '/nope/x' }], 0, /parent does not exist/],
    ['remove of a missing key', [{ op: 'remove', path: '/a/missing' }], 0, /does not exist/],
    ['add past the end of an array', [{ op: 'add', path: '/list/4', value: 1 }], 0, /out of range/],
    ['add at too negative an index', [{ op: 'add', path: '/list/-5', value: 1 }], 0, /out of range/],
    ['add at a non-numeric array key', [{ op: 'add', path: '/list/x', value: 1 }], 0, /not an array index/],
    ['replace past the end of an array', [{ op: 'replace', path: '/list/3', value: 1 }], 0, /not an element/],
    ['replace at - (not an element)', [{ op: 'replace', path: '/list/-', value: 1 }], 0, /not an element/],
    ['remove past the end of an array', [{ op: 'remove', path: '/list/3' }], 0, /not an element/],
    ['remove at too negative an index', [{ op: 'remove', path: '/list/-4' }], 0, /not an element/],
    ['a path without a leading slash', [{ op: 'replace', path: 's', value: 1 }], 0, /JSON pointer/],
    ['the whole document', [{ op: 'replace', path: '', value: 1 }], 0, /JSON pointer/],
    ['an unsupported operation', [{ op: 'move', path: '/s' } as unknown as JsonPatchOperation], 0, /unsupported operation/],
    [
      'the second operation after a good first one',
      [
        { op: 'add', path: '/ok', value: 1 },
        { op: 'remove', path: '/missing' },
      ],
      1,
      /remove "\/missing"/,
    ],
  ])('fails for %s, naming the operation', (_title, ops, index, message) => {
    const original = doc();
    let caught: unknown;
    try {
      applyJsonPatch(original, ops);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(JsonPatchError);
    expect((caught as JsonPatchError).index).toBe(index);
    expect((caught as JsonPatchError).message).toMatch(message);
    expect(original).toEqual(doc());
  });

  it('never modifies its input and copies values', () => {
    const input = doc();
    const value = { deep: [1] };
    const out = applyJsonPatch(input, [{ op: 'add', path: '/v', value }]);
    value.deep.push(2);
    expect(input).toEqual(doc());
    expect(out).toMatchObject({ v: { deep: [1] } });
  });
});
