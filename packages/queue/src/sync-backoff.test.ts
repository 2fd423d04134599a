import { describe, expect, it } from 'vitest';
import { syncBackoffDelayMs } from './sync-backoff.js';

describe('syncBackoffDelayMs', () => {
  const backoff = { delayMs: 200, maxDelayMs: 60_000, jitter: 0 };
  it.each<[number, number]>([
    [1, 200],
    [2, 400],
    [5, 3200],
    [9, 51_200],
    [10, 60_000],
    [100, 60_000],
    [1_000_000, 60_000],
  ])('after attempt %i waits %i ms', (attempt, expected) => {
    expect(syncBackoffDelayMs(attempt, backoff)).toBe(expected);
  });

  it('randomises the jitter fraction of the delay, never above the cap', () => {
    const jittered = { ...backoff, jitter: 0.5 };
    expect(syncBackoffDelayMs(100, jittered, () => 0)).toBe(30_000);
    expect(syncBackoffDelayMs(100, jittered, () => 0.999_999)).toBeLessThanOrEqual(60_000);
    expect(syncBackoffDelayMs(1, jittered, () => 0.5)).toBe(150);
  });
});
