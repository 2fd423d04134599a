import { describe, expect, it } from 'vitest';
import { OwnWrites } from './own-writes.js';

const KEY = OwnWrites.key('member1', 'configmaps', { metadata: { namespace: 'ns', name: 'a' } });

function events(): { reports: string[]; report: (rv: string) => () => void } {
  const reports: string[] = [];
  return { reports, report: (rv) => () => reports.push(rv) };
}

describe('OwnWrites', () => {
  it('keys a member object by cluster, type, namespace and name', () => {
    expect(KEY).toBe('configmaps/ns/a@member1');
    expect(OwnWrites.key('member1', 'namespaces', { metadata: { name: 'ns' } })).toBe('namespaces/ns@member1');
  });

  it('swallows the echo of its own write that arrives after the response', () => {
    const own = new OwnWrites();
    const { reports, report } = events();
    own.begin(KEY);
    own.wrote(KEY, '7');
    own.observe(KEY, '7', report('7'));
    expect(reports).toEqual([]);
    expect(own.size).toBe(0);
  });

  it('says an object is pending from the start of its write until the watch has shown the written version', () => {
    const own = new OwnWrites();
    const { report } = events();
    expect(own.pending(KEY)).toBe(false);
    own.begin(KEY);
    expect(own.pending(KEY)).toBe(true);
    own.wrote(KEY, '7');
    expect(own.pending(KEY)).toBe(true);
    own.observe(KEY, '7', report('7'));
    expect(own.pending(KEY)).toBe(false);
    own.begin(KEY);
    own.failed(KEY);
    expect(own.pending(KEY)).toBe(false);
  });

  it('swallows the echo that arrives before the response, and reports other events parked meanwhile when the write ends', () => {
    const own = new OwnWrites();
    const { reports, report } = events();
    own.begin(KEY);
    own.observe(KEY, '6', report('6'));
    own.observe(KEY, '7', report('7'));
    expect(reports).toEqual([]);
    own.wrote(KEY, '7');
    expect(reports).toEqual(['6']);
    expect(own.size).toBe(0);
  });

  it('reports events parked during a write that failed', () => {
    const own = new OwnWrites();
    const { reports, report } = events();
    own.begin(KEY);
    own.observe(KEY, '9', report('9'));
    own.failed(KEY);
    expect(reports).toEqual(['9']);
  });

  it('reports changes by someone else at once', () => {
    const own = new OwnWrites();
    const { reports, report } = events();
    own.observe(KEY, '3', report('3'));
    own.begin(KEY);
    own.wrote(KEY, '4');
    own.observe(KEY, '5', report('5'));
    own.observe(KEY, undefined, report('none'));
    expect(reports).toEqual(['3', '5', 'none']);
  });

  it('forgets an echo that never came after the ttl', () => {
    let now = 0;
    const own = new OwnWrites({ ttlMs: 1000, clock: { now: () => now, setTimeout: () => 0, clearTimeout: () => undefined } });
    const { reports, report } = events();
    own.begin(KEY);
    own.wrote(KEY, '1');
    expect(own.size).toBe(1);
    now = 5000;
    own.observe('other', '1', report('other'));
    expect(own.size).toBe(0);
    own.observe(KEY, '1', report('late'));
    expect(reports).toEqual(['other', 'late']);
  });
});
