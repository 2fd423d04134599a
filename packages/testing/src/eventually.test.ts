import { describe, expect, it } from 'vitest';
import { consistently, eventually } from './eventually.js';
import { ConsistentlyError, EventuallyTimeoutError } from './testing-error.js';

describe('eventually', () => {
  it('returns the value once the check stops throwing', async () => {
    let calls = 0;
    const value = await eventually(
      () => {
        calls++;
        if (calls < 3) throw new Error('not yet');
        return calls;
      },
      { intervalMs: 1 },
    );
    expect(value).toBe(3);
  });

  it('gives up after the timeout naming the message and the last failure', async () => {
    const failing = eventually(
      () => {
        throw new Error('still 0 jobs');
      },
      { timeoutMs: 50, intervalMs: 5, message: 'queue never drained' },
    );
    await expect(failing).rejects.toBeInstanceOf(EventuallyTimeoutError);
    await expect(failing).rejects.toThrow(/queue never drained within 50ms: still 0 jobs/);
  });
});

describe('consistently', () => {
  it('passes when the check holds for the whole window', async () => {
    let calls = 0;
    await consistently(() => calls++, { durationMs: 30, intervalMs: 5 });
    expect(calls).toBeGreaterThan(1);
  });

  it('fails at the first check that throws', async () => {
    let calls = 0;
    const run = consistently(
      () => {
        calls++;
        if (calls === 2) throw new Error('written');
      },
      { durationMs: 1000, intervalMs: 1 },
    );
    await expect(run).rejects.toBeInstanceOf(ConsistentlyError);
    expect(calls).toBe(2);
  });
});
