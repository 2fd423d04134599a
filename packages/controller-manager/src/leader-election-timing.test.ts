import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import { leaderElectionTiming, type LeaderElectionFlags } from './leader-election-timing.js';

const kubeFedConfig = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 5_000, resourceLock: 'leases' as const };
const none: LeaderElectionFlags = { leaseDurationMs: undefined, renewDeadlineMs: undefined, retryPeriodMs: undefined };

describe('leaderElectionTiming', () => {
  it.each<[string, LeaderElectionFlags, ReturnType<typeof leaderElectionTiming>]>([
    [
      "takes the KubeFedConfig's spec.leaderElect when no flag is given",
      none,
      { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 5_000 },
    ],
    [
      'lets each given flag replace its field',
      { ...none, leaseDurationMs: 20_000 },
      { leaseDurationMs: 20_000, renewDeadlineMs: 10_000, retryPeriodMs: 5_000 },
    ],
    [
      'takes every flag when all are given',
      { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
      { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
    ],
  ])('%s', (_, flags, expected) => {
    expect(leaderElectionTiming(flags, kubeFedConfig)).toEqual(expected);
  });

  it.each<[string, LeaderElectionFlags, string]>([
    [
      'a lease flag not above the KubeFedConfig renew deadline',
      { ...none, leaseDurationMs: 10_000 },
      '--leader-elect-lease-duration: the lease duration 10s must be greater than the renew deadline 10s (spec.leaderElect.renewDeadline of the KubeFedConfig)',
    ],
    [
      'a renew deadline flag within 1.2 × the KubeFedConfig retry period',
      { ...none, renewDeadlineMs: 6000 },
      '--leader-elect-renew-deadline: the renew deadline 6s must be greater than 1.2 × the retry period 5s (spec.leaderElect.retryPeriod of the KubeFedConfig)',
    ],
    [
      'a retry period flag that the KubeFedConfig renew deadline cannot outlast',
      { ...none, retryPeriodMs: 9000 },
      'spec.leaderElect.renewDeadline of the KubeFedConfig: the renew deadline 10s must be greater than 1.2 × the retry period 9s (--leader-elect-retry-period)',
    ],
  ])('refuses %s, naming where each value came from', (_, flags, message) => {
    expect(() => leaderElectionTiming(flags, kubeFedConfig)).toThrow(ConfigError);
    expect(() => leaderElectionTiming(flags, kubeFedConfig)).toThrow(message);
  });
});
