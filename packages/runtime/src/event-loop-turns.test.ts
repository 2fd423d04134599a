import { describe, expect, it } from 'vitest';
import { EventLoopTurns } from './event-loop-turns.js';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('EventLoopTurns', () => {
  it('asks for no turn while the loop has turned within the budget', async () => {
    const turns = new EventLoopTurns(1000);
    for (let i = 0; i < 100; i++) expect(turns.yieldIfLong()).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(turns.yieldIfLong()).toBeUndefined();
  });

  it('lets pending callbacks run before going on once the loop was held for the budget', async () => {
    const turns = new EventLoopTurns(5);
    let immediateRan = false;
    expect(turns.yieldIfLong()).toBeUndefined();
    setImmediate(() => (immediateRan = true));
    busy(6);
    const turn = turns.yieldIfLong();
    expect(turn).toBeInstanceOf(Promise);
    expect(immediateRan).toBe(false);
    await turn;
    expect(immediateRan).toBe(true);
    // The loop has just turned: no turn is asked for until the budget is spent again.
    expect(turns.yieldIfLong()).toBeUndefined();
  });
});
