import { describe, expect, it } from 'vitest';
import { boundText, MAX_ECHOED_CHARS } from './bounded-text.js';

describe('boundText', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    ['0123456789abc', 10, '0123456789… (3 more characters)'],
    [`123456789${'😀'}x`, 10, '123456789… (3 more characters)'],
  ])('bounds %j to %i characters', (text, max, bounded) => {
    expect(boundText(text, max)).toBe(bounded);
  });

  it('keeps MAX_ECHOED_CHARS characters by default', () => {
    const bounded = boundText('a'.repeat(100_000));
    expect(bounded.startsWith('a'.repeat(MAX_ECHOED_CHARS))).toBe(true);
    expect(bounded.endsWith(`… (${100_000 - MAX_ECHOED_CHARS} more characters)`)).toBe(true);
  });
});
