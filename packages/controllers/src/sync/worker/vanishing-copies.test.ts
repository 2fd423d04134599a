import { FakeClock } from '@kubefed/runtime/testing';
import { describe, expect, it } from 'vitest';
import { VanishingCopies, VanishingCopyError } from './vanishing-copies.js';

describe('VanishingCopies', () => {
  it('lets a request create its copy 3 times within the window, then refuses until the oldest create leaves it', async () => {
    const clock = new FakeClock();
    const copies = new VanishingCopies({ clock, windowMs: 60_000, creates: 3 });
    for (let i = 0; i < 3; i++) {
      expect(copies.refusal('cm/a@member1')).toBeUndefined();
      copies.created('cm/a@member1');
      await clock.advance(1000);
    }
    expect(copies.refusal('cm/a@member1')).toEqual({ creates: 3, windowMs: 60_000, retryInMs: 57_000 });
    expect(copies.refusal('cm/b@member1')).toBeUndefined();
    expect(copies.refusal('cm/a@member2')).toBeUndefined();
    await clock.advance(57_000);
    expect(copies.refusal('cm/a@member1')).toBeUndefined();
  });

  it('forgets creates older than the window', async () => {
    const clock = new FakeClock();
    const copies = new VanishingCopies({ clock, windowMs: 10_000, creates: 2 });
    copies.created('x');
    await clock.advance(11_000);
    copies.created('x');
    expect(copies.refusal('x')).toBeUndefined();
  });

  it('says in its error what the member did and when the copy is created again', () => {
    expect(new VanishingCopyError('member1', { creates: 3, windowMs: 60_000, retryInMs: 41_500 }).message).toBe(
      'cluster "member1" deleted the copy 3 times within 60 s of its creation (its garbage collector removes an object whose owner is missing; ' +
        'an admission policy or a controller of the member may too): not creating it again for 42 s',
    );
  });
});
