import { describe, expect, it } from 'vitest';
import { isDns1123Label } from '@kubefed/api';
import { uniqueName } from './unique-name.js';

describe('uniqueName', () => {
  it.each([
    ['ns', /^ns-[0-9a-f]{8}$/],
    ['My_Namespace', /^my-namespace-[0-9a-f]{8}$/],
    ['', /^test-[0-9a-f]{8}$/],
    ['a'.repeat(100), /^a{54}-[0-9a-f]{8}$/],
  ])('turns %j into a DNS-1123 label with a random suffix', (base, pattern) => {
    const name = uniqueName(base);
    expect(name).toMatch(pattern);
    expect(isDns1123Label(name)).toBe(true);
  });

  it('returns a different name on every call', () => {
    const names = new Set(Array.from({ length: 100 }, () => uniqueName('x')));
    expect(names.size).toBe(100);
  });
});
