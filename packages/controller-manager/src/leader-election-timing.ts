import type { KubeFedConfigSettings } from '@kubefed/controllers';
import { ConfigError } from './config.js';

/** The durations leader election runs with, in milliseconds. */
export interface LeaderElectionTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** The `--leader-elect-*` flags given on the command line (undefined = not given). */
export interface LeaderElectionFlags {
  readonly leaseDurationMs: number | undefined;
  readonly renewDeadlineMs: number | undefined;
  readonly retryPeriodMs: number | undefined;
}

const seconds = (ms: number): string => `${ms / 1000}s`;

/**
 * Leader election durations: the KubeFedConfig's `spec.leaderElect` (read at start, as KubeFed's
 * controller manager does), each replaced by its `--leader-elect-*` flag when that was given.
 * The result must keep KubeFed's rules: lease duration > renew deadline > 1.2 × retry period.
 *
 * @throws ConfigError naming where each value of a broken rule came from.
 */
export function leaderElectionTiming(flags: LeaderElectionFlags, config: KubeFedConfigSettings['leaderElect']): LeaderElectionTiming {
  const pick = (flag: number | undefined, fromConfig: number, flagName: string, field: string) =>
    flag === undefined ? { ms: fromConfig, from: `spec.leaderElect.${field} of the KubeFedConfig` } : { ms: flag, from: flagName };
  const lease = pick(flags.leaseDurationMs, config.leaseDurationMs, '--leader-elect-lease-duration', 'leaseDuration');
  const renew = pick(flags.renewDeadlineMs, config.renewDeadlineMs, '--leader-elect-renew-deadline', 'renewDeadline');
  const retry = pick(flags.retryPeriodMs, config.retryPeriodMs, '--leader-elect-retry-period', 'retryPeriod');
  if (lease.ms <= renew.ms) {
    throw new ConfigError(
      `${lease.from}: the lease duration ${seconds(lease.ms)} must be greater than the renew deadline ${seconds(renew.ms)} (${renew.from})`,
    );
  }
  if (renew.ms <= retry.ms * 1.2) {
    throw new ConfigError(
      `${renew.from}: the renew deadline ${seconds(renew.ms)} must be greater than 1.2 × the retry period ${seconds(retry.ms)} (${retry.from})`,
    );
  }
  return { leaseDurationMs: lease.ms, renewDeadlineMs: renew.ms, retryPeriodMs: retry.ms };
}
