import { describe, expect, it } from 'vitest';
import { clusterChangeDelay } from './register-replica-scheduling-controller.js';

describe('clusterChangeDelay (available 20 s, unavailable 60 s)', () => {
  const delays = { availableDelayMs: 20_000, unavailableDelayMs: 60_000 };
  it.each<[string, string[], string[], number]>([
    ['a cluster became ready', ['a'], ['a', 'b'], 20_000],
    ['a cluster stopped being ready', ['a', 'b'], ['a'], 60_000],
    ['the last cluster stopped being ready', ['a'], [], 60_000],
    ['a ready cluster got a new client (same set)', ['a', 'b'], ['a', 'b'], 20_000],
    ['one left and another joined: the shorter', ['a', 'b'], ['a', 'c'], 20_000],
  ])('%s', (_title, previous, ready, expected) => {
    expect(clusterChangeDelay(new Set(previous), ready, delays)).toBe(expected);
  });
});
