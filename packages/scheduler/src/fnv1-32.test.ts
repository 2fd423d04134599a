import { describe, expect, it } from 'vitest';
import { fnv1_32 } from '@kubefed/scheduler';

describe('fnv1_32', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0x050c5d7e],
    ['foobar', 0x31f0b262],
    ['A', 84696414],
    ['B', 84696413],
    ['C', 84696412],
    ['D', 84696411],
    ['E', 84696410],
    ['Adefault/foo', 2902727008],
  ])('hashes %j to %i (FNV-1, not FNV-1a)', (input, expected) => {
    expect(fnv1_32(input)).toBe(expected);
  });

  it('continues a running hash from a seed like writing name then key', () => {
    expect(fnv1_32('default/foo', fnv1_32('A'))).toBe(fnv1_32('Adefault/foo'));
  });

  it.each([
    ['é', [0xc3, 0xa9]],
    ['aé', [0x61, 0xc3, 0xa9]],
    ['a😀b', [0x61, 0xf0, 0x9f, 0x98, 0x80, 0x62]],
  ])('hashes the UTF-8 bytes of %j', (text, bytes) => {
    expect(fnv1_32(text)).toBe(fnv1_32(new Uint8Array(bytes)));
  });

  it('differs from FNV-1a on the same input', () => {
    // FNV-1a of 'a' is 0xe40c292c.
    expect(fnv1_32('a')).not.toBe(0xe40c292c);
  });
});
