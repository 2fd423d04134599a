import { afterEach, describe, expect, it } from 'vitest';
import { LeaderElector, type LeaderElectionEnd } from './leader-election.js';
import { LeaseLock, microTime } from './resource-lock.js';
import { capturedLogger } from './testing/captured-logger.js';
import { FakeClock } from './testing/fake-clock.js';
import { InMemoryLeaseClient } from './testing/in-memory-lease-client.js';

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

function candidate(leases: InMemoryLeaseClient, clock: FakeClock, identity: string, releaseOnCancel = true) {
  const events: string[] = [];
  let leadingSignal: AbortSignal | undefined;
  const elector = new LeaderElector({
    lock: new LeaseLock(leases, { name: 'lock', namespace: 'ns' }),
    identity,
    leaseDurationMs: 2000,
    renewDeadlineMs: 1500,
    retryPeriodMs: 250,
    releaseOnCancel,
    clock,
    random: () => 0,
    onStartedLeading: (s) => {
      leadingSignal = s;
      events.push('started');
    },
    onStoppedLeading: () => events.push('stopped'),
  });
  const ac = new AbortController();
  stops.push(ac);
  let end: LeaderElectionEnd | undefined;
  const running = elector.run(ac.signal).then((e) => (end = e));
  return { elector, events, ac, running, end: () => end, leadingSignal: () => leadingSignal };
}

describe('LeaderElector', () => {
  it('formats MicroTime with six fractional digits', () => {
    expect(microTime(Date.UTC(2026, 10, 21, 10, 0, 0, 123))).toBe('2026-11-21T10:00:00.123000Z');
  });

  it('lets exactly one candidate lead and keeps renewing', async () => {
    const clock = new FakeClock();
    const leases = new InMemoryLeaseClient();
    const a = candidate(leases, clock, 'a');
    await clock.advance(0);
    const b = candidate(leases, clock, 'b');
    for (let i = 0; i < 40; i++) {
      await clock.advance(100);
      expect(a.elector.isLeader && b.elector.isLeader).toBe(false);
    }
    expect(a.elector.isLeader).toBe(true);
    expect(leases.holder('lock')).toBe('a');
    expect(b.elector.observedLeader).toBe('a');
  });

  it('takes over from a leader that stopped without releasing only after the lease duration', async () => {
    const clock = new FakeClock();
    const leases = new InMemoryLeaseClient();
    const a = candidate(leases, clock, 'a', false);
    await clock.advance(0);
    const b = candidate(leases, clock, 'b');
    await clock.advance(500);
    a.ac.abort();
    await a.running;
    expect(leases.holder('lock')).toBe('a');
    const stoppedAt = clock.now();
    while (!b.elector.isLeader) await clock.advance(50);
    expect(clock.now() - stoppedAt).toBeGreaterThanOrEqual(1400);
    expect(clock.now() - stoppedAt).toBeLessThanOrEqual(2600);
  });

  it('hands over at once after a graceful release', async () => {
    const clock = new FakeClock();
    const leases = new InMemoryLeaseClient();
    const a = candidate(leases, clock, 'a');
    await clock.advance(0);
    const b = candidate(leases, clock, 'b');
    await clock.advance(1000);
    a.ac.abort();
    await a.running;
    expect(a.events).toEqual(['started', 'stopped']);
    expect(leases.holder('lock')).toBe('');
    const releasedAt = clock.now();
    while (!b.elector.isLeader) await clock.advance(50);
    expect(clock.now() - releasedAt).toBeLessThanOrEqual(400);
  });

  it('steps down within the renew deadline when the API server is unreachable, before anyone else can lead', async () => {
    const clock = new FakeClock();
    const leases = new InMemoryLeaseClient();
    const a = candidate(leases, clock, 'a');
    await clock.advance(0);
    expect(a.elector.isLeader).toBe(true);
    leases.unavailable = true;
    await clock.advance(1600);
    expect(a.elector.isLeader).toBe(false);
    expect(a.leadingSignal()?.aborted).toBe(true);
    await a.running;
    expect(a.end()).toBe('lost');
    expect(a.events).toEqual(['started', 'stopped']);
  });

  it('says why when leadership is lost: the last renewal error, the time since the last renewal and the durations', async () => {
    const clock = new FakeClock();
    const leases = new InMemoryLeaseClient();
    const { lines, logger } = capturedLogger();
    const elector = new LeaderElector({
      lock: new LeaseLock(leases, { name: 'lock', namespace: 'ns' }),
      identity: 'a',
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 250,
      clock,
      random: () => 0,
      logger,
    });
    const ac = new AbortController();
    stops.push(ac);
    const running = elector.run(ac.signal);
    await clock.advance(0);
    leases.unavailable = true;
    await clock.advance(1600);
    expect(await running).toBe('lost');
    const lost = lines.find((l) => String(l['msg']).startsWith('leader election lost'));
    expect(lost).toMatchObject({ leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250, err: { message: 'unavailable' } });
    expect(lost?.['sinceLastRenewalMs']).toBeGreaterThanOrEqual(1500);
  });
});
